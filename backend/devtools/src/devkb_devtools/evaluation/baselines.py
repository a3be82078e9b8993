"""Reference rankers for related-issue retrieval, run in the same harness on the same queries:
BM25 with the ``bm25s`` library, dense cosine over all-MiniLM-L6-v2 vectors (whole text or
chunk max-sim), and reciprocal rank fusion of the two (k = 60).

Each ranker maps a query to the ids of the best documents, the query's own document excluded.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RRF_K = 60


def _stemmer():
    try:
        import Stemmer

        return Stemmer.Stemmer("english")
    except ImportError:  # pragma: no cover - PyStemmer is a dependency
        return None


class BM25sRanker:
    """``bm25s`` (Lucene-style BM25, k1 1.5, b 0.75) with its English stop words and the
    Snowball stemmer."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        import bm25s

        self._bm25s = bm25s
        self.ids = list(ids)
        self.stemmer = _stemmer()
        tokens = bm25s.tokenize(list(texts), stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.model = bm25s.BM25()
        self.model.index(tokens, show_progress=False)

    def rank(self, query: str, exclude: str, k: int = 100) -> list[str]:
        tokens = self._bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        k = min(k + 1, len(self.ids))
        docs, _ = self.model.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [self.ids[i] for i in docs[0] if self.ids[i] != exclude][: k - 1]


class DenseRanker:
    """Cosine between a query vector and document vectors; with ``groups`` (document index
    per row) a document scores its best row (chunk max-sim)."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray, groups: np.ndarray | None = None) -> None:
        self.ids = list(ids)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
        self.groups = groups

    def rank(self, query_vector: np.ndarray, exclude: str, k: int = 100) -> list[str]:
        sims = self.vectors @ np.asarray(query_vector, dtype=np.float32)
        if self.groups is not None:
            per_doc = np.full(len(self.ids), -np.inf, dtype=np.float32)
            np.maximum.at(per_doc, self.groups, sims)
            sims = per_doc
        k = min(k + 1, len(self.ids))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [self.ids[i] for i in top if self.ids[i] != exclude][: k - 1]


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores, key=lambda d: -scores[d])
