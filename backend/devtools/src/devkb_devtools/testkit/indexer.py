"""``build_indexer``: the indexing parts as ``devkb`` wires them (store, pipeline with its
segmenters, ``SyncWithBackfill``, runs), over given loaders and embedder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dependency_injector import providers

from devkb.config.settings import Settings
from devkb.container import Container, prepare_store
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.pipeline import IndexingPipeline
from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.context_builder import LinkContextBuilder
from devkb.indexing.run_manager import RunManager
from devkb.indexing.sync import SourceSync
from devkb.sources.base import SourceLoader
from devkb.store.sqlite import SQLiteGraphStore


@dataclass
class Indexer:
    store: SQLiteGraphStore
    pipeline: IndexingPipeline
    sync: SourceSync
    runs: RunManager
    context: LinkContextBuilder | Any
    container: Container

    def close(self) -> None:
        self.container.shutdown_resources()
        self.store.close()


class FixedContext:
    """A link context that does not come from loaders (synthetic corpora)."""

    def __init__(self, context: LinkContext) -> None:
        self._context = context

    def current(self) -> LinkContext:
        return self._context

    def refresh(self, _loader: object = None) -> LinkContext:
        return self._context


def build_indexer(
    data_dir: Path,
    embedder: TextEmbedder,
    loaders: list[SourceLoader],
    chunk_size: int = 1000,
    chunk_overlap: int = 100,
    link_context: LinkContext | None = None,
    **settings: Any,
) -> Indexer:
    """The container's parts on ``data_dir`` (SQLite) over ``loaders`` and ``embedder``;
    ``link_context`` fixes what the reference rules know instead of asking the loaders."""
    container = Container()
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "chunk_size": chunk_size,
        "chunk_overlap": chunk_overlap,
        "llm_provider": "none",
        "scheduler_enabled": False,
        **settings,
    }
    container.settings.override(providers.Object(Settings(_env_file=None, **values)))
    # The store is the caller's to close: a store the container opened as a resource would be
    # closed when the container is garbage-collected, under a caller that only kept the store.
    container.store.override(providers.Object(SQLiteGraphStore(data_dir / "graph.sqlite")))
    container.embedder.override(providers.Object(embedder))
    container.sources.override(providers.Object([]))  # the loaders below stand for the sources
    container.loaders.override(providers.Object(loaders))
    if link_context is not None:
        container.link_context.override(providers.Object(FixedContext(link_context)))
    prepare_store(container)
    return Indexer(
        container.store(),
        container.pipeline(),
        container.sync(),
        container.runs(),
        container.link_context(),
        container,
    )
