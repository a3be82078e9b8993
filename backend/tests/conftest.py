"""Shared fixtures. Helpers that build real components live in ``tests/support.py``.

Append new fixtures at the end; keep each one documented.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FLUID_DIR = (REPO_ROOT / ".." / "shared" / "data" / "fluid").resolve()


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2 embedder (torch, bundled weights), loaded once per session,
    behind an in-memory cache so the same text is embedded once per session."""
    from devkb.indexing.embedders.cache import CachingEmbedder
    from devkb.indexing.embedders.local_minilm import LocalMiniLMEmbedder

    e = LocalMiniLMEmbedder()
    e.warm_up()
    return CachingEmbedder(e)


@pytest.fixture(scope="session")
def fluid_dir() -> Path:
    """The Fluid corpus from ../shared; tests that need it skip with a clear message otherwise."""
    if not (FLUID_DIR / "jira" / "issues.jsonl.gz").exists():
        pytest.skip(f"the Fluid corpus is not at {FLUID_DIR} (../shared/data/fluid); corpus tests skipped")
    return FLUID_DIR


@pytest.fixture(scope="session")
def agent_corpus(tmp_path_factory, embedder) -> Path:
    """The agent tests' small three-source corpus (``tests/agent_corpus.py``), indexed once per
    session with the real pipeline and embedder; returns the directory holding ``graph.sqlite``.
    Open it read-only in tests, or copy it when a test writes."""
    from tests.agent_corpus import build_store

    d = tmp_path_factory.mktemp("agent-corpus")
    build_store(d / "graph.sqlite", embedder).close()
    return d


@pytest.fixture
def agent_store(agent_corpus):
    """A connection to the agent corpus store."""
    from devkb.store.sqlite import SQLiteGraphStore

    s = SQLiteGraphStore(agent_corpus / "graph.sqlite")
    yield s
    s.close()


@pytest.fixture
def agent_toolbox(agent_store, embedder):
    """The four tools over the agent corpus."""
    from devkb.agent.hybrid_search import HybridSearch
    from devkb.agent.tools import Toolbox

    return Toolbox(agent_store, HybridSearch(agent_store, embedder), lambda: {"PAY"})


@pytest.fixture(scope="session")
def demo_workspace(tmp_path_factory, embedder):
    """The demo workspace indexed once per session (emulators on loopback, a sources file, an
    indexed data directory); see ``tests/demo_workspace.py``. Copy its data before writing."""
    from tests.demo_workspace import build_demo_workspace

    ws = build_demo_workspace(tmp_path_factory.mktemp("demo-workspace"), embedder)
    yield ws
    ws.suite.stop()


@pytest.fixture(autouse=True)
def emulator_responses_follow_the_vendor_descriptions():
    """Every response an emulator gives during a test is validated against the vendor's published
    OpenAPI description (``devkb_devtools.emulators.vendor_check``); a violation fails the test that caused
    it, with the finding, even where the client under test swallowed the 500 it was sent."""
    from devkb_devtools.emulators.vendor_check import SESSION_CHECK

    before = len(SESSION_CHECK.violations)
    yield
    new = SESSION_CHECK.violations[before:]
    if new:
        listed = "\n".join(str(v) for v in new[:10])
        pytest.fail(f"{len(new)} emulator responses violate the vendor description:\n{listed}", pytrace=False)
