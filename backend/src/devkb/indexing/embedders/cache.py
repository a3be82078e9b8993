"""``CachingEmbedder``: remembers vectors by (model, text) hash, in memory and optionally in a
SQLite file, so re-indexing the same text (an evaluation re-run, a rebuilt store) re-embeds
nothing."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from devkb.indexing.embedders.base import TextEmbedder


class CachingEmbedder:
    def __init__(
        self, inner: TextEmbedder, path: Path | None = None, max_memory_items: int = 500_000
    ) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dimension = inner.dimension
        self.max_memory_items = max_memory_items
        self._mem: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
            )

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_name}\x00{text}".encode()).hexdigest()

    def warm_up(self) -> None:
        self.inner.warm_up()

    def check(self) -> str | None:
        return self.inner.check()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for k in keys:
                if k in self._mem:
                    out[k] = self._mem[k]
            missing = [k for k in dict.fromkeys(keys) if k not in out]
            if missing and self._db is not None:
                for i in range(0, len(missing), 900):
                    part = missing[i : i + 900]
                    rows = self._db.execute(
                        f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})", part
                    ).fetchall()
                    for k, blob in rows:
                        out[k] = np.frombuffer(blob, dtype=np.float32)
        todo = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in out]
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        if todo:
            vectors = self.inner.embed([t for _, t in todo])
            with self._lock:
                for (k, _), v in zip(todo, vectors, strict=True):
                    out[k] = np.asarray(v, dtype=np.float32)
                if self._db is not None:
                    self._db.executemany(
                        "INSERT OR REPLACE INTO vectors(key, vector) VALUES (?, ?)",
                        [(k, out[k].tobytes()) for k, _ in todo],
                    )
        with self._lock:
            if len(self._mem) < self.max_memory_items:
                for k in keys:
                    self._mem.setdefault(k, out[k])
        if not keys:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([out[k] for k in keys]).astype(np.float32)
