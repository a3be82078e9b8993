"""Blocked: "what is blocked?", "which issues are blocked", "anything waiting on another ticket" —
no anchor and no conversation to refer to, so the question is about the whole tracker → the
unresolved issues (the newest 100) with a "depends on" / "is blocked by" link to an unresolved
issue, or a status that says blocked — each with what blocks it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import where_readable
from devkb.agent.kinds.relation import is_resolved, link_phrase
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import FetchNeighbors
from devkb.agent.tools.content import load_content
from devkb.store.models import Document, SourceType

STEP = Step(FetchNeighbors.name, "blocked: unresolved issues that depend on unresolved issues")


class Blocked(QuestionKind):
    name = "blocked"

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        # "blocked", or waiting on something / other / another (the frame's form "blocked")
        return not parsed.anchored and not parsed.follow_up and frame.takes("blocked")

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        ctx.outcome.listed = blocked(ctx)
        ctx.took(STEP)

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        lines = out.preamble(docs)
        return " ".join([*lines, blocked_list(out.listed or [], numbers)])


def blocked(ctx: Context, candidates: int = 100) -> list[EvidenceDoc]:
    scope = ctx.scope
    store = ctx.toolbox.fetch_neighbors.store
    if not scope.allows_type(SourceType.JIRA):
        return []
    issues = [
        d
        for d in store.find_documents({"kind": ["issue"]}, types=[SourceType.JIRA], limit=candidates * 3)
        if not is_resolved(d.metadata)
    ][:candidates]
    found_blocked: dict[str, tuple[Document, list[str]]] = {}
    for issue in issues:
        blockers = waits_on(store, issue)
        if blockers or "block" in str(issue.metadata.get("status", "")).lower():
            found_blocked[issue.id] = (issue, blockers)
    found: list[EvidenceDoc] = []
    for rank, (issue, blockers) in enumerate(found_blocked.values()):
        why = (
            f"depends on {', '.join(blockers)} (unresolved)"
            if blockers
            else f"status {issue.metadata['status']}"
        )
        text = load_content(store, issue.id, 1500) or issue.title
        found.append(EvidenceDoc(issue, (text,), 0.5 / (1 + rank), FetchNeighbors.name, why))
    accepted = scope.add(found)
    scope.record(
        ToolCall(
            FetchNeighbors.name,
            {
                "relation": "depends (out)",
                "seeds": f"{len(issues)} newest unresolved issues",
                "direction": "both",
            },
            len(accepted),
        )
    )
    return accepted


def waits_on(store: Any, issue: Document, allows: Callable[[Document], bool] = lambda d: True) -> list[str]:
    """The keys of the unresolved issues ``issue`` depends on or is blocked by (its Jira links,
    read from either end), those ``allows`` lets through."""
    found: list[str] = []
    for n in store.neighbors([issue.id], "both", kinds=["jira-issuelink"], limit=50):
        phrase = link_phrase(n.evidence)
        waits = (n.direction == "out" and phrase in ("depends on", "is blocked by")) or (
            n.direction == "in" and phrase == "blocks"
        )
        if waits and not is_resolved(n.document.metadata) and allows(n.document):
            found.append(str(n.document.metadata.get("key") or n.document.id))
    return list(dict.fromkeys(found))


def blocked_list(listed: Sequence[EvidenceDoc], numbers: dict[str, int]) -> str:
    """ "3 issues are blocked: PAY-1: … — depends on PAY-12 (unresolved) [1]; …" """
    if not listed:
        return f"No unresolved issue depends on another unresolved issue {where_readable()}."
    n = len(listed)
    items = []
    for d in listed[:LIST_SHOWN]:
        cite = citation(d, numbers)
        items.append(f"{d.document.title} — {d.relation}{cite}")
    more = f"; and {n - LIST_SHOWN} more" if n > LIST_SHOWN else ""
    verb = "issue is" if n == 1 else "issues are"
    return f"{n} {verb} blocked: " + "; ".join(items) + more + "."
