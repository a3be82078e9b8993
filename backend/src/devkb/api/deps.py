"""``Annotated`` dependency aliases: handlers ask for what they need by type."""

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


def get_container(request: Request) -> Container:
    container: Container = request.app.state.container
    return container


def get_store(request: Request) -> ReaderStore:
    """The store as the signed-in reader may see it (``access/scoped_store.py``)."""
    value: ReaderStore = get_container(request).reader_store()
    return value


def get_settings(request: Request) -> Settings:
    value: Settings = get_container(request).settings()
    return value


def get_ask(request: Request) -> AskService:
    value: AskService = get_container(request).ask()
    return value


def get_runs(request: Request) -> RunManager:
    value: RunManager = get_container(request).runs()
    return value


def get_memory(request: Request) -> SessionMemory:
    value: SessionMemory = get_container(request).chat_memory()
    return value


def get_gaps(request: Request) -> KnowledgeGaps:
    value: KnowledgeGaps = get_container(request).knowledge_gaps()
    return value


def get_session_id(request: Request) -> str:
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
