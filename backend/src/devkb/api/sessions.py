"""Chat sessions: an HTTP-only cookie ``X-Session-ID`` and a server-side, thread-safe memory.

The middleware gives every request to the chat endpoints (``/ask``, ``/chat``) a session:
the id from the ``X-Session-ID`` cookie (or request header, for non-browser clients) when it is
a well-formed UUID4 that this server issued and that has not expired; otherwise a new one. A
forged, malformed or expired id is never an error and never adopted — the client silently gets
a fresh session. The id is set as a cookie (HTTP-only, SameSite=Lax, 30 days, ``Secure`` from
``DEVKB_COOKIE_SECURE``) and echoed as the ``X-Session-ID`` response header. A request header
wins over the cookie (so a client can reopen a stored conversation), and ``X-Session-ID: new``
starts a new session.

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

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from devkb.store.shared_state import ConversationMessage

COOKIE = "X-Session-ID"
HEADER = b"x-session-id"
COOKIE_MAX_AGE = 30 * 24 * 3600
SESSION_PATHS = ("/ask", "/chat")
NEW_SESSION = "new"  # ``X-Session-ID: new`` starts a new session whatever the cookie says


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


class SessionMiddleware:
    """Pure ASGI middleware (streams pass through untouched). ``memory`` is looked up per request
    so the app's container decides which ``SessionMemory`` is used."""

    def __init__(
        self,
        app: ASGIApp,
        memory: Callable[[Scope], SessionMemory],
        secure: Callable[[Scope], bool],
        paths: tuple[str, ...] = SESSION_PATHS,
    ) -> None:
        self.app = app
        self.memory = memory
        self.secure = secure
        self.paths = paths
        self._owners: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.paths):
            await self.app(scope, receive, send)
            return
        memory = self.memory(scope)
        sid = self._known(scope, memory) or memory.create()
        user = scope.get("state", {}).get("user")
        if user is not None:  # with accounts a chat session belongs to the person who started it
            owner = self._owners.setdefault(sid, user.email)
            if owner != user.email:
                sid = memory.create()
                self._owners[sid] = user.email
            if len(self._owners) > 200_000:
                self._owners.clear()
        scope.setdefault("state", {})["session_id"] = sid
        cookie = f"{COOKIE}={sid}; Path=/; Max-Age={COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax"
        if self.secure(scope):
            cookie += "; Secure"

        async def send_with_session(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != HEADER]
                headers += [(HEADER, sid.encode()), (b"set-cookie", cookie.encode())]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_session)

    @staticmethod
    def _known(scope: Scope, memory: SessionMemory) -> str | None:
        header = _header(scope)
        if header is not None and header.strip().lower() == NEW_SESSION:
            return None  # the client asks for a fresh session (a new conversation)
        for candidate in (header, _cookie(scope)):  # a header wins: it reopens a stored conversation
            sid = parse_session_id(candidate)
            if sid is not None and memory.touch(sid):
                return sid
        return None


def _header(scope: Scope) -> str | None:
    for k, v in scope.get("headers", []):
        if k.lower() == HEADER:
            return str(v.decode("latin-1"))
    return None


def _cookie(scope: Scope) -> str | None:
    for k, v in scope.get("headers", []):
        if k.lower() != b"cookie":
            continue
        for part in v.decode("latin-1").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                return str(value).strip().strip('"')
    return None
