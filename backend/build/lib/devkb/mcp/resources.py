"""Documents as MCP resources: ``devkb://document/{document_id}`` (Markdown: title, URL, metadata,
text rebuilt from the stored chunks by the agent's ``rebuild_content``)."""

from __future__ import annotations

import urllib.parse

from mcp.server.fastmcp import FastMCP

from devkb.agent.tools.content import rebuild_content
from devkb.mcp.parts import McpParts

MAX_DOCUMENT_CHARS = 20_000
DOCUMENT_URI = "devkb://document/{document_id}"


def register_resources(mcp: FastMCP, parts: McpParts) -> None:
    @mcp.resource(
        DOCUMENT_URI,
        name="document",
        description="A devkb document as text: title, URL, metadata and content.",
        mime_type="text/markdown",
    )
    def document_resource(document_id: str) -> str:
        document_id = urllib.parse.unquote(document_id)  # ids with "/" come percent-encoded
        found = parts.store().get_document(document_id)
        if found is None:
            raise ValueError(f"no document {document_id!r}")
        d = found.document
        meta = "\n".join(f"- {k}: {v}" for k, v in sorted(d.metadata.items()) if v not in (None, "", []))
        body = rebuild_content(d, found.chunks)
        return f"# {d.title}\n\n{d.url}\n\n{meta}\n\n{body[:MAX_DOCUMENT_CHARS]}\n"
