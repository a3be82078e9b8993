"""Builders for tests: a real store, pipeline and sync wired like the container does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from devkb.bench.server_process import DevkbServer
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.pipeline import IndexingPipeline
from devkb.indexing.references.context_builder import LinkContextBuilder
from devkb.indexing.references.extractor import ReferenceExtractor
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
    context: LinkContextBuilder


def build_indexer(
    data_dir: Path,
    embedder: TextEmbedder,
    loaders: list[SourceLoader],
    chunk_size: int = 1000,
    chunk_overlap: int = 100,
) -> Indexer:
    store = SQLiteGraphStore(data_dir / "graph.sqlite")
    store.ensure_schema(embedder.model_name, embedder.dimension)
    ctx = LinkContextBuilder(store, loaders)
    pipeline = IndexingPipeline(store, embedder, ReferenceExtractor(), ctx.current, chunk_size, chunk_overlap)
    sync = SourceSync(store, pipeline, before_run=ctx.refresh)
    return Indexer(store, pipeline, sync, RunManager(sync, loaders), ctx)


class RunningServer(DevkbServer):
    """``devkb serve`` in a subprocess on 127.0.0.1 (a real uvicorn server), stopped on exit;
    indexes the configured sources (the demo workspace) first unless ``index=False``."""

    def __init__(
        self, data_dir: Path, env: dict[str, str] | None = None, index: bool = True, timeout: float = 300.0
    ) -> None:
        super().__init__(data_dir, env=env, index=index, timeout=timeout)
