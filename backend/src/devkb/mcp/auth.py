"""Who may call the MCP server: the API's key on HTTP, the local user over stdio.

``McpAuthGate`` refuses a request without the key when ``DEVKB_API_KEY`` is set (401, as the REST
API does), from ``X-API-Key`` or ``Authorization: Bearer``. Admin tools follow the REST API's rule
(``api/security.py``): the key when one is configured, else a client on loopback. Over stdio the
reader the server was started for: an admin with ``--as``, or the local operator (``--all``, or a
deployment without accounts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from devkb.access.keys import is_loopback, key_matches
from devkb.access.policy import AccessPolicy
from devkb.config.settings import Settings

REFUSAL = "the MCP endpoint needs the API key: send X-API-Key or Authorization: Bearer"
ACCOUNT_REFUSAL = (
    "the MCP endpoint needs your API token: send Authorization: Bearer <token> (devkb token create)"
)


def provided_key(headers: Mapping[str, str]) -> str | None:
    """The key from ``X-API-Key`` or ``Authorization: Bearer <key>``."""
    key = headers.get("x-api-key")
    if key:
        return key
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def may_administer(request: object, settings: Settings, policy: AccessPolicy) -> bool:
    """Whether the caller of a tool may run admin tools; ``request`` is None over stdio, where the
    call runs as the reader ``devkb mcp --as`` named (``--all``, or no accounts: the operator). With
    accounts the access policy decides from the request's reader (an admin, or the operator's key);
    without, the key when one is configured, else a client on loopback."""
    if not isinstance(request, Request):
        return policy.may_administer(policy.reader())
    if getattr(request.state, "accounts", False):
        return policy.may_administer(getattr(request.state, "reader", None))
    if settings.api_key is not None:
        return key_matches(provided_key(request.headers), settings)
    return is_loopback(request.client.host if request.client else None)


class McpAuthGate:
    """Pure ASGI in front of the SDK's streamable HTTP app."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope.get("state", {})
        if scope["type"] == "http" and state.get("accounts"):  # with accounts: a user's token
            if state.get("user") is None and not state.get("operator"):
                await self._refuse(send, ACCOUNT_REFUSAL)
                return
        elif scope["type"] == "http" and self.settings.api_key is not None:
            if not key_matches(provided_key(Request(scope).headers), self.settings):
                await self._refuse(send, REFUSAL)
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Send, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"www-authenticate", b"Bearer"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})
