"""Chat sessions over HTTP: an HTTP-only cookie ``X-Session-ID`` given to every request to the
chat endpoints, naming a session of the configured memory (``devkb/conversations``).

A well-formed UUID4 that this server issued and that has not expired is kept; a forged, malformed
or expired id is never an error and never adopted — the client silently gets a fresh session.
The cookie is HTTP-only, SameSite=Lax, 30 days, ``Secure`` from ``DEVKB_COOKIE_SECURE``, and
echoed as the ``X-Session-ID`` response header. A request header wins over the cookie (so a
client can reopen a stored conversation), and ``X-Session-ID: new`` starts a new session.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from devkb.conversations.memory import SessionMemory, parse_session_id

COOKIE = "X-Session-ID"
HEADER = b"x-session-id"
COOKIE_MAX_AGE = 30 * 24 * 3600
SESSION_PATHS = ("/ask", "/chat")
NEW_SESSION = "new"  # ``X-Session-ID: new`` starts a new session whatever the cookie says
# a session is named by the header or the cookie, never by a request body: one way for every
# session endpoint (GET /chat/history has no body) and decided here, before any body is read
SESSION_FIELD = "session_id"
SESSION_NOT_IN_BODY = (
    "unknown field; a session is named by the X-Session-ID request header (or the session "
    "cookie), not in the body: send the session_id of an earlier answer as X-Session-ID"
)


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
