"""``POST /ask``: a question → an answer with citations."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from devkb.api.deps import AskDep, SettingsDep
from devkb.api.schemas import AskRequest, AskResponse, ErrorResponse, SourceCitation, ToolCallOut

router = APIRouter(tags=["ask"])


def check_length(question: str, limit: int) -> None:
    if len(question) > limit:
        raise HTTPException(422, f"question is {len(question)} characters; the limit is {limit}")


@router.post("/ask", response_model=AskResponse, operation_id="ask", responses={422: {"model": ErrorResponse}})
def ask(body: AskRequest, service: AskDep, settings: SettingsDep) -> AskResponse:
    """Answer a question from the knowledge base, citing its sources."""
    check_length(body.question, settings.max_question_chars)
    answer = service.ask(body.question, body.source_types())
    return AskResponse(
        answer=answer.answer,
        sources=[SourceCitation(**c.__dict__) for c in answer.sources],
        tool_calls=[ToolCallOut(**t.__dict__) for t in answer.tool_calls],
        mode=answer.mode,  # type: ignore[arg-type]
    )
