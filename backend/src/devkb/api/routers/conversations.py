"""``/conversations``: past conversations, kept in the store (``DEVKB_CHAT_MEMORY=store``).

List, read, rename, delete and export them; reopen one by sending its id as the
``X-Session-ID`` header (the session middleware then makes it the session, cookie included).
In the default in-memory mode every route answers 409 with how to turn the mode on.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Response
from pydantic import BaseModel, Field

from devkb.agent.answer import Citation
from devkb.api.deps import ContainerDep
from devkb.api.memory_schemas import MemoryOut, RejectedFactOut
from devkb.api.schemas import (
    ChatMessageOut,
    ConversationDetail,
    ConversationOut,
    ConversationRename,
    ErrorResponse,
)
from devkb.container import Container
from devkb.conversations.store_memory import StoreChatMemory
from devkb.memory.service import MemoryError
from devkb.store.shared_state import Conversation

router = APIRouter(prefix="/conversations", tags=["conversations"])

OFF = (
    "conversations are kept only with DEVKB_CHAT_MEMORY=store (the default, memory, keeps each "
    "session's history in the server process until it restarts)"
)
ERRORS: dict[int | str, dict[str, object]] = {404: {"model": ErrorResponse}, 409: {"model": ErrorResponse}}


def _memory(container: Container) -> StoreChatMemory:
    memory = container.chat_memory()
    if not isinstance(memory, StoreChatMemory):
        raise HTTPException(409, OFF)
    return memory


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


def _out(c: Conversation) -> ConversationOut:
    return ConversationOut(
        id=c.id,
        title=c.title or "(untitled)",
        created_at=_iso(c.created_at),
        updated_at=_iso(c.updated_at),
        message_count=c.message_count,
    )


def _get(memory: StoreChatMemory, conversation_id: str) -> Conversation:
    c = memory.state.conversation(conversation_id)
    if c is None or c.owner != memory.owner:
        raise HTTPException(404, f"no conversation {conversation_id!r}")
    return c


def _detail(memory: StoreChatMemory, c: Conversation) -> ConversationDetail:
    return ConversationDetail(
        conversation=_out(c),
        messages=[
            ChatMessageOut(
                role=m.role,
                content=m.content,
                timestamp=m.timestamp,
                sources=[Citation(**s) for s in m.sources],
            )
            for m in memory.state.messages(c.id)
        ],
    )


@router.get("", response_model=list[ConversationOut], responses=ERRORS, operation_id="listConversations")
def list_conversations(
    container: ContainerDep, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> list[ConversationOut]:
    """Past conversations that have messages, most recently used first."""
    memory = _memory(container)
    return [_out(c) for c in memory.state.list_conversations(memory.owner, limit)]


@router.get(
    "/{conversation_id}", response_model=ConversationDetail, responses=ERRORS, operation_id="getConversation"
)
def get_conversation(conversation_id: str, container: ContainerDep) -> ConversationDetail:
    """One conversation with all its messages and their citations."""
    memory = _memory(container)
    return _detail(memory, _get(memory, conversation_id))


@router.patch(
    "/{conversation_id}", response_model=ConversationOut, responses=ERRORS, operation_id="renameConversation"
)
def rename_conversation(
    conversation_id: str, body: ConversationRename, container: ContainerDep
) -> ConversationOut:
    """Give a conversation a title."""
    memory = _memory(container)
    _get(memory, conversation_id)
    memory.state.rename_conversation(conversation_id, body.title.strip(), memory.clock())
    return _out(_get(memory, conversation_id))


@router.delete("/{conversation_id}", status_code=204, responses=ERRORS, operation_id="deleteConversation")
def delete_conversation(conversation_id: str, container: ContainerDep) -> Response:
    """Delete a conversation and its messages for good."""
    memory = _memory(container)
    _get(memory, conversation_id)
    memory.state.delete_conversation(conversation_id)
    return Response(status_code=204)


@router.get(
    "/{conversation_id}/export",
    responses={**ERRORS, 200: {"content": {"text/markdown": {}, "application/json": {}}}},
    operation_id="exportConversation",
)
def export_conversation(
    conversation_id: str, container: ContainerDep, format: Literal["json", "markdown"] = "markdown"
) -> Response:
    """The conversation as a Markdown transcript (with its sources) or as JSON."""
    memory = _memory(container)
    detail = _detail(memory, _get(memory, conversation_id))
    name = f"devkb-conversation-{conversation_id[:8]}"
    if format == "json":
        return Response(
            json.dumps(detail.model_dump(mode="json"), indent=2),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}.json"'},
        )
    lines = [f"# {detail.conversation.title}", ""]
    for m in detail.messages:
        lines += [f"**{m.role}** ({m.timestamp}):", "", m.content, ""]
        lines += [f"- [{s.title}]({s.url}) `{s.document_id}`" for s in m.sources]
        if m.sources:
            lines.append("")
    return Response(
        "\n".join(lines),
        media_type="text/markdown",
        headers={"Content-Disposition": f'attachment; filename="{name}.md"'},
    )


class ProposedFactsOut(BaseModel):
    proposed: list[MemoryOut] = Field(
        description="Proposed private memories of yours: verify to keep, delete to drop."
    )
    rejected: list[RejectedFactOut] = Field(
        description="What the model offered and was not proposed, with why."
    )
    error: str | None = Field(description="The model's failure, when it failed (nothing proposed then).")


@router.post(
    "/{conversation_id}/facts",
    response_model=ProposedFactsOut,
    operation_id="proposeFacts",
    responses={**ERRORS, 503: {"model": ErrorResponse, "description": "No language model is configured."}},
)
def propose_facts(conversation_id: str, container: ContainerDep) -> ProposedFactsOut:
    """Facts a language model finds in what you said in this conversation, in one pass: each one
    grounded in your own words becomes a proposed private memory of yours; what it offered that is
    not, and its failure if it failed, are in the reply (docs/memory.md)."""
    memory = _memory(container)
    c = _get(memory, conversation_id)
    ask = container.json_model()()
    if ask is None:
        raise HTTPException(
            503,
            "proposing facts needs a language model (DEVKB_LLM_PROVIDER); without one, say "
            "'Remember that …' in chat or use POST /memories",
        )
    said = [m.content for m in memory.state.messages(c.id) if m.role == "user"]
    try:
        out = container.memories().propose_from_conversation(said, ask, conversation=c.id, title=c.title)
    except MemoryError as e:
        raise HTTPException(e.status, str(e)) from e
    return ProposedFactsOut(
        proposed=[MemoryOut.of(m) for m in out["proposed"]],
        rejected=[RejectedFactOut(**r) for r in out["rejected"]],
        error=out["error"],
    )
