"""Builders for tests: a real store, pipeline and sync wired like the container does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


def build_indexer(data_dir: Path, embedder: TextEmbedder, loaders: list[SourceLoader],
                  chunk_size: int = 1000, chunk_overlap: int = 100) -> Indexer:
    store = SQLiteGraphStore(data_dir / "graph.sqlite")
    store.ensure_schema(embedder.model_name, embedder.dimension)
    ctx = LinkContextBuilder(store, loaders)
    pipeline = IndexingPipeline(store, embedder, ReferenceExtractor(), ctx.current, chunk_size, chunk_overlap)
    sync = SourceSync(store, pipeline, before_run=ctx.refresh)
    return Indexer(store, pipeline, sync, RunManager(sync, loaders), ctx)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RunningServer:
    """``devkb serve`` in a subprocess on 127.0.0.1 (a real uvicorn server), stopped on exit."""

    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, index: bool = True,
                 timeout: float = 300.0) -> None:
        import os
        import sys

        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        shared_models = Path(__file__).resolve().parents[2] / ".cache" / "models"  # one ONNX export per checkout
        self.env = {**os.environ, "DEVKB_DATA_DIR": str(data_dir), "DEVKB_LLM_PROVIDER": "none",
                    "DEVKB_MODEL_CACHE_DIR": str(shared_models),
                    "DEVKB_SCHEDULER_ENABLED": "false", **(env or {})}
        self.args = [sys.executable, "-m", "devkb", "serve", "--port", str(self.port), "--host", "127.0.0.1",
                     "--index" if index else "--no-index"]
        self.timeout = timeout
        self.proc = None
        self.log_path = data_dir / "server.log"

    def __enter__(self) -> "RunningServer":
        import subprocess
        import time

        import httpx

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.args, env=self.env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.base_url + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.__exit__(None, None, None)
        raise TimeoutError(f"server did not become healthy in {self.timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:]

    def __exit__(self, *exc: object) -> None:
        import subprocess

        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
