"""Retrieval adapted to one deployment from its own graph (docs/evaluation.md, "Adaptation").

The store's REFERENCES edges are free training pairs that no query is scored on: issue links,
sub-tasks and epics, an issue naming another, and two issues named by the same commit, pull
request or page. From them this module learns a **query-side linear adapter** on the embedding
space — the matrix ``W`` minimising ``||Q W − D||² + λ ||W − I||²`` over linked pairs (``Q``:
the asking issue's first-chunk vectors, ``D``: the linked document's mean chunk vector), ridge
regularised towards the identity — and ``RelatedSearch`` multiplies the query vector by it
before the dense scan and the dense features. It acts on the query vector only, so stored
vectors are never re-embedded and every store backend takes the same path.

Honesty: a pair's time is the later of its ends' creation times (a link cannot exist before
both issues do). The pairs are cut by time; the adapter is fitted on the earlier part and
judged, against the shipped defaults, on the later part (the *validation* slice, the last
``VALIDATION_SHARE`` of the pairs) with the real ranking — per mode (with an anchor document and
text only). A mode the adapter does not improve by ``MIN_GAIN`` nDCG@10 keeps the defaults. The
decided adapter is then refitted on every pair and written, with the figures, to
``<data_dir>/retrieval/adapter.npz`` and ``adapter.json``. ``time_split_evaluation`` (``devkb
eval``) holds out the last ``TEST_SHARE`` of the pairs as a test the adaptation never sees.

The other candidate is the **ranking's weights refitted** on the deployment's pairs
(``ranker_fit``: a pairwise logistic regression over the same features, regularised towards the
shipped weights, each pair left out of its own co-citation feature). Each candidate is judged on
the validation slice; a mode uses the one whose per-query gain over the defaults is above 0 by
``CONFIDENCE`` standard errors (the best such), else the defaults.

Too few pairs (``min_pairs``) → nothing is written and the shipped defaults stay.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from devkb.agent.retrieval import ranker_fit
from devkb.agent.retrieval.fields import document_fields
from devkb.agent.retrieval.snapshot import CorpusSnapshot
from devkb.store.models import Reference, SourceType
from devkb.store.protocol import GraphStore

log = logging.getLogger(__name__)

ADAPTER_DIR = "retrieval"
ADAPTER_MATRIX = "adapter.npz"
ADAPTER_REPORT = "adapter.json"
EVALUATION_REPORT = "evaluation.json"
# Edges between two issues, directly.
DIRECT_KINDS = frozenset({"jira-issuelink", "jira-subtask", "jira-epic", "jira-key-mention"})
VALIDATION_SHARE = 0.2
TEST_SHARE = 0.2
RIDGES = (0.25, 1.0, 4.0)  # λ = ridge · rows / dimension, the mean eigenvalue of QᵀQ for unit rows
STRENGTHS = (1.0, 10.0, 100.0)  # the ranker refit's pull towards the shipped weights (ranker_fit)
# A setting is used only when its mean nDCG@10 gain over the defaults on the validation queries,
# less this many standard errors of the per-query gains, is above 0: "no worse" with confidence.
CONFIDENCE = 2.0
FIT_QUERIES = 1000  # fit-period queries whose candidate pools the ranker refit learns from
LINK_KINDS = frozenset({"jira-issuelink"})  # the related-issue task: validated on these when enough
MIN_LINK_QUERIES = 100
# Questions about an issue use a learnt setting only in projects whose validation queries (at least
# this many) do not lose with it: a project with no earlier pairs (a new one) keeps the defaults.
MIN_PROJECT_QUERIES = 20
MAX_QUERY_CHARS = 1000
MAX_COCITED = 30  # a commit or page naming more issues than this is a release list, not a pair
K = 10
Progress = Callable[[str, int, int], None]


class Ranking(Protocol):
    """What adaptation needs of ``RelatedSearch`` (which reads the adapter this module writes)."""

    def available(self) -> bool: ...

    def snapshot(self) -> CorpusSnapshot: ...

    def rank(
        self,
        query: str,
        anchor: str | None = None,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
        snapshot: CorpusSnapshot | None = None,
        vector: np.ndarray | None = None,
        depth: int | None = None,
        leave_out: Collection[str] = (),
        weights: Mapping[str, float] | None = None,
    ) -> tuple[CorpusSnapshot, np.ndarray, dict[str, np.ndarray], np.ndarray, bool]: ...

    def model(self, anchored: bool, project: str | None = None) -> Mapping[str, float]: ...


@dataclass(frozen=True)
class Pair:
    """Two documents the graph says belong together; ``time``: when the pair could first exist."""

    a: str
    b: str
    grade: int
    time: float
    kind: str


def _quiet(*_: object) -> None:
    return None


def graph_pairs(references: Iterable[Reference], snapshot: CorpusSnapshot) -> list[Pair]:
    """Issue–issue pairs from the edges: direct ones (links, sub-tasks, epics, key mentions;
    grade 2 for a duplicate link) and co-cited ones (two issues named by the same commit, pull
    request or page). Only pairs whose ends are both in the snapshot and have a creation time."""
    is_issue = {d.id for d in snapshot.documents if d.type == SourceType.JIRA}
    created = snapshot.created
    position = snapshot.position
    best: dict[tuple[str, str], Pair] = {}
    via: dict[str, set[str]] = {}

    def when(*ids: str) -> float:
        times = [created[position[i]] for i in ids if i in position]
        times = [t for t in times if not math.isnan(t)]
        return max(times) if times else math.nan

    def add(a: str, b: str, grade: int, t: float, kind: str) -> None:
        if a == b or math.isnan(t):
            return
        key = (a, b) if a < b else (b, a)
        old = best.get(key)
        if old is None or grade > old.grade or (grade == old.grade and t < old.time):
            best[key] = Pair(key[0], key[1], grade, t, kind)

    for ref in references:
        a, b = ref.from_id, ref.to_id
        if a not in position or b not in position:
            continue
        if a in is_issue and b in is_issue:
            if ref.kind in DIRECT_KINDS:
                grade = 2 if ref.kind == "jira-issuelink" and "duplicat" in ref.evidence.lower() else 1
                add(a, b, grade, when(a, b), ref.kind)
        elif a in is_issue:
            via.setdefault(b, set()).add(a)
        elif b in is_issue:
            via.setdefault(a, set()).add(b)
    for hub, issues in via.items():
        if len(issues) < 2 or len(issues) > MAX_COCITED:
            continue
        members = sorted(issues)
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                add(a, b, 1, when(a, b, hub) if not math.isnan(when(hub)) else when(a, b), "cocited")
    return sorted(best.values(), key=lambda p: (p.time, p.a, p.b))


def cut_by_time(pairs: Sequence[Pair], share: float) -> tuple[list[Pair], list[Pair], float]:
    """The pairs before and from the time that leaves the last ``share`` of them after it."""
    if not pairs:
        return [], [], math.nan
    ordered = sorted(pairs, key=lambda p: p.time)
    at = ordered[min(len(ordered) - 1, int(len(ordered) * (1.0 - share)))].time
    return [p for p in ordered if p.time < at], [p for p in ordered if p.time >= at], at


# -- the adapter ---------------------------------------------------------------------------------
METHODS = ("defaults", "adapter", "ranker")


@dataclass
class QueryAdapter:
    """What one deployment uses in place of the shipped defaults, per mode (``"anchor"``,
    ``"text"``): ``"adapter"`` — the query vector moved by ``v ↦ normalise(v W)`` toward what this
    deployment links; ``"ranker"`` — the ranking's weights refitted on its pairs (``weights``);
    ``"defaults"`` — neither."""

    matrix: np.ndarray | None = None
    methods: dict[str, str] = field(default_factory=lambda: {"anchor": "defaults", "text": "defaults"})
    weights: dict[str, dict[str, float]] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    # mode → the projects where it is used (a mode not named here: everywhere)
    projects: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def vector_map(cls, matrix: np.ndarray, use_anchor: bool = True, use_text: bool = True) -> QueryAdapter:
        """A query adapter alone, used in the given modes."""
        return cls(
            matrix,
            {
                "anchor": "adapter" if use_anchor else "defaults",
                "text": "adapter" if use_text else "defaults",
            },
        )

    def method(self, anchored: bool, project: str | None = None) -> str:
        """What the mode uses — for a question about an issue of ``project``, the defaults where
        the adaptation was not judged to help that project."""
        mode = "anchor" if anchored else "text"
        only = self.projects.get(mode)
        if only is not None and project is not None and project not in only:
            return "defaults"
        return self.methods.get(mode, "defaults")

    def apply(self, vector: np.ndarray) -> np.ndarray:
        if self.matrix is None:
            return np.asarray(vector, dtype=np.float32)
        moved = np.asarray(vector, dtype=np.float32) @ self.matrix
        norm = float(np.linalg.norm(moved))
        return (moved / norm).astype(np.float32) if norm > 0 else np.asarray(vector, dtype=np.float32)

    def used(self, anchored: bool, project: str | None = None) -> bool:
        """Whether the query vector is moved in this mode."""
        return self.matrix is not None and self.method(anchored, project) == "adapter"

    def model(self, anchored: bool, project: str | None = None) -> dict[str, float] | None:
        """The refitted ranking weights of this mode, when they are what it uses."""
        mode = "anchor" if anchored else "text"
        return self.weights.get(mode) if self.method(anchored, project) == "ranker" else None

    @property
    def use_anchor(self) -> bool:
        return self.method(True) != "defaults"

    @property
    def use_text(self) -> bool:
        return self.method(False) != "defaults"

    def save(self, directory: Path) -> None:
        """Both files written beside and renamed into place: a reader never sees half of one
        (the matrix file only when a mode moves the vector; an old one is removed)."""
        directory.mkdir(parents=True, exist_ok=True)
        if self.matrix is not None and "adapter" in self.methods.values():
            tmp = directory / f".{ADAPTER_MATRIX}.{os.getpid()}.tmp.npz"
            np.savez(tmp, matrix=self.matrix.astype(np.float32))
            os.replace(tmp, directory / ADAPTER_MATRIX)
        else:
            (directory / ADAPTER_MATRIX).unlink(missing_ok=True)
        body = {
            **self.report,
            "use_anchor": self.use_anchor,
            "use_text": self.use_text,
            "methods": dict(self.methods),
            "weights": self.weights,
            "projects": self.projects,
        }
        tmp_json = directory / f".{ADAPTER_REPORT}.{os.getpid()}.tmp"
        tmp_json.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp_json, directory / ADAPTER_REPORT)

    @classmethod
    def load(cls, directory: Path, dimension: int | None = None) -> QueryAdapter | None:
        """The stored adaptation, or ``None`` when there is none (or its matrix does not fit
        ``dimension``)."""
        matrix_path, report_path = directory / ADAPTER_MATRIX, directory / ADAPTER_REPORT
        if not report_path.is_file():
            return None
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
            methods = report.get("methods") or {  # written before the ranker refit: the adapter
                "anchor": "adapter" if report.get("use_anchor") else "defaults",
                "text": "adapter" if report.get("use_text") else "defaults",
            }
            methods = {m: str(methods.get(m, "defaults")) for m in ("anchor", "text")}
            weights = {
                mode: {str(k): float(v) for k, v in model.items()}
                for mode, model in (report.get("weights") or {}).items()
            }
            projects = {
                str(mode): [str(p) for p in names] for mode, names in (report.get("projects") or {}).items()
            }
            matrix = None
            if "adapter" in methods.values():
                with np.load(matrix_path, allow_pickle=False) as data:
                    matrix = np.asarray(data["matrix"], dtype=np.float32)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            log.warning("the retrieval adaptation in %s is unreadable (%s): shipped defaults", directory, e)
            return None
        if any(m not in METHODS or (m == "ranker" and mode not in weights) for mode, m in methods.items()):
            return None
        if matrix is not None:
            if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
                return None
            if dimension is not None and matrix.shape[0] != dimension:
                log.warning(
                    "the retrieval adapter is for %d dimensions, not %d: ignored", matrix.shape[0], dimension
                )
                return None
        if all(m == "defaults" for m in methods.values()):
            return None
        return cls(matrix, methods, weights, report, projects)


class AdapterFile:
    """The adapter of a data directory as the search path reads it: loaded on first use and
    again whenever ``adapter.json`` changes (a background adaptation replaced it)."""

    def __init__(self, directory: Path, dimension: int | None = None, check_seconds: float = 2.0) -> None:
        self.directory = directory
        self.dimension = dimension
        self.check_seconds = check_seconds
        self._adapter: QueryAdapter | None = None
        self._stamp: float | None = None
        self._checked = -math.inf
        self._lock = threading.Lock()

    def current(self) -> QueryAdapter | None:
        now = time.monotonic()
        if now - self._checked < self.check_seconds:
            return self._adapter
        with self._lock:
            self._checked = now
            try:
                stamp: float | None = (self.directory / ADAPTER_REPORT).stat().st_mtime
            except OSError:
                stamp = None
            if stamp != self._stamp:
                self._adapter = (
                    QueryAdapter.load(self.directory, self.dimension) if stamp is not None else None
                )
                self._stamp = stamp
            return self._adapter


def fit_matrix(queries: np.ndarray, targets: np.ndarray, ridge: float) -> np.ndarray:
    """``argmin_W ||Q W − D||² + λ ||W − I||²`` with ``λ = ridge · len(Q) / dimension`` (for unit
    rows, the mean eigenvalue of ``QᵀQ``: ``ridge`` 1 weighs the identity as much as the data
    along an average direction); the closed form ``(QᵀQ + λI)⁻¹ (QᵀD + λI)``."""
    q = np.asarray(queries, dtype=np.float64)
    d = np.asarray(targets, dtype=np.float64)
    dim = q.shape[1]
    lam = ridge * max(len(q), 1) / dim
    eye = np.eye(dim)
    return np.linalg.solve(q.T @ q + lam * eye, q.T @ d + lam * eye).astype(np.float32)


def pair_vectors(snapshot: CorpusSnapshot, pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """Both directions of every pair: (the asking document's first-chunk vector, the other's mean
    chunk vector, normalised). Documents without vectors are skipped."""
    s = snapshot
    qs, ds = [], []
    for p in pairs:
        for x, y in ((p.a, p.b), (p.b, p.a)):
            i, j = s.position.get(x), s.position.get(y)
            if i is None or j is None or not s.chunk_count[i] or not s.chunk_count[j]:
                continue
            start, count = int(s.chunk_start[j]), int(s.chunk_count[j])
            target = s.vectors[start : start + count].mean(axis=0)
            norm = float(np.linalg.norm(target))
            if norm == 0:
                continue
            qs.append(s.vectors[int(s.chunk_start[i])])
            ds.append(target / norm)
    dim = s.vectors.shape[1] if s.vectors.ndim == 2 else 0
    if not qs:
        return np.zeros((0, dim), np.float32), np.zeros((0, dim), np.float32)
    return np.asarray(qs, dtype=np.float32), np.asarray(ds, dtype=np.float32)


# -- judging ------------------------------------------------------------------------------------
def ndcg_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = K) -> float:
    """trec_eval's nDCG@k: linear gain, log2 discount, the ideal ranking cut at k."""
    gain = sum(relevant.get(d, 0) / math.log2(r + 2) for r, d in enumerate(ranking[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return gain / best if best > 0 else 0.0


def recall_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = K) -> float:
    hits = sum(1 for d in ranking[:k] if relevant.get(d, 0) > 0)
    wanted = sum(1 for g in relevant.values() if g > 0)
    return hits / wanted if wanted else 0.0


@dataclass(frozen=True)
class Query:
    """A document asking for its later links; ``known``: its earlier ones (left out of the ranking:
    the graph already gives them)."""

    doc_id: str
    relevant: dict[str, int]
    known: frozenset[str] = frozenset()


def queries_of(test: Sequence[Pair], known: Sequence[Pair], direct_only: bool = True) -> list[Query]:
    """Each end of a test pair asks for the other (both directions, as the dev split does)."""
    rel: dict[str, dict[str, int]] = {}
    for p in test:
        if direct_only and p.kind == "cocited":
            continue
        for x, y in ((p.a, p.b), (p.b, p.a)):
            rel.setdefault(x, {})[y] = max(p.grade, rel.get(x, {}).get(y, 0))
    seen: dict[str, set[str]] = {}
    for p in known:
        seen.setdefault(p.a, set()).add(p.b)
        seen.setdefault(p.b, set()).add(p.a)
    return [Query(q, r, frozenset(seen.get(q, set()) - set(r))) for q, r in sorted(rel.items())]


def query_text(snapshot: CorpusSnapshot, i: int) -> str:
    """An issue asked about as a person would paste it: summary and description, whitespace
    collapsed, at most ``MAX_QUERY_CHARS`` characters (what RAGSearch does to a query)."""
    entry = snapshot.entries[i]
    f = document_fields(entry.document, entry.chunks)
    text = f"{f.get('summary', '')}\n\n{f.get('description', '')}"
    return " ".join(text.split())[:MAX_QUERY_CHARS]


@dataclass
class Figures:
    queries: int = 0
    ndcg: float = 0.0
    recall: float = 0.0
    per_project: dict[str, dict[str, float]] = field(default_factory=dict)
    per_query: list[float] = field(default_factory=list, repr=False)  # nDCG@10, in query order
    query_projects: list[str] = field(default_factory=list, repr=False)  # each query issue's project

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("per_query", "query_projects")}


def gain_bound(base: Figures, other: Figures) -> tuple[float, float]:
    """The mean per-query nDCG@10 gain of ``other`` over ``base`` (same queries) and that mean
    less ``CONFIDENCE`` standard errors."""
    d = np.asarray(other.per_query, dtype=np.float64) - np.asarray(base.per_query, dtype=np.float64)
    if d.size < 2:
        return float(d.mean()) if d.size else 0.0, -math.inf
    return float(d.mean()), float(d.mean() - CONFIDENCE * d.std(ddof=1) / math.sqrt(d.size))


def judge(
    search: Ranking,
    snapshot: CorpusSnapshot,
    queries: Sequence[Query],
    adapter: QueryAdapter | None,
    anchored: bool,
    vectors: Mapping[str, np.ndarray] | None = None,
    progress: Progress = _quiet,
    stage: str = "judging",
) -> Figures:
    """nDCG@10 and Recall@10 of the real ranking (``RelatedSearch.rank``) on ``queries``, with the
    query issue as anchor or text only, as ``adapter`` adapts it in that mode when given (the
    query vector moved, or the refitted weights). ``vectors``: each query's vector (default: its
    first chunk's stored vector — no embedding)."""
    ndcgs: list[float] = []
    recalls: list[float] = []
    projects: list[str] = []
    by_project: dict[str, list[float]] = {}
    for n, q in enumerate(queries):
        i = snapshot.position.get(q.doc_id)
        if i is None:
            continue
        project = str((snapshot.documents[i].metadata or {}).get("project") or "")
        weights = adapter.model(anchored, project) if adapter is not None else None
        if vectors is not None and q.doc_id in vectors:
            vector: np.ndarray | None = np.asarray(vectors[q.doc_id], dtype=np.float32)
        elif snapshot.chunk_count[i]:
            vector = snapshot.vectors[int(snapshot.chunk_start[i])]
        else:
            vector = None
        if vector is not None and adapter is not None and adapter.used(anchored, project):
            vector = adapter.apply(vector)
        text = query_text(snapshot, i)
        snap, docs, _, _, _ = search.rank(
            text,
            q.doc_id if anchored else None,
            [SourceType.JIRA],
            snapshot=snapshot,
            vector=vector,
            weights=weights,
        )
        ranking = [snap.ids[j] for j in docs if snap.ids[j] != q.doc_id and snap.ids[j] not in q.known][:K]
        score = ndcg_at(ranking, q.relevant)
        ndcgs.append(score)
        recalls.append(recall_at(ranking, q.relevant))
        projects.append(project)
        by_project.setdefault(project, []).append(score)
        if n % 50 == 0:
            progress(stage, n, len(queries))
    return Figures(
        queries=len(ndcgs),
        ndcg=float(np.mean(ndcgs)) if ndcgs else 0.0,
        recall=float(np.mean(recalls)) if recalls else 0.0,
        per_project={
            p: {"queries": len(v), "ndcg": float(np.mean(v))} for p, v in sorted(by_project.items())
        },
        per_query=ndcgs,
        query_projects=projects,
    )


# -- adapting -----------------------------------------------------------------------------------
@dataclass
class Decision:
    """What an adaptation decided and on what figures (``methods``: per mode, ``METHODS``)."""

    status: str  # "adapted" | "defaults" | "too_few_pairs" | "no_snapshot"
    pairs: int = 0
    fit_pairs: int = 0
    validation_pairs: int = 0
    validation_from: str = ""
    validation_queries: str = ""  # "issue links" | "issue pairs": what the validation asks for
    ridge: float | None = None
    strength: dict[str, float] = field(default_factory=dict)
    projects: dict[str, list[str]] = field(default_factory=dict)  # as QueryAdapter.projects
    methods: dict[str, str] = field(default_factory=lambda: {"anchor": "defaults", "text": "defaults"})
    use_anchor: bool = False
    use_text: bool = False
    validation: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: float = 0.0
    created: str = ""
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds") if not math.isnan(t) else ""


def _spread(queries: Sequence[Query], limit: int) -> list[Query]:
    """At most ``limit`` of ``queries``, evenly spaced."""
    if len(queries) <= limit:
        return list(queries)
    step = len(queries) / limit
    return [queries[int(k * step)] for k in range(limit)]


def _first_vector(snapshot: CorpusSnapshot, i: int) -> np.ndarray | None:
    return snapshot.vectors[int(snapshot.chunk_start[i])] if snapshot.chunk_count[i] else None


def ranker_pools(
    search: Ranking, snapshot: CorpusSnapshot, queries: Sequence[Query], anchored: bool
) -> list[ranker_fit.Pool]:
    """Each query's candidate pool for the ranker refit, its own pairs left out of its
    co-citation (a pair must not describe itself)."""
    out = []
    for q in queries:
        i = snapshot.position.get(q.doc_id)
        if i is None:
            continue
        out.append(
            ranker_fit.collect_pool(
                search.rank,
                snapshot,
                q.doc_id,
                query_text(snapshot, i),
                _first_vector(snapshot, i),
                q.relevant,
                anchored,
                known=q.known,
                leave_out=frozenset(q.relevant),
            )
        )
    return out


def helped_projects(base: Figures, chosen: Figures, min_queries: int = MIN_PROJECT_QUERIES) -> list[str]:
    """Projects with at least ``min_queries`` validation queries whose mean gain is not below 0."""
    gains: dict[str, list[float]] = {}
    for project, a, b in zip(chosen.query_projects, base.per_query, chosen.per_query, strict=True):
        gains.setdefault(project, []).append(b - a)
    return sorted(p for p, g in gains.items() if p and len(g) >= min_queries and float(np.mean(g)) >= 0.0)


def _record(decision: Decision, key: str, figures: Figures, base: Figures | None) -> None:
    row = {
        "ndcg@10": round(figures.ndcg, 4),
        "recall@10": round(figures.recall, 4),
        "queries": figures.queries,
    }
    if base is not None:
        gain, bound = gain_bound(base, figures)
        row.update({"gain": round(gain, 4), "gain_bound": round(bound, 4)})
    decision.validation[key] = row


def adapt(
    search: Ranking,
    snapshot: CorpusSnapshot,
    pairs: Sequence[Pair],
    min_pairs: int = 200,
    ridges: Sequence[float] = RIDGES,
    progress: Progress = _quiet,
    validation_queries: int = 400,
    strengths: Sequence[float] = STRENGTHS,
    fit_queries: int = FIT_QUERIES,
) -> tuple[QueryAdapter | None, Decision]:
    """Fit each candidate on the earlier pairs — the query adapter for each ridge, the ranking's
    weights refitted for each strength — and judge it on the validation slice (the last
    ``VALIDATION_SHARE``: its issue links when it holds ``MIN_LINK_QUERIES`` issues asking for
    them, else every issue pair) against the defaults, per mode. A mode takes the candidate with
    the best lower bound of its gain (``gain_bound``) when that bound is above 0; the chosen one
    is refitted on every pair. ``None`` and the reason when the defaults stay."""
    started = time.monotonic()
    direct = [p for p in pairs if p.kind != "cocited"]
    if len(direct) < min_pairs:
        return None, Decision(
            "too_few_pairs",
            pairs=len(pairs),
            seconds=time.monotonic() - started,
            created=_iso(time.time()),
            note=f"{len(direct)} issue-to-issue pairs < {min_pairs}: shipped defaults",
        )
    fit, validation, at = cut_by_time(pairs, VALIDATION_SHARE)
    links = queries_of([p for p in validation if p.kind in LINK_KINDS], fit)
    queries = links if len(links) >= MIN_LINK_QUERIES else queries_of(validation, fit)
    queries = _spread(queries, validation_queries)  # evenly, so the slice stays the latest period
    decision = Decision(
        "defaults",
        pairs=len(pairs),
        fit_pairs=len(fit),
        validation_pairs=len(validation),
        validation_from=_iso(at),
        validation_queries="issue links" if queries and len(links) >= MIN_LINK_QUERIES else "issue pairs",
        created=_iso(time.time()),
    )
    modes = {"anchor": True, "text": False}
    base: dict[str, Figures] = {}
    for mode, anchored in modes.items():
        base[mode] = judge(
            search, snapshot, queries, None, anchored, progress=progress, stage="validation, defaults"
        )
        _record(decision, f"{mode}_defaults", base[mode], None)
    # (mode) → (bound, method, setting); the chosen candidate's validation figures
    best: dict[str, tuple[float, str, float]] = dict.fromkeys(modes, (0.0, "defaults", 0.0))
    chosen: dict[str, Figures] = {}

    def consider(mode: str, method: str, setting: float, figures: Figures) -> None:
        _record(decision, f"{mode}_{method}_{setting:g}", figures, base[mode])
        _, bound = gain_bound(base[mode], figures)
        if bound > best[mode][0]:
            best[mode] = (bound, method, setting)
            chosen[mode] = figures

    progress("vectors", 0, 1)
    q_fit, d_fit = pair_vectors(snapshot, fit)
    for ridge in ridges:
        adapter = QueryAdapter.vector_map(fit_matrix(q_fit, d_fit, ridge))
        for mode, anchored in modes.items():
            got = judge(
                search,
                snapshot,
                queries,
                adapter,
                anchored,
                progress=progress,
                stage=f"validation, λ={ridge}",
            )
            consider(mode, "ridge", ridge, got)
    fit_asking = _spread(queries_of(fit, []), fit_queries)
    pools: dict[str, list[ranker_fit.Pool]] = {}
    for mode, anchored in modes.items():
        if not strengths:
            break
        progress(f"candidates, {mode}", 0, len(fit_asking))
        pools[mode] = ranker_pools(search, snapshot, fit_asking, anchored)
        prior = ranker_fit.as_vector(search.model(anchored), anchored)
        rows = ranker_fit.pairwise_differences(pools[mode], prior)
        for strength in strengths:
            model = ranker_fit.as_model(ranker_fit.fit_logistic(rows, prior, strength), anchored)
            refit = QueryAdapter(methods={mode: "ranker"}, weights={mode: model})
            got = judge(
                search,
                snapshot,
                queries,
                refit,
                anchored,
                progress=progress,
                stage=f"validation, ranker {strength:g}",
            )
            consider(mode, "ranker", strength, got)
    for mode in modes:
        decision.methods[mode] = "adapter" if best[mode][1] == "ridge" else best[mode][1]
    decision.use_anchor = decision.methods["anchor"] != "defaults"
    decision.use_text = decision.methods["text"] != "defaults"
    decision.seconds = time.monotonic() - started
    if not (decision.use_anchor or decision.use_text):
        decision.note = (
            "no setting's gain on the validation slice was above 0 by "
            f"{CONFIDENCE:g} standard errors: shipped defaults"
        )
        return None, decision
    # refit what was chosen on every pair
    progress("refit", 0, 1)
    matrix = None
    ridges_chosen = [best[m][2] for m in modes if best[m][1] == "ridge"]
    if ridges_chosen:
        decision.ridge = best["anchor"][2] if best["anchor"][1] == "ridge" else ridges_chosen[0]
        q_all, d_all = pair_vectors(snapshot, pairs)
        matrix = fit_matrix(q_all, d_all, decision.ridge)
    weights: dict[str, dict[str, float]] = {}
    later = _spread(queries_of(validation, []), max(1, fit_queries // 4))
    for mode, anchored in modes.items():
        if best[mode][1] != "ranker":
            continue
        decision.strength[mode] = best[mode][2]
        progress(f"refit, {mode}", 0, len(later))
        every = pools[mode] + ranker_pools(search, snapshot, later, anchored)
        prior = ranker_fit.as_vector(search.model(anchored), anchored)
        rows = ranker_fit.pairwise_differences(every, prior)
        weights[mode] = ranker_fit.as_model(ranker_fit.fit_logistic(rows, prior, best[mode][2]), anchored)
    if decision.use_anchor:  # questions about an issue: only in projects that do not lose with it
        decision.projects["anchor"] = helped_projects(base["anchor"], chosen["anchor"])
        if not decision.projects["anchor"]:
            decision.methods["anchor"], decision.use_anchor = "defaults", False
            weights.pop("anchor", None)
            decision.strength.pop("anchor", None)
            decision.projects.pop("anchor")
            if not decision.use_text:
                decision.note = f"no project has {MIN_PROJECT_QUERIES} validation queries that gain: defaults"
                return None, decision
    decision.status = "adapted"
    decision.seconds = time.monotonic() - started
    return (
        QueryAdapter(matrix, dict(decision.methods), weights, decision.to_json(), dict(decision.projects)),
        decision,
    )


@dataclass
class TimeSplit:
    """``devkb eval``: the last ``TEST_SHARE`` of the pairs never seen by the adaptation."""

    test_from: str
    train_pairs: int
    test_pairs: int
    decision: Decision
    defaults: dict[str, Figures]
    adapted: dict[str, Figures]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "test_from": self.test_from,
            "train_pairs": self.train_pairs,
            "test_pairs": self.test_pairs,
            "decision": self.decision.to_json(),
            "defaults": {k: v.to_json() for k, v in self.defaults.items()},
            "adapted": {k: v.to_json() for k, v in self.adapted.items()},
            "seconds": round(self.seconds, 1),
        }


def time_split_evaluation(
    search: Ranking,
    snapshot: CorpusSnapshot,
    pairs: Sequence[Pair],
    min_pairs: int = 200,
    progress: Progress = _quiet,
    test_share: float = TEST_SHARE,
) -> TimeSplit:
    """Adapt on the pairs before the cut (deciding on its own validation slice) and score the
    shipped defaults and the adapted search on the pairs after it."""
    started = time.monotonic()
    train, test, at = cut_by_time(pairs, test_share)
    adapter, decision = adapt(search, snapshot, train, min_pairs=min_pairs, progress=progress)
    queries = queries_of(test, train)
    defaults, adapted = {}, {}
    for mode, anchored in (("anchor", True), ("text", False)):
        defaults[mode] = judge(
            search, snapshot, queries, None, anchored, progress=progress, stage=f"test, {mode}, defaults"
        )
        if adapter is not None and adapter.method(anchored) != "defaults":
            adapted[mode] = judge(
                search,
                snapshot,
                queries,
                adapter,
                anchored,
                progress=progress,
                stage=f"test, {mode}, adapted",
            )
        else:
            adapted[mode] = defaults[mode]
    return TimeSplit(_iso(at), len(train), len(test), decision, defaults, adapted, time.monotonic() - started)


# -- the deployment's adaptation, in the background ----------------------------------------------
@dataclass
class AdaptationStatus:
    state: str = "idle"  # idle | running | succeeded | failed
    stage: str = ""
    done: int = 0
    total: int = 0
    started: str = ""
    finished: str = ""
    error: str = ""
    edges_seen: int = 0  # the store's edge count the last adaptation started from


class GraphAdaptation:
    """Adapts ``search`` to the store's graph: after a sync that added ``new_edges`` edges since
    the last adaptation (``after_sync``), or on request (``start``), in a background thread with
    its progress in ``status``. The decision and the adapter go to ``directory``, where the
    search's ``AdapterFile`` picks them up; a decision for the defaults removes the matrix."""

    def __init__(
        self,
        store: GraphStore,
        search: Ranking,
        directory: Path,
        min_pairs: int = 200,
        new_edges: int = 200,
        enabled: bool = True,
        judge: Ranking | None = None,
    ) -> None:
        """``search``: the served search (its snapshot is shared); ``judge``: the same ranking
        for every reader (unrestricted, on the unscoped store) that scores the validation and
        test queries — default ``search`` itself, for a search that is unrestricted already."""
        self.store = store
        self.search = search
        self.judge = judge
        self.directory = directory
        self.min_pairs = min_pairs
        self.new_edges = new_edges
        self.enabled = enabled
        self.status = AdaptationStatus()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # -- reading ----------------------------------------------------------------------------
    def decision(self) -> dict[str, Any] | None:
        return self._read(ADAPTER_REPORT)

    def evaluation(self) -> dict[str, Any] | None:
        return self._read(EVALUATION_REPORT)

    def _read(self, name: str) -> dict[str, Any] | None:
        try:
            data = json.loads((self.directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def edge_count(self) -> int:
        return sum(self.store.stats().references_by_kind.values())

    # -- running ----------------------------------------------------------------------------
    def after_sync(self, *_: object) -> bool:
        """A sync finished: adapt in the background when enough edges are new."""
        if not self.enabled:
            return False
        try:
            edges = self.edge_count()
        except Exception:  # a store that cannot count now: next sync
            log.exception("counting edges for the retrieval adaptation failed")
            return False
        if edges - self.status.edges_seen < self.new_edges:
            return False
        return self.start(evaluate=False)

    def start(self, evaluate: bool = True) -> bool:
        """Adapt (and with ``evaluate``, run the time-split evaluation) in a background thread;
        ``False`` when one is running already."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return False
            self.status = AdaptationStatus(
                state="running", started=_iso(time.time()), edges_seen=self.status.edges_seen
            )
            self._thread = threading.Thread(
                target=self._work, args=(evaluate,), name="retrieval-adaptation", daemon=True
            )
            self._thread.start()
            return True

    def wait(self, timeout: float | None = None) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.status.stage, self.status.done, self.status.total = stage, done, total

    def _work(self, evaluate: bool) -> None:
        try:
            self.run(evaluate)
            self.status.state = "succeeded"
        except Exception as e:
            log.exception("the retrieval adaptation failed")
            self.status.state, self.status.error = "failed", f"{type(e).__name__}: {e}"
        finally:
            self.status.finished = _iso(time.time())

    def _judge_search(self) -> Ranking:
        return self.judge if self.judge is not None else self.search

    def pairs(self) -> tuple[CorpusSnapshot | None, list[Pair]]:
        if not self.search.available():
            return None, []
        snapshot = self.search.snapshot()
        return snapshot, graph_pairs(self.store.all_references(), snapshot)

    def run(self, evaluate: bool = False) -> Decision:
        """Adapt now (blocking): write the adapter, or remove it when the defaults stay."""
        self.status.edges_seen = self.edge_count()
        self._progress("pairs", 0, 1)
        snapshot, pairs = self.pairs()
        if snapshot is None:
            decision = Decision(
                "no_snapshot",
                created=_iso(time.time()),
                note="the store is above DEVKB_RELATED_SEARCH_MAX_DOCUMENTS: no snapshot to adapt on",
            )
            adapter = None
        else:
            judge_search = self._judge_search()
            if evaluate:
                split = time_split_evaluation(
                    judge_search, snapshot, pairs, min_pairs=self.min_pairs, progress=self._progress
                )
                self._write(EVALUATION_REPORT, {**split.to_json(), "created": _iso(time.time())})
            adapter, decision = adapt(
                judge_search, snapshot, pairs, min_pairs=self.min_pairs, progress=self._progress
            )
        if adapter is not None:
            adapter.save(self.directory)
        else:
            (self.directory / ADAPTER_MATRIX).unlink(missing_ok=True)
            self._write(ADAPTER_REPORT, {**decision.to_json(), "use_anchor": False, "use_text": False})
        log.info("retrieval adaptation: %s (%s)", decision.status, decision.note or decision.validation)
        return decision

    def evaluate(self, progress: Progress | None = None) -> TimeSplit:
        """The time-split evaluation now (blocking), also kept for the admin API."""
        snapshot, pairs = self.pairs()
        if snapshot is None:
            raise ValueError(
                "the store is above DEVKB_RELATED_SEARCH_MAX_DOCUMENTS: no snapshot to evaluate on"
            )
        split = time_split_evaluation(
            self._judge_search(),
            snapshot,
            pairs,
            min_pairs=self.min_pairs,
            progress=progress or self._progress,
        )
        self._write(EVALUATION_REPORT, {**split.to_json(), "created": _iso(time.time())})
        return split

    def _write(self, name: str, body: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / f".{name}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.directory / name)
