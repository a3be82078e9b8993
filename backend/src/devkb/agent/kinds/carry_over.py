"""Carry-over: a follow-up — the question refers back ("it", "those", "and …", "what about …"),
not merely short — with documents left by the previous turn → ``GraphQuery`` on those documents
(the previous question's named documents first); a search when none is still there."""

from __future__ import annotations

from devkb.agent.kinds.base import Context, QuestionKind, Step
from devkb.agent.kinds.lookup import search_instead
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery

STEP = Step(GraphQuery.name, "carry over the previous turn's documents")


class CarryOver(QuestionKind):
    answers_focus = True
    name = "carry-over"

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return carried and parsed.follow_up

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        carry_over(ctx)


def carry_over(ctx: Context) -> None:
    found = ctx.toolbox.graph_query.run(ctx.scope, document_ids=list(ctx.carried)[:5], label="carry-over")
    ctx.outcome.anchors = list(found)
    ctx.took(STEP)
    if not found:
        search_instead(ctx)
