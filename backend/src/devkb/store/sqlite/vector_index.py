"""Exact cosine search over chunk embeddings held in memory as one float32 matrix.

The matrix mirrors the ``chunks`` table and refreshes incrementally: rows with a rowid above the
last one loaded are appended, rowids in ``chunk_tombstones`` past the last seen sequence are
masked out. A store generation counter (bumped by every write transaction, also by other
processes) tells when to refresh. Exact search keeps filtered search exact and simple; see
``docs/store.md`` for the measurements behind the choice.

A refresh reads new rows in pages of ``PAGE_ROWS`` and writes them, normalised, straight into the
matrix, whose capacity is sized up front from ``max(rowid)`` (an upper bound of the new rows;
untouched capacity is never written, so it costs address space, not memory). Loading 1M chunks
this way peaks at about the matrix's size instead of ~3.5× (all rows fetched at once, joined,
normalised into a copy, then copied into place) — measured by ``make bench`` (scale).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

PAGE_ROWS = 16_384  # rows per fetch while refreshing (~25 MB of 384-d float32 blobs)
# A scan of at least this many rows is split into one contiguous block per core, each product
# on a thread of its own (numpy releases the GIL): the product is bound by memory bandwidth, which
# one core does not fill — 1M × 384 rows took 203 ms on one thread and 106 ms on two (2 cores).
# The server keeps BLAS itself to one thread (many requests at once); these threads are bounded
# by the pool below, shared by every search. Smaller scans stay on the caller's thread.
PARALLEL_SCAN_ROWS = 131_072
SCAN_THREADS = max(1, min(8, os.cpu_count() or 1))
_SCAN_POOL = ThreadPoolExecutor(max_workers=SCAN_THREADS, thread_name_prefix="devkb-vector-scan")


def scan(vectors: np.ndarray, q: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``vectors @ q`` (of ``vectors[rows]`` when given) as float32, split over the scan threads
    when there are at least ``PARALLEL_SCAN_ROWS`` rows."""
    n = vectors.shape[0] if rows is None else rows.shape[0]
    if n < PARALLEL_SCAN_ROWS or SCAN_THREADS < 2:
        whole: np.ndarray = (vectors if rows is None else vectors[rows]) @ q
        return whole
    out = np.empty(n, dtype=np.float32)
    bounds = np.linspace(0, n, SCAN_THREADS + 1, dtype=np.int64)

    def block(a: int, b: int) -> None:
        part = vectors[a:b] if rows is None else vectors[rows[a:b]]
        np.matmul(part, q, out=out[a:b])

    for f in [_SCAN_POOL.submit(block, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]:
        f.result()
    return out


class VectorIndex:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._dim: int | None = None
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._rowids = np.zeros(0, dtype=np.int64)
        self._doc_rowids = np.zeros(0, dtype=np.int64)
        self._alive = np.zeros(0, dtype=bool)
        self._max_rowid = 0
        self._tombstone_seq = 0
        self._count = 0
        self._dead = 0  # rows masked out since the last compaction

    def search(
        self,
        conn: sqlite3.Connection,
        generation: int,
        query: Sequence[float],
        top_k: int,
        allowed_doc_rowids: np.ndarray | None,
    ) -> list[tuple[int, float]]:
        """``[(chunk_rowid, cosine)]`` best first."""
        with self._lock:
            if generation != self._generation:
                self._refresh(conn)
                self._generation = generation
            n = self._count
            if n == 0:
                return []
            vectors = self._vectors[:n]
            mask = self._alive[:n]
            q = np.asarray(query, dtype=np.float32)
            if q.shape[0] != vectors.shape[1]:
                raise ValueError(f"query dimension {q.shape[0]} != index dimension {vectors.shape[1]}")
            norm = float(np.linalg.norm(q))
            if norm > 0:
                q = q / norm
            if allowed_doc_rowids is not None:
                mask = mask & np.isin(self._doc_rowids[:n], allowed_doc_rowids)
                idx = np.flatnonzero(mask)
                if idx.size == 0:
                    return []
                scores = scan(vectors, q, idx)
                rowids = self._rowids[idx]
            else:
                scores = scan(vectors, q)
                if self._dead:
                    scores[~mask] = -np.inf
                rowids = self._rowids[:n]
            k = min(top_k, scores.shape[0])
            top = np.argpartition(scores, scores.shape[0] - k)[scores.shape[0] - k :]  # no negated copy
            top = top[np.argsort(-scores[top])]
            return [(int(rowids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def _refresh(self, conn: sqlite3.Connection) -> None:
        top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0
        if top > self._max_rowid:
            cursor = conn.execute(
                "SELECT c.rowid, d.rowid, c.embedding FROM chunks c JOIN documents d ON d.id = c.document_id "
                "WHERE c.rowid > ? AND c.embedding IS NOT NULL ORDER BY c.rowid",
                (self._max_rowid,),
            )
            reserved = False
            while rows := cursor.fetchmany(PAGE_ROWS):
                if self._dim is None:
                    self._dim = len(rows[0][2]) // 4
                    self._vectors = np.zeros((0, self._dim), dtype=np.float32)
                if not reserved:  # at most top - max_rowid new rows: one allocation, no regrowth
                    self._reserve(self._count + top - self._max_rowid)
                    reserved = True
                self._append_page(rows)
            cursor.close()
        tomb = conn.execute(
            "SELECT seq, chunk_rowid FROM chunk_tombstones WHERE seq > ? ORDER BY seq", (self._tombstone_seq,)
        ).fetchall()
        if tomb:
            dead = np.fromiter((t[1] for t in tomb), dtype=np.int64, count=len(tomb))
            n = self._count
            hit = self._alive[:n] & np.isin(self._rowids[:n], dead)
            self._alive[:n] &= ~hit
            self._dead += int(hit.sum())
            self._tombstone_seq = int(tomb[-1][0])
        # compact when more than a quarter is dead
        n = self._count
        if n and self._dead > n // 4:
            keep = np.flatnonzero(self._alive[:n])
            self._vectors = self._vectors[keep].copy()
            self._rowids = self._rowids[keep].copy()
            self._doc_rowids = self._doc_rowids[keep].copy()
            self._alive = np.ones(len(keep), dtype=bool)
            self._count = len(keep)
            self._dead = 0

    def _reserve(self, rows: int) -> None:
        """Grow the arrays to hold ``rows`` rows (np.zeros: pages are committed when written)."""
        if rows <= self._vectors.shape[0]:
            return
        assert self._dim is not None
        n = self._count
        grown = np.zeros((rows, self._dim), dtype=np.float32)
        grown[:n] = self._vectors[:n]
        self._vectors = grown
        for name, dtype in (("_rowids", np.int64), ("_doc_rowids", np.int64), ("_alive", bool)):
            arr = np.zeros(rows, dtype=dtype)
            arr[:n] = getattr(self, name)[:n]
            setattr(self, name, arr)

    def _append_page(self, rows: list[tuple[int, int, bytes]]) -> None:
        """Normalise one page of ``(chunk_rowid, doc_rowid, blob)`` rows into the matrix."""
        n, m = self._count, len(rows)
        if n + m > self._vectors.shape[0]:
            self._reserve(max(n + m, int(self._vectors.shape[0] * 1.5) + 1024))
        block = self._vectors[n : n + m]
        block[:] = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(m, -1)
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        block /= np.where(norms == 0, 1, norms)
        self._rowids[n : n + m] = np.fromiter((r[0] for r in rows), dtype=np.int64, count=m)
        self._doc_rowids[n : n + m] = np.fromiter((r[1] for r in rows), dtype=np.int64, count=m)
        self._alive[n : n + m] = True
        self._count = n + m
        self._max_rowid = int(rows[-1][0])

    def memory_bytes(self) -> int:
        return int(self._vectors.nbytes + self._rowids.nbytes + self._doc_rowids.nbytes + self._alive.nbytes)
