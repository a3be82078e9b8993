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
