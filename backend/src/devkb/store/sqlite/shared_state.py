"""``SharedState`` in the embedded store's database file: tables beside the graph's, written in
short ``BEGIN IMMEDIATE`` transactions, so several server processes on one data directory agree
(SQLite's file lock makes the lease's read-check-write atomic across processes)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from devkb.errors import StoreError
from devkb.store.shared_state import (
    MAX_GAPS_KEPT,
    Conversation,
    ConversationMessage,
    Gap,
    Lease,
    SyncRunRecord,
    conversation_title,
)

DDL = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_owner ON conversations(owner, updated_at);
CREATE INDEX IF NOT EXISTS conversations_updated ON conversations(updated_at);
CREATE TABLE IF NOT EXISTS messages (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    sources TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (conversation_id, seq)
);
CREATE TABLE IF NOT EXISTS message_references (
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    document_id TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq, document_id),
    FOREIGN KEY (conversation_id, seq) REFERENCES messages(conversation_id, seq) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS message_references_document ON message_references(document_id);
CREATE TABLE IF NOT EXISTS leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sync_runs (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    state TEXT NOT NULL,
    instance TEXT NOT NULL,
    updated_at REAL NOT NULL,
    status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sync_runs_source ON sync_runs(source, updated_at);
CREATE TABLE IF NOT EXISTS gaps (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    question TEXT NOT NULL,
    terms TEXT NOT NULL,
    probability REAL,
    document_ids TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS gaps_at ON gaps(at);
"""

MAX_RUNS_KEPT = 500


