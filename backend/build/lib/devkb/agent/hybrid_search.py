"""Hybrid retrieval: vector and full-text search over chunks, fused by reciprocal rank fusion,
grouped into documents with their best chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from devkb.indexing.embedders.base import TextEmbedder
from devkb.store.models import ChunkHit, Document, SourceType
from devkb.store.protocol import GraphStore

RRF_K = 60


@dataclass
class DocumentHit:
    document: Document
    score: float
    chunks: list[ChunkHit] = field(default_factory=list)


def rrf(
    rankings: Sequence[Sequence[str]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> dict[str, float]:
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        for rank, key in enumerate(ranking):
            scores[key] = scores.get(key, 0.0) + w / (k + rank + 1)
    return scores


class HybridSearch:
    def __init__(self, store: GraphStore, embedder: TextEmbedder, candidates: int = 50) -> None:
        self.store = store
        self.embedder = embedder
        self.candidates = candidates

    def search(
        self,
        query: str,
        top_k: int = 8,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
        chunks_per_document: int = 2,
    ) -> list[DocumentHit]:
        vector = self.embedder.embed([query])[0]
        dense = self.store.vector_search(vector, self.candidates, types=types, document_ids=document_ids)
        sparse = self.store.keyword_search(query, self.candidates, types=types, document_ids=document_ids)
        by_chunk: dict[str, ChunkHit] = {h.chunk.id: h for h in dense}
        for h in sparse:
            by_chunk.setdefault(h.chunk.id, h)
        fused = rrf([[h.chunk.id for h in dense], [h.chunk.id for h in sparse]])
        docs: dict[str, DocumentHit] = {}
        for chunk_id, score in sorted(fused.items(), key=lambda kv: -kv[1]):
            hit = by_chunk[chunk_id]
            d = docs.get(hit.document.id)
            if d is None:
                d = docs[hit.document.id] = DocumentHit(hit.document, score)
            if len(d.chunks) < chunks_per_document:
                d.chunks.append(ChunkHit(hit.chunk, hit.document, score))
        return sorted(docs.values(), key=lambda d: -d.score)[:top_k]
