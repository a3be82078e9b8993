"""The parts of devkb the MCP server uses, handed over by the container (``Container.mcp_server``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from devkb.access.scoped_store import ReaderStore
from devkb.agent.ask_service import AskService
from devkb.agent.tools import Toolbox
from devkb.config.settings import Settings
from devkb.indexing.run_manager import RunManager
from devkb.indexing.uploads import UploadIngest
from devkb.memory.service import MemoryService


@dataclass(frozen=True)
class McpParts:
    """What the tools use, from the container; each callable returns the container's singleton."""

    settings: Settings
    store: Callable[[], ReaderStore]
    toolbox: Callable[[], Toolbox]
    ask: Callable[[], AskService]
    runs: Callable[[], RunManager]
    uploads: Callable[[], UploadIngest] | None = None  # the ingest tool; None: uploads disabled
    memories: Callable[[], MemoryService] | None = None  # remember, recall, forget, verify
