"""``ChunkEmbedder``: embeds chunks, reusing stored vectors of chunks whose id (a hash of
document id, position and text) is already in the store."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.shared_document import Batch
from devkb.store.protocol import GraphStore


@component
class ChunkEmbedder:
    def __init__(self, embedder: TextEmbedder, store: GraphStore, batch_size: int = 64) -> None:
        self.embedder = embedder
        self.store = store
        self.batch_size = batch_size
        # a remote embedder (a GPU service) says how many requests it takes at once; in flight
        # together, they hide each request's round trip and keep the service busy
        self.concurrency = max(1, int(getattr(embedder, "concurrency", 1)))
        self._pool: ThreadPoolExecutor | None = None
        # vectors embedded ahead of their batch (``embed_ahead``), by chunk id, until ``run`` takes them
        self._ahead: dict[str, list[float]] = {}
        self._ahead_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self.embedded = 0  # chunks embedded by the model (not reused), for run statistics
        self.reused = 0

    def warm_up(self) -> None:
        self.embedder.warm_up()

    def embed_ahead(self, chunks: Sequence[HsDocument]) -> None:
        """Embed ``chunks`` now (from the sync's read-ahead thread) so that ``run`` finds their
        vectors when their batch reaches it: a remote embedder then works while the store writes
        the batch before. Chunks whose vectors the store or an earlier call has are skipped."""
        with self._ahead_lock:
            pending = {c.id for c in chunks} - self._ahead.keys()
        todo = [c for c in chunks if c.id in pending]
        known = self.store.chunk_embeddings([c.id for c in todo]) if todo else {}
        todo = list({c.id: c for c in todo if c.id not in known}.values())
        vectors = self._embed(todo)
        with self._ahead_lock:
            self._ahead.update(vectors)
        with self._count_lock:
            self.embedded += len(todo)

    def clear_ahead(self) -> None:
        with self._ahead_lock:
            self._ahead.clear()

    def _embed(self, todo: list[HsDocument]) -> dict[str, list[float]]:
        vectors: dict[str, list[float]] = {}
        batches = [todo[i : i + self.batch_size] for i in range(0, len(todo), self.batch_size)]
        texts = [[c.content or "" for c in batch] for batch in batches]
        if self.concurrency > 1 and len(batches) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="devkb-embed")
            results = list(self._pool.map(self.embedder.embed, texts))
        else:
            results = [self.embedder.embed(t) for t in texts]
        for batch, embedded in zip(batches, results, strict=True):
            for c, v in zip(batch, embedded, strict=True):
                vectors[c.id] = v.tolist()
        return vectors

    @component.output_types(chunks=Batch[HsDocument])
    def run(self, chunks: Batch[HsDocument]) -> dict[str, Batch[HsDocument]]:
        ahead: dict[str, list[float]] = {}
        if self._ahead:
            with self._ahead_lock:
                ahead = {c.id: v for c in chunks if (v := self._ahead.pop(c.id, None)) is not None}
        rest = [c for c in chunks if c.id not in ahead]
        known = self.store.chunk_embeddings([c.id for c in rest]) if rest else {}
        todo = [c for c in rest if c.id not in known]
        vectors: dict[str, list[float]] = {**known, **ahead, **self._embed(todo)}
        with self._count_lock:
            self.embedded += len(todo)
            self.reused += len(chunks) - len(todo) - len(ahead)
        return {"chunks": Batch(replace(c, embedding=vectors[c.id]) for c in chunks)}
