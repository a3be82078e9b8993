"""The demo workspace for API-level tests: the emulators serve the packaged demo dataset on
loopback, a sources file points at them, and a data directory holds the indexed graph. Built once
per session (``demo_workspace`` fixture); each test copies the indexed data directory so its
writes stay its own. Also: an in-process app wired like ``devkb serve`` does, and a graph
snapshot for exact before/after comparisons."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from dependency_injector import providers

from devkb.config.settings import Settings
from devkb.container import Container, prepare_store, shutdown
from devkb.indexing.embedders.base import TextEmbedder
from devkb_devtools.demo.workspace import DEMO_DATA, demo_sources
from devkb_devtools.emulators import Dataset, EmulatorSuite


@dataclass
class DemoWorkspace:
    suite: EmulatorSuite
    sources_file: Path
    data_dir: Path  # indexed; never written by tests (copy it with ``copy_data``)

    def copy_data(self, dest: Path) -> Path:
        shutil.copytree(self.data_dir, dest, ignore=shutil.ignore_patterns("*-shm", "*-wal"))
        return dest


def write_sources_file(
    path: Path,
    suite: EmulatorSuite,
    token_envs: dict[str, str] | None = None,
    page_sizes: dict[str, int] | None = None,
) -> Path:
    """The demo's sources (wiki, code, jira) as a sources file; ``token_envs`` maps a source name
    to the environment variable holding its token, ``page_sizes`` to its page size."""
    entries = []
    for cfg in demo_sources(suite):
        entry: dict[str, Any] = cfg.model_dump(exclude_defaults=True)
        entry.update(name=cfg.name, type=cfg.type, schedule="manual")
        if token_envs and cfg.name in token_envs:
            entry["token_env"] = token_envs[cfg.name]
        if page_sizes and cfg.name in page_sizes:
            entry["page_size"] = page_sizes[cfg.name]
        entries.append(entry)
    path.write_text(yaml.safe_dump({"sources": entries}, sort_keys=False))
    return path


def make_container(
    data_dir: Path, sources_file: Path, embedder: TextEmbedder | None = None, **settings: Any
) -> Container:
    """A container like ``devkb serve`` builds, on ``data_dir``, extractive, no scheduler."""
    container = Container()
    values = {
        "data_dir": data_dir,
        "sources_file": sources_file,
        "llm_provider": "none",
        "scheduler_enabled": False,
        **settings,
    }
    container.settings.override(providers.Object(Settings(_env_file=None, **values)))
    if embedder is not None:
        container.embedder.override(providers.Object(embedder))
    return container


def index_all(container: Container) -> None:
    prepare_store(container)
    runs = container.runs()
    for name in runs.ordered_names():
        status = runs.run(name)
        assert status.state == "succeeded", (name, status.errors)


def build_demo_workspace(root: Path, embedder: TextEmbedder) -> DemoWorkspace:
    suite = EmulatorSuite(Dataset.load(DEMO_DATA)).start()
    sources_file = write_sources_file(root / "sources.yaml", suite)
    data_dir = root / "indexed"
    container = make_container(data_dir, sources_file, embedder)
    try:
        index_all(container)
    finally:
        shutdown(container)
    return DemoWorkspace(suite, sources_file, data_dir)


def graph_snapshot(store: Any) -> dict[str, Any]:
    """Everything that makes two graphs equal: documents with content hashes, chunks with their
    text, and every visible edge."""
    stats = store.stats()
    ids = sorted(store.document_ids())
    chunks = set()
    for i in ids:
        found = store.get_document(i)
        chunks.update((c.id, i, c.chunk_index, c.content) for c in found.chunks)
    return {
        "documents": stats.documents,
        "chunks": stats.chunks,
        "references": stats.references,
        "hashes": store.content_hashes(ids),
        "chunk_texts": chunks,
        "edges": {(r.from_id, r.to_id, r.kind) for r in store.references()},
    }