class SQLiteSharedState:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._conn().executescript(DDL)

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            except sqlite3.Error as e:
                raise StoreError(f"cannot open store at {self.path}: {e}") from e
            conn.execute("PRAGMA journal_mode=WAL")
            # as the graph's connection (store.py): a commit is not fsynced, the WAL is at a
            # checkpoint. Every question in the store mode commits its session's touch and two
            # messages; with FULL each commit waited ~3 ms for the disk holding the write lock, which
            # serialised the server's processes (2 workers: 49 asks/s, p95 367 ms at 8 clients). A
            # power cut may lose the last commits (a message, a lease renewal), never consistency.
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
            with self._guard:
                self._all.append(conn)
        return conn

    def _tx(self) -> _Tx:
        return _Tx(self._conn())

    def close(self) -> None:
        with self._guard:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()

    # -- conversations ------------------------------------------------------------------------
    def create_conversation(self, conversation_id: str, owner: str, title: str, now: float) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO conversations(id, owner, title, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (conversation_id, owner, title, now, now),
            )

    def conversation(self, conversation_id: str) -> Conversation | None:
        row = (
            self._conn()
            .execute(
                "SELECT c.id, c.owner, c.title, c.created_at, c.updated_at, "
                "(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) "
                "FROM conversations c WHERE c.id = ?",
                (conversation_id,),
            )
            .fetchone()
        )
        return _conversation(row) if row else None

    def touch_conversation(self, conversation_id: str, now: float) -> bool:
        with self._tx() as c:
            cur = c.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
            return cur.rowcount > 0

    def append_message(
        self, conversation_id: str, message: ConversationMessage, now: float, keep_last: int
    ) -> None:
        with self._tx() as c:
            row = c.execute(
                "SELECT title FROM conversations WHERE id = ?",
                (conversation_id,),
            ).fetchone()
            if row is None:
                return
            seq = int(
                c.execute(
                    "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()[0]
            )
            c.execute(
                "INSERT INTO messages(conversation_id, seq, role, content, timestamp, sources) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    seq,
                    message.role,
                    message.content,
                    message.timestamp,
                    message.sources_json(),
                ),
            )
            c.executemany(
                "INSERT OR IGNORE INTO message_references(conversation_id, seq, document_id) VALUES (?, ?, ?)",
                [(conversation_id, seq, d) for d in message.document_ids],
            )
            title = row[0] or (conversation_title(message.content) if message.role == "user" else "")
            c.execute(
                "UPDATE conversations SET updated_at = ?, title = ? WHERE id = ?",
                (now, title, conversation_id),
            )
            c.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND seq <= ?",
                (conversation_id, seq - keep_last),
            )

    def messages(self, conversation_id: str, last: int | None = None) -> list[ConversationMessage]:
        rows = (
            self._conn()
            .execute(
                "SELECT role, content, timestamp, sources FROM ("
                "SELECT seq, role, content, timestamp, sources FROM messages WHERE conversation_id = ? "
                "ORDER BY seq DESC LIMIT ?) ORDER BY seq",
                (conversation_id, -1 if last is None else max(0, last)),
            )
            .fetchall()
        )
        return [
            ConversationMessage(r[0], r[1], r[2], ConversationMessage.sources_from_json(r[3])) for r in rows
        ]

    def clear_conversation(self, conversation_id: str, now: float) -> int:
        with self._tx() as c:
            n = c.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,)).rowcount
            c.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
            return int(n)

    def list_conversations(self, owner: str, limit: int = 100) -> list[Conversation]:
        rows = (
            self._conn()
            .execute(
                "SELECT c.id, c.owner, c.title, c.created_at, c.updated_at, count(m.seq) AS n "
                "FROM conversations c JOIN messages m ON m.conversation_id = c.id "
                "WHERE c.owner = ? GROUP BY c.id ORDER BY c.updated_at DESC, c.id LIMIT ?",
                (owner, limit),
            )
            .fetchall()
        )
        return [_conversation(r) for r in rows]

    def rename_conversation(self, conversation_id: str, title: str, now: float) -> bool:
        with self._tx() as c:
            cur = c.execute(
                "UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?",
                (title, now, conversation_id),
            )
            return cur.rowcount > 0

    def delete_conversation(self, conversation_id: str) -> bool:
        with self._tx() as c:
            return c.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,)).rowcount > 0

    def expire_conversations(self, updated_before: float) -> int:
        with self._tx() as c:
            return int(
                c.execute("DELETE FROM conversations WHERE updated_at < ?", (updated_before,)).rowcount
            )

    def conversation_count(self) -> int:
        return int(self._conn().execute("SELECT count(*) FROM conversations").fetchone()[0])

    # -- leases -------------------------------------------------------------------------------
    def acquire_lease(self, name: str, holder: str, ttl_seconds: float, now: float) -> bool:
        with self._tx() as c:
            row = c.execute("SELECT holder, expires_at FROM leases WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] != holder and row[1] > now:
                return False
            c.execute(
                "INSERT INTO leases(name, holder, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at",
                (name, holder, now + ttl_seconds),
            )
            return True

    def release_lease(self, name: str, holder: str) -> None:
        with self._tx() as c:
            c.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))

    def lease(self, name: str) -> Lease | None:
        row = (
            self._conn()
            .execute("SELECT name, holder, expires_at FROM leases WHERE name = ?", (name,))
            .fetchone()
        )
        return Lease(row[0], row[1], float(row[2])) if row else None

    # -- sync runs ------------------------------------------------------------------------------
    def save_run(self, run: SyncRunRecord) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT INTO sync_runs(id, source, state, instance, updated_at, status) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET state = excluded.state, instance = excluded.instance, "
                "updated_at = excluded.updated_at, status = excluded.status",
                (run.id, run.source, run.state, run.instance, run.updated_at, json.dumps(run.status)),
            )
            c.execute(
                "DELETE FROM sync_runs WHERE id IN (SELECT id FROM sync_runs ORDER BY updated_at DESC "
                "LIMIT -1 OFFSET ?)",
                (MAX_RUNS_KEPT,),
            )

    def get_run(self, run_id: str) -> SyncRunRecord | None:
        row = (
            self._conn()
            .execute(
                "SELECT id, source, state, instance, updated_at, status FROM sync_runs WHERE id = ?",
                (run_id,),
            )
            .fetchone()
        )
        return _run(row) if row else None

    def runs(self, source: str | None = None, limit: int = 50) -> list[SyncRunRecord]:
        sql = "SELECT id, source, state, instance, updated_at, status FROM sync_runs"
        args: list[Any] = []
        if source is not None:
            sql += " WHERE source = ?"
            args.append(source)
        sql += " ORDER BY updated_at DESC, id LIMIT ?"
        args.append(limit)
        return [_run(r) for r in self._conn().execute(sql, args).fetchall()]

    # -- knowledge gaps -------------------------------------------------------------------------
    def record_gap(self, gap: Gap) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO gaps(id, kind, question, terms, probability, document_ids, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    gap.id,
                    gap.kind,
                    gap.question,
                    json.dumps(list(gap.terms)),
                    gap.probability,
                    json.dumps(list(gap.document_ids)),
                    gap.at,
                ),
            )
            c.execute(
                "DELETE FROM gaps WHERE id IN (SELECT id FROM gaps ORDER BY at DESC, id LIMIT -1 OFFSET ?)",
                (MAX_GAPS_KEPT,),
            )

    def gaps(self, since: float = 0.0, limit: int = 5000) -> list[Gap]:
        rows = (
            self._conn()
            .execute(
                "SELECT id, kind, question, terms, probability, document_ids, at FROM gaps "
                "WHERE at >= ? ORDER BY at DESC, id LIMIT ?",
                (since, limit),
            )
            .fetchall()
        )
        return [
            Gap(
                r[0],
                r[1],
                r[2],
                tuple(json.loads(r[3])),
                None if r[4] is None else float(r[4]),
                tuple(json.loads(r[5])),
                float(r[6]),
            )
            for r in rows
        ]

    def expire_gaps(self, before: float) -> int:
        with self._tx() as c:
            return c.execute("DELETE FROM gaps WHERE at < ?", (before,)).rowcount


class _Tx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.conn.execute("COMMIT" if exc_type is None else "ROLLBACK")


def _conversation(row: Any) -> Conversation:
    return Conversation(row[0], row[1], row[2], float(row[3]), float(row[4]), int(row[5]))


def _run(row: Any) -> SyncRunRecord:
    status = json.loads(row[5]) if row[5] else {}
    return SyncRunRecord(
        row[0], row[1], row[2], row[3], float(row[4]), status if isinstance(status, dict) else {}
    )
