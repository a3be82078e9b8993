"""Request and response models of the API (the OpenAPI schema the front end's client is generated from)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from devkb.agent.answer import Citation
from devkb.agent.tools.filters import DocumentFilters
from devkb.store.models import SourceType

SourceName = Literal["jira", "confluence", "github"]
# The documented forms of a source name (what parse_sources accepts): any ASCII case, blanks around.
SOURCE_NAME_PATTERN = (
    r"^\s*(?:[Jj][Ii][Rr][Aa]|[Cc][Oo][Nn][Ff][Ll][Uu][Ee][Nn][Cc][Ee]|[Gg][Ii][Tt][Hh][Uu][Bb])\s*$"
)
SourceParam = Annotated[str, WithJsonSchema({"type": "string", "pattern": SOURCE_NAME_PATTERN})]
# A question needs one character that is neither blank nor a control character (they are removed).
QUESTION_PATTERN = r"[^\s\x00-\x1f\x7f]"


def parse_sources(v: list[str] | None) -> list[str] | None:
    if v is None:
        return None
    out: list[str] = []
    for item in v:
        if not isinstance(item, str):
            raise ValueError("sources must be strings")
        allowed = [t.value.lower() for t in SourceType]
        if item.strip().lower() not in allowed:  # ASCII names only: no Unicode case-mapping tricks
            raise ValueError(f"unknown source {item!r}; expected one of {', '.join(allowed)}")
        t = SourceType.parse(item)
        if t.value.lower() not in out:
            out.append(t.value.lower())
    return out


class AskRequest(BaseModel):
    """A question to answer. Unknown fields are refused (422 naming the field), never ignored:
    the chat session is named by the X-Session-ID header or the session cookie, not in the body."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"question": "How do we retry failed payment webhooks?", "sources": ["jira"]}]
        },
    )

    question: str = Field(
        ...,
        min_length=1,
        max_length=100_000,
        description="The question (limit: DEVKB_MAX_QUESTION_CHARS, default 2000).",
        json_schema_extra={"pattern": QUESTION_PATTERN},
    )
    sources: list[SourceParam] | None = Field(
        None,
        description="Restrict to these sources: jira, confluence, github (case-insensitive).",
        max_length=3 * 4,
    )

    @field_validator("question")
    @classmethod
    def _question(cls, v: str) -> str:
        cleaned = "".join(ch for ch in v if ch in "\n\t" or (ord(ch) >= 32 and ord(ch) != 127)).strip()
        if not cleaned:
            raise ValueError("question must not be empty or whitespace only")
        return cleaned

    @field_validator("sources")
    @classmethod
    def _sources(cls, v: list[str] | None) -> list[str] | None:
        return parse_sources(v)

    def source_types(self) -> list[SourceType] | None:
        return None if not self.sources else [SourceType.parse(s) for s in self.sources]


class ToolCallOut(BaseModel):
    tool: str
    arguments: dict[str, Any]
    result_count: int


class ConfidenceOut(BaseModel):
    probability: float = Field(ge=0, le=1, description="Calibrated probability that the answer is right.")
    level: Literal["high", "medium", "low"]
    reason: str = Field(
        description="Why, in one line (e.g. '2 sources agree; the newest is from March 2024')."
    )


class UnderstoodOut(BaseModel):
    """How the question was understood (docs/agent.md, "The question frame")."""

    shape: str = Field(description="count, list, rank, who, when, lookup, compare, history, search, …")
    route: str = Field(description="the route and the executor that answered (e.g. 'conditions: conditions')")
    conditions: list[str] = Field(default_factory=list, description="every condition read from the question")
    unapplied: list[str] = Field(default_factory=list, description="conditions the answer could not apply")
    unresolved: list[str] = Field(default_factory=list, description="names the knowledge base does not know")


class AskResponse(BaseModel):
    answer: str
    sources: list[Citation]
    tool_calls: list[ToolCallOut] = Field(default_factory=list)
    mode: Literal["llm", "extractive", "verified"] = "extractive"
    session_id: str | None = None
    question: str | None = Field(
        None, description="The question as answered (a follow-up rewritten by the LLM)."
    )
    provider: str | None = Field(None, description="ollama, openai or none.")
    note: str | None = Field(None, description="Why the answer is extractive although an LLM is configured.")
    status: Literal["answered", "partial", "not_found"] = Field(
        "answered", description="Whether the sources answer the question, only partly, or not at all."
    )
    confidence: ConfidenceOut | None = None
    filtered_out: list[Literal["JIRA", "CONFLUENCE", "GITHUB", "FILES", "WEB", "UPLOAD", "MEMORY"]] = Field(
        default_factory=list,
        description="Sources that hold documents the question names (and the reader may read) but the "
        "question's source filter left out: turning them on would find them.",
    )
    understood: UnderstoodOut | None = Field(
        None, description="How the question was understood: its shape, route and conditions (rules path)."
    )


