"""Fit ``RelatedSearch``'s linear models on the development split and write
``agent/retrieval/ranker_weights.json``.

For every query, the candidates ``RelatedSearch.rank`` selects (plus a dense scan, so the model
sees documents the lexical features miss) give pairs (a more relevant document, a less relevant
one); a logistic regression on the feature differences of the pairs (a linear RankSVM-style
pairwise model, no intercept) gives the weights. Two passes: the second collects candidates with
the first pass's weights. Five-fold cross-validation over queries, running the real search with
weights fitted on the other folds, tells how well the weights carry to unseen queries.

    make eval ARGS="--store .cache/eval/dev-store"     # once: an indexed store to train on
    python -m devkb_devtools.evaluation.train_ranker --store .cache/eval/dev-store/graph.sqlite [--write]

Only the development split (``eval/linked_issues_dev.jsonl``) may be used: held-out queries
are scored with these weights.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from devkb.agent.retrieval.features import ANCHOR_FEATURES, TEXT_FEATURES
from devkb.agent.retrieval.related_search import WEIGHTS_FILE, RelatedSearch
from devkb.store.models import SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.evaluation.corpus import DEFAULT_CACHE_DIR, DEFAULT_FLUID_DIR, make_embedder
from devkb_devtools.evaluation.metrics import score_run
from devkb_devtools.evaluation.queries import RelatedQuery, load_queries
from devkb_devtools.evaluation.related import normalise

MODELS = {"text": TEXT_FEATURES, "anchor": TEXT_FEATURES + ANCHOR_FEATURES}


def collect(
    related: RelatedSearch,
    queries: Sequence[RelatedQuery],
    model: str,
    features: Sequence[str],
    depth: int = 400,
    scan: int = 200,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per query: the candidates' feature matrix and relevance grades."""
    depth0, scan0 = related.rerank_depth, related.dense_scan
    related.rerank_depth, related.dense_scan = depth, scan
    try:
        out = []
        for q in queries:
            anchor = q.doc_id if model == "anchor" else None
            snap, docs, cand, _, _ = related.rank(normalise(q.text), anchor, [SourceType.JIRA])
            X = np.stack([cand[f] for f in features], axis=1).astype(np.float64)
            y = np.asarray([q.relevant.get(snap.ids[i], 0) for i in docs], dtype=np.int64)
            out.append((X, y))
        return out
    finally:
        related.rerank_depth, related.dense_scan = depth0, scan0


