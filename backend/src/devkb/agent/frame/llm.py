"""A language model fills the same frame: the question → JSON constrained by the schema of
:class:`ModelFrame` (llama.cpp and OpenAI ``response_format: json_schema``, Ollama ``format``),
validated with pydantic, then cross-checked against the rules frame and the store.

The model may only add what the rules missed and what holds up: every value it gives must be
words of the question (nothing invented), every name must resolve against the store, every
period must read with the product's one time parser. What it adds is kept; what disagrees with the
rules, or does not hold up, is recorded as rejected — the rules frame stays the fallback when the
model fails, times out or writes something the schema does not accept (:class:`FrameFill`
``error``), so a failure is visible and never changes the answer's conditions silently.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from devkb.agent.frame.extract import Resolver
from devkb.agent.frame.model import Frame, Period, Person, Scope
from devkb.agent.history.when import window_in
from devkb.agent.question import words_of

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Read the question about a software team's Jira issues, pages and pull requests. Fill the JSON: "
    "shape (what kind of answer), people named with their role, the time words exactly as written, "
    "and the projects, issue types, statuses, priorities and versions the question names. "
    "Copy words from the question; leave a list empty when it names none."
)


class _ModelPerson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=60)
    role: Literal["assignee", "reporter", "author", "commenter", "mover", "involved"]


_Word = Annotated[str, Field(max_length=40)]


class ModelFrame(BaseModel):
    """The schema the model fills: flat, small and bounded (lists of at most 3, short strings), so
    a grammar-constrained small model cannot run on until its token limit."""

    model_config = ConfigDict(extra="forbid")
    shape: Literal["count", "list", "rank", "who", "when", "lookup", "compare", "history", "search"]
    people: list[_ModelPerson] = Field(default_factory=list, max_length=3)
    time: str = Field("", max_length=40, description="the time words as written, e.g. 'last week'")
    projects: list[_Word] = Field(default_factory=list, max_length=3)
    issue_types: list[_Word] = Field(default_factory=list, max_length=3)
    statuses: list[_Word] = Field(default_factory=list, max_length=3)
    priorities: list[_Word] = Field(default_factory=list, max_length=3)
    versions: list[_Word] = Field(default_factory=list, max_length=3)


def response_format() -> dict[str, Any]:
    """The OpenAI-compatible ``response_format`` (llama-server, vLLM, LM Studio, OpenAI)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "question_frame", "schema": ModelFrame.model_json_schema()},
    }


@dataclass
class FrameFill:
    frame: Frame  # the frame the answer uses: the rules' with what the model added that held up
    by: str  # "rules" | "rules+model"
    model: ModelFrame | None = None
    added: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    error: str | None = None


def parse_model_output(text: str) -> ModelFrame:
    """The model's text as a :class:`ModelFrame` (``ValueError`` when it is not one)."""
    try:
        return ModelFrame.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as e:
        raise ValueError(f"the model's frame is not valid: {type(e).__name__}: {str(e)[:200]}") from e


def cross_check(rules: Frame, model: ModelFrame, resolver: Resolver, today: date | None = None) -> FrameFill:
    """The rules frame plus what the model found that the rules missed and that holds up."""
    words = set(words_of(rules.text))
    added: list[str] = []
    rejected: list[str] = []

    def grounded(value: str) -> bool:
        return bool(words_of(value)) and set(words_of(value)) <= words

    update: dict[str, Any] = {}
    people = list(rules.people)
    for p in model.people:
        if any(set(words_of(p.name)) <= set(words_of(q.said)) for q in people):
            continue
        found = resolver.people(p.name) if grounded(p.name) else []
        if len(found) == 1:
            people.append(Person(said=p.name, role=p.role, resolved=found[0]))
            added.append(f"person {p.role} {found[0]}")
        else:
            rejected.append(
                f"person {p.name!r}: {'not in the question' if not grounded(p.name) else 'not known'}"
            )
    if len(people) != len(rules.people):
        update["people"] = tuple(people)
    if model.time and rules.period is None:
        window = window_in(model.time, today or date.today()) if grounded(model.time) else None
        if window is not None:
            update["period"] = Period(start=window.start, end=window.end, label=window.label)
            added.append(f"period {window.label}")
        else:
            rejected.append(f"time {model.time!r}")
    projects = list(rules.scope.projects)
    for name in model.projects:
        key = resolver.project_named(name) if grounded(name) else None
        if key and key not in projects:
            projects.append(key)
            added.append(f"project {key}")
        elif not key and name.upper() not in projects:
            rejected.append(f"project {name!r}")
    if projects != list(rules.scope.projects):
        update["scope"] = Scope(
            projects=tuple(projects), spaces=rules.scope.spaces, repositories=rules.scope.repositories
        )
    for slot, values, field_name in (
        ("statuses", model.statuses, "status"),
        ("priorities", model.priorities, "priority"),
        ("versions", model.versions, "fix_version"),
    ):
        have = list(getattr(rules, slot))
        for v in values:
            known = resolver.value(field_name, v) if grounded(v) else None
            if known and known not in have:
                have.append(known)
                added.append(f"{field_name} {known}")
            elif not known and v not in have:
                rejected.append(f"{field_name} {v!r}")
        if have != list(getattr(rules, slot)):
            update[slot] = tuple(have)
    if model.shape != rules.shape:
        rejected.append(f"shape {model.shape} (rules: {rules.shape})")
    frame = rules.model_copy(update=update) if update else rules
    return FrameFill(frame, "rules+model" if added else "rules", model, added, rejected)


def fill(
    rules: Frame,
    ask_model: Callable[[str, str], str],
    resolver: Resolver,
    today: date | None = None,
) -> FrameFill:
    """Ask the model (``ask_model(instructions, question) -> JSON text``) and cross-check; on any
    failure the rules frame, with the failure said in ``error``."""
    try:
        model = parse_model_output(ask_model(INSTRUCTIONS, rules.text))
    except Exception as e:  # the model's failure is visible, never the answer's
        log.info("the model did not fill the frame: %s", e)
        return FrameFill(rules, "rules", error=f"{type(e).__name__}: {e}"[:300])
    return cross_check(rules, model, resolver, today)


def openai_asker(generator: Any, max_tokens: int = 400) -> Callable[[str, str], str]:
    """``ask_model`` over a Haystack ``OpenAIChatGenerator`` (OpenAI or a compatible server)."""
    from haystack.dataclasses import ChatMessage

    def ask(instructions: str, question: str) -> str:
        out = generator.run(
            messages=[ChatMessage.from_system(instructions), ChatMessage.from_user(question)],
            generation_kwargs={
                "response_format": response_format(),
                "max_tokens": max_tokens,
                "temperature": 0,
            },
        )
        return str(out["replies"][0].text or "")

    return ask


def ollama_asker(url: str, model: str, timeout: float = 60.0) -> Callable[[str, str], str]:
    """``ask_model`` over Ollama's ``/api/chat`` with ``format`` set to the schema."""
    import httpx

    def ask(instructions: str, question: str) -> str:
        r = httpx.post(
            url.rstrip("/") + "/api/chat",
            json={
                "model": model,
                "stream": False,
                "format": ModelFrame.model_json_schema(),
                "options": {"temperature": 0},
                "messages": [
                    {"role": "system", "content": instructions},
                    {"role": "user", "content": question},
                ],
            },
            timeout=timeout,
        )
        r.raise_for_status()
        return str(r.json()["message"]["content"])

    return ask
