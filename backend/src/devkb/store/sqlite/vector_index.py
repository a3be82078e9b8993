"""Exact cosine search over chunk embeddings held in memory as one float32 matrix.

The matrix mirrors the ``chunks`` table and refreshes incrementally: rows with a rowid above the
last one loaded are appended, rowids in ``chunk_tombstones`` past the last seen sequence are
masked out. A store generation counter (bumped by every write transaction, also by other
processes) tells when to refresh. Exact search keeps filtered search exact and simple; see
``docs/store.md`` for the measurements behind the choice.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

import numpy as np


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
                scores = vectors[idx] @ q
                rowids = self._rowids[idx]
            else:
                scores = vectors @ q
                scores = np.where(mask, scores, -np.inf)
                rowids = self._rowids[:n]
            k = min(top_k, scores.shape[0])
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top])]
            return [(int(rowids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def _refresh(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute(
            "SELECT c.rowid, d.rowid, c.embedding FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE c.rowid > ? AND c.embedding IS NOT NULL ORDER BY c.rowid",
            (self._max_rowid,),
        ).fetchall()
        tomb = conn.execute(
            "SELECT seq, chunk_rowid FROM chunk_tombstones WHERE seq > ? ORDER BY seq", (self._tombstone_seq,)
        ).fetchall()
        if rows:
            dim = len(rows[0][2]) // 4
            if self._dim is None:
                self._dim = dim
                self._vectors = np.zeros((0, dim), dtype=np.float32)
            new = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), self._dim)
            norms = np.linalg.norm(new, axis=1, keepdims=True)
            new = new / np.where(norms == 0, 1, norms)
            self._append(
                new,
                np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
            )
            self._max_rowid = int(rows[-1][0])
        if tomb:
            dead = np.fromiter((t[1] for t in tomb), dtype=np.int64, count=len(tomb))
            n = self._count
            self._alive[:n] &= ~np.isin(self._rowids[:n], dead)
            self._tombstone_seq = int(tomb[-1][0])
        # compact when more than a quarter is dead
        n = self._count
        if n and (~self._alive[:n]).sum() > n // 4:
            keep = np.flatnonzero(self._alive[:n])
            self._vectors = self._vectors[keep].copy()
            self._rowids = self._rowids[keep].copy()
            self._doc_rowids = self._doc_rowids[keep].copy()
            self._alive = np.ones(len(keep), dtype=bool)
            self._count = len(keep)

    def _append(self, vectors: np.ndarray, rowids: np.ndarray, doc_rowids: np.ndarray) -> None:
        n, m = self._count, vectors.shape[0]
        if n + m > self._vectors.shape[0]:
            cap = max(n + m, int(self._vectors.shape[0] * 1.5) + 1024)
            grown = np.zeros((cap, vectors.shape[1]), dtype=np.float32)
            grown[:n] = self._vectors[:n]
            self._vectors = grown
            for name, dtype in (("_rowids", np.int64), ("_doc_rowids", np.int64), ("_alive", bool)):
                arr = np.zeros(cap, dtype=dtype)
                arr[:n] = getattr(self, name)[:n]
                setattr(self, name, arr)
        self._vectors[n : n + m] = vectors
        self._rowids[n : n + m] = rowids
        self._doc_rowids[n : n + m] = doc_rowids
        self._alive[n : n + m] = True
        self._count = n + m

    def memory_bytes(self) -> int:
        return int(self._vectors.nbytes + self._rowids.nbytes + self._doc_rowids.nbytes + self._alive.nbytes)
