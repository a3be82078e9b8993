"""The embedded default backend: SQLite (WAL, FTS5) plus an exact in-memory vector index."""

from devkb.store.sqlite.store import SQLiteGraphStore

__all__ = ["SQLiteGraphStore"]
