"""Search: nothing named, nothing to carry over, no kind of its own → ``RAGSearch`` on the
question; the answer quotes the sentences that match it. Always last in the registry."""

from __future__ import annotations

from devkb.agent.kinds.base import Context, QuestionKind, Step
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import RAGSearch

STEP = Step(RAGSearch.name, "no identifier: search")


class Search(QuestionKind):
    answers_focus = True
    name = "search"

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return True

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        ctx.toolbox.rag_search.run(ctx.scope, ctx.parsed.text)
        ctx.took(STEP)
