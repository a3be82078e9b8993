"""The baseline the query benchmark compares with: a plain Haystack pipeline — a text embedder
and an ``InMemoryEmbeddingRetriever`` over an ``InMemoryDocumentStore`` — holding the same chunks
with the same embeddings as a devkb store, and embedding queries with the same model.

The query embedder is a thin Haystack component around devkb's ``TextEmbedder`` so the two
systems differ only in what comes after the query vector.
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from haystack import Document as HsDocument
from haystack import Pipeline, component
from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

from devkb.indexing.embedders.base import TextEmbedder


@component
class QueryEmbedder:
    """A devkb ``TextEmbedder`` as a Haystack text embedder."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder

    def warm_up(self) -> None:
        self.embedder.warm_up()

    @component.output_types(embedding=list[float])
    def run(self, text: str) -> dict[str, Any]:
        return {"embedding": self.embedder.embed([text])[0].tolist()}


def read_chunks(db_path: Path) -> list[HsDocument]:
    """Every chunk of a devkb SQLite store with its stored embedding, as Haystack documents."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT id, document_id, content, embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    return [
        HsDocument(
            id=cid,
            content=content,
            meta={"document_id": doc_id},
            embedding=np.frombuffer(blob, dtype=np.float32).tolist(),
        )
        for cid, doc_id, content, blob in rows
    ]


class HaystackBaseline:
    def __init__(self, db_path: Path, embedder: TextEmbedder, top_k: int = 50) -> None:
        self.store = InMemoryDocumentStore(
            embedding_similarity_function="cosine", index=f"bench-{uuid.uuid4()}"
        )
        self.store.write_documents(read_chunks(db_path))
        self.retriever = InMemoryEmbeddingRetriever(self.store, top_k=top_k)
        pipeline = Pipeline()
        pipeline.add_component("embed", QueryEmbedder(embedder))
        pipeline.add_component("retrieve", self.retriever)
        pipeline.connect("embed.embedding", "retrieve.query_embedding")
        pipeline.warm_up()
        self.pipeline = pipeline

    def search(self, question: str) -> list[HsDocument]:
        """Embed the question and retrieve (the pipeline, as a Haystack user would run it)."""
        return self.pipeline.run({"embed": {"text": question}})["retrieve"]["documents"]

    def retrieve(self, vector: list[float]) -> list[HsDocument]:
        """The retriever alone, on a precomputed query vector."""
        return self.retriever.run(query_embedding=vector)["documents"]
