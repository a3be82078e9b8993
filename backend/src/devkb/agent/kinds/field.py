"""A field of a document named by its title: "who is the assignee of the checkout redesign?",
"who reported the double charge incident?", "is the Apple Pay button done?" — a field asked
(status, assignee, reporter, priority, …), a "who" question, or "when" with a status ("when was
the spinner bug closed?": the status changes from its changelog); no identifier, no relation →
``RAGSearch`` on the question. When one of the search's first documents is named by its title
(:func:`.titles.named_in_question`) and holds a value for the field (for "who": a person), it
becomes the anchor and the answer gives its field ("“checkout redesign” taken as WEB-1: Checkout
redesign 2026 [1]. WEB-1: assignee Hannah Weber [1]."); otherwise the answer is the search's, as
for any question without a kind of its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from devkb.agent.answer import Confidence, Status
from devkb.agent.confidence import level
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import field_facts, identifier
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step, assess_topic
from devkb.agent.kinds.titles import named_in_question
from devkb.agent.question import ParsedQuestion
from devkb.agent.retrieval.fields import summary_of
from devkb.agent.tools import RAGSearch

# the fields a document has one value of ("when" and "author" questions read dates and commits)
FIELDS = frozenset(
    {"status", "resolution", "assignee", "reporter", "priority", "fix_version", "component", "issue_type"}
)
STEP = Step(RAGSearch.name, "a field of a document named by its title: search")
ONE_WORD = 0.6  # the most a document named by one word of its title is trusted (medium)


class FieldByTitle(QuestionKind):
    name = "field-by-title"
    # when no document is named with the field ("who wrote bzip2?" over a manual), the answer is a
    # search's: the sentence that says who
    answers_focus = True

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return (
            not parsed.anchored
            and parsed.relation is None
            and (
                # "… the integer minor units change ship in?": "change" names the thing, not a question type
                (parsed.qtype in ("fact", "changed") and bool(FIELDS.intersection(parsed.fields)))
                # "who is on / did / owns the checkout redesign?" — not "who rotates the sandbox
                # key?": a verb of its own asks who does that, which a sentence says, not a field
                or (parsed.qtype == "who" and (bool(parsed.fields) or _who_asks_a_field(parsed.words)))
                # "when was the spinner bug closed?": its status changes, from its changelog
                or (parsed.qtype == "when" and "status" in parsed.fields)
            )
        )

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        parsed = ctx.parsed
        found = ctx.toolbox.rag_search.run(ctx.scope, parsed.text)
        ctx.took(STEP)
        named = named_in_question(parsed, found, frozenset(ctx.frame.field_words))
        if named is not None and field_facts(parsed, 1, named[0]) is not None:
            ctx.outcome.anchors = [named[0]]
            ctx.outcome.anchor_words = " ".join(named[1])

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        """The named document first, then the rest of the search's."""
        rest = [d for d in selection if d not in out.anchors]
        return (out.anchors + rest)[:most]

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        if not (out.anchors and out.anchors[0] in docs):
            return out.compose_answer(docs)
        anchor = out.anchors[0]
        name, title = identifier(anchor), summary_of(anchor.document)
        named = f"{name}: {title}" if name != title else f"“{title}”"
        taken = f"“{out.anchor_words}” taken as {named} [{docs.index(anchor) + 1}]."
        facts = out.preamble(docs)
        if facts and out.parsed.qtype != "when":  # the field is the answer ("when": with passages)
            return " ".join([taken, *facts])
        return f"{taken} {out.compose_answer(docs)}"

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        """From the search's evidence, as any search's: the document was found by its title, not
        its identifier — over the words that named it when one was named (the words that ask for
        the field are not a topic the sources must hold), else over the question."""
        if not (out.anchors and out.anchors[0] in docs):
            return assess_topic(out.parsed.text, docs)
        status, confidence = assess_topic(out.anchor_words, docs)
        named = f"named by its title: {identifier(out.anchors[0])}; "
        if len(out.anchor_words.split()) == 1 and confidence.probability > ONE_WORD:
            # one word of a title ("the PCI work") may name another document as well
            named = f"named by one word of its title: {identifier(out.anchors[0])}; "
            confidence = replace(confidence, probability=ONE_WORD, level=level(ONE_WORD))
        return status, replace(confidence, reason=named + confidence.reason)


# after "who", the words of a question about a document's person field ("who is …", "who did …")
_WHO_FIELD = frozenset({"is", "was", "s", "did", "does", "has", "had", "handled", "handles", "made", "led"})


def _who_asks_a_field(words: Sequence[str]) -> bool:
    at = next((i for i, w in enumerate(words) if w in ("who", "whom", "whose")), -1)
    return at >= 0 and (at + 1 >= len(words) or words[at] == "whose" or words[at + 1] in _WHO_FIELD)
