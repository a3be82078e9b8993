"""History: questions about change — a state on a date, when something first reached a state and
who moved it, what changed in a period, a page as it was at a version or date, a timeline
(agent/history, docs/history.md). The answer is composed from the stored versions, in either
answer mode: a model adds nothing to a record of who changed what when (``needs_no_model``).

A history question about sources the question excludes (its evidence would be dropped) is
answered as a search instead, within the allowed sources."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent import confidence as trust
from devkb.agent import history as time_history
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.search import Search
from devkb.agent.question import ParsedQuestion

NAME = "History"


class History(QuestionKind):
    name = "history"
    needs_no_model = True
    filters = False  # the versions answer exactly; FilterDocs would reorder what the text cites

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return time_history.recognise(parsed, time_history.today_local()) is not None

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        intent = time_history.recognise(parsed, time_history.today_local())
        return [Step(NAME, f"history: {intent.kind if intent else '?'}")]

    def run(self, ctx: Context) -> None:
        today = time_history.today_local()
        intent = time_history.recognise(ctx.parsed, today)
        assert intent is not None  # matches() said so
        found = time_history.answer(intent, ctx.toolbox.graph_query.store, today)
        evidence = [d for d in found.evidence if ctx.scope.allows(d.document)]
        if len(evidence) < len(found.evidence):
            ctx.outcome.kind = SEARCH  # it needs documents of sources the question excludes
            SEARCH.run(ctx)
            return
        ctx.scope.record(ToolCall(NAME, {"kind": intent.kind, "question": ctx.parsed.text}, len(evidence)))
        ctx.took(self.plan(ctx.parsed, bool(ctx.carried))[0])
        ctx.outcome.listed = evidence
        ctx.outcome.composed = found.text
        ctx.outcome.composed_kind = "missing" if found.missing else intent.kind
        ctx.outcome.unrecorded = found.unrecorded

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        return out.composed or ""

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        # "nothing changed" is an answer; "no such issue" is not
        if not docs and out.composed_kind != "digest":
            return "not_found", trust.exact_confidence("no document you can read matches", kind="key_missing")
        if not docs:
            empty = trust.exact_confidence("no stored change you can read in that window")
            if out.unrecorded:
                return trust.capped("answered", empty, f"the record is incomplete: {out.unrecorded}")
            return "answered", empty
        versions = "version" if len(docs) == 1 else "versions"
        found = trust.exact_confidence(f"from {len(docs)} stored {versions} and records", docs)
        if out.unrecorded:  # the answer rests on records that are missing: it says so, and is not sure
            return trust.capped("answered", found, f"the record is incomplete: {out.unrecorded}")
        return "answered", found


SEARCH = Search()
