"""``SharedState`` on Neo4j: conversations, messages, leases and sync runs as nodes beside the
graph, through the graph store's driver plumbing (retries, error translation, routing). Every
statement is in ``queries.py`` (linted with the rest); an append is one write transaction that
locks its conversation first, so concurrent appends from several replicas number messages
without gaps or duplicates."""

from __future__ import annotations

import json
from typing import Any

import neo4j

from devkb.store.neo4j import queries as q
from devkb.store.neo4j.store import Neo4jGraphStore, _run
from devkb.store.shared_state import (
    MAX_GAPS_KEPT,
    Conversation,
    ConversationMessage,
    Gap,
    Lease,
    SyncRunRecord,
    conversation_title,
)

MAX_RUNS_KEPT = 500


class Neo4jSharedState:
    def __init__(self, store: Neo4jGraphStore) -> None:
        self._store = store

    def close(self) -> None:
        """The driver belongs to the container."""

    def _read(self, stmt: q.Statement, action: str, **values: Any) -> list[dict[str, Any]]:
        return self._store._read(stmt, action, **values)

    def _write_one(self, stmt: q.Statement, action: str, **values: Any) -> list[dict[str, Any]]:
        return self._store._write(lambda tx: _run(tx, stmt, **values), action)

    # -- conversations ------------------------------------------------------------------------
    def create_conversation(self, conversation_id: str, owner: str, title: str, now: float) -> None:
        self._write_one(
            q.CREATE_CONVERSATION,
            "creating a conversation",
            id=conversation_id,
            owner=owner,
            title=title,
            now=now,
        )

    def conversation(self, conversation_id: str) -> Conversation | None:
        rows = self._read(q.GET_CONVERSATION, "reading a conversation", id=conversation_id)
        return _conversation(rows[0]) if rows else None

    def touch_conversation(self, conversation_id: str, now: float) -> bool:
        rows = self._write_one(q.TOUCH_CONVERSATION, "touching a conversation", id=conversation_id, now=now)
        return bool(rows and rows[0]["n"])

    def append_message(
        self, conversation_id: str, message: ConversationMessage, now: float, keep_last: int
    ) -> None:
        title = conversation_title(message.content) if message.role == "user" else ""

        def work(tx: neo4j.ManagedTransaction) -> None:
            rows = _run(tx, q.LOCK_CONVERSATION, id=conversation_id, now=now, title=title)
            if not rows:
                return
            seq = int(rows[0]["seq"])
            _run(
                tx,
                q.CREATE_MESSAGE,
                id=conversation_id,
                seq=seq,
                role=message.role,
                content=message.content,
                timestamp=message.timestamp,
                sources=message.sources_json(),
                document_ids=list(message.document_ids),
            )
            _run(tx, q.TRIM_MESSAGES, id=conversation_id, below=seq - keep_last)

        self._store._write(work, "appending a message")

    def messages(self, conversation_id: str, last: int | None = None) -> list[ConversationMessage]:
        if last is None:
            rows = self._read(q.GET_MESSAGES, "reading messages", id=conversation_id)
        else:
            rows = self._read(q.GET_LAST_MESSAGES, "reading messages", id=conversation_id, last=max(0, last))
        return [
            ConversationMessage(
                r["role"], r["content"], r["timestamp"], ConversationMessage.sources_from_json(r["sources"])
            )
            for r in rows
        ]

    def clear_conversation(self, conversation_id: str, now: float) -> int:
        rows = self._write_one(q.CLEAR_MESSAGES, "clearing a conversation", id=conversation_id, now=now)
        return int(rows[0]["n"]) if rows else 0

    def list_conversations(self, owner: str, limit: int = 100) -> list[Conversation]:
        rows = self._read(q.LIST_CONVERSATIONS, "listing conversations", owner=owner, limit=limit)
        return [_conversation(r) for r in rows]

    def rename_conversation(self, conversation_id: str, title: str, now: float) -> bool:
        rows = self._write_one(
            q.RENAME_CONVERSATION, "renaming a conversation", id=conversation_id, title=title, now=now
        )
        return bool(rows and rows[0]["n"])

    def delete_conversation(self, conversation_id: str) -> bool:
        rows = self._write_one(q.DELETE_CONVERSATION, "deleting a conversation", id=conversation_id)
        return bool(rows and rows[0]["n"])

    def expire_conversations(self, updated_before: float) -> int:
        rows = self._write_one(q.EXPIRE_CONVERSATIONS, "expiring conversations", before=updated_before)
        return int(rows[0]["n"]) if rows else 0

    def conversation_count(self) -> int:
        rows = self._read(q.COUNT_CONVERSATIONS, "counting conversations")
        return int(rows[0]["n"]) if rows else 0

    # -- leases -------------------------------------------------------------------------------
    def acquire_lease(self, name: str, holder: str, ttl_seconds: float, now: float) -> bool:
        rows = self._write_one(
            q.ACQUIRE_LEASE,
            "taking a lease",
            name=name,
            holder=holder,
            now=now,
            expires_at=now + ttl_seconds,
        )
        return bool(rows and rows[0]["acquired"])

    def release_lease(self, name: str, holder: str) -> None:
        self._write_one(q.RELEASE_LEASE, "releasing a lease", name=name, holder=holder)

    def lease(self, name: str) -> Lease | None:
        rows = self._read(q.GET_LEASE, "reading a lease", name=name)
        return Lease(rows[0]["name"], rows[0]["holder"], float(rows[0]["expires_at"])) if rows else None

    # -- sync runs ------------------------------------------------------------------------------
    def save_run(self, run: SyncRunRecord) -> None:
        def work(tx: neo4j.ManagedTransaction) -> None:
            _run(
                tx,
                q.SAVE_RUN,
                id=run.id,
                source=run.source,
                state=run.state,
                instance=run.instance,
                updated_at=run.updated_at,
                status=json.dumps(run.status),
            )
            _run(tx, q.TRIM_RUNS, keep=MAX_RUNS_KEPT)

        self._store._write(work, "saving a sync run")

    def get_run(self, run_id: str) -> SyncRunRecord | None:
        rows = self._read(q.GET_RUN, "reading a sync run", id=run_id)
        return _run_record(rows[0]) if rows else None

    def runs(self, source: str | None = None, limit: int = 50) -> list[SyncRunRecord]:
        rows = self._read(q.LIST_RUNS, "listing sync runs", source=source, limit=limit)
        return [_run_record(r) for r in rows]

    # -- knowledge gaps -------------------------------------------------------------------------
    def record_gap(self, gap: Gap) -> None:
        def work(tx: neo4j.ManagedTransaction) -> None:
            _run(
                tx,
                q.SAVE_GAP,
                id=gap.id,
                kind=gap.kind,
                question=gap.question,
                terms=list(gap.terms),
                probability=gap.probability,
                document_ids=list(gap.document_ids),
                at=gap.at,
            )
            _run(tx, q.TRIM_GAPS, keep=MAX_GAPS_KEPT)

        self._store._write(work, "recording a knowledge gap")

    def gaps(self, since: float = 0.0, limit: int = 5000) -> list[Gap]:
        rows = self._read(q.LIST_GAPS, "listing knowledge gaps", since=since, limit=limit)
        return [
            Gap(
                str(r["id"]),
                str(r["kind"]),
                str(r["question"] or ""),
                tuple(str(t) for t in r["terms"] or ()),
                None if r["probability"] is None else float(r["probability"]),
                tuple(str(d) for d in r["document_ids"] or ()),
                float(r["at"]),
            )
            for r in rows
        ]

    def expire_gaps(self, before: float) -> int:
        rows = self._write_one(q.EXPIRE_GAPS, "expiring knowledge gaps", before=before)
        return int(rows[0]["n"]) if rows else 0


def _conversation(row: dict[str, Any]) -> Conversation:
    return Conversation(
        str(row["id"]),
        str(row["owner"]),
        str(row["title"] or ""),
        float(row["created_at"]),
        float(row["updated_at"]),
        int(row.get("n") or 0),
    )


def _run_record(row: dict[str, Any]) -> SyncRunRecord:
    status = json.loads(row["status"]) if row.get("status") else {}
    return SyncRunRecord(
        str(row["id"]),
        str(row["source"]),
        str(row["state"]),
        str(row["instance"]),
        float(row["updated_at"]),
        status if isinstance(status, dict) else {},
    )
