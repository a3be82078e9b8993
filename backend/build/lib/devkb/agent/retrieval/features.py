"""Ranking features of every document in a ``CorpusSnapshot`` for one query, as arrays.

Text features (any query):

    bm25         BM25 of the query over the whole document text, / the best score
    bm25_title   BM25 of the query over the titles, / the best score
    dense_max    cosine of the query vector and the document's closest chunk (chunk max-sim)
    dense_first  cosine of the query vector and the document's first chunk (title, fields, start)

Anchor features (the query is about a known document, e.g. "what is related to FLUID-123?"):

    title_anchor    BM25 of the anchor's title over the titles, / the best score
    same_project    1 when both are Jira issues of the same project
    log_days        log(1 + days between the two creation times); 10^4 days when unknown
    within_day      exp(-days), within_month  exp(-days / 30)
    same_reporter, same_assignee   1 when equal and known
    components      Jaccard overlap of the Jira components
    versions        1 when a fix or affects version is shared
    cocitation      log(1 + number of documents that reference both), through REFERENCES
                    other than issue links (commits, pull requests, pages, other issues' texts)

Lexical and anchor features are computed for every document (sparse column sums and vector
arithmetic, a few ms for 12k documents); dense features only for the candidates the others
select, because reading every chunk vector (22k × 384 floats, 34 MB) costs 13-30 ms on a busy
2-core machine — memory-bound — against ~0.5 ms for the 1-2k chunks of 400 candidates.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import sparse

from devkb.agent.retrieval.fields import summary_of
from devkb.agent.retrieval.snapshot import CorpusSnapshot

TEXT_FEATURES = ("bm25", "bm25_title", "dense_max", "dense_first")
ANCHOR_FEATURES = (
    "title_anchor",
    "same_project",
    "log_days",
    "within_day",
    "within_month",
    "same_reporter",
    "same_assignee",
    "components",
    "versions",
    "cocitation",
)
UNKNOWN_DAYS = 1e4


def _scaled(x: np.ndarray) -> np.ndarray:
    top = float(x.max()) if x.size else 0.0
    return (x / top).astype(np.float32) if top > 0 else np.zeros_like(x, dtype=np.float32)


def lexical_features(snapshot: CorpusSnapshot, query: str) -> dict[str, np.ndarray]:
    """``bm25`` and ``bm25_title`` of every document."""
    return {
        "bm25": _scaled(snapshot.text_index.scores(query)),
        "bm25_title": _scaled(snapshot.summary_index.scores(query)),
    }


def dense_features(
    snapshot: CorpusSnapshot, docs: np.ndarray, query_vector: np.ndarray | None
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``dense_max`` and ``dense_first`` of ``docs`` (and the per-chunk cosines, for passages)."""
    if query_vector is None or not snapshot.vectors.size:
        zeros = np.zeros(len(docs), dtype=np.float32)
        return {"dense_max": zeros, "dense_first": zeros}, np.zeros(0, dtype=np.float32)
    best, first, sims = snapshot.similarities(docs, query_vector)
    return {"dense_max": best, "dense_first": first}, sims


def _shared(rows: sparse.csr_matrix, columns: sparse.csc_matrix, anchor: int) -> np.ndarray:
    """How many values each document shares with the anchor."""
    values = rows.indices[rows.indptr[anchor] : rows.indptr[anchor + 1]]
    if values.size == 0:
        return np.zeros(rows.shape[0], dtype=np.float64)
    return np.asarray(columns[:, values].sum(axis=1), dtype=np.float64).ravel()


def anchor_features(
    snapshot: CorpusSnapshot, anchor: int, cocited: Mapping[str, float] | None = None
) -> dict[str, np.ndarray]:
    s = snapshot
    title_scores = _scaled(s.summary_index.scores(summary_of(s.documents[anchor])))

    def same(codes: np.ndarray) -> np.ndarray:
        c = codes[anchor]
        return (codes == c).astype(np.float32) if c >= 0 else np.zeros(s.n, dtype=np.float32)

    if np.isnan(s.created[anchor]):
        days = np.full(s.n, UNKNOWN_DAYS)
    else:
        days = np.nan_to_num(np.abs(s.created - s.created[anchor]) / 86400.0, nan=UNKNOWN_DAYS)
    shared = _shared(s.components, s.components_by_value, anchor)
    union = s.component_count + s.component_count[anchor] - shared
    components = np.divide(shared, union, out=np.zeros(s.n, dtype=np.float64), where=union > 0)
    versions = _shared(s.fix_versions, s.fix_versions_by_value, anchor) > 0
    cocitation = np.zeros(s.n, dtype=np.float32)
    for doc_id, count in (cocited or {}).items():
        i = s.position.get(doc_id)
        if i is not None:
            cocitation[i] = np.log1p(count)
    return {
        "title_anchor": title_scores,
        "same_project": same(s.project),
        "log_days": np.log1p(days).astype(np.float32),
        "within_day": np.exp(-days).astype(np.float32),
        "within_month": np.exp(-days / 30.0).astype(np.float32),
        "same_reporter": same(s.reporter),
        "same_assignee": same(s.assignee),
        "components": components.astype(np.float32),
        "versions": versions.astype(np.float32),
        "cocitation": cocitation,
    }


PRF_FEATURES = ("bm25_prf", "dense_prf")


def prf_features(
    snapshot: CorpusSnapshot, feedback: np.ndarray, docs: np.ndarray, terms: int = 30
) -> dict[str, np.ndarray]:
    """Pseudo-relevance feedback from the ``feedback`` documents (the first stage's best):
    ``bm25_prf`` scores every document with their ``terms`` highest-weighted BM25 terms (an
    RM3-like expansion, without the original query); ``dense_prf`` is the cosine of ``docs``'
    best chunk with the mean of the feedback documents' first-chunk vectors (Rocchio)."""
    field = snapshot.text_index.fields["text"]
    rows = field.matrix.tocsr()[feedback]
    weight = np.asarray(rows.sum(axis=0)).ravel()
    top = (
        np.argpartition(-weight, min(terms, weight.size) - 1)[:terms]
        if weight.size
        else np.zeros(0, np.int64)
    )
    top = top[weight[top] > 0]
    bm25 = _scaled(
        field.scores(top, (weight[top] / weight[top].max()).astype(np.float32))
        if top.size
        else np.zeros(snapshot.n, np.float32)
    )
    with_chunks = feedback[snapshot.chunk_count[feedback] > 0]
    if with_chunks.size and snapshot.vectors.size:
        centroid = snapshot.vectors[snapshot.chunk_start[with_chunks]].mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
        dense, _, _ = snapshot.similarities(docs, centroid.astype(np.float32))
    else:
        dense = np.zeros(len(docs), dtype=np.float32)
    return {"bm25_prf": bm25[docs], "dense_prf": dense}
