"""``CorpusSnapshot``: an immutable in-memory view of the store that ranking reads — every
document with its chunks, chunk vectors (one matrix, chunks of a document contiguous), BM25
indexes over the text and the titles, and metadata as arrays (project, people, created time,
components, versions).

``SnapshotLoader`` builds it through the store protocol only (``document_ids``,
``content_hashes``, ``get_document``, ``chunk_embeddings``; ``documents_with_vectors`` where the
store has it), so it works on every backend. A reload re-reads only documents whose content
hash changed and re-uses the tokens and vectors of the others.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from scipy import sparse

from devkb.agent.retrieval import int8_scan
from devkb.agent.retrieval.fields import document_fields
from devkb.agent.retrieval.lexical import BM25Index, Tokenizer
from devkb.store.models import Chunk, Document
from devkb.store.protocol import BulkReadingStore, GraphStore

log = logging.getLogger(__name__)
_BATCH = 500
INT8_SCAN_MIN_CHUNKS = 8192  # below this the float32 product is ~1 ms: not worth a second copy


@dataclass(frozen=True)
class DocEntry:
    """One document as the snapshot holds it (re-used across reloads while its hash holds)."""

    document: Document
    chunks: tuple[Chunk, ...]
    vectors: np.ndarray  # (len(chunks), dim), rows L2-normalised; zeros for a chunk without a vector
    text_tokens: tuple[str, ...]
    summary_tokens: tuple[str, ...]


def _timestamp(value: object) -> float:
    if not value:
        return np.nan
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return np.nan


def _codes(values: Sequence[str | None]) -> np.ndarray:
    """Equal non-empty values → equal codes ≥ 0; empty → -1 (never equal to anything)."""
    table: dict[str, int] = {}
    return np.asarray([table.setdefault(v, len(table)) if v else -1 for v in values], dtype=np.int64)


def _incidence(values: Sequence[Sequence[str]]) -> sparse.csr_matrix:
    """Documents × distinct values, 1 where a document has the value."""
    table: dict[str, int] = {}
    rows, cols = [], []
    for i, vs in enumerate(values):
        for v in dict.fromkeys(vs):
            rows.append(i)
            cols.append(table.setdefault(v, len(table)))
    data = np.ones(len(rows), dtype=np.float32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(values), max(1, len(table))))


def _list(meta: dict[str, Any], key: str) -> list[str]:
    value = meta.get(key)
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


class CorpusSnapshot:
    def __init__(
        self, entries: Sequence[DocEntry], tokenizer: Tokenizer, dimension: int, signature: str = ""
    ) -> None:
        self.entries = list(entries)
        self.signature = signature
        self.tokenizer = tokenizer
        self.documents = [e.document for e in self.entries]
        self.ids = [d.id for d in self.documents]
        self.position = {d: i for i, d in enumerate(self.ids)}
        self.n = len(self.ids)
        self.type_names = sorted({str(d.type) for d in self.documents})
        self.types = np.asarray([self.type_names.index(str(d.type)) for d in self.documents], dtype=np.int8)
        counts = np.asarray([len(e.chunks) for e in self.entries], dtype=np.int64)
        self.chunk_start = np.concatenate([[0], np.cumsum(counts)[:-1]]) if self.n else np.zeros(0, np.int64)
        self.chunk_count = counts
        self.vectors = (
            np.concatenate([e.vectors for e in self.entries]).astype(np.float32, copy=False)
            if self.n and counts.sum()
            else np.zeros((0, dimension), dtype=np.float32)
        )
        self.has_chunks = counts > 0
        self._int8: int8_scan.Int8Scan | None = None
        self._int8_tried = False
        self._int8_lock = threading.Lock()
        self._doc_norm = self._doc_residual = np.zeros(0, dtype=np.float32)
        self.text_index = BM25Index.from_tokens({"text": [e.text_tokens for e in self.entries]}, tokenizer)
        self.summary_index = BM25Index.from_tokens(
            {"summary": [e.summary_tokens for e in self.entries]}, tokenizer
        )
        metas = [d.metadata or {} for d in self.documents]
        self.project = _codes(
            [
                m.get("project") if d.type == "JIRA" else None
                for d, m in zip(self.documents, metas, strict=True)
            ]
        )
        self.reporter = _codes([m.get("reporter") for m in metas])
        self.assignee = _codes([m.get("assignee") for m in metas])
        self.created = np.asarray([_timestamp(m.get("created")) for m in metas], dtype=np.float64)
        self.components = _incidence([_list(m, "component") for m in metas])
        self.components_by_value = self.components.tocsc()
        self.fix_versions = _incidence([_list(m, "fix_version") + _list(m, "affects_version") for m in metas])
        self.fix_versions_by_value = self.fix_versions.tocsc()
        self.component_count = np.asarray(self.components.sum(axis=1)).ravel()

    def type_mask(self, types: Sequence[str] | None) -> np.ndarray:
        if types is None:
            return np.ones(self.n, dtype=bool)
        codes = [self.type_names.index(str(t)) for t in types if str(t) in self.type_names]
        return np.isin(self.types, codes)

    def chunk_rows(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row numbers in ``vectors`` of the chunks of ``docs`` (documents in the given order,
        chunks contiguous) and each document's offset into them."""
        counts = self.chunk_count[docs]
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        rows = np.repeat(self.chunk_start[docs] - offsets, counts) + np.arange(int(counts.sum()))
        return rows, offsets

    def similarities(
        self, docs: np.ndarray, query_vector: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For ``docs``: the best chunk cosine, the first chunk's cosine, and the per-chunk
        cosines (rows as ``chunk_rows``). Only these documents' vectors are read."""
        rows, offsets = self.chunk_rows(docs)
        if not rows.size:
            sims = np.zeros(0, dtype=np.float32)
        elif rows.size * 4 > len(self.vectors):  # most of the corpus: one product, no gathered copy
            sims = (self.vectors @ query_vector)[rows]
        else:
            sims = self.vectors[rows] @ query_vector
        best = np.zeros(len(docs), dtype=np.float32)
        first = np.zeros(len(docs), dtype=np.float32)
        has = self.chunk_count[docs] > 0
        if rows.size:
            best[has] = np.maximum.reduceat(sims, offsets[has])
            first[has] = sims[offsets[has]]
        return best, first, sims

    def int8_scan(self) -> int8_scan.Int8Scan | None:
        """The 8-bit copy of ``vectors`` for whole-corpus scans (built once, on first use; ``None``
        below ``INT8_SCAN_MIN_CHUNKS`` or where it cannot be exact: ``int8_scan.build``)."""
        if not self._int8_tried:
            with self._int8_lock:
                if not self._int8_tried:
                    if len(self.vectors) >= INT8_SCAN_MIN_CHUNKS:
                        started = time.perf_counter()
                        scan = int8_scan.build(self.vectors)
                        if scan is not None:  # each document's largest row terms of the bound
                            starts = self.chunk_start[self.has_chunks]
                            self._doc_norm = np.zeros(self.n, dtype=np.float32)
                            self._doc_residual = np.zeros(self.n, dtype=np.float32)
                            self._doc_norm[self.has_chunks] = np.maximum.reduceat(scan.norm, starts)
                            self._doc_residual[self.has_chunks] = np.maximum.reduceat(scan.residual, starts)
                            log.info(
                                "8-bit dense scan: %d chunks in %.2f s",
                                len(self.vectors),
                                time.perf_counter() - started,
                            )
                        self._int8 = scan
                    self._int8_tried = True
        return self._int8

    def top_dense(self, docs: np.ndarray, query_vector: np.ndarray, k: int) -> np.ndarray:
        """Indices into ``docs`` (distinct positions, ascending) of the ``k`` documents whose best
        chunk is nearest ``query_vector`` — the same documents as the top ``k`` of
        ``similarities(docs, …)[0]`` (a document without chunks scores 0), up to ties. Over most of
        the corpus the 8-bit scan bounds every document's best cosine, and only the documents
        whose upper bound reaches the k-th best lower bound are scored in float32."""
        k = min(k, len(docs))
        if k <= 0:
            return np.zeros(0, dtype=np.int64)
        has = self.chunk_count[docs] > 0
        rows = int(self.chunk_count[docs].sum())
        scan = self.int8_scan() if rows * 4 > len(self.vectors) else None
        if scan is None:
            best, _, _ = self.similarities(docs, query_vector)
            return np.argpartition(-best, k - 1)[:k]
        estimate, q_error, q_norm = scan.scores(query_vector)
        nearest = np.zeros(len(docs), dtype=np.float32)  # each document's best estimate
        if len(docs) == self.n:  # the whole corpus: no gathered copy
            nearest[has] = np.maximum.reduceat(estimate, self.chunk_start[has])
        elif rows:
            chunk_rows, offsets = self.chunk_rows(docs)
            nearest[has] = np.maximum.reduceat(estimate[chunk_rows], offsets[has])
        margin = (
            np.float32(q_error) * self._doc_norm[docs]
            + np.float32(q_norm) * self._doc_residual[docs]
            + np.float32(int8_scan.ROUNDING)
        )
        margin[~has] = 0.0  # no chunks: exactly 0, as in similarities
        low, high = nearest - margin, nearest + margin
        threshold = np.partition(low, len(low) - k)[len(low) - k]  # the k-th best lower bound
        rescored = np.flatnonzero(high >= threshold)  # every document that can be in the top k
        exact, _, _ = self.similarities(docs[rescored], query_vector)
        return rescored[np.argpartition(-exact, k - 1)[:k]]

    def best_chunks(self, i: int, sims: np.ndarray, k: int) -> list[tuple[Chunk, float]]:
        """The ``k`` chunks of document ``i`` with the highest ``sims`` (its chunks' cosines,
        in chunk order), returned in chunk order."""
        chunks = self.entries[i].chunks
        if not chunks:
            return []
        if sims.size != len(chunks):
            sims = np.zeros(len(chunks), dtype=np.float32)
        order = np.argsort(-sims, kind="stable")[:k]
        return [(chunks[j], float(sims[j])) for j in sorted(order)]


class SnapshotLoader:
    """Builds and refreshes ``CorpusSnapshot`` from a ``GraphStore``."""

    def __init__(self, store: GraphStore, dimension: int, tokenizer: Tokenizer | None = None) -> None:
        self.store = store
        self.dimension = dimension
        self.tokenizer = tokenizer or Tokenizer()
        self._cached: OrderedDict[str, DocEntry] = OrderedDict()
        self._cache_lock = threading.Lock()

    def signature(self) -> tuple[list[str], dict[str, str], str]:
        ids = sorted(self.store.document_ids())
        hashes = self.store.content_hashes(ids)
        import hashlib

        h = hashlib.sha256()
        for i in ids:
            h.update(f"{i}\x00{hashes.get(i, '')}\x01".encode())
        return ids, hashes, h.hexdigest()

    def load(self, previous: CorpusSnapshot | None = None) -> CorpusSnapshot:
        started = time.perf_counter()
        ids, hashes, signature = self.signature()
        if previous is not None and previous.signature == signature:
            return previous
        old = {e.document.id: e for e in previous.entries} if previous is not None else {}
        entries: list[DocEntry] = []
        todo: list[str] = []
        for i in ids:
            e = old.get(i)
            if e is not None and e.document.content_hash and e.document.content_hash == hashes.get(i):
                entries.append(e)
            else:
                todo.append(i)
        fresh: dict[str, DocEntry] = {}
        for start in range(0, len(todo), _BATCH):
            fresh.update(self._read(todo[start : start + _BATCH]))
        by_id = {e.document.id: e for e in entries} | fresh
        snapshot = CorpusSnapshot(
            [by_id[i] for i in ids if i in by_id], self.tokenizer, self.dimension, signature
        )
        log.info(
            "retrieval snapshot: %d documents (%d re-read), %d chunks in %.1f s",
            snapshot.n,
            len(todo),
            len(snapshot.vectors),
            time.perf_counter() - started,
        )
        snapshot.int8_scan()  # built here, not on the first question
        return snapshot

    def snapshot_of(
        self, ids: Sequence[str], cache: int = 0, known: dict[str, DocEntry] | None = None
    ) -> CorpusSnapshot:
        """A snapshot of just these documents (in this order; unknown ids left out). ``cache``:
        keep up to this many recently read documents (re-used while their content hash holds:
        one query for the hashes instead of reading and tokenizing them again); ``known``:
        entries already read (``entries``)."""
        read = dict(known or {})
        read.update(self.entries([i for i in ids if i not in read], cache))
        return CorpusSnapshot([read[i] for i in ids if i in read], self.tokenizer, self.dimension)

    def entries(self, ids: Sequence[str], cache: int = 0) -> dict[str, DocEntry]:
        """These documents read and tokenized (``cache`` as in ``snapshot_of``)."""
        read: dict[str, DocEntry] = {}
        todo = list(ids)
        if cache:
            hashes = self.store.content_hashes(todo)
            with self._cache_lock:
                for i in todo:
                    e = self._cached.get(i)
                    if e is not None and e.document.content_hash and e.document.content_hash == hashes.get(i):
                        self._cached.move_to_end(i)
                        read[i] = e
            todo = [i for i in todo if i not in read]
        fresh: dict[str, DocEntry] = {}
        for start in range(0, len(todo), _BATCH):
            fresh.update(self._read(todo[start : start + _BATCH]))
        if cache:
            with self._cache_lock:
                self._cached.update(fresh)
                while len(self._cached) > cache:
                    self._cached.popitem(last=False)
        read.update(fresh)
        return read

    def _read(self, ids: Sequence[str]) -> dict[str, DocEntry]:
        store = self.store
        if isinstance(store, BulkReadingStore):  # a few queries, vectors as arrays
            read = store.documents_with_vectors(ids)
        else:
            loaded = [d for d in (store.get_document(i) for i in ids) if d is not None]
            stored = store.chunk_embeddings([c.id for d in loaded for c in d.chunks])
            read = [(d, [_array(stored.get(c.id)) for c in d.chunks]) for d in loaded]
        rows: list[np.ndarray] = []
        spans: list[tuple[Document, tuple[Chunk, ...], int]] = []
        zero = np.zeros(self.dimension, dtype=np.float32)
        for d, vectors in read:
            order = sorted(range(len(d.chunks)), key=lambda j: d.chunks[j].chunk_index)
            spans.append((d.document, tuple(d.chunks[j] for j in order), len(rows)))
            for j in order:
                v = vectors[j] if j < len(vectors) else None
                rows.append(v if v is not None and v.shape[0] == self.dimension else zero)
        # one matrix for the batch, normalised at once; each document's rows are a view into it
        mat = (
            np.vstack(rows).astype(np.float32, copy=False)
            if rows
            else np.zeros((0, self.dimension), np.float32)
        )
        norms = np.linalg.norm(mat, axis=1, keepdims=True)
        mat = (mat / np.where(norms == 0, 1, norms)).astype(np.float32, copy=False)
        out = {}
        for document, chunks, start in spans:
            fields = document_fields(document, chunks)
            text = "\n".join(fields.values())
            out[document.id] = DocEntry(
                document=document,
                chunks=chunks,
                vectors=mat[start : start + len(chunks)],
                text_tokens=tuple(self.tokenizer(text)),
                summary_tokens=tuple(self.tokenizer(fields.get("summary", ""))),
            )
        return out


def _array(vector: Sequence[float] | None) -> np.ndarray | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32)
