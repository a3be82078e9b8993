"""``/memories``: what people and agents told devkb (docs/memory.md) — create, list, search as of
a date, correct (a new version supersedes the old), verify, forget. Every read is the caller's
(``ScopedStore``): another person's private memory is a 404, never a 403."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response

from devkb.api.memory_schemas import (
    ConversationIn,
    ForgottenOut,
    MemoryExportOut,
    MemoryIn,
    MemoryOut,
    MemoryPatch,
    RecalledOut,
    RecalledTurnOut,
    RememberedConversationOut,
    ScopeName,
    StatusName,
    VerifiedAnswerIn,
    VerifiedAnswerOut,
    verified_out,
)
from devkb.api.schemas import ErrorResponse
from devkb.memory.conversations import ConversationRecall
from devkb.memory.model import parse_when
from devkb.memory.service import MemoryError, MemoryService
from devkb.memory.verified import VerifiedAnswers

router = APIRouter(prefix="/memories", tags=["memories"])

ERRORS: dict[int | str, dict[str, object]] = {s: {"model": ErrorResponse} for s in (401, 403, 404, 409, 422)}


async def get_memories(request: Request) -> MemoryService:
    value: MemoryService = request.app.state.container.memories()
    return value


MemoriesDep = Annotated[MemoryService, Depends(get_memories)]


def _http(e: MemoryError) -> HTTPException:
    return HTTPException(e.status, str(e))


@router.post("", response_model=MemoryOut, status_code=201, operation_id="createMemory", responses=ERRORS)
def create(body: MemoryIn, memories: MemoriesDep) -> MemoryOut:
    """Remember a fact. A newer memory about the same subject and attribute supersedes the current
    one (kept in its history, true until the new one's valid_from). Team memories from someone
    who is not an admin are proposed until an admin verifies them."""
    try:
        m = memories.remember(
            body.text,
            scope=body.scope,
            origin=body.origin,
            subject=body.subject,
            attribute=body.attribute,
            valid_from=body.valid_from,
            about=body.about,
            derived_from=body.derived_from,
        )
    except (MemoryError, ValueError) as e:
        raise _http(e if isinstance(e, MemoryError) else MemoryError(str(e))) from e
    return MemoryOut.of(m)


@router.get("", response_model=list[MemoryOut], operation_id="listMemories", responses=ERRORS)
def list_memories(
    memories: MemoriesDep,
    scope: ScopeName | None = None,
    status: StatusName | None = None,
    as_of: Annotated[
        str | None, Query(description="Only memories true then (ISO date or date-time).")
    ] = None,
    owner: Annotated[str | None, Query(max_length=320)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[MemoryOut]:
    """The memories you may read, newest first: your private ones, team ones, and those derived
    from documents you may read all of."""
    try:
        return [MemoryOut.of(m) for m in memories.list_memories(scope, status, as_of, owner, limit)]
    except (MemoryError, ValueError) as e:
        raise _http(e if isinstance(e, MemoryError) else MemoryError(str(e))) from e


@router.get("/search", response_model=list[RecalledOut], operation_id="searchMemories", responses=ERRORS)
def search(
    memories: MemoriesDep,
    q: Annotated[str, Query(min_length=1, max_length=4000, description="What to recall.")],
    as_of: Annotated[str | None, Query(description="What was true then (default: now).")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> list[RecalledOut]:
    """Recall: the memories you may read that answer ``q``, true as of ``as_of`` — one per subject
    and attribute (the version true then)."""
    try:
        return [
            RecalledOut(memory=MemoryOut.of(r.memory), score=r.score)
            for r in memories.search(q, as_of, limit)
        ]
    except (MemoryError, ValueError) as e:
        raise _http(e if isinstance(e, MemoryError) else MemoryError(str(e))) from e


@router.get("/export", response_model=MemoryExportOut, operation_id="exportMemories", responses=ERRORS)
def export(memories: MemoriesDep, response: Response) -> MemoryExportOut:
    """Your own memories (private and team ones you wrote), every version oldest first, with their
    validity, origin and the documents they are about or derived from — as a JSON download."""
    try:
        data = memories.export()
    except MemoryError as e:
        raise _http(e) from e
    response.headers["Content-Disposition"] = 'attachment; filename="devkb-memories.json"'
    return MemoryExportOut.model_validate(data)


@router.get("/{memory_id}", response_model=MemoryOut, operation_id="getMemory", responses=ERRORS)
def get(memory_id: str, memories: MemoriesDep) -> MemoryOut:
    try:
        return MemoryOut.of(memories.get(memory_id))
    except MemoryError as e:
        raise _http(e) from e


@router.get(
    "/{memory_id}/history", response_model=list[MemoryOut], operation_id="memoryHistory", responses=ERRORS
)
def history(memory_id: str, memories: MemoriesDep) -> list[MemoryOut]:
    """Every version of the memory you may read, oldest first."""
    try:
        return [MemoryOut.of(m) for m in memories.history(memory_id)]
    except MemoryError as e:
        raise _http(e) from e


@router.patch("/{memory_id}", response_model=MemoryOut, operation_id="updateMemory", responses=ERRORS)
def update(memory_id: str, body: MemoryPatch, memories: MemoriesDep) -> MemoryOut:
    """Correct a memory: a new version supersedes it (the old one stays in its history), or
    ``status: retracted`` marks it as never true. Returns the new version (or the retracted one)."""
    try:
        if body.status == "retracted":
            if body.text is not None or body.valid_from is not None:
                raise MemoryError("retract, or correct: not both in one request")
            return MemoryOut.of(memories.retract(memory_id))
        if body.text is None and body.valid_from is None and body.subject is None and body.attribute is None:
            raise MemoryError("nothing to change: give text, valid_from, subject/attribute or status")
        return MemoryOut.of(
            memories.correct(memory_id, body.text, body.valid_from, body.subject, body.attribute)
        )
    except (MemoryError, ValueError) as e:
        raise _http(e if isinstance(e, MemoryError) else MemoryError(str(e))) from e


@router.delete("/{memory_id}", response_model=ForgottenOut, operation_id="deleteMemory", responses=ERRORS)
def delete(memory_id: str, memories: MemoriesDep) -> ForgottenOut:
    """Forget a memory and its history: removed from the store, its indexes and the caches. Its
    owner may; an admin may forget a team memory."""
    try:
        return ForgottenOut(deleted=memories.forget(memory_id))
    except MemoryError as e:
        raise _http(e) from e


@router.post("/{memory_id}/verify", response_model=MemoryOut, operation_id="verifyMemory", responses=ERRORS)
def verify(memory_id: str, memories: MemoriesDep) -> MemoryOut:
    """A reviewer verifies a memory (a proposed one becomes current): an admin, or for a team memory
    about documents of projects or spaces they review (``DEVKB_MEMORY_REVIEWERS``); the owner may
    verify their own private memory."""
    try:
        return MemoryOut.of(memories.verify(memory_id))
    except MemoryError as e:
        raise _http(e) from e


# -- verified answers (memory/verified.py) -------------------------------------------------------------
async def get_verified(request: Request) -> VerifiedAnswers:
    value: VerifiedAnswers = request.app.state.container.verified_answers()
    return value


VerifiedDep = Annotated[VerifiedAnswers, Depends(get_verified)]


@router.post(
    "/answers",
    response_model=VerifiedAnswerOut,
    status_code=201,
    operation_id="verifyAnswer",
    responses=ERRORS,
)
def verify_answer(body: VerifiedAnswerIn, verified: VerifiedDep) -> VerifiedAnswerOut:
    """A reviewer verifies an answer to a question, citing documents, until an expiry: an admin, or a
    reviewer of every project or space the citations are in (``DEVKB_MEMORY_REVIEWERS``).
    A question that means the same then gets it first in ``POST /ask``, "verified by … on …";
    verifying the same question again supersedes the earlier answer."""
    try:
        m = verified.verify(body.question, body.answer, body.citations, body.expires_in_days)
    except (MemoryError, ValueError) as e:
        raise _http(e if isinstance(e, MemoryError) else MemoryError(str(e))) from e
    return verified_out(m, verified.flags(m))


@router.get(
    "/answers/match",
    response_model=list[VerifiedAnswerOut],
    operation_id="matchVerifiedAnswer",
    responses=ERRORS,
)
def match_answer(
    verified: VerifiedDep, q: Annotated[str, Query(min_length=1, max_length=2000)]
) -> list[VerifiedAnswerOut]:
    """The verified answer a question means (none or one), with its flags: a stale or expired one
    is listed here but not served first by ``POST /ask``."""
    found = verified.match(q)
    return [] if found is None else [verified_out(found.memory, found.flags, round(found.similarity, 4))]


@router.get(
    "/answers/review",
    response_model=list[VerifiedAnswerOut],
    operation_id="reviewVerifiedAnswers",
    responses=ERRORS,
)
def review_answers(
    verified: VerifiedDep, within_days: Annotated[float, Query(gt=0, le=3650)] = 14
) -> list[VerifiedAnswerOut]:
    """For reviewers: verified answers that expire within ``within_days``, expired, or stale (a
    cited document changed since)."""
    if not verified.service.reviews_somewhere():
        raise HTTPException(
            403, "reviewing verified answers needs a reviewer (an admin, or one for a project or space)"
        )
    return [verified_out(m, f) for m, f in verified.review(within_days)]


@router.post(
    "/conversations",
    response_model=RememberedConversationOut,
    status_code=201,
    operation_id="rememberConversation",
    responses=ERRORS,
)
def remember_conversation(body: ConversationIn, memories: MemoriesDep) -> RememberedConversationOut:
    """Remember a long conversation (sessions with dates, turns with speakers): one memory per
    turn, yours, valid from when it was said; the same conversation again writes nothing."""
    try:
        told = memories.remember_conversation(
            [s.model_dump() for s in body.sessions], body.title, body.scope, body.conversation_id
        )
    except MemoryError as e:
        raise _http(e) from e
    return RememberedConversationOut(**{k: v for k, v in told.items() if k != "ids"})


# -- conversation recall (memory/conversations.py) -----------------------------------------------------
@router.get(
    "/conversations/recall",
    response_model=list[RecalledTurnOut],
    operation_id="recallConversations",
    responses=ERRORS,
)
def recall_conversations(
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=2000, description="What it was about.")],
    since: Annotated[str | None, Query(description="Asked from (ISO date or date-time).")] = None,
    until: Annotated[str | None, Query(description="Asked before (ISO date or date-time).")] = None,
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
) -> list[RecalledTurnOut]:
    """Your own earlier questions about ``q`` (with the answers they got), from your stored
    conversations (``DEVKB_CHAT_MEMORY=store``; 404 when conversations are not kept)."""
    recall: ConversationRecall = request.app.state.container.conversation_recall()
    if not recall.available:
        raise HTTPException(
            404, "conversations are not kept on this server (DEVKB_CHAT_MEMORY=store keeps them)"
        )
    try:
        start, end = parse_when(since, "since"), parse_when(until, "until")
    except ValueError as e:
        raise HTTPException(422, str(e)) from e
    return [
        RecalledTurnOut(
            conversation_id=t.conversation_id,
            title=t.title,
            asked_at=t.asked_at,
            question=t.question,
            answer=t.answer,
            cited=list(t.cited),
        )
        for t in recall.recall(q, start, end, limit)
    ]