def fit_pairwise(
    data: Sequence[tuple[np.ndarray, np.ndarray]], c: float = 1.0, negatives: int = 200, seed: int = 0
) -> np.ndarray:
    """Weights of a logistic regression on (better − worse) feature differences."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    diffs = []
    for X, y in data:
        for p in np.flatnonzero(y > 0):
            worse = np.flatnonzero(y < y[p])
            if worse.size == 0:
                continue
            hard = worse[: negatives // 2]  # candidates come best first: the hardest negatives
            rest = worse[negatives // 2 :]
            pick = np.concatenate(
                [hard, rng.choice(rest, min(negatives - hard.size, rest.size), replace=False)]
            )
            diffs.append(X[p] - X[pick])
    if not diffs:
        raise ValueError("no training pairs: no query has a relevant candidate")
    D = np.concatenate(diffs)
    Xs = np.concatenate([D, -D])
    ys = np.concatenate([np.ones(len(D)), np.zeros(len(D))])
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=5000).fit(Xs, ys)
    return model.coef_[0]


def evaluate(related: RelatedSearch, queries: Sequence[RelatedQuery], model: str) -> dict[str, float]:
    rankings = {}
    for q in queries:
        hits = related.search(
            normalise(q.text),
            top_k=10,
            types=[SourceType.JIRA],
            anchor=q.doc_id if model == "anchor" else None,
        )
        rankings[q.key] = [h.document.id for h in hits if h.document.id != q.doc_id]
    return score_run(rankings, {q.key: q.relevant for q in queries})


def train(
    related: RelatedSearch,
    queries: Sequence[RelatedQuery],
    model: str,
    features: Sequence[str] | None = None,
    folds: int = 5,
    passes: int = 2,
    c: float = 1.0,
    log=print,
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Weights fitted on all ``queries``, their in-sample metrics, and the cross-validated ones."""
    features = list(features or MODELS[model])
    original = dict(related.weights[model])
    weights: dict[str, float] = original
    for p in range(passes):
        related.weights[model] = weights
        data = collect(related, queries, model, features)
        weights = dict(zip(features, map(float, fit_pairwise(data, c)), strict=True))
        log(f"  pass {p + 1}: " + ", ".join(f"{k} {v:+.3f}" for k, v in weights.items()))
    final = weights
    related.weights[model] = final
    fitted = evaluate(related, queries, model)
    if folds < 2:
        return final, fitted, {}
    fold = np.arange(len(queries)) % folds
    rankings_cv: list[dict[str, float]] = []
    for k in range(folds):
        train_q = [q for i, q in enumerate(queries) if fold[i] != k]
        test_q = [q for i, q in enumerate(queries) if fold[i] == k]
        related.weights[model] = final  # candidates for the fold's training pairs: final model's stage 1
        data = collect(related, train_q, model, features)
        related.weights[model] = dict(zip(features, map(float, fit_pairwise(data, c)), strict=True))
        m = evaluate(related, test_q, model)
        rankings_cv.append({**m, "n": len(test_q)})
    related.weights[model] = final
    total = sum(r["n"] for r in rankings_cv)
    cv = {
        key: sum(r[key] * r["n"] for r in rankings_cv) / total for key in ("recall@10", "ndcg@10", "mrr@10")
    }
    return final, fitted, cv


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.train_ranker", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--store",
        type=Path,
        default=DEFAULT_CACHE_DIR / "dev-store" / "graph.sqlite",
        help='an indexed evaluation store (make eval ARGS="--store .cache/eval/dev-store" keeps one)',
    )
    p.add_argument("--data", type=Path, default=DEFAULT_FLUID_DIR)
    p.add_argument("--model", choices=sorted(MODELS), action="append")
    p.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    p.add_argument(
        "--passes", type=int, default=2, help="fits, each collecting candidates with the last weights"
    )
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: no cross-validation)")
    p.add_argument("--write", action="store_true", help=f"write the weights to {WEIGHTS_FILE}")
    args = p.parse_args(argv)
    queries = load_queries(args.data / "eval" / "linked_issues_dev.jsonl", args.data)
    store = SQLiteGraphStore(args.store)
    related = RelatedSearch(store, make_embedder(), unrestricted=True)
    related.warm_up()
    report = {}
    for model in args.model or sorted(MODELS):
        t = time.perf_counter()
        print(f"model {model}: {len(queries)} queries", file=sys.stderr)
        weights, fitted, cv = train(
            related,
            queries,
            model,
            folds=args.folds,
            passes=args.passes,
            c=args.c,
            log=lambda s: print(s, file=sys.stderr),
        )
        report[model] = {"weights": weights, "fit": fitted, "cv": cv}
        print(
            f"  fit  R@10 {fitted['recall@10']:.4f} nDCG@10 {fitted['ndcg@10']:.4f} MRR@10 {fitted['mrr@10']:.4f}",
            file=sys.stderr,
        )
        if cv:
            print(
                f"  {args.folds}-fold CV R@10 {cv['recall@10']:.4f} nDCG@10 {cv['ndcg@10']:.4f} "
                f"MRR@10 {cv['mrr@10']:.4f}",
                file=sys.stderr,
            )
        print(f"  ({time.perf_counter() - t:.0f} s)", file=sys.stderr)
    store.close()
    if args.write:
        data = (
            json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")) if WEIGHTS_FILE.exists() else {"models": {}}
        )
        for model, r in report.items():
            data["models"][model] = {k: round(v, 4) for k, v in r["weights"].items()}
            data.setdefault("training", {})[model] = {
                "split": "eval/linked_issues_dev.jsonl",
                "queries": len(queries),
                "c": args.c,
                "fit": {k: round(v, 4) for k, v in r["fit"].items() if k != "queries"},
                "passes": args.passes,
                f"cv{args.folds}": {k: round(v, 4) for k, v in r["cv"].items()} if r["cv"] else None,
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        data["note"] = (
            "written by python -m devkb_devtools.evaluation.train_ranker --write; see docs/evaluation.md"
        )
        WEIGHTS_FILE.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
