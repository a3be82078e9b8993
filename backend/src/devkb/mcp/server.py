"""The MCP server: devkb's cross-source graph as tools and resources for coding agents.

Built with the official SDK's ``FastMCP`` over the parts the container wires (``McpParts``: the
store, the agent's typed tools, ``AskService``, the sync runs), so MCP answers exactly what the API
answers. The container's ``mcp_server`` factory builds one; each part is created on first use.

    tools      search · ask · get_document · neighbors · find · what_changed · list_sources · sync_source
               (tools.py; results.py keeps them small and cited)
    resources  devkb://document/{document_id}  (resources.py)
    access     auth.py (API key on HTTP, admin rule); http.py mounts it in ``devkb serve``
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.types import ContentBlock
from pydantic import AnyUrl
from starlette.requests import Request

from devkb.access.readers import Reader, reading_as
from devkb.mcp.http import MCP_PATH
from devkb.mcp.parts import McpParts
from devkb.mcp.resources import register_resources
from devkb.mcp.tools import register_tools

INSTRUCTIONS = (
    "devkb is a team's knowledge base over its Jira issues, Confluence pages and GitHub repositories "
    "(commits, pull requests, files), linked as a graph: which commit fixed an issue, which page an "
    "issue points to, which pull request changed a documented file. Start with `search` or `find`; "
    "follow links with `neighbors`; read one document with `get_document`; `ask` answers a question "
    "with citations. Document ids look like jira:PAY-12, confluence:page:2000005, "
    "github:owner/repo:pull:8, github:owner/repo:commit:<sha>, github:owner/repo:file:<path>."
)


class ReaderScopedMCP(FastMCP):
    """FastMCP whose tools and resources run as the caller's reader, set around each call (the
    store's ``ScopedStore`` asks ``current_reader()``). The server is told whom it serves rather
    than inheriting a context variable from whoever started it: the SDK runs each call in a task
    of its own, so the reader is set there, at the call.

    Over HTTP the caller is the request's: the reader the API's ``ReaderMiddleware`` resolved
    from the token (None when it resolved nobody: the store's default, which fails closed once
    accounts exist). Over stdio there is no request: ``stdio_reader``, the reader ``devkb mcp``
    was started for (``--as EMAIL``, or everything with ``--all`` / without accounts)."""

    def __init__(self, *args: Any, stdio_reader: Reader | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stdio_reader = stdio_reader

    def _reader(self) -> Reader | None:
        try:
            request = self.get_context().request_context.request
        except (LookupError, ValueError, AttributeError):
            request = None
        if isinstance(request, Request):
            reader: Reader | None = getattr(request.state, "reader", None)
            return reader
        return self.stdio_reader

    async def call_tool(
        self, name: str, arguments: dict[str, Any]
    ) -> Sequence[ContentBlock] | dict[str, Any]:
        with reading_as(self._reader()):
            return await super().call_tool(name, arguments)

    async def read_resource(self, uri: AnyUrl | str) -> Iterable[ReadResourceContents]:
        with reading_as(self._reader()):
            return await super().read_resource(uri)


def build_mcp_server(parts: McpParts, stdio_reader: Reader | None = None) -> FastMCP:
    """A fresh MCP server over ``parts``. Stateless over HTTP: every request stands alone, so any
    replica behind a load balancer can serve it. ``host`` tunes the SDK's DNS-rebinding guard (on
    for loopback, where no API key may protect the server). ``stdio_reader``: whom calls without
    an HTTP request (stdio) read as."""
    mcp = ReaderScopedMCP(
        "devkb",
        instructions=INSTRUCTIONS,
        host=parts.settings.host,
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        stdio_reader=stdio_reader,
    )
    register_tools(mcp, parts)
    register_resources(mcp, parts)
    return mcp
