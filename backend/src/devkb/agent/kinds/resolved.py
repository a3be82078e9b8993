"""Resolved in a period: "which FLOE tickets got resolved in July 2014?" — a period with both ends,
a word for resolving, no issue named and no relation → the issues (of the named projects, if any)
whose resolution date falls in the period, oldest key first, the whole list so the answer can say
how many. The project is a scope here, not an anchor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import where_readable
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.agent.tools.content import load_content
from devkb.store.models import SourceType


class ResolvedInPeriod(QuestionKind):
    name = "resolved-in-period"
    honours = frozenset({"scope", "period"})

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        return (
            bool(parsed.time_from and parsed.time_to)
            and not parsed.issue_keys
            and parsed.relation is None
            and parsed.wanted in (None, "issue")
            and frame.takes("resolving")  # a resolving word: closed, fixed, done, finished, …
        )

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [Step(GraphQuery.name, f"resolved: {parsed.time_from} to {parsed.time_to}")]

    def run(self, ctx: Context) -> None:
        ctx.outcome.listed = resolved_in_period(ctx)
        ctx.took(self.plan(ctx.parsed, bool(ctx.carried))[0])

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        lines = out.preamble(docs)
        return " ".join([*lines, resolved_list(out.parsed, out.listed or [], numbers)])


def resolved_in_period(ctx: Context, limit: int = 20_000, read: int = 200) -> list[EvidenceDoc]:
    """Every issue resolved in the period (up to ``limit``: the count is exact); the text of the
    first ``read`` is loaded for the answer, the rest cited by title."""
    parsed, scope = ctx.parsed, ctx.scope
    months = _months(parsed.time_from, parsed.time_to)
    if not months or not scope.allows_type(SourceType.JIRA):
        return []
    filters: dict[str, Any] = {"resolved_month": months}
    projects = parsed.projects
    if projects:
        filters["project"] = list(projects)
    store = ctx.toolbox.graph_query.store
    docs = [
        d
        for d in store.find_documents(filters, types=[SourceType.JIRA], limit=limit)
        if scope.allows(d) and _within(str(d.metadata.get("resolved") or ""), parsed)
    ]
    docs.sort(key=lambda d: _key_order(str(d.metadata.get("key") or d.id)))
    found = [
        EvidenceDoc(
            d,
            ((load_content(store, d.id, 1500) if rank < read else None) or d.title,),
            1.0 / (1 + rank),
            GraphQuery.name,
        )
        for rank, d in enumerate(docs)
    ]
    accepted = scope.add(found)
    scope.record(
        ToolCall(GraphQuery.name, {"lookups": [filters], "reason": "resolved in period"}, len(accepted))
    )
    return accepted


def _months(start: str | None, end: str | None, most: int = 36) -> list[str]:
    """ "2010-05-01", "2010-06-30T23:59:59" → ["2010-05", "2010-06"] (at most ``most``)."""
    if not start or not end:
        return []
    year, month = int(start[:4]), int(start[5:7])
    last = (int(end[:4]), int(end[5:7]))
    out: list[str] = []
    while (year, month) <= last and len(out) < most:
        out.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def _within(when: str, parsed: ParsedQuestion) -> bool:
    when = when[:19]
    return (
        bool(when)
        and (not parsed.time_from or when >= parsed.time_from)
        and (not parsed.time_to or when <= parsed.time_to)
    )


def _key_order(key: str) -> tuple[str, int]:
    project, _, number = key.partition("-")
    return project, int(number) if number.isdigit() else 0


def resolved_list(parsed: ParsedQuestion, listed: Sequence[EvidenceDoc], numbers: dict[str, int]) -> str:
    """ "6 issues were resolved from 2010-05-01 to 2010-05-31 in FLUID: FLUID-2430: … [1]; …" """
    span = f"from {(parsed.time_from or '…')[:10]} to {(parsed.time_to or '…')[:10]}"
    projects = parsed.projects
    where = f" in {', '.join(projects)}" if projects else ""
    if not listed:
        return f"No issue{where} was resolved {span} {where_readable()}."
    n = len(listed)
    items = []
    for d in listed[:LIST_SHOWN]:
        cite = citation(d, numbers)
        resolved = str(d.document.metadata.get("resolved") or "")[:10]
        how = d.document.metadata.get("resolution")
        detail = ", ".join(str(x) for x in (how, resolved) if x)
        items.append(f"{d.document.title}" + (f" ({detail})" if detail else "") + cite)
    more = f"; and {n - LIST_SHOWN} more" if n > LIST_SHOWN else ""
    verb = "issue was" if n == 1 else "issues were"
    return f"{n} {verb} resolved {span}{where}: " + "; ".join(items) + more + "."
