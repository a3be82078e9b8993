"""Period: a time range ("last month", "in April 2019", "since 2019-03") with nothing named to
apply it to and nothing carried over → the documents updated in the period (``GraphQuery``) and a
search for the topic; after filtering only the period's documents are kept. The answer lists what
was updated, then quotes the sentences that match the topic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from devkb.agent.evidence import EvidenceDoc
from devkb.agent.focus import question_focus
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import where_readable
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery, RAGSearch

TOPIC = Step(RAGSearch.name, "the topic, within the period")


class Period(QuestionKind):
    name = "period"
    honours = frozenset({"period"})

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        """A period with nothing named — unless the question asks for a reason, a consequence, a
        person or a step ("Why were customers charged twice in April?"): that is a search within
        the period (:class:`~devkb.agent.kinds.search.Search`), not a list of what was updated."""
        if not (parsed.time_from or parsed.time_to) or parsed.anchored:
            return False
        return question_focus(parsed) is None

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        span = f"period: {parsed.time_from or '…'} to {parsed.time_to or '…'}"
        return [Step(GraphQuery.name, span), TOPIC]

    def run(self, ctx: Context) -> None:
        parsed = ctx.parsed
        fields: dict[str, Any] = {"updated_from": parsed.time_from, "updated_to": parsed.time_to}
        if parsed.wanted in ("pull", "commit", "issue", "file"):  # GitHub kinds (DocumentFilters.kind)
            fields["kind"] = parsed.wanted
        ctx.outcome.dated = ctx.toolbox.graph_query.run(ctx.scope, fields=fields, limit=25, label="period")
        ctx.took(self.plan(parsed, bool(ctx.carried))[0])
        ctx.toolbox.rag_search.run(ctx.scope, parsed.text)
        ctx.took(TOPIC)

    def filtered(self, ctx: Context) -> None:
        """Only documents of the period: search results outside it are dropped; when the question's
        words matched none of the period's documents, the period's documents are the answer."""
        kept = [d for d in ctx.scope.selection if _in_period(d, ctx.parsed)]
        ctx.scope.replace_selection(kept or list(ctx.outcome.dated or ()))

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        lead = period_list(out.parsed, docs) if out.dated is not None and not out.anchors else None
        return out.compose_answer(docs, lead=lead)


def touches_period(doc: EvidenceDoc, parsed: ParsedQuestion) -> bool:
    """Whether ``doc`` was created or updated within the question's period."""
    d = doc.document
    created = str(d.metadata.get("created") or d.metadata.get("created_at") or "")
    return any(_within(when[:19], parsed) for when in (created, d.updated_at) if when)


def _within(when: str, parsed: ParsedQuestion) -> bool:
    return (not parsed.time_from or when >= parsed.time_from) and (
        not parsed.time_to or when <= parsed.time_to
    )


def _in_period(doc: EvidenceDoc, parsed: ParsedQuestion) -> bool:
    when = doc.document.updated_at[:19]
    if not when:
        return False
    return (not parsed.time_from or when >= parsed.time_from) and (
        not parsed.time_to or when <= parsed.time_to
    )


def period_list(parsed: ParsedQuestion, docs: Sequence[EvidenceDoc]) -> str:
    """ "Updated 2026-10-01 to 2026-10-31: 3 documents — PAY-21: … (2026-10-06) [1]; …" """
    span = f"{(parsed.time_from or '…')[:10]} to {(parsed.time_to or '…')[:10]}"
    if not docs:
        return f"Nothing {where_readable()} was updated from {span}."
    items = [f"{d.document.title} ({d.document.updated_at[:10]}) [{i}]" for i, d in enumerate(docs, 1)]
    noun = "document" if len(docs) == 1 else "documents"
    return f"Updated from {span}: {len(docs)} {noun} — " + "; ".join(items) + "."
