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

from mcp.server.fastmcp import FastMCP

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


def build_mcp_server(parts: McpParts) -> FastMCP:
    """A fresh MCP server over ``parts``. Stateless over HTTP: every request stands alone, so any
    replica behind a load balancer can serve it. ``host`` tunes the SDK's DNS-rebinding guard (on
    for loopback, where no API key may protect the server)."""
    mcp = FastMCP(
        "devkb",
        instructions=INSTRUCTIONS,
        host=parts.settings.host,
        streamable_http_path=MCP_PATH,
        stateless_http=True,
    )
    register_tools(mcp, parts)
    register_resources(mcp, parts)
    return mcp
