"""Builders for tests: the indexing parts from the container (``devkb_devtools.testkit``), a real server."""

from __future__ import annotations

from pathlib import Path

from devkb_devtools.bench.server_process import DevkbServer
from devkb_devtools.testkit import Indexer, build_indexer

__all__ = ["Indexer", "RunningServer", "build_indexer"]


class RunningServer(DevkbServer):
    """``devkb serve`` in a subprocess on 127.0.0.1 (a real uvicorn server), stopped on exit;
    indexes the configured sources (the demo workspace) first unless ``index=False``."""

    def __init__(
        self, data_dir: Path, env: dict[str, str] | None = None, index: bool = True, timeout: float = 300.0
    ) -> None:
        super().__init__(data_dir, env=env, index=index, timeout=timeout)
