"""Conversations: where a chat session's history lives — this process (``ChatMemory``, the
default) or the graph store (``StoreChatMemory`` in ``store_memory.py``, ``DEVKB_CHAT_MEMORY=store``).
Below the API: the container builds the memory, the API's session middleware
(``api/sessions.py``) and routers use it.

``ChatMemory`` keeps, per session, the last ``history_limit`` messages (FIFO), drops sessions
idle for ``ttl_seconds``, and holds at most ``max_sessions`` (least recently used evicted).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from devkb.store.shared_state import ConversationMessage

StoredMessage = ConversationMessage  # one message shape for both memory modes


class SessionMemory(Protocol):
    """Where a session's chat history lives: this process (``ChatMemory``, the default) or the
    graph store (``StoreChatMemory``, ``DEVKB_CHAT_MEMORY=store``)."""

    def create(self) -> str: ...

    def touch(self, sid: str) -> bool: ...

    def append(self, sid: str, message: StoredMessage) -> None: ...

    def history(self, sid: str) -> list[StoredMessage]: ...

    def clear(self, sid: str) -> int: ...

    def __len__(self) -> int: ...


@dataclass
class _Session:
    messages: deque[StoredMessage]
    last_seen: float
    lock: threading.Lock = field(default_factory=threading.Lock)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_session_id(value: str | None) -> str | None:
    """The canonical form of a UUID4, or ``None`` for anything else."""
    if not value or len(value) > 64:
        return None
    try:
        u = uuid.UUID(value.strip())
    except (ValueError, AttributeError):
        return None
    return str(u) if u.version == 4 and u.variant == uuid.RFC_4122 else None


class ChatMemory:
    def __init__(
        self,
        ttl_seconds: float = 24 * 3600,
        max_sessions: int = 10_000,
        history_limit: int = 50,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl_seconds
        self.max_sessions = max_sessions
        self.history_limit = history_limit
        self.clock = clock
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def create(self) -> str:
        sid = str(uuid.uuid4())
        with self._lock:
            self._expire()
            self._sessions[sid] = _Session(deque(maxlen=self.history_limit), self.clock())
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        return sid

    def touch(self, sid: str) -> bool:
        """Mark a session as used; ``False`` when it does not exist (or has expired)."""
        with self._lock:
            self._expire()
            s = self._sessions.get(sid)
            if s is None:
                return False
            s.last_seen = self.clock()
            self._sessions.move_to_end(sid)
            return True

    def append(self, sid: str, message: StoredMessage) -> None:
        s = self._get(sid)
        if s is None:
            return
        with s.lock:
            s.messages.append(message)

    def history(self, sid: str) -> list[StoredMessage]:
        s = self._get(sid)
        if s is None:
            return []
        with s.lock:
            return list(s.messages)

    def clear(self, sid: str) -> int:
        s = self._get(sid)
        if s is None:
            return 0
        with s.lock:
            n = len(s.messages)
            s.messages.clear()
            return n

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)

    def _get(self, sid: str) -> _Session | None:
        with self._lock:
            self._expire()
            s = self._sessions.get(sid)
            if s is not None:
                s.last_seen = self.clock()
                self._sessions.move_to_end(sid)
            return s

    def _expire(self) -> None:
        limit = self.clock() - self.ttl
        while self._sessions:
            sid, s = next(iter(self._sessions.items()))
            if s.last_seen > limit:
                break
            del self._sessions[sid]
