"""``POST /ask`` and ``POST /ask/stream``: a question → an answer with citations, remembered in
the caller's chat session so follow-up questions can use it.

``/ask/stream`` sends Server-Sent Events, in this order::

    status     {"stage": "retrieving"}
    tool_call  {"tool": "GraphQuery", "arguments": {...}, "result_count": 1}      (one per call)
    status     {"stage": "generating"}
    token      {"text": "..."}                                                   (many)
    citations  {"sources": [Citation, ...]}
    done       AskResponse (the authoritative answer; tokens are provisional with an LLM)

or ``error {"detail": "..."}`` instead of citations/done. With an LLM the agent may go back to
its tools after writing, so status/tool_call/token can repeat before citations.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

import anyio
from fastapi import APIRouter, HTTPException
from fastapi.responses import StreamingResponse

from devkb.access.readers import bound_to_current_reader
from devkb.agent.answer import Answer, HistoryTurn
from devkb.agent.ask_service import AskService
from devkb.agent.knowledge_gaps import KnowledgeGaps
from devkb.api.deps import AskDep, GapsDep, MemoryDep, SessionDep, SettingsDep
from devkb.api.schemas import (
    AskRequest,
    AskResponse,
    ConfidenceOut,
    ErrorResponse,
    ToolCallOut,
    UnderstoodOut,
)
from devkb.conversations.memory import SessionMemory, StoredMessage, now_iso
from devkb.errors import DevkbError

log = logging.getLogger(__name__)
router = APIRouter(tags=["ask"])
_END = "__end__"

SSE_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: status, tool_call, token, citations, done (or error).",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    },
    422: {"model": ErrorResponse},
}


def check_length(question: str, limit: int) -> None:
    if len(question) > limit:
        raise HTTPException(422, f"question is {len(question)} characters; the limit is {limit}")


def history_of(memory: SessionMemory, session_id: str) -> list[HistoryTurn]:
    return [
        HistoryTurn("user" if m.role == "user" else "assistant", m.content, m.document_ids)
        for m in memory.history(session_id)
        if m.role in ("user", "assistant")
    ]


def to_response(answer: Answer, session_id: str) -> AskResponse:
    return AskResponse(
        answer=answer.answer,
        sources=list(answer.sources),
        tool_calls=[ToolCallOut(**t.__dict__) for t in answer.tool_calls],
        mode=answer.mode,
        session_id=session_id,
        question=answer.question or None,
        provider=answer.provider,
        note=answer.note,
        status=answer.status,
        confidence=ConfidenceOut(**answer.confidence.__dict__) if answer.confidence is not None else None,
        filtered_out=answer.filtered_out,
        understood=UnderstoodOut(**asdict(answer.understood)) if answer.understood is not None else None,
    )


def remember(memory: SessionMemory, session_id: str, question: str, out: AskResponse) -> None:
    memory.append(session_id, StoredMessage("user", question, now_iso()))
    memory.append(
        session_id,
        StoredMessage("assistant", out.answer, now_iso(), tuple(asdict(s) for s in out.sources)),
    )


def note_gap(gaps: KnowledgeGaps, question: str, answer: Answer) -> None:
    """Record the answer as a knowledge gap when it is one; a store error never fails the answer."""
    try:
        gaps.record_answer(question, answer)
    except Exception:  # the store's own errors included: a gap is never worth a failed answer
        log.warning("could not record a knowledge gap", exc_info=True)


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


@router.post(
    "/ask", response_model=AskResponse, operation_id="ask", responses={422: {"model": ErrorResponse}}
)
async def ask(
    body: AskRequest,
    service: AskDep,
    settings: SettingsDep,
    memory: MemoryDep,
    session_id: SessionDep,
    gaps: GapsDep,
) -> AskResponse:
    """Answer a question from the knowledge base, citing its sources."""
    check_length(body.question, settings.max_question_chars)

    def work() -> AskResponse:
        answer = service.ask(body.question, body.source_types(), history=history_of(memory, session_id))
        out = to_response(answer, session_id)
        remember(memory, session_id, body.question, out)
        note_gap(gaps, body.question, answer)
        return out

    # Without an LLM the answer is CPU work under the GIL: a question waits here, as a coroutine
    # rather than a thread, for one of the service's answer slots (docs/deployment.md, "One machine")
    return await anyio.to_thread.run_sync(work, limiter=_answer_limiter(service))


_LIMITERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, anyio.CapacityLimiter]] = (
    weakref.WeakKeyDictionary()
)


def _answer_limiter(service: AskService) -> anyio.CapacityLimiter | None:
    """The service's answer slots as this event loop's limiter; None (the thread pool's own) when
    an LLM answers — it mostly waits on the model."""
    if not service.answers_extractively(probe=False):  # on the loop: never wait on a probe
        return None
    per_loop = _LIMITERS.setdefault(asyncio.get_running_loop(), {})
    limiter = per_loop.get(id(service))
    if limiter is None:
        limiter = per_loop[id(service)] = anyio.CapacityLimiter(service.answer_slots)
    return limiter


@router.post("/ask/stream", response_class=StreamingResponse, operation_id="askStream", responses=SSE_DOC)
async def ask_stream(
    body: AskRequest,
    service: AskDep,
    settings: SettingsDep,
    memory: MemoryDep,
    session_id: SessionDep,
    gaps: GapsDep,
) -> StreamingResponse:
    """The same answer as ``/ask``, streamed as Server-Sent Events while it is produced."""
    check_length(body.question, settings.max_question_chars)
    history = history_of(memory, session_id)
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()

    def emit(kind: str, payload: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, (kind, payload))

    def work() -> None:
        try:
            answer = service.ask(body.question, body.source_types(), history=history, on_event=emit)
            out = to_response(answer, session_id)
            remember(memory, session_id, body.question, out)
            note_gap(gaps, body.question, answer)
            emit("citations", {"sources": [asdict(s) for s in out.sources]})
            emit("done", out.model_dump())
        except DevkbError as e:
            emit("error", {"detail": str(e)})
        except Exception:
            log.exception("streaming answer failed")
            emit("error", {"detail": "internal error while answering"})
        finally:
            emit(_END, {})

    async def events() -> AsyncIterator[bytes]:
        worker = loop.run_in_executor(None, bound_to_current_reader(work))  # as the request's reader
        while True:
            kind, payload = await queue.get()
            if kind == _END:
                break
            yield sse(kind, payload)
        await worker

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
