"""The reader-scoped store is a type of its own: mypy (with the project's configuration) refuses
the raw store where the agent's tools, the API's routers and the MCP server expect the reader
store, and accepts the reader store there. Runs mypy, hence integration."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BACKEND = Path(__file__).resolve().parents[3]

SNIPPET = """\
from devkb.access.scoped_store import ReaderStore
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.tools import Toolbox
from devkb.indexing.embedders.base import TextEmbedder
from devkb.mcp.parts import McpParts
from devkb.store.sqlite import SQLiteGraphStore


def raw_tools(raw: SQLiteGraphStore, embedder: TextEmbedder) -> Toolbox:
    return Toolbox(raw, HybridSearch(raw, embedder))  # RAW-TOOLBOX


def raw_mcp(raw: SQLiteGraphStore, parts: McpParts) -> None:
    parts.store = lambda: raw  # RAW-MCP


def reader_tools(reader: ReaderStore, embedder: TextEmbedder) -> Toolbox:
    return Toolbox(reader, HybridSearch(reader, embedder))


def reader_api(reader: ReaderStore) -> None:
    from devkb.api.deps import StoreDep

    store: StoreDep = reader
    del store
"""


def test_mypy_refuses_the_raw_store_where_the_reader_store_is_expected(tmp_path):
    snippet = tmp_path / "wiring.py"
    snippet.write_text(SNIPPET)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", str(snippet)],
        cwd=BACKEND,
        capture_output=True,
        text=True,
        timeout=600,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    lines = SNIPPET.splitlines()
    flagged = {lines[int(re.search(r":(\d+): error", e)[1]) - 1].split("# ")[-1] for e in errors}
    assert flagged == {"RAW-TOOLBOX", "RAW-MCP"}, done.stdout
