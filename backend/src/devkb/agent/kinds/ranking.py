"""Ranking: "who reported the most bugs in WEB?", "who has the most open issues?", "who wrote the
most commits?", "which issues have the most comments?" — a question about which person, or which
document, comes first by a count over every document with some fields → ``GraphQuery`` on those
fields (the count kind's selection: the same scopes, statuses, types, priorities, periods), then
the documents grouped by the person in the asked role, or ordered by their comments; the figures
exact, never a passage that happens to say "most".

The roles: reported / filed / created / opened / raised / logged → the reporter; has / is assigned
/ owns → the assignee; fixed / closed / resolved / finished → the assignee of the resolved ones
(who moved each to Done is in its history, which not every tracker export keeps; the assignee is
whom the issue was resolved by in the tracker's own words); wrote / authored / committed / made →
the author. A commit, pull request or page has one person, its author, whatever the verb ("who
opened the most pull requests?"; fixed: the merged ones)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import citation
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.count import WANTED, asked_fields, counted_documents, describe
from devkb.agent.kinds.lookup import reads_all
from devkb.agent.kinds.relation import is_resolved
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.store.models import Document

STEP = Step(GraphQuery.name, "ranking: every document with the asked fields, grouped or ordered")
SHOWN = 5  # people or documents named after the first
# the role a "who … the most …" question ranks people in (the frame's form "rank_people", whose
# capture names the role: reported / filed / created … → reporter; fixed / closed / resolved →
# fixer; wrote / authored / committed → author; has / is assigned / owns → assignee), and how the
# answer says it; "which issues have the most comments?" is the form "rank_comments"
_ROLES = {"reporter": "reported", "fixer": "resolved", "author": "wrote", "assignee": "has"}
_NOUNS = ("commit", "pull", "page", "file")


def ranked_type(parsed: ParsedQuestion, frame: Frame) -> str:
    """The type a ranking counts: the noun after "most" ("who wrote the most commits?": commits),
    else the parse's wanted type, else issues."""
    form = frame.form("rank_people") or frame.form("rank_comments") or {}
    noun = next((n for n in _NOUNS if n in form), None)
    if noun:
        return noun
    return parsed.wanted if parsed.wanted in WANTED else "issue"


def asked_role(frame: Frame) -> str | None:
    """The role a "who … the most …" question ranks people in (``_ROLES``), or None."""
    form = frame.form("rank_people")
    return next((role for role in _ROLES if role in form), None) if form is not None else None


class Ranking(QuestionKind):
    name = "ranking"
    honours = frozenset({"scope", "type", "state"})
    needs_no_model = True  # exact figures from the graph: a model would rank the few it is shown
    filters = False

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        return asked_role(frame) is not None or frame.takes("rank_comments")

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        docs, _wanted, base, filters, _ = counted_documents(ctx, ranked_type(ctx.parsed, ctx.frame))
        role = asked_role(ctx.frame)
        out = ctx.outcome
        out.reads_all = reads_all()
        out.composed_kind = role or "comments"
        if role is None:  # the documents by their comments, most first (ties: the newest first)
            ranked = sorted(docs, key=lambda d: -_comments(d))
            out.listed = [
                EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(ranked)
            ]
        else:
            issues = ranked_type(ctx.parsed, ctx.frame) == "issue"
            if role == "fixer":  # resolved issues, merged pull requests
                docs = [
                    d for d in docs if is_resolved(d.metadata) or str(d.metadata.get("state")) == "merged"
                ]
            # an issue's reporter or assignee; whoever wrote a commit, pull request or page
            field = ("assignee" if role == "fixer" else role) if issues else "author"
            theirs: dict[str, list[Document]] = defaultdict(list)
            for d in docs:  # newest first: each person's list too
                person = d.metadata.get(field)
                if isinstance(person, str) and person.strip():
                    theirs[person.strip()].append(d)
            out.ranked = sorted(((p, len(ds)) for p, ds in theirs.items()), key=lambda pc: (-pc[1], pc[0]))
            # the first person's newest documents are the evidence; every count is in the text
            first = out.ranked[0][0] if out.ranked else ""
            out.listed = [
                EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name)
                for i, d in enumerate(theirs.get(first, []))
            ]
        out.ranked_of = len(docs)
        ctx.scope.add(out.listed[:SHOWN])
        ctx.scope.record(
            ToolCall(GraphQuery.name, {"fields": {**base, **filters}, "rank": role or "comments"}, len(docs))
        )
        ctx.took(STEP)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        return (out.listed or [])[: min(most, SHOWN)]

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        return "answered", trust.exact_confidence(f"{out.ranked_of} ranked in the graph", docs, "graph_list")

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        frame = out.frame
        assert frame is not None
        fields = asked_fields(out.parsed, frame)
        noun = WANTED[ranked_type(out.parsed, frame)][2]
        where = describe(fields)
        whose = "" if out.reads_all else " that you can read"
        n = out.ranked_of
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        if out.composed_kind == "comments":
            listed = [d for d in out.listed or [] if _comments(d.document) > 0]
            if not listed:
                return f"None of the {n} {noun}s{where}{whose} has a comment."
            items = []
            for d in listed[:SHOWN]:
                c = _comments(d.document)
                items.append(f"{d.document.title} ({c} comment{'s' * (c != 1)}){citation(d, numbers)}")
            return f"The {noun}s{where} with the most comments{whose} (of {n}): " + "; ".join(items) + "."
        role = out.composed_kind
        what = f"{noun}s{where}" + (" (the assignee of the resolved ones)" if role == "fixer" else "")
        if not out.ranked:
            return f"None of the {n} {what}{whose} names a person in that role."
        (first, most), rest = out.ranked[0], out.ranked[1 : SHOWN + 1]
        cites = "".join(citation(d, numbers) for d in docs)
        kind = ranked_type(out.parsed, frame)
        verb = _ROLES[role] if kind == "issue" else "opened" if kind == "pull" else "wrote"
        head = f"{first} {verb} the most {what}{whose}: {most} of {n}{cites}"
        tied = [p for p, c in rest if c == most]
        if tied:
            head += f", as many as {', '.join(tied)}"
        others = [f"{p} ({c})" for p, c in rest if c != most]
        return head + (f"; then {', '.join(others)}." if others else ".")


def _comments(doc: Document) -> int:
    value = doc.metadata.get("comment_count")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
