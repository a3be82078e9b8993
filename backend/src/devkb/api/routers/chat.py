"""``/chat``: the conversation of the caller's session (cookie or header ``X-Session-ID``)."""

from __future__ import annotations

from fastapi import APIRouter

from devkb.agent.answer import Citation
from devkb.api.deps import MemoryDep, SessionDep
from devkb.api.schemas import ChatClearResponse, ChatHistoryResponse, ChatMessageOut

router = APIRouter(prefix="/chat", tags=["chat"])


@router.get("/history", response_model=ChatHistoryResponse, operation_id="chatHistory")
def history(session_id: SessionDep, memory: MemoryDep) -> ChatHistoryResponse:
    """The messages of this session, oldest first (at most DEVKB_HISTORY_LIMIT)."""
    return ChatHistoryResponse(
        session_id=session_id,
        messages=[
            ChatMessageOut(
                role=m.role,
                content=m.content,
                timestamp=m.timestamp,
                sources=[Citation(**s) for s in m.sources],
            )
            for m in memory.history(session_id)
        ],
    )


@router.post("/clear", response_model=ChatClearResponse, operation_id="chatClear")
def clear(session_id: SessionDep, memory: MemoryDep) -> ChatClearResponse:
    """Forget this session's messages."""
    return ChatClearResponse(session_id=session_id, cleared=memory.clear(session_id))
