"""Who is calling: the signed-in user of a request, from the session cookie (the web app) or an
API token (``Authorization: Bearer dkb_…``, scripts and MCP clients).

``ReaderMiddleware`` (pure ASGI, so streams stay streams) runs before everything else. When
accounts exist it resolves the caller and sets the request's ``Reader`` (``access/readers.py``)
for the whole call, and puts ``user``/``auth_session``/``reader`` into ``scope["state"]``; the
routers' dependencies (``api/security.py``) then refuse a request without a user (401). Without
accounts it does nothing: the server behaves as before accounts existed.

The configured ``DEVKB_API_KEY`` stays the operator's key: with accounts it acts as an admin.
"""

from __future__ import annotations

from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from devkb.access.accounts import AccountStore, SessionInfo, User
from devkb.access.keys import key_matches
from devkb.access.policy import AccessPolicy
from devkb.access.readers import EVERYTHING, Reader, reset_reader, set_reader
from devkb.config.settings import Settings

AUTH_COOKIE = "devkb_auth"


def _cookie(scope: Scope, name: str) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:
                continue
            if name in jar:
                return jar[name].value
    return None


def bearer(headers: Any) -> str | None:
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def identify(
    scope: Scope, accounts: AccountStore, settings: Settings
) -> tuple[User | None, SessionInfo | None, bool]:
    """(user, their session if by cookie, whether the operator's API key was sent)."""
    headers = Request(scope).headers
    secret = _cookie(scope, AUTH_COOKIE)
    if secret:
        found = accounts.session_user(secret)
        if found is not None:
            return found[0], found[1], False
    token = bearer(headers)
    if token:
        by_token = accounts.token_user(token)
        if by_token is not None:
            return by_token[0], None, False
    key = headers.get("x-api-key") or token
    return None, None, bool(key) and key_matches(key, settings)


class ReaderMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        policy: Callable[[], AccessPolicy],
        accounts: Callable[[], AccountStore],
        settings: Callable[[], Settings],
    ) -> None:
        self.app = app
        self.policy = policy
        self.accounts = accounts
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        policy = self.policy()
        state = scope.setdefault("state", {})
        state["accounts"] = policy.enabled
        if not policy.enabled:
            await self.app(scope, receive, send)
            return
        user, session, operator = identify(scope, self.accounts(), self.settings())
        reader: Reader | None = None
        if user is not None:
            reader = policy.reader_for(user)
        elif operator:
            reader = EVERYTHING
        state["user"], state["auth_session"], state["operator"], state["reader"] = (
            user,
            session,
            operator,
            reader,
        )
        token = set_reader(reader)  # None: the policy's default, which reads nothing
        try:
            await self.app(scope, receive, send)
        finally:
            reset_reader(token)


def request_user(request: Request) -> User | None:
    user: User | None = getattr(request.state, "user", None)
    return user


def accounts_enabled(request: Request) -> bool:
    return bool(getattr(request.state, "accounts", False))


def is_operator(request: Request) -> bool:
    return bool(getattr(request.state, "operator", False))
