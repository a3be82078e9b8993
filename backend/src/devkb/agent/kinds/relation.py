"""Relation: "what does X depend on", "what depends on X", "related to X", "which commits touched X",
"any PR for X" → the anchor (named, carried over, or else found by a search) and ``FetchNeighbors``
from it, keeping only the neighbours in the asked direction, of the asked link type and document
type ("what depends on X" = issues whose "depends on" link points at X); the anchor itself is
never its own neighbour. With an anchor the answer is the complete list with its count, direction
and link type; without one, the connected documents and the sentences that match."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation, identifier, mentions_without
from devkb.agent.focus import question_focus
from devkb.agent.frame.match import tokenize
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step, anchors_saying, document_kind
from devkb.agent.kinds.carry_over import STEP as CARRY_STEP
from devkb.agent.kinds.carry_over import carry_over
from devkb.agent.kinds.lookup import Lookup, look_up, reads_all
from devkb.agent.kinds.mentions import AT_LEAST, asked_phrase, mentioning, phrase_list, phrase_span
from devkb.agent.kinds.titles import named_by_title, named_in_question
from devkb.agent.question import ParsedQuestion, Relation, relation_named
from devkb.agent.retrieval.fields import summary_of
from devkb.agent.tools import FetchNeighbors, RAGSearch
from devkb.store.models import Neighbor

EXPAND = Step(RAGSearch.name, "find documents to expand")
PHRASE = Step(RAGSearch.name, "mentions: every document that holds the phrase")
_LOOKUP = Lookup()


class RelationKind(QuestionKind):
    answers_focus = True
    name = "relation"

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return parsed.relation is not None

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        assert parsed.relation is not None
        return [
            self._anchor_step(parsed, carried),
            Step(FetchNeighbors.name, f"relation: {describe(parsed.relation)}"),
        ]

    @staticmethod
    def _anchor_step(parsed: ParsedQuestion, carried: bool) -> Step:
        if parsed.anchored:
            return _LOOKUP.plan(parsed, carried)[0]
        if carried and parsed.follow_up:
            return CARRY_STEP
        return EXPAND

    def run(self, ctx: Context) -> None:
        parsed, out = ctx.parsed, ctx.outcome
        relation = parsed.relation
        assert relation is not None
        first, neighbours = self.plan(parsed, bool(ctx.carried))
        if first is EXPAND:
            found = ctx.toolbox.rag_search.run(ctx.scope, parsed.text)
            ctx.took(EXPAND)
            named = title_anchor(parsed, ctx.frame, found)
            # "which issues mention Apple Pay?" asks for words: every document that holds them in
            # order, counted; when a title holds them ("the checkout redesign": WEB-1), also what
            # refers to that document, named after the count ("Pay with an apple" names nothing)
            # ("who opened the issue … to reference fluid-infusion?" asks for a person, not a list)
            mentions = relation.name == "mentions" and parsed.qtype != "who"
            asked = asked_phrase(ctx.frame) if mentions else None
            if asked is not None:
                out.anchor_words, project = asked
                out.listed = mentioning(ctx, out.anchor_words, project)
                out.reads_all = reads_all()
                ctx.scope.add(out.listed[:LIST_SHOWN])
                ctx.took(PHRASE)
                if named is not None and phrase_span(out.anchor_words, named[0].document.title):
                    _linked_to(ctx, named[0], named[1])
                return
            if named is not None:  # "what's blocking the checkout redesign?": WEB-1 by its title
                anchor, relation, out.anchor_words = named
                out.anchors = [anchor]
                parsed = ctx.parsed = out.parsed = replace(parsed, relation=relation)
        elif first is CARRY_STEP:
            carry_over(ctx)
        else:
            look_up(ctx, first)
        anchors = out.anchors
        seeds = [a.id for a in anchors] or None
        accept = neighbour_filter(relation, parsed.wanted, {a.id for a in anchors})
        got = ctx.toolbox.fetch_neighbors.run(
            ctx.scope, document_ids=seeds, limit=40, accept=accept, relation=describe(relation)
        )
        if anchors:
            seed_ids = {a.id for a in anchors}
            out.listed = [d for d in got if d.id not in seed_ids and d.relation]
        ctx.took(neighbours)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        if out.linked_to:  # the words' holders, then the document a title named and its referrers
            listed = out.listed or []
            ids = {d.id for d in listed}
            return (listed + [d for d in out.linked_to if d.id not in ids])[:most]
        return super().sources(out, selection, most)

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        if (
            out.listed == [] and out.anchor_words and not out.anchors and not out.linked_to
        ):  # no document holds the phrase
            reason = f"no document holds “{out.anchor_words}”"
            return "not_found", trust.exact_confidence(reason, kind="key_missing")
        return super().assess(out, docs)

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        if out.listed is None:
            return out.compose_answer(docs)
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        if out.anchor_words and not out.anchors:  # mentions of a phrase (mentions.py)
            noun = {"commit": "commit", "pull": "pull request", "page": "page", "file": "file"}.get(
                out.parsed.wanted or "", "issue" if out.parsed.wanted == "issue" else "document"
            )
            at_least = out.composed_kind == AT_LEAST
            text = phrase_list(
                noun, out.anchor_words, out.listed, numbers, LIST_SHOWN, out.reads_all, at_least
            )
            if len(out.linked_to) > 1:  # [the document the title named, what refers to it]
                by_title, *others = out.linked_to
                items = [f"{d.document.title}{citation(d, numbers)}" for d in others[:LIST_SHOWN]]
                text += (
                    f" Linked to {identifier(by_title)}{citation(by_title, numbers)}: "
                    + "; ".join(items)
                    + "."
                )
            return text
        lines = []
        if out.anchor_words and out.anchors:  # what was taken for what comes first
            a = out.anchors[0]
            cite = citation(a, numbers)
            name, title = identifier(a), summary_of(a.document)
            named = f"{name}: {title}" if name != title else f"“{title}”"
            lines.append(f"“{out.anchor_words}” taken as {named}{cite}.")
        lines += out.preamble(docs)
        focus = question_focus(out.parsed)
        if focus is not None and focus.name == "reason" and out.anchors:  # "why is WEB-7 blocked?"
            said = anchors_saying(out, docs, focus)
            if said:
                lines.append(" ".join(f"{s} [{n}]" for n, s in said))
            else:
                lines.append(
                    mentions_without(focus, out.parsed.text, [a for a in out.anchors if a.id in numbers])
                )
        return " ".join([*lines, relation_list(out.parsed, out.anchors, out.listed, numbers, reads_all())])


def _linked_to(ctx: Context, anchor: EvidenceDoc, relation: Relation) -> None:
    """The documents that refer to ``anchor`` (the one a title holding the asked words named),
    beyond the ones that hold the words: ``Outcome.linked_to``, named after the count."""
    listed = {d.id for d in ctx.outcome.listed or []}
    accept = neighbour_filter(relation, ctx.parsed.wanted, {anchor.id})
    got = ctx.toolbox.fetch_neighbors.run(
        ctx.scope, document_ids=[anchor.id], limit=40, accept=accept, relation=describe(relation)
    )
    others = [d for d in got if d.id not in listed and d.id != anchor.id and d.relation]
    ctx.outcome.linked_to = [anchor, *others]


def describe(relation: Relation) -> str:
    return f"{relation.name} ({relation.direction})"


def _keys_in(text: str) -> list[tuple[int, int]]:
    """Where ``text`` names issue keys ("FLUID-1": letters and digits, a letter first, "-", digits)."""
    toks = tokenize(text)
    out = []
    for a, b in zip(toks, toks[1:], strict=False):
        if a.text[0].isascii() and a.text[0].isalpha() and a.text.isascii() and "_" not in a.text:
            if b.text.isdigit() and text[a.end : b.start] == "-":
                out.append((a.start, b.end))
    return out


def _links(text: str) -> list[tuple[str, str, str]]:
    """ "FLUID-1 depends on FLUID-2" → [("FLUID-1", "depends on", "FLUID-2")]: the links as stored
    on an issue-link edge (key, a lower-case phrase between single spaces, key)."""
    keys = _keys_in(text)
    out, i = [], 0
    while i + 1 < len(keys):
        (s1, e1), (s2, e2) = keys[i], keys[i + 1]
        between = text[e1:s2]
        inner = between[1:-1]
        if (
            len(between) > 2
            and between[0] == " " == between[-1]
            and inner[0].islower()
            and inner[0].isascii()
            and all(c == " " or (c.isascii() and c.islower()) for c in inner)
        ):
            out.append((text[s1:e1], inner.rstrip(), text[s2:e2]))
            i += 2
        else:
            i += 1
    return out


def neighbour_filter(relation: Relation, wanted: str | None, anchors: set[str]) -> Callable[[Neighbor], bool]:
    """Which neighbours answer the relation: never an anchor itself; for issue links the link
    phrase and its direction; for "worked on" / "mentions" the wanted document type."""

    def accept(n: Neighbor) -> bool:
        doc = n.document
        if doc.id in anchors or doc.id == n.via:
            return False
        kind = document_kind(doc.id, doc.metadata)
        if wanted in ("commit", "pull", "file") and kind != wanted:
            return False
        if wanted == "page" and kind not in ("page", "file"):  # "documentation page" may be a file
            return False
        if wanted == "issue" and kind not in ("issue", "gh-issue"):
            return False
        if relation.name in ("worked_on",) and wanted is None:
            return document_kind(doc.id, doc.metadata) in ("commit", "pull")
        if relation.name == "subtask" and n.kind in ("jira-subtask", "jira-epic"):
            return True  # Jira Software structure: sub-task ↔ parent, issue ↔ epic
        if relation.name in ("depends", "duplicates", "supersedes", "subtask"):
            if n.kind != "jira-issuelink":
                return False
            phrase = link_phrase(n.evidence)
            if relation.name == "depends" and relation.direction in ("out", "in"):
                # the stored edge reads "subject phrase object". "out" = the anchor depends on the
                # neighbour: "anchor depends on n" (edge out) or "n blocks anchor" (edge in).
                forward = phrase in ("depends on", "is blocked by")
                inverse = phrase in ("is depended on by", "blocks")
                seen_out = n.direction == "out"
                if relation.direction == "out":
                    return (seen_out and forward) or (not seen_out and inverse)
                return (not seen_out and forward) or (seen_out and inverse)
            if relation.phrases:
                return phrase in relation.phrases
            return relation.name in phrase
        if relation.name == "related" and wanted in (None, "issue"):
            return doc.id.startswith("jira:")
        return True

    return accept


def link_phrase(evidence: str) -> str:
    """ "FLUID-1 depends on FLUID-2" → "depends on"."""
    keys = _keys_in(evidence)
    if len(keys) >= 2:
        return evidence[keys[0][1] : keys[-1][0]].strip().lower()
    return evidence.strip().lower()


def is_resolved(metadata: dict[str, Any]) -> bool:
    return bool(metadata.get("resolution")) or str(metadata.get("status", "")).lower() in (
        "done",
        "closed",
        "resolved",
    )


def relation_list(
    parsed: ParsedQuestion,
    anchors: Sequence[EvidenceDoc],
    listed: Sequence[EvidenceDoc],
    numbers: dict[str, int],
    everything: bool = True,
) -> str:
    """ "FLUID-1179 depends on 4 issues: FLUID-1177: … [1]; …" with the count, the link type and
    the direction kept; documents beyond the sources are named without a citation. ``everything``:
    the reader reads every document — else "none" is said of what they can read (WEB-7 depends on
    PAY-20, which a reader of WEB only does not see: not "on no issue in the knowledge base")."""
    where = "in the knowledge base" if everything else "among the documents you can read"
    relation = parsed.relation
    anchor = ", ".join(identifier(a) for a in anchors) or "the documents found"
    kind = parsed.wanted if parsed.wanted in ("commit", "pull", "page", "file") else None
    if relation is not None and relation.name == "worked_on" and kind is None:
        kind = "commit or pull request"
    noun = {"commit": "commit", "pull": "pull request", "page": "page", "file": "file"}.get(
        kind or "", kind or "issue"
    )
    n = len(listed)
    plural = noun if n == 1 else noun + "s"
    name, direction = (relation.name, relation.direction) if relation is not None else ("related", "both")
    if name == "depends" and direction == "out":
        head = f"{anchor} depends on {n} {plural}"
        none = f"{anchor} depends on no {noun} {where}."
    elif name == "depends":
        head = f"{n} {plural} {'depends' if n == 1 else 'depend'} on {anchor}"
        none = f"No {noun} depends on {anchor} {where}."
    elif name in ("worked_on", "mentions") or kind in ("commit", "pull", "page", "file"):
        verb = "references" if n == 1 else "reference"
        head = f"{n} {plural} {verb} {anchor}"
        none = f"No {noun} referencing {anchor} was found {where}."
    elif name in ("duplicates", "supersedes", "subtask"):
        head = f"{anchor}: {n} {plural} linked as {name}"
        none = f"{anchor} has no {name} links {where}."
    else:
        head = f"{anchor} is linked to {n} {plural}"
        none = f"{anchor} is linked to no {noun} {where}."
    if not listed:
        return none
    shown = sum(1 for d in listed if d.id in numbers)
    if shown < n:
        head += f" ({shown} shown as sources)"
    items = []
    for d in listed[:LIST_SHOWN]:
        cite = citation(d, numbers)
        link = _link_type(d, anchors) if noun == "issue" else ""
        author = d.document.metadata.get("author")
        by = f" (by {author})" if author and parsed.qtype == "who" else ""
        items.append(f"{d.document.title}{link}{by}{cite}")
    more = f"; and {n - LIST_SHOWN} more" if n > LIST_SHOWN else ""
    return f"{head}: " + "; ".join(items) + more + "."


def _link_type(doc: EvidenceDoc, anchors: Sequence[EvidenceDoc]) -> str:
    """ " (relates to)" — the issue link between ``doc`` and an anchor, seen from the anchor."""
    keys = {identifier(a) for a in anchors}
    for a, phrase, b in _links(doc.relation):
        if a in keys:
            return f" ({phrase})"
        if b in keys:
            return f" ({phrase} it)" if phrase != "relates to" else " (relates to)"
    return ""


def title_anchor(
    parsed: ParsedQuestion, frame: Frame, found: Sequence[EvidenceDoc], top: int = 3
) -> tuple[EvidenceDoc, Relation, str] | None:
    """A relation question without an identifier that names a document by its title ("what's
    blocking the checkout redesign?" and WEB-1 "Checkout redesign 2026"; :mod:`.titles`), when
    the relation reads again with the title's run of words as its anchor ("blocking the
    checkout redesign"); with the run, to say what was taken for what."""
    for doc, run in named_by_title(parsed, found, top):
        relation = relation_named(parsed.text, run)
        if relation is not None:
            return doc, relation, " ".join(run)
    # "which commits fixed the order total bug?": commits or pull requests of an issue named by a few
    # of its title's words, as a field question names it ("what is related to webhook retries?"
    # stays a topic: a loose match names no anchor there)
    if parsed.wanted not in ("commit", "pull"):
        return None
    named = named_in_question(parsed, found, frozenset(frame.field_words), top)
    if named is not None and document_kind(named[0].id, named[0].document.metadata) in ("issue", "gh-issue"):
        relation = relation_named(parsed.text, named[1])
        if relation is not None:
            return named[0], relation, " ".join(named[1])
    return None
