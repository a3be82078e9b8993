"""The shape of an answer, shared by the API, the CLI and the agent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
class Answer:
    answer: str
    sources: list[Citation]
    tool_calls: list[ToolCall] = field(default_factory=list)
    mode: str = "extractive"  # llm | extractive
