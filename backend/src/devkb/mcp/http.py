"""The MCP endpoint in ``devkb serve``: streamable HTTP at ``/mcp``, behind the API's key.

``McpAuthGate`` refuses a request without the key when ``DEVKB_API_KEY`` is set (401, as the REST
API does), from ``X-API-Key`` or ``Authorization: Bearer``. Admin tools follow the REST API's rule
(``api/security.py``): the key when one is configured, else a client on loopback. Over stdio the
local user runs the server and is the admin.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.fastmcp import FastMCP
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from devkb.api.security import is_loopback, key_matches
from devkb.config.settings import Settings

MCP_PATH = "/mcp"


def provided_key(headers: Any) -> str | None:
    """The key from ``X-API-Key`` or ``Authorization: Bearer <key>``."""
    key = headers.get("x-api-key")
    if key:
        return str(key)
    auth = str(headers.get("authorization") or "")
    scheme, _, token = auth.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def may_administer(request: Any, settings: Settings) -> bool:
    """Whether the caller of a tool may run admin tools; ``request`` is None over stdio."""
    if not isinstance(request, Request):
        return True
    if settings.api_key is not None:
        return key_matches(provided_key(request.headers), settings)
    return is_loopback(request.client.host if request.client else None)


class McpAuthGate:
    """Pure ASGI in front of the SDK's streamable HTTP app."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.settings.api_key is not None:
            request = Request(scope)
            if not key_matches(provided_key(request.headers), self.settings):
                body = json.dumps(
                    {"detail": "the MCP endpoint needs the API key: send X-API-Key or Authorization: Bearer"}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class McpEndpoint:
    """The SDK's streamable HTTP handler for one server run: each run of the app (its lifespan)
    gets a fresh MCP server and session manager, which the SDK allows to run only once."""

    def __init__(self, build: Callable[[], FastMCP]) -> None:
        self.build = build
        self._server: FastMCP | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        server = self.build()
        server.streamable_http_app()  # creates the session manager
        async with server.session_manager.run():
            self._server = server
            try:
                yield
            finally:
                self._server = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._server is None:
            raise RuntimeError("the MCP endpoint is not running (the app's lifespan has not started)")
        await self._server.session_manager.handle_request(scope, receive, send)