class ChatMessageOut(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    timestamp: str
    sources: list[Citation] = Field(default_factory=list)


class ChatHistoryResponse(BaseModel):
    session_id: str
    messages: list[ChatMessageOut]


class ChatClearResponse(BaseModel):
    session_id: str
    cleared: int


class ComponentHealth(BaseModel):
    ok: bool
    detail: str


class ReplicaInfo(BaseModel):
    instance: str = Field(description="This replica's name (DEVKB_INSTANCE_ID, default host:pid).")
    chat_memory: Literal["memory", "store"]
    scheduler_leader: bool = Field(description="Whether this replica runs the sync scheduler now.")


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded"]
    store: ComponentHealth
    embedder: ComponentHealth
    llm: ComponentHealth
    replica: ReplicaInfo | None = None


class ConversationOut(BaseModel):
    id: str
    title: str
    created_at: str
    updated_at: str
    message_count: int


class ConversationDetail(BaseModel):
    conversation: ConversationOut
    messages: list[ChatMessageOut]


class ConversationRename(BaseModel):
    title: str = Field(min_length=1, max_length=200)


class DocumentQuery(DocumentFilters):
    """``GET /documents``: the document filters (agent/tools/filters.py), from which source, how many."""

    source: Annotated[
        Literal["jira", "confluence", "github", "files", "web", "upload"] | None,
        Field(description="Only this source."),
    ] = None
    limit: Annotated[int, Field(ge=1, le=200, description="At most this many (1-200).")] = 25

    def source_types(self) -> list[SourceType] | None:
        return None if not self.source else [SourceType.parse(self.source)]


class DocumentOut(BaseModel):
    id: str
    type: str
    title: str
    url: str
    updated_at: str
    metadata: dict[str, Any]
    source: str


class ChunkOut(BaseModel):
    id: str
    chunk_index: int
    section: str
    content: str


class DocumentDetail(BaseModel):
    document: DocumentOut
    chunks: list[ChunkOut]


class VersionOut(BaseModel):
    """One version of a document (docs/history.md): a page version, a Jira transition or one file
    of a commit."""

    document_id: str
    kind: Literal["page", "transition", "diff"]
    seq: int
    valid_from: str
    valid_until: str
    author: str
    message: str
    field: str
    from_value: str
    to_value: str
    ref: str


class DocumentHistory(BaseModel):
    document: DocumentOut
    versions: list[VersionOut]


class VersionDetail(BaseModel):
    version: VersionOut
    body: str  # a page's text at this version, or a file's diff
    current_seq: int | None  # the newest version of the same kind
    diff_to_current: str  # unified diff of this version's text to the newest one's ("" for diffs)


class ChangeOut(BaseModel):
    """One change of a document: a stored version (a page or upload edit, an issue's move, a
    commit's file), or its creation, or a comment on it."""

    document: DocumentOut
    event: Literal["version", "created", "comment"] = Field(
        "version", description="a stored version, the document's creation, or a comment on it"
    )
    at: str = Field(description="when (ISO-8601 UTC)")
    author: str = Field("", description="who made it, where the source says")
    version: VersionOut | None = Field(None, description="the version, for event version")


class NeighborOut(BaseModel):
    document: DocumentOut
    kind: str
    evidence: str
    direction: Literal["out", "in"]


class GraphNode(BaseModel):
    id: str
    type: str
    title: str
    url: str
    metadata: dict[str, Any]


class GraphEdge(BaseModel):
    source: str
    target: str
    kind: str
    evidence: str


class GraphResponse(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


class RunOut(BaseModel):
    id: str
    source: str
    state: str
    phase: str
    done: int
    total: int | None
    documents_indexed: int
    documents_unchanged: int
    documents_deleted: int
    chunks_written: int
    chunks_embedded: int
    references_written: int
    retries: int
    skipped: int = 0  # items the loader could not read; their reasons are in errors
    errors: list[str]
    started_at: str | None
    finished_at: str | None
    full: bool


class SourceOut(BaseModel):
    name: str
    type: str
    status: Literal["idle", "running", "failed", "never-synced"]
    schedule: str | None
    last_success: str | None
    last_error: str | None
    next_run: str | None
    counts: dict[str, int]
    current_run: RunOut | None
    last_run: RunOut | None
    config: dict[str, Any]


class UploadOut(BaseModel):
    id: str = Field(
        description="The upload's id: for an indexed upload, its document's (every version shares it; "
        "GET and DELETE /uploads/{id}); for a quarantined one, that file's."
    )
    document_id: str
    filename: str
    title: str
    bytes: int = Field(description="this version's size")
    uploader: str
    uploaded_at: str = Field(description="when this version was uploaded")
    version: int = Field(
        1,
        description="this upload's version of its document: the same file name uploaded again by the "
        "same person is the document's next version (identical bytes: the same version)",
    )
    versions: int = Field(1, description="how many versions the document has")
    quarantined: str | None = Field(
        None,
        description="Why the stored file cannot be converted: it is not indexed, no sync reads it again; "
        "delete it (shown to its uploader and to admins).",
    )


class SyncStarted(BaseModel):
    run_id: str
    source: str
    status_url: str


class ErrorResponse(BaseModel):
    detail: str


class FeedbackIn(BaseModel):
    question: str = Field(min_length=1, max_length=5000)
    answer: str = Field(max_length=50_000)
    rating: Literal["up", "down"]
    document_ids: list[Annotated[str, Field(max_length=500)]] = Field(default_factory=list, max_length=50)
    comment: str | None = Field(None, max_length=2000)
    correction: str | None = Field(
        None,
        min_length=1,
        max_length=4000,
        description=(
            "With rating down: 'the right answer is …'. Becomes a proposed team memory (origin "
            "correction, about the readable cited documents) that reviewers see under status=proposed; "
            "no one else recalls it until a reviewer verifies it. Needs a signed-in person. "
            "With rating up it is ignored (a thumbs-up is not a correction)."
        ),
    )


class FeedbackStored(BaseModel):
    stored: bool
    at: str
    memory_id: str | None = Field(None, description="The proposed team memory a correction became.")


class GapDocumentOut(BaseModel):
    id: str
    title: str
    url: str
    type: str


class GapTopicOut(BaseModel):
    label: str = Field(description="The topic's most frequent key terms (stemmed), joined by ' · '.")
    terms: list[str]
    count: int = Field(description="Gaps in this topic.")
    kinds: dict[str, int] = Field(description="not_found / low_confidence / thumbs_down → how many.")
    questions: list[str] = Field(description="Question texts, newest first (empty when none are kept).")
    documents: list[GapDocumentOut] = Field(description="The closest documents the answers offered.")
    last_asked: str


class VotedDownOut(BaseModel):
    at: str
    reason: str = Field(description="The reason the person gave ('' when none).")
    question: str = Field(description="The question ('' when questions are not kept).")
    answer: str = Field(description="The answer's first 300 characters ('' when questions are not kept).")
    documents: list[GapDocumentOut] = Field(description="The documents the answer cited.")


class GapReportOut(BaseModel):
    total: int = Field(description="Gaps grouped into the topics.")
    questions_kept: bool = Field(description="False: only key terms are recorded (privacy by design).")
    recording: str = Field(description="DEVKB_KNOWLEDGE_GAPS: auto | questions | terms | off.")
    days: float | None
    topics: list[GapTopicOut]
    voted_down: list[VotedDownOut] = Field(
        description="Answers voted down, newest first, with their reasons."
    )


class AdaptationStatusOut(BaseModel):
    state: Literal["idle", "running", "succeeded", "failed"]
    stage: str = Field(description="What the running adaptation does now (pairs, validation, test, refit).")
    done: int
    total: int
    started: str
    finished: str
    error: str
    edges_seen: int = Field(description="The store's edge count the last adaptation started from.")


class AdaptationFiguresOut(BaseModel):
    mode: Literal["anchor", "text"] = Field(
        description="anchor: related to a given issue; text: a question alone."
    )
    defaults_ndcg: float = Field(description="nDCG@10 of the shipped defaults on the test pairs.")
    adapted_ndcg: float = Field(
        description="nDCG@10 with this deployment's adaptation (= defaults where unused)."
    )
    defaults_recall: float
    adapted_recall: float
    queries: int


class AdaptationOut(BaseModel):
    """Retrieval adapted to this deployment's graph (docs/evaluation.md, Adaptation)."""

    enabled: bool = Field(description="DEVKB_ADAPTATION.")
    status: AdaptationStatusOut
    in_use_with_anchor: bool = Field(
        description="Questions about an issue are ranked as adapted to this graph (method_with_anchor)."
    )
    in_use_text_only: bool = Field(
        description="Other questions are ranked as adapted to this graph (method_text_only)."
    )
    method_with_anchor: Literal["defaults", "adapter", "ranker"] = Field(
        "defaults",
        description="What questions about an issue use: the shipped defaults, the query adapter "
        "(the query vector moved) or the ranking's weights refitted on this graph.",
    )
    method_text_only: Literal["defaults", "adapter", "ranker"] = Field(
        "defaults", description="What other questions use (as method_with_anchor)."
    )
    decision: str | None = Field(
        description="The last adaptation's decision: adapted | defaults | too_few_pairs | no_snapshot."
    )
    note: str = ""
    test_from: str | None = Field(
        description="The time split's cut: test pairs are the ones made from then on."
    )
    train_pairs: int | None = None
    test_pairs: int | None = None
    figures: list[AdaptationFiguresOut] = Field(
        default_factory=list, description="The time-split evaluation: shipped defaults beside adapted."
    )
    evaluated: str | None = Field(default=None, description="When the time-split evaluation ran.")
