"""``ChunkEmbedder``: embeds chunks, reusing stored vectors of chunks whose id (a hash of
document id, position and text) is already in the store."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

import numpy as np
from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.shared_document import Batch, SharedDocument
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
        # requests sent ahead of their batch (``embed_ahead``), by chunk id, until ``run`` takes them
        self._ahead: dict[str, Future[dict[str, list[float]]]] = {}
        self._ahead_source: dict[str, str] = {}  # chunk id → the source whose sync sent it ahead
        self._ahead_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self.embedded = 0  # chunks embedded by the model (not reused), for run statistics
        # the same per source: several sources' syncs may share this embedder at once
        self.embedded_by: Counter[str] = Counter()
        self.reused = 0

    def _count(self, source: str, n: int) -> None:
        with self._count_lock:
            self.embedded += n
            self.embedded_by[source] += n

    def warm_up(self) -> None:
        self.embedder.warm_up()

    def embed_ahead(self, chunks: Sequence[HsDocument], source: str = "") -> None:
        """Send ``chunks`` to the embedder now (from the sync's read-ahead thread) without waiting
        for the vectors: ``run`` takes them when their batch reaches it. A remote embedder then
        works while this process reads the next batches and writes the ones before, instead of
        the read-ahead waiting for each batch's vectors before it reads the next. Chunks whose
        vectors the store has or that were already sent are skipped."""
        with self._ahead_lock:
            pending = {c.id for c in chunks} - self._ahead.keys()
        todo = [c for c in chunks if c.id in pending]
        known = self.store.chunk_embeddings([c.id for c in todo]) if todo else {}
        todo = list({c.id: c for c in todo if c.id not in known}.values())
        if not todo:
            return
        pool = self._executor()
        for i in range(0, len(todo), self.batch_size):
            batch = todo[i : i + self.batch_size]
            future = pool.submit(self._embed_one, batch)
            with self._ahead_lock:
                self._ahead.update((c.id, future) for c in batch)
                self._ahead_source.update((c.id, source) for c in batch)
        self._count(source, len(todo))

    def clear_ahead(self, source: str | None = None) -> None:
        """Drop the requests sent ahead for ``source`` (every source's when None); another
        source's sync running at the same time keeps its own."""
        with self._ahead_lock:
            ids = [i for i in self._ahead if source is None or self._ahead_source.get(i) == source]
            dropped = [(self._ahead.pop(i), self._ahead_source.pop(i, "")) for i in ids]
        for future, _ in dropped:
            future.cancel()
        for future, sent_for in dropped:
            if future.cancelled():  # never reached the embedder: not embedded after all
                self._count(sent_for, -1)

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="devkb-embed")
        return self._pool

    def _embed_one(self, batch: list[HsDocument]) -> dict[str, list[float]]:
        """Each chunk's vector as the embedder's float32 row (not a list of Python floats: the
        store writes the row's bytes, and a row crosses to the store's write process as one
        buffer instead of 384 objects)."""
        embedded = np.asarray(self.embedder.embed([c.content or "" for c in batch]), dtype=np.float32)
        return {c.id: v for c, v in zip(batch, embedded, strict=True)}

    def _take_ahead(self, chunks: Sequence[HsDocument]) -> dict[str, list[float]]:
        """The vectors ``embed_ahead`` asked for, waiting for those still on their way; a request
        that failed is dropped here and its chunks are embedded by ``run`` (with its errors)."""
        with self._ahead_lock:
            futures = {c.id: f for c in chunks if (f := self._ahead.pop(c.id, None)) is not None}
            sent_for = {i: self._ahead_source.pop(i, "") for i in futures}
        out: dict[str, list[float]] = {}
        for chunk_id, future in futures.items():
            try:
                vector = future.result().get(chunk_id)
            except Exception:
                self._count(sent_for[chunk_id], -1)  # counted when sent; ``run`` embeds and counts it again
                continue
            if vector is not None:
                out[chunk_id] = vector
        return out

    def _embed(self, todo: list[HsDocument]) -> dict[str, list[float]]:
        batches = [todo[i : i + self.batch_size] for i in range(0, len(todo), self.batch_size)]
        if self.concurrency > 1 and len(batches) > 1:
            results = list(self._executor().map(self._embed_one, batches))
        else:
            results = [self._embed_one(batch) for batch in batches]
        return {chunk_id: v for vectors in results for chunk_id, v in vectors.items()}

    @component.output_types(chunks=Batch[HsDocument])
    def run(self, chunks: Batch[HsDocument], source: str = "") -> dict[str, Batch[HsDocument]]:
        ahead = self._take_ahead(chunks) if self._ahead else {}
        rest = [c for c in chunks if c.id not in ahead]
        known = self.store.chunk_embeddings([c.id for c in rest]) if rest else {}
        todo = [c for c in rest if c.id not in known]
        vectors: dict[str, list[float]] = {**known, **ahead, **self._embed(todo)}
        self._count(source, len(todo))
        with self._count_lock:
            self.reused += len(chunks) - len(todo) - len(ahead)
        return {"chunks": Batch(_with_vector(c, vectors[c.id]) for c in chunks)}


def _with_vector(chunk: HsDocument, vector: Sequence[float]) -> HsDocument:
    if isinstance(chunk, SharedDocument) and chunk.content is not None:
        return SharedDocument.of(chunk.id, chunk.content, chunk.meta, vector)
    return replace(chunk, embedding=[float(x) for x in vector])
