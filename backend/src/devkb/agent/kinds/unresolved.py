"""Unresolved reference: a follow-up with nothing to refer to — the question's subject is a word
for something said before ("and who worked on it?", "what is its status?", "when did that change?")
and it has no words of its own, no identifier, and the previous answer (if any) left no document
for the reference to mean. No tool runs: any document a search found would be an
unrelated passage answering a question nobody asked. The answer says the question refers to
something earlier and asks which issue, page or document is meant (status ``not_found``).

With documents from the previous turn the same question is a carry-over (``carry_over.py``); a
question that names its own topic ("how do I configure it for production?") or uses "it" as a
dummy subject ("is it possible to …") is never this kind (``question.ParsedQuestion.reference``
and ``own_words``). In either answer mode: a model has nothing to resolve the reference with
either (``needs_no_model``)."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools.filter_docs import keywords

COMPOSED = "unresolved"  # Outcome.composed_kind of this kind's answer


def refers_to_nothing(parsed: ParsedQuestion) -> bool:
    """Whether ``parsed``'s subject is only a reference: it has one and no content words of its
    own (the trust model's notion of content words: keywords, the meta words left out)."""
    return parsed.reference is not None and not (keywords(parsed.own_words) - trust.META_WORDS)


def clarification(parsed: ParsedQuestion) -> str:
    """What the answer says: which word refers back, that nothing earlier names a document, and
    how to ask instead."""
    return (
        f"“{parsed.reference}” refers to something said earlier, and nothing earlier in this "
        "conversation names an issue, page or document for it to mean. Which one do you mean? "
        f"Ask again with its key or title in place of “{parsed.reference}”."
    )


class UnresolvedReference(QuestionKind):
    name = "unresolved-reference"
    needs_no_model = True
    filters = False  # nothing is retrieved
    asks_back = True  # a question back, not a finding about the sources: no knowledge gap

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return not carried and refers_to_nothing(parsed)

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return []  # nothing to look up until the question names what it is about

    def run(self, ctx: Context) -> None:
        ctx.outcome.composed = clarification(ctx.parsed)
        ctx.outcome.composed_kind = COMPOSED

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        return []

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        return out.composed or clarification(out.parsed)

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        reason = f"the question refers back (“{out.parsed.reference}”) and nothing earlier names a document"
        return "not_found", trust.exact_confidence(reason, kind=COMPOSED)
