"""Cosine search over chunk embeddings held in memory as one float32 matrix: exact, and above
``approx_min_rows`` rows approximate through an inverted file over the same matrix.

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

**Approximate search at scale** (``approx_min_rows``; off by default in this class, on from
500k chunks in the store's settings): once the matrix holds that many rows, a background thread
clusters it (spherical k-means on a sample, ~√n lists), files every row under its nearest
centroid and puts the matrix's rows in list order — an inverted file (IVF) that keeps only the
centroids and one offset per list beside the matrix (the reordering needs a transient copy of
it). A query then scores the centroids, takes the ``probe`` nearest lists plus every row
appended since the partition was built, and scans only those rows exactly. Until the partition
is ready, after a compaction (rows move; it is rebuilt) and for a filter that keeps less than
half of the documents, search stays exact. Recall against exact search is measured by
``make bench`` (scale) and in ``docs/store.md``.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

log = logging.getLogger(__name__)
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


APPROX_PROBE = 96  # lists scanned per query (of ~√n): ~10% of the rows at 1M, ~3% at 10M


class Partition:
    """An inverted file over rows ``[0, built)`` of the matrix, which is kept in list order:
    rows ``offsets[l]:offsets[l + 1]`` are those whose nearest centroid is ``centroids[l]``, so a
    probed list is one contiguous block (a gathered copy of scattered rows cost 4× the product)."""

    def __init__(self, centroids: np.ndarray, offsets: np.ndarray, built: int, epoch: int) -> None:
        self.centroids = centroids
        self.offsets = offsets
        self.built = built
        self.epoch = epoch

    def blocks(self, q: np.ndarray, probe: int, count: int) -> list[tuple[int, int]]:
        """Row ranges to scan for ``q``: the ``probe`` lists nearest it (in row order), then
        every row appended since the partition was built."""
        scores = self.centroids @ q
        probe = min(probe, scores.shape[0])
        lists = np.sort(np.argpartition(scores, scores.shape[0] - probe)[scores.shape[0] - probe :])
        out = [
            (int(self.offsets[i]), int(self.offsets[i + 1]))
            for i in lists
            if self.offsets[i + 1] > self.offsets[i]
        ]
        if count > self.built:
            out.append((self.built, count))
        return out


def spherical_kmeans(sample: np.ndarray, k: int, iterations: int = 8, seed: int = 0) -> np.ndarray:
    """``k`` unit centroids of the unit rows of ``sample`` (k-means under cosine: assign by the
    largest dot product, centroid = the normalised mean). An empty cluster takes a random row."""
    rng = np.random.default_rng(seed)
    centroids = sample[rng.choice(sample.shape[0], k, replace=False)].copy()
    for _ in range(iterations):
        assign = nearest(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assign, sample)
        empty = np.flatnonzero(np.bincount(assign, minlength=k) == 0)
        sums[empty] = sample[rng.choice(sample.shape[0], empty.size)]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = (sums / np.where(norms == 0, 1, norms)).astype(np.float32)
    return centroids


def nearest(vectors: np.ndarray, centroids: np.ndarray, block: int = 32_768) -> np.ndarray:
    """The index of each row's nearest centroid (largest dot product), in blocks of rows."""
    out = np.empty(vectors.shape[0], dtype=np.int32)
    for a in range(0, vectors.shape[0], block):
        out[a : a + block] = np.argmax(vectors[a : a + block] @ centroids.T, axis=1)
    return out


def build_partition(
    vectors: np.ndarray, count: int, epoch: int, seed: int = 0
) -> tuple[Partition, np.ndarray]:
    """Cluster rows ``[0, count)`` of ``vectors`` into ~√count lists (trained on up to 64 rows per
    list) and file every row under its nearest centroid. Returns the partition and the order
    that puts the rows in list order (``vectors[order]`` is the matrix the partition describes)."""
    lists = max(1, int(np.sqrt(count)))
    rng = np.random.default_rng(seed)
    sample_rows = np.sort(rng.choice(count, min(count, 64 * lists), replace=False))
    centroids = spherical_kmeans(vectors[sample_rows], lists, seed=seed)
    assign = nearest(vectors[:count], centroids)
    order = np.argsort(assign, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(assign, minlength=lists))]).astype(np.int64)
    return Partition(centroids, offsets, count, epoch), order


