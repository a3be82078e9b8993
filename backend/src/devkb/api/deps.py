"""``Annotated`` dependency aliases: handlers ask for what they need by type.

The getters are ``async``: they only read the app's container (its singletons are built at start,
``api/app.py``), so FastAPI calls them on the event loop — a sync dependency would cost every
request a hop to the thread pool and back (docs/benchmarks.md, "Query")."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from devkb.access.scoped_store import ReaderStore
from devkb.agent.ask_service import AskService
from devkb.agent.knowledge_gaps import KnowledgeGaps
from devkb.config.settings import Settings
from devkb.container import Container
from devkb.conversations.memory import SessionMemory
from devkb.indexing.run_manager import RunManager


def _container(request: Request) -> Container:
    container: Container = request.app.state.container
    return container


async def get_container(request: Request) -> Container:
    return _container(request)


async def get_store(request: Request) -> ReaderStore:
    """The store as the signed-in reader may see it (``access/scoped_store.py``)."""
    value: ReaderStore = _container(request).reader_store()
    return value


async def get_settings(request: Request) -> Settings:
    value: Settings = _container(request).settings()
    return value


async def get_ask(request: Request) -> AskService:
    value: AskService = _container(request).ask()
    return value


async def get_runs(request: Request) -> RunManager:
    value: RunManager = _container(request).runs()
    return value


async def get_memory(request: Request) -> SessionMemory:
    value: SessionMemory = _container(request).chat_memory()
    return value


async def get_gaps(request: Request) -> KnowledgeGaps:
    value: KnowledgeGaps = _container(request).knowledge_gaps()
    return value


async def get_session_id(request: Request) -> str:
    """The session the ``SessionMiddleware`` attached to this request."""
    return str(request.state.session_id)


ContainerDep = Annotated[Container, Depends(get_container)]
StoreDep = Annotated[ReaderStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
AskDep = Annotated[AskService, Depends(get_ask)]
RunsDep = Annotated[RunManager, Depends(get_runs)]
MemoryDep = Annotated[SessionMemory, Depends(get_memory)]
SessionDep = Annotated[str, Depends(get_session_id)]
GapsDep = Annotated[KnowledgeGaps, Depends(get_gaps)]
