"""The shape of an answer, shared by the API, the CLI and the agent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["answered", "partial", "not_found"]
Level = Literal["high", "medium", "low"]

Mode = Literal["llm", "extractive"]


@dataclass(frozen=True)
class Confidence:
    """A calibrated probability that the answer is right, its level and why, in one line."""

    probability: float
    level: Level
    reason: str


@dataclass
class Citation:
    document_id: str
    title: str
    url: str
    type: str
    score: float
    snippet: str


@dataclass
class ToolCall:
    tool: str
    arguments: dict[str, Any]
    result_count: int


@dataclass
class Understood:
    shape: str
    route: str
    conditions: list[str] = field(default_factory=list)
    unapplied: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


@dataclass
class Answer:
    answer: str
    sources: list[Citation]
    tool_calls: list[ToolCall] = field(default_factory=list)
    mode: str = "extractive"  # llm | extractive
    # the question as answered: a follow-up rewritten from the history by the LLM, else as asked
    question: str = ""
    # which LLM provider answered ("ollama", "openai") or "none"; why it fell back, when it did
    provider: str = "none"
    note: str | None = None
    # how far the evidence supports it (devkb.agent.confidence): answered | partial | not_found
    status: Status = "answered"
    confidence: Confidence | None = None
    # LLM mode, for the evaluation: the evidence's probability before the model's token
    # probabilities were pooled in, and their geometric mean (None: the provider gave none)
    evidence_probability: float | None = None
    token_probability: float | None = None
    # source types (JIRA, …) holding documents the question names that its source filter left out
    filtered_out: list[str] = field(default_factory=list)
    # the answer asks back which document is meant (a reference with nothing to refer to): nothing
    # was looked up, so it says nothing about what the sources hold (never a knowledge gap)
    asks_back: bool = False
    # how the question was understood (agent/frame): its shape, the route that answered it, the
    # conditions applied, those it could not apply and the names it could not resolve
    understood: Understood | None = None

    @property
    def document_ids(self) -> list[str]:
        return [c.document_id for c in self.sources]


@dataclass(frozen=True)
class HistoryTurn:
    """One earlier message of the conversation, as the agent needs it."""

    role: Literal["user", "assistant"]
    content: str
    document_ids: tuple[str, ...] = ()
