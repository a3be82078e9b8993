"""State that server replicas share through the store: conversations, leases and sync runs.

A capability of its own, beside ``GraphStore``: both backends implement it
(``store/sqlite/shared_state.py``, ``store/neo4j/shared_state.py``) and one contract suite holds
them to it (``tests/contract/shared_state_contract.py``). The API uses it only in the persistent
mode (``DEVKB_CHAT_MEMORY=store``); the default in-memory mode keeps everything per process.

    (:Conversation {id, owner, title, created_at, updated_at})
    (:Message {id, conversation_id, seq, role, content, timestamp, sources})-[:PART_OF]->(:Conversation)
    (:Message)-[:REFERENCES]->(:Document)          one per cited source that is in the store
    (:Lease {name, holder, expires_at})            scheduler leader, one running sync per source
    (:SyncRun {id, source, state, ..., updated_at}) a run's status, visible on every replica
    (:Gap {id, kind, question, terms, probability, document_ids, at})
                                                   a knowledge gap (agent/knowledge_gaps.py)

Times are Unix seconds (float) where the store compares them (leases, retention) and ISO 8601
strings where people read them.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class ConversationMessage:
    role: str  # user | assistant
    content: str
    timestamp: str  # ISO 8601, UTC
    sources: tuple[dict[str, Any], ...] = ()  # citations of an assistant message

    @functools.cached_property  # read for every turn of the history at every question
    def document_ids(self) -> tuple[str, ...]:
        return tuple(str(s["document_id"]) for s in self.sources if s.get("document_id"))

    def sources_json(self) -> str:
        return json.dumps(list(self.sources), sort_keys=True)

    @staticmethod
    def sources_from_json(raw: str | None) -> tuple[dict[str, Any], ...]:
        if not raw:
            return ()
        value = json.loads(raw)
        return tuple(v for v in value if isinstance(v, dict)) if isinstance(value, list) else ()


def conversation_title(first_question: str) -> str:
    """A conversation's default title: its first question on one line, at most 80 characters."""
    line = " ".join(first_question.split())
    return line if len(line) <= 80 else line[:79].rstrip() + "…"


@dataclass(frozen=True)
class Conversation:
    id: str
    owner: str
    title: str
    created_at: float
    updated_at: float
    message_count: int = 0


@dataclass(frozen=True)
class Lease:
    name: str
    holder: str
    expires_at: float


@dataclass
class SyncRunRecord:
    """A sync run as every replica sees it: ``RunStatus.snapshot()`` plus where it runs."""

    id: str
    source: str
    state: str
    instance: str
    updated_at: float
    status: dict[str, Any] = field(default_factory=dict)


MAX_GAPS_KEPT = 20_000
GAP_KINDS = ("not_found", "low_confidence", "thumbs_down")


@dataclass(frozen=True)
class Gap:
    """A question the sources could not answer well: answered "not found", with a low confidence,
    or voted down. ``question`` is empty when the deployment keeps no question text (only the
    normalised key ``terms``, see docs/knowledge-gaps.md)."""

    id: str
    kind: str  # one of GAP_KINDS
    question: str
    terms: tuple[str, ...]
    probability: float | None  # the answer's confidence, when it had one
    document_ids: tuple[str, ...]  # the closest documents (cited or related)
    at: float  # Unix seconds


@runtime_checkable
class SharedState(Protocol):
    # -- conversations ------------------------------------------------------------------------
    def create_conversation(self, conversation_id: str, owner: str, title: str, now: float) -> None:
        """Create an empty conversation (no-op when it exists)."""
        ...

    def conversation(self, conversation_id: str) -> Conversation | None: ...

    def touch_conversation(self, conversation_id: str, now: float) -> bool:
        """Mark it used; ``False`` when there is no such conversation."""
        ...

    def append_message(
        self, conversation_id: str, message: ConversationMessage, now: float, keep_last: int
    ) -> None:
        """Append a message (its cited documents become REFERENCES edges); keep the last
        ``keep_last`` messages of the conversation (older ones are deleted)."""
        ...

    def messages(self, conversation_id: str, last: int | None = None) -> list[ConversationMessage]:
        """The messages, oldest first; only the ``last`` most recent ones when given (a chat's
        history, read on every question, need not decode the whole conversation)."""
        ...

    def clear_conversation(self, conversation_id: str, now: float) -> int:
        """Delete its messages, keep the conversation; the number deleted."""
        ...

    def list_conversations(self, owner: str, limit: int = 100) -> list[Conversation]:
        """The owner's conversations that have messages, most recently updated first."""
        ...

    def rename_conversation(self, conversation_id: str, title: str, now: float) -> bool: ...

    def delete_conversation(self, conversation_id: str) -> bool: ...

    def expire_conversations(self, updated_before: float) -> int:
        """Delete conversations (and their messages) not updated since ``updated_before``."""
        ...

    def conversation_count(self) -> int: ...

    # -- leases -------------------------------------------------------------------------------
    def acquire_lease(self, name: str, holder: str, ttl_seconds: float, now: float) -> bool:
        """Take the lease when it is free or expired, or renew it when ``holder`` has it.
        Atomic across processes and replicas."""
        ...

    def release_lease(self, name: str, holder: str) -> None:
        """Give it up, if ``holder`` has it."""
        ...

    def lease(self, name: str) -> Lease | None: ...

    # -- sync runs ------------------------------------------------------------------------------
    def save_run(self, run: SyncRunRecord) -> None:
        """Insert or update a run (by id)."""
        ...

    def get_run(self, run_id: str) -> SyncRunRecord | None: ...

    def runs(self, source: str | None = None, limit: int = 50) -> list[SyncRunRecord]:
        """Most recently updated first."""
        ...

    # -- knowledge gaps -------------------------------------------------------------------------
    def record_gap(self, gap: Gap) -> None:
        """Store a gap (insert or replace by id); the store keeps at most its newest
        ``MAX_GAPS_KEPT``."""
        ...

    def gaps(self, since: float = 0.0, limit: int = 5000) -> list[Gap]:
        """Gaps recorded at or after ``since``, newest first."""
        ...

    def expire_gaps(self, before: float) -> int:
        """Delete gaps recorded before ``before``; the number deleted."""
        ...