class VectorIndex:
    def __init__(self, approx_min_rows: int | None = None, probe: int = APPROX_PROBE) -> None:
        """``approx_min_rows``: from this many rows on, search through an inverted file built in
        the background (None: always exact); ``probe``: lists scanned per query."""
        self.approx_min_rows = approx_min_rows
        self.probe = probe
        self._partition: Partition | None = None
        self._building: threading.Thread | None = None
        self._epoch = 0  # bumped by every compaction: a partition of an older epoch is stale
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
        self._documents = 0  # distinct documents when the partition build started
        self._failed_at = 0  # rows of a build that failed (not retried before the matrix doubles)

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
            part = self._usable_partition(n, allowed_doc_rowids)
            if part is not None:
                blocks = part.blocks(q, self.probe, n)
                rows = np.concatenate([np.arange(a, b) for a, b in blocks])
                scores = np.concatenate([vectors[a:b] @ q for a, b in blocks])
                keep = mask[rows]
                if allowed_doc_rowids is not None:
                    keep &= np.isin(self._doc_rowids[rows], allowed_doc_rowids)
                if not keep.all():
                    rows, scores = rows[keep], scores[keep]
                if rows.size == 0:
                    return []
                rowids = self._rowids[rows]
            elif allowed_doc_rowids is not None:
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
            if k <= 0:
                return []
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
            self._epoch += 1  # rows moved: the partition no longer describes them
            self._partition = None
        self._maybe_start_partition()

    # -- approximate search ---------------------------------------------------------------
    def _usable_partition(self, n: int, allowed: np.ndarray | None) -> Partition | None:
        """The partition, when it describes the matrix and the filter keeps at least half of
        the documents (a narrower filter's exact scan is small, and probing would miss rows)."""
        part = self._partition
        if part is None or part.epoch != self._epoch or part.built > n:
            return None
        if allowed is not None and allowed.size * 2 < self._documents:
            return None
        return part

    def _maybe_start_partition(self) -> None:
        """Start building the partition in the background (called under the lock)."""
        n = self._count
        if self.approx_min_rows is None or n < self.approx_min_rows or n == 0:
            return
        if self._building is not None and self._building.is_alive():
            return
        part = self._partition
        if part is not None and part.epoch == self._epoch and n < 2 * part.built:
            return  # rows appended since are scanned exactly; re-cluster once the matrix doubled
        if n < 2 * self._failed_at:
            return
        vectors, epoch = self._vectors, self._epoch
        self._documents = int(np.unique(self._doc_rowids[:n]).size)

        def build() -> None:
            started = time.perf_counter()
            try:
                built, order = build_partition(vectors, n, epoch)
                in_order = vectors[order]  # outside the lock: rows [0, n) change only by compaction
            except (MemoryError, ValueError) as e:  # exact search goes on; retried once the matrix doubled
                log.warning("vector index: no inverted file over %d rows (%s); search stays exact", n, e)
                with self._lock:
                    self._failed_at = n
                return
            with self._lock:  # rows [0, n) into list order; appended rows and masks stay in step
                if epoch == self._epoch:
                    self._vectors[:n] = in_order
                    for arr in (self._rowids, self._doc_rowids, self._alive):
                        arr[:n] = arr[:n][order]
                    self._partition = built
            del in_order
            log.info(
                "vector index: %d rows filed in %d lists in %.1f s (approximate search on)",
                n,
                built.offsets.size - 1,
                time.perf_counter() - started,
            )

        self._building = threading.Thread(target=build, name="devkb-vector-partition", daemon=True)
        self._building.start()

    def wait_partition(self, timeout: float | None = None) -> bool:
        """Wait for a partition build in progress; True when one is in use."""
        building = self._building
        if building is not None:
            building.join(timeout)
        return self._partition is not None and self._partition.epoch == self._epoch

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
