"""Request and response bodies of ``/memories`` (team memory, docs/memory.md)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from devkb.memory.model import MAX_TEXT, Memory
from devkb.memory.transcripts import MAX_SESSIONS, SessionIn

ScopeName = Literal["private", "team"]
StatusName = Literal["proposed", "active", "verified", "superseded", "retracted"]
OriginName = Literal["conversation", "documents", "admin", "agent", "correction"]
# what a memory may say it came from: the above, or devkb's summary of a person's older memories
OriginOut = Literal["conversation", "documents", "admin", "agent", "correction", "summary"]


class MemoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=MAX_TEXT, description="The fact, in a sentence.")
    scope: ScopeName = Field("private", description="private: yours alone; team: every signed-in person.")
    origin: OriginName | None = Field(None, description="Where it came from (default from the request).")
    subject: str | None = Field(
        None, max_length=200, description="What it is about (with attribute; default: derived from the text)."
    )
    attribute: str | None = Field(None, max_length=200, description="What it says of the subject.")
    valid_from: str | None = Field(
        None, description="When it became true (ISO date or date-time; default now)."
    )
    about: list[str] = Field(default_factory=list, max_length=50, description="Ids of documents it is about.")
    derived_from: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="Ids of documents it was derived from: only people who may read all of them read it.",
    )


class MemoryPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(None, min_length=1, max_length=MAX_TEXT)
    valid_from: str | None = None
    subject: str | None = Field(None, max_length=200)
    attribute: str | None = Field(None, max_length=200)
    status: Literal["retracted"] | None = Field(
        None, description="retracted: it was never true (kept in history, recalled by no one)."
    )


class MemoryOut(BaseModel):
    id: str
    text: str
    scope: ScopeName
    owner: str
    status: StatusName
    recorded_at: str
    valid_from: str
    valid_until: str
    origin: OriginOut
    subject: str
    attribute: str
    supersedes: str
    superseded_by: str
    about: list[str]
    derived_from: list[str]
    verified_by: str
    verified_at: str

    @staticmethod
    def of(m: Memory) -> MemoryOut:
        return MemoryOut(
            id=m.id,
            text=m.text,
            scope=m.scope,
            owner=m.owner,
            status=m.status,
            recorded_at=m.recorded_at,
            valid_from=m.valid_from,
            valid_until=m.valid_until,
            origin=m.origin,
            subject=m.subject,
            attribute=m.attribute,
            supersedes=m.supersedes,
            superseded_by=m.superseded_by,
            about=list(m.about),
            derived_from=list(m.derived_from),
            verified_by=m.verified_by,
            verified_at=m.verified_at,
        )


class FoldedOut(BaseModel):
    id: str = Field(description="The memory a summary folds (superseded by the summary).")
    key: str
    valid_from: str
    text: str


class ExportedMemoryOut(MemoryOut):
    changed_at: str = Field(description="Its last change of status (superseded, verified, retracted).")
    question: str = Field(description="A verified answer's question (empty otherwise).")
    expires_at: str = Field(description="When a verified answer's verification expires.")
    cited_hashes: dict[str, str] = Field(description="A verified answer's cited documents' content hashes.")
    folded: list[FoldedOut] = Field(
        default_factory=list, description="A summary's memories, each as it was when folded."
    )


class MemoryExportOut(BaseModel):
    format: str = Field(description="devkb-memories/1")
    owner: str
    exported_at: str
    count: int
    memories: list[ExportedMemoryOut] = Field(description="Every version, oldest first.")


class RecalledOut(BaseModel):
    memory: MemoryOut
    score: float


class ForgottenOut(BaseModel):
    deleted: list[str] = Field(description="The memory and every version in its history.")


class VerifiedAnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000)
    answer: str = Field(min_length=1, max_length=MAX_TEXT)
    citations: list[str] = Field(
        default_factory=list, max_length=50, description="Ids of the documents the answer rests on."
    )
    expires_in_days: float | None = Field(
        None, gt=0, le=3650, description="Default: the setting verified_answer_days (90)."
    )


class AnswerFlags(BaseModel):
    expired: bool
    stale: bool = Field(description="A cited document changed (or is gone) since the verification.")
    changed: list[str] = Field(description="The cited documents that changed.")


class VerifiedAnswerOut(BaseModel):
    memory: MemoryOut
    question: str
    expires_at: str
    citations: list[str]
    flags: AnswerFlags
    similarity: float | None = None


def verified_out(m: Memory, flags: Any, similarity: float | None = None) -> VerifiedAnswerOut:
    return VerifiedAnswerOut(
        memory=MemoryOut.of(m),
        question=m.question,
        expires_at=m.expires_at,
        citations=list(m.derived_from),
        flags=AnswerFlags(expired=flags.expired, stale=flags.stale, changed=list(flags.changed)),
        similarity=similarity,
    )


class RecalledTurnOut(BaseModel):
    conversation_id: str
    title: str
    asked_at: str
    question: str
    answer: str
    cited: list[str]


class ConversationIn(BaseModel):
    """A long conversation to remember, one memory per turn (docs/memory.md, "Long conversations")."""

    model_config = ConfigDict(extra="forbid")
    sessions: list[SessionIn] = Field(min_length=1, max_length=MAX_SESSIONS)
    title: str = Field(default="", max_length=300)
    scope: Literal["private", "team"] = "private"
    conversation_id: str | None = Field(default=None, max_length=100)


class RememberedConversationOut(BaseModel):
    conversation: str
    title: str
    scope: str
    sessions: int
    turns: int
    written: int
    unchanged: int
    first: str


class RejectedFactOut(BaseModel):
    text: str
    reason: str = Field(description="Why it was not proposed (not what you said, a question, …).")
