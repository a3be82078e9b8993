"""The MCP endpoint in ``devkb serve``: the SDK's streamable HTTP handler at ``/mcp``, mounted by
``api/app.py`` behind ``auth.McpAuthGate``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from mcp.server.fastmcp import FastMCP
from starlette.types import Receive, Scope, Send

MCP_PATH = "/mcp"


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
