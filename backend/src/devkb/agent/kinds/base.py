"""What every question kind is: how it recognises itself from the parsed question, which tools it
runs, and how its extractive answer is composed — and the outcome it hands to the answer.

A kind sees the question only as a :class:`~devkb.agent.question.ParsedQuestion` (parsed once, by
the planner); the tools it runs get the parsed lookups, never the raw text to parse again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.extractive import (
    compose_answer,
    focus_passages,
    focused_sentences,
    holds_focus,
    identifier,
    people_of,
    preamble,
    reads_further,
    unmet_focus,
)
from devkb.agent.focus import Focus, question_focus
from devkb.agent.frame.model import Frame
from devkb.agent.further import FurtherReading
from devkb.agent.meaning import SentenceMeaning
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import Toolbox


@dataclass(frozen=True)
class Step:
    tool: str
    reason: str


@dataclass
class Outcome:
    """What a kind found, beyond the selection: identifiers that matched nothing (with close
    matches), the anchors, and for a list question (relation, blocked, resolved) the whole list."""

    parsed: ParsedQuestion
    kind: QuestionKind
    steps: list[Step] = field(default_factory=list)
    not_found: dict[str, tuple[str, ...]] = field(default_factory=dict)
    anchors: list[EvidenceDoc] = field(default_factory=list)
    # the question's words that named the anchor by its title, when no identifier did ("checkout redesign")
    anchor_words: str = ""
    listed: list[EvidenceDoc] | None = None  # None: not a list question
    # mentions of words a title holds: [that document, what refers to it] (relation.py), not counted
    linked_to: list[EvidenceDoc] = field(default_factory=list)
    # a count of "open" issues (the status Open): the unresolved ones in another status, named after
    unresolved_elsewhere: list[EvidenceDoc] = field(default_factory=list)
    dated: list[EvidenceDoc] | None = None  # documents updated in the question's period
    # a ranking (ranking.py): the people in the asked role with their counts, most first, and how
    # many documents were ranked
    ranked: list[tuple[str, int]] = field(default_factory=list)
    ranked_of: int = 0
    # releases (releases.py): each project's fix versions, highest first, and the projects named
    releases: dict[str, list[Any]] = field(default_factory=dict)
    release_projects: list[str] = field(default_factory=list)
    # releases.py, what holds a version up: each open issue's id → the unresolved issues it waits on
    waits: dict[str, list[str]] = field(default_factory=dict)
    durations: list[float] = field(default_factory=list)  # durations.py: days each took, shortest first
    composed: str | None = None  # the answer, when the kind composes it while it runs (history)
    composed_kind: str = ""  # which answer it composed (history: state, first, digest, …)
    # history: what the record lacks for the answer (its confidence is capped: confidence.unrecorded)
    unrecorded: str = ""
    # of ``not_found``: the keys the question's source filter left out (key → source type, JIRA…)
    filtered_out: dict[str, str] = field(default_factory=dict)
    # whether the reader reads every document: "not found in the knowledge base", else "among
    # the documents you can read" (a document the reader may not read is never confirmed)
    reads_all: bool = True
    # the question understood (agent/frame), the route that chose the kind, and the conditions of
    # the frame the kind could not apply (said in the answer; they cap its confidence)
    frame: Frame | None = None
    route: str = ""
    unapplied: list[str] = field(default_factory=list)
    # the sentence choice's meaning (agent/meaning.py) and the found documents' other passages
    # (agent/further.py): the planner hands both from the toolbox; None leaves them out
    meaning: SentenceMeaning | None = None
    further: FurtherReading | None = None

    def preamble(self, docs: Sequence[EvidenceDoc]) -> list[str]:
        """The lines every answer starts with (:func:`devkb.agent.extractive.preamble`)."""
        return preamble(self.parsed, docs, self.not_found, self.anchors, self.filtered_out, self.reads_all)

    def compose_answer(self, docs: Sequence[EvidenceDoc], lead: str | None = None) -> str:
        """:func:`devkb.agent.extractive.compose_answer` with this outcome's findings."""
        return compose_answer(
            self.parsed,
            docs,
            self.not_found,
            self.anchors,
            lead=lead,
            filtered_out=self.filtered_out,
            reads_all=self.reads_all,
            meaning=self.meaning,
        )

    def sources(self, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        return self.kind.sources(self, selection, most)

    def read_further(self, docs: Sequence[EvidenceDoc]) -> list[EvidenceDoc]:
        """``docs``, the best read further when no retrieved sentence says what the question asks
        (:meth:`QuestionKind.read_further`)."""
        return self.kind.read_further(self, docs)

    def compose(self, docs: Sequence[EvidenceDoc]) -> str:
        text = self.kind.compose(self, docs)
        if self.unapplied:
            text += (
                "\n\nI could not apply every condition of the question: " + "; ".join(self.unapplied) + "."
            )
        return text

    def assess(self, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        status, confidence = self.kind.assess(self, docs)
        if self.unapplied:
            return trust.capped(status, confidence, "not applied: " + "; ".join(self.unapplied))
        if self.frame is not None and self.frame.statement:
            return trust.capped(status, confidence, "a statement, not a question")
        return status, confidence


@dataclass
class Context:
    """One question's run: where the tools write (``scope``), the tools, the parse, and the
    documents of the previous turn (for follow-ups)."""

    scope: Scope
    toolbox: Toolbox
    parsed: ParsedQuestion
    carried: tuple[str, ...]
    outcome: Outcome

    def took(self, step: Step) -> None:
        self.outcome.steps.append(step)

    @property
    def frame(self) -> Frame:
        """The question understood (the planner puts it on the outcome before a kind runs)."""
        assert self.outcome.frame is not None, "a kind runs on an outcome with its frame"
        return self.outcome.frame


class QuestionKind:
    """One kind of question. Subclasses set ``name`` and implement ``matches``, ``plan`` and
    ``run``; ``sources`` and ``compose`` have the defaults most kinds want."""

    name: ClassVar[str] = ""
    # the answer is composed from records in either mode: the model is not asked (history)
    needs_no_model: ClassVar[bool] = False
    # FilterDocs runs over the selection after the kind's tools (not when the kind answers exactly)
    filters: ClassVar[bool] = True
    # its answer asks back instead of answering (``Answer.asks_back``: an unresolved reference)
    asks_back: ClassVar[bool] = False
    # the frame's condition slots it applies (agent/frame/route.py: ``person:<role>``, period,
    # scope, type, state, priority, version, label); a slot it does not honour is never dropped
    honours: ClassVar[frozenset[str]] = frozenset()
    # it reads a person's work as assigned to them or written by them (``Frame.person_work``):
    # the conditions the answer shows (``Frame.describe``) say so
    reads_work: ClassVar[bool] = False
    # its answer quotes what the question asks for (agent/focus.py: the reason, the person, …) and
    # says when no source holds it; its confidence is then capped (confidence.capped)
    answers_focus: ClassVar[bool] = False

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        """Whether this kind answers the question: from its ``frame`` (shape, slots and forms) and
        the parse's identifiers and relation (``carried``: the previous turn left documents). By
        default ``matches`` (kinds that recognise themselves from the parse alone)."""
        return self.matches(parsed, carried)

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        """Whether this kind answers ``parsed`` — for kinds that need no frame (``recognises``)."""
        raise NotImplementedError

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        """The tools it will run, before seeing any result (``FilterDocs`` is added by the planner)."""
        raise NotImplementedError

    def run(self, ctx: Context) -> None:
        """Run the tools into ``ctx.scope`` and fill ``ctx.outcome``."""
        raise NotImplementedError

    def filtered(self, ctx: Context) -> None:
        """After ``FilterDocs``: a last say over the selection (nothing by default)."""

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        """The documents the answer cites, in order: a list first, then its anchors; nothing for
        identifiers that do not exist; else the selection."""
        if out.listed is not None:
            order = out.listed + [a for a in out.anchors if a not in out.listed]
            return order[:most]
        if out.not_found and not out.anchors:
            return []  # never another document's data for an identifier that does not exist
        return list(selection[:most])

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        """The extractive answer over ``docs`` (cited by position)."""
        return out.compose_answer(docs)

    def read_further(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> list[EvidenceDoc]:
        """For an answer that quotes what the question asks (its focus): when no sentence of the
        retrieved passages holds it together with ``extractive.FOCUS_GATE`` of the question's weighted
        terms, the best documents with their other passages (agent/further.py) — the sentence that
        says why is often in the chunk next to the one that matched. ``docs`` otherwise."""
        if not self.answers_focus or out.listed is not None or out.further is None or not docs:
            return list(docs)
        if not reads_further(out.parsed, docs, out.not_found, out.anchors, out.filtered_out, out.reads_all):
            return list(docs)
        return out.further.widened(docs)

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        """The answer's status and confidence: exact when the kind found its documents by
        identifier or through the graph, else from how much of the question the sources hold —
        capped when the sources do not hold what the question asks (its focus)."""
        status, confidence = self.assess_evidence(out, docs)
        if status == "not_found":  # "does not say" claims nothing a missing focus could weaken
            return self.focus_overrides(out, docs, confidence) or (status, confidence)
        unmet = self.unmet_focus(out, docs)
        return (
            trust.capped(status, confidence, f"no source says {unmet.asks}")
            if unmet
            else (status, confidence)
        )

    def focus_overrides(
        self, out: Outcome, docs: Sequence[EvidenceDoc], not_found: Confidence
    ) -> tuple[Status, Confidence] | None:
        """A question that asks for a reason, a consequence, a person or a step, whose sources
        lack some of its words but hold a sentence that says what it asks (``holds_focus``): not
        "does not say" but a partial answer quoting it, with the low probability the evidence
        gives the topic ("Who wrote zpipe.c?" — the manual never says "wrote")."""
        if not self.answers_focus or out.listed is not None or not docs:
            return None
        held = holds_focus(
            out.parsed,
            docs,
            out.not_found,
            out.anchors,
            filtered_out=out.filtered_out,
            reads_all=out.reads_all,
        )
        if held is None:
            return None
        focus, sentence = held
        p = round(1.0 - not_found.probability, 3)
        said = f"[{sentence.n}] says {focus.asks} ({sentence.coverage:.0%} of the question's terms)"
        why = f"{not_found.reason}; but a sentence of {said}"
        return "partial", Confidence(p, trust.level(p), why)

    def unmet_focus(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> Focus | None:
        """What the question asks (its focus) when this kind's answer looked for it and no source
        holds it: for a list, the reason a named document gives; else the quoted sentences'."""
        if not self.answers_focus or not docs:
            return None
        if out.listed is not None:
            focus = question_focus(out.parsed)
            if focus is None or focus.name != "reason" or not out.anchors:
                return None
            return None if anchors_saying(out, docs, focus) else focus
        return unmet_focus(
            out.parsed,
            docs,
            out.not_found,
            out.anchors,
            filtered_out=out.filtered_out,
            reads_all=out.reads_all,
        )

    def assess_evidence(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        """Status and confidence from the evidence alone (exact, else the topic's)."""
        kind = exact_kind(out)
        if kind == "key_missing":
            reason = missing_reason(list(out.not_found), out.filtered_out, out.reads_all)
            return "not_found", trust.exact_confidence(reason, kind=kind)
        if kind == "keys_partial":
            return "partial", trust.exact_confidence(
                f"found by key: {_names(out.anchors)}; not found: {', '.join(out.not_found)}", kind=kind
            )
        if kind == "graph_list":
            assert out.listed is not None
            ids = {d.id for d in docs}
            shown = sum(1 for d in out.listed if d.id in ids)
            return "answered", trust.exact_confidence(
                f"{len(out.listed)} listed from the graph", docs, kind, shown, len(out.listed)
            )
        if kind == "identifier":
            return "answered", trust.exact_confidence(
                f"found by identifier: {_names(out.anchors)}", docs, kind
            )
        if kind == "period":
            assert out.dated is not None
            return "answered", trust.exact_confidence(f"{len(out.dated)} updated in the period", docs, kind)
        return assess_topic(out.parsed.text, docs)


def anchors_saying(out: Outcome, docs: Sequence[EvidenceDoc], focus: Focus) -> list[tuple[int, str]]:
    """The sentences of the named documents (the anchors) that say what the question asks — "Why
    is WEB-7 blocked?" → WEB-7's "Blocked on the v2 endpoint being deployed to staging." — with
    their citation numbers among ``docs``."""
    numbers = {d.id: i for i, d in enumerate(docs, 1)}
    anchors = [a for a in out.anchors if a.id in numbers]
    passages = [(numbers[a.id], text) for a in anchors for _, text in focus_passages([a])]
    people = {numbers[a.id]: people_of(a) for a in anchors}
    titles = {numbers[a.id]: a.document.title for a in anchors}
    return focused_sentences(out.parsed.text, passages, focus, people, meaning=out.meaning, titles=titles)


def document_kind(doc_id: str, metadata: dict[str, object]) -> str:
    """What a document is ("issue", "page", "commit", "pull", "file", …): its ``kind`` field, or
    its id's source for Jira issues and Confluence pages stored without one."""
    kind = str(metadata.get("kind") or "")
    if kind:
        return kind
    if doc_id.startswith("confluence:"):
        return "page"
    if doc_id.startswith("jira:"):
        return "issue"
    return ""


def exact_kind(out: Outcome) -> str | None:
    """Which exact evidence an outcome rests on (``confidence.EXACT_KINDS``), or ``None`` when
    it rests on search results."""
    if out.not_found:
        return "keys_partial" if out.anchors else "key_missing"
    if out.listed is not None:
        return "graph_list"
    if out.anchors:
        return "identifier"
    if out.dated:
        return "period"
    return None


def assess_topic(question: str, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
    s = trust.signals(question, docs)
    p = trust.topic_probability(s)
    return trust.topic_status(p), trust.topic_confidence(s, p, docs)


def missing_reason(not_found: Sequence[str], filtered_out: Mapping[str, str], reads_all: bool) -> str:
    """Why nothing was found for the named keys, as far as the reader may know (never that a
    document the reader may not read exists)."""
    left_out = [k for k in not_found if k in filtered_out]
    missing = [k for k in not_found if k not in filtered_out]
    parts = []
    if missing:
        whose = "" if reads_all else " you can read"
        parts.append(f"no document{whose} has the key {', '.join(missing)}")
    if left_out:
        parts.append(f"{', '.join(left_out)} left out by the source filter")
    return "; ".join(parts)


def _names(docs: Sequence[EvidenceDoc], most: int = 3) -> str:
    names = [identifier(d) for d in docs[:most]]
    return ", ".join(names) + (f" and {len(docs) - most} more" if len(docs) > most else "")
