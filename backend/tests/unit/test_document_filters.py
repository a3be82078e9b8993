"""One definition of the document filters (agent/tools/filters.py) behind every face that finds
documents by field: the agent's GraphQuery tool schema, MCP ``find`` (and the filter part of MCP
``search``) and the API's ``GET /documents`` read their parameters off the same model."""

from __future__ import annotations

import asyncio

import pytest
from mcp.server.fastmcp import FastMCP

from devkb.agent.evidence import Scope
from devkb.agent.tools.filters import DocumentFilters
from devkb.agent.tools.graph_query import GraphQuery
from devkb.api.app import create_app
from devkb.errors import InvalidQueryError
from devkb.mcp.tools import register_tools

FIELDS = set(DocumentFilters.model_fields)


def mcp_schemas() -> dict[str, dict]:
    server = FastMCP("filters")
    register_tools(server, None)  # type: ignore[arg-type]  # listing the tools reads no part
    return {t.name: t.inputSchema for t in asyncio.run(server.list_tools())}


def test_every_face_takes_the_same_fields_with_the_same_descriptions():
    tool_schema = GraphQuery(store=None).as_tool(Scope()).parameters  # type: ignore[arg-type]
    mcp = mcp_schemas()
    api = create_app().openapi()["paths"]["/documents"]["get"]["parameters"]
    api_params = {p["name"]: p for p in api}
    assert FIELDS <= set(tool_schema["properties"])
    assert FIELDS <= set(mcp["find"]["properties"])
    assert FIELDS <= set(api_params)
    assert set(mcp["search"]["properties"]) - {"query", "sources", "top_k", "anchor"} <= FIELDS
    for name, info in DocumentFilters.model_fields.items():
        assert tool_schema["properties"][name]["description"] == info.description
        assert mcp["find"]["properties"][name]["description"] == info.description
        assert api_params[name]["description"] == info.description


def test_values_become_one_lookup_and_bad_ones_are_refused_by_name():
    lookup = DocumentFilters.parse(
        {"key": "pay-12, PAY-7", "status": " Open ", "updated_from": "2024-03-05T10:00"}
    ).lookup()
    assert lookup is not None
    assert lookup.filters == {"key": ("PAY-12", "PAY-7"), "status": ("Open",)}
    assert lookup.updated_from == "2024-03-05"
    assert DocumentFilters.parse({"project": None, "title": ""}).lookup() is None
    with pytest.raises(InvalidQueryError, match="content is not a filter field"):
        DocumentFilters.parse({"content": "x"})
    with pytest.raises(InvalidQueryError, match="updated_to must be a date like 2014-05-20"):
        DocumentFilters.parse({"updated_to": "yesterday"})
    with pytest.raises(InvalidQueryError, match="number"):
        DocumentFilters.parse({"number": 0})
    with pytest.raises(InvalidQueryError, match="at most 200 characters"):
        DocumentFilters.parse({"assignee": "x" * 201})
