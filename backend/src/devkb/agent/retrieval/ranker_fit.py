"""The learnt ranking's weights refitted on one deployment's own pairs (docs/evaluation.md,
"Adaptation"), with numpy only.

``RelatedSearch`` scores a candidate with a linear model over its features (``features.py``);
the shipped weights were fitted once, on the Fluid development split. Here the same model is
refitted on pairs from the deployment's graph: every issue of a pair asks for its partners with
``RelatedSearch.rank`` (a deep first stage, ``DEPTH``), the pair itself left out of its
co-citation feature (a pair must not describe itself), and a pairwise logistic regression on
(more relevant − less relevant) feature differences — each relevant candidate against the
``NEGATIVES // 2`` highest-ranked less relevant ones and as many at random — is fitted by
Newton's method, regularised towards the shipped weights (``strength`` 0 would ignore them; a
large one keeps them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from devkb.agent.retrieval.features import ANCHOR_FEATURES, TEXT_FEATURES
from devkb.agent.retrieval.snapshot import CorpusSnapshot
from devkb.store.models import SourceType

DEPTH = 1000  # first-stage candidates whose features are kept per query
NEGATIVES = 200
MODEL_FEATURES = {True: TEXT_FEATURES + ANCHOR_FEATURES, False: TEXT_FEATURES}


@dataclass
class Pool:
    """One query's candidates: features (columns as ``MODEL_FEATURES``) and relevance grades."""

    features: np.ndarray
    grades: np.ndarray


def collect_pool(
    rank: Callable[..., tuple[CorpusSnapshot, np.ndarray, dict[str, np.ndarray], np.ndarray, bool]],
    snapshot: CorpusSnapshot,
    doc_id: str,
    text: str,
    vector: np.ndarray | None,
    relevant: Mapping[str, int],
    anchored: bool,
    known: frozenset[str] = frozenset(),
    leave_out: frozenset[str] = frozenset(),
    depth: int = DEPTH,
) -> Pool:
    """The candidates ``rank`` (``RelatedSearch.rank``) gives for one query, without the query
    document and the ``known`` ones, as a feature matrix and grades."""
    snap, docs, cand, _, _ = rank(
        text,
        doc_id if anchored else None,
        [SourceType.JIRA],
        snapshot=snapshot,
        vector=vector,
        depth=depth,
        leave_out=leave_out,
    )
    keep = np.fromiter((snap.ids[j] != doc_id and snap.ids[j] not in known for j in docs), bool, len(docs))
    names = MODEL_FEATURES[anchored]
    if not len(docs):
        return Pool(np.zeros((0, len(names)), np.float32), np.zeros(0, np.int8))
    X = np.stack([cand[f][keep] for f in names], axis=1).astype(np.float32)
    grades = np.fromiter((relevant.get(snap.ids[j], 0) for j in np.asarray(docs)[keep]), np.int8)
    return Pool(X, grades)


def pairwise_differences(
    pools: Sequence[Pool], weights: np.ndarray, negatives: int = NEGATIVES, seed: int = 0
) -> np.ndarray:
    """(better − worse) feature rows: each relevant candidate against the ``negatives // 2``
    less relevant candidates ``weights`` rank highest and ``negatives // 2`` at random."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in pools:
        if not p.grades.size or p.grades.max() <= 0:
            continue
        order = np.argsort(-(p.features @ weights), kind="stable")
        y, X = p.grades[order], p.features[order]
        for j in np.flatnonzero(y > 0):
            worse = np.flatnonzero(y < y[j])
            if worse.size == 0:
                continue
            hard, rest = worse[: negatives // 2], worse[negatives // 2 :]
            pick = np.concatenate(
                [hard, rng.choice(rest, min(negatives - hard.size, rest.size), replace=False)]
            )
            rows.append(X[j] - X[pick])
    if not rows:
        return np.zeros((0, len(weights)), np.float64)
    return np.concatenate(rows).astype(np.float64)


def fit_logistic(
    differences: np.ndarray, prior: np.ndarray, strength: float, iterations: int = 50
) -> np.ndarray:
    """``argmin_w Σ log(1 + e^(−w·d)) + λ/2 ||w − prior||²`` over the difference rows ``d``, with
    ``λ = strength · rows / 1000`` (so a strength means the same for any number of rows): Newton's
    method from the prior, each step halved until the objective falls (pairs a feature separates
    perfectly would otherwise send the weights off)."""
    D = np.asarray(differences, dtype=np.float64)
    w = np.asarray(prior, dtype=np.float64).copy()
    if not len(D):
        return w
    lam = max(strength, 1e-9) * len(D) / 1000.0
    eye = np.eye(len(w))

    def objective(v: np.ndarray) -> float:
        return float(np.logaddexp(0.0, -(D @ v)).sum() + 0.5 * lam * np.sum((v - prior) ** 2))

    current = objective(w)
    for _ in range(iterations):
        z = D @ w
        p = 0.5 * (1.0 - np.tanh(0.5 * z))  # σ(−z): how wrong each row is
        grad = -(D.T @ p) + lam * (w - prior)
        hess = (D * (p * (1.0 - p))[:, None]).T @ D + lam * eye
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:
            trial = w - t * step
            value = objective(trial)
            if value <= current:
                break
            t *= 0.5
        else:
            break
        w, improved, current = trial, current - value, value
        if improved < 1e-9 * max(1.0, abs(current)):
            break
    return w


def as_model(weights: np.ndarray, anchored: bool) -> dict[str, float]:
    return {name: round(float(w), 4) for name, w in zip(MODEL_FEATURES[anchored], weights, strict=True)}


def as_vector(model: Mapping[str, float], anchored: bool) -> np.ndarray:
    return np.asarray([float(model.get(name, 0.0)) for name in MODEL_FEATURES[anchored]], dtype=np.float64)
