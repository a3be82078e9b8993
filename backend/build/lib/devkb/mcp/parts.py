"""The parts of devkb the MCP server uses, handed over by the container (``Container.mcp_server``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from devkb.agent.ask_service import AskService
from devkb.agent.tools import Toolbox
from devkb.config.settings import Settings
from devkb.indexing.run_manager import RunManager
from devkb.store.protocol import GraphStore


@dataclass(frozen=True)
class McpParts:
    """What the tools use, from the container; each callable returns the container's singleton."""

    settings: Settings
    store: Callable[[], GraphStore]
    toolbox: Callable[[], Toolbox]
    ask: Callable[[], AskService]
    runs: Callable[[], RunManager]
