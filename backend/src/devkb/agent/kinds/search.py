"""Search: nothing named, nothing to carry over, no kind of its own → ``RAGSearch`` on the
question; the answer quotes the sentences that match it. Always last in the registry.

A period in the question ("Why were customers charged twice in April?") narrows the evidence to
the documents created or updated in it; when none of the found documents is, the answer says it
could not apply the period (and its confidence is capped) rather than dropping it."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent.answer import Confidence, Status
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step, assess_topic
from devkb.agent.kinds.period import touches_period
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import RAGSearch

STEP = Step(RAGSearch.name, "no identifier: search")


class Search(QuestionKind):
    answers_focus = True
    name = "search"
    honours = frozenset({"period"})

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return True

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        ctx.toolbox.rag_search.run(ctx.scope, ctx.parsed.text)
        ctx.took(STEP)

    def filtered(self, ctx: Context) -> None:
        parsed = ctx.parsed
        if not (parsed.time_from or parsed.time_to) or not ctx.scope.selection:
            return
        kept = [d for d in ctx.scope.selection if touches_period(d, parsed)]
        if kept:
            ctx.scope.replace_selection(kept)
            return
        frame = ctx.outcome.frame
        label = frame.period.label if frame is not None and frame.period is not None else "the period"
        ctx.outcome.unapplied.append(f"{label} (no source found was created or updated then)")

    def assess_evidence(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        """With the period applied, the sources are judged on the topic ("customers charged
        twice"), not on the period's words ("April": a date, which no text needs to spell)."""
        frame = out.frame
        if frame is not None and frame.period is not None and frame.topic and not out.unapplied:
            return assess_topic(frame.topic, docs)
        return super().assess_evidence(out, docs)
