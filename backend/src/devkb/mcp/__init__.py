"""devkb over the Model Context Protocol, for coding agents: ``devkb mcp`` (stdio) and ``/mcp`` in
``devkb serve`` (streamable HTTP). ``server.py`` builds the server from the container's parts."""

from devkb.mcp.server import build_mcp_server

__all__ = ["build_mcp_server"]
