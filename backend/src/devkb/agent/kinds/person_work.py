"""A person's work: "what did Priya work on?", "what is Marcus Chen working on?", "what has Hannah
done?" — a person named, no document → the issues assigned to them and the commits, pull requests
and pages they wrote (``GraphQuery`` on the fields ``assignee`` and ``author``), newest first, with
each issue's status; never passages that merely name them.

The question may give a first name only. It is completed from the people of the documents a
full-text search for it finds (assignee, reporter, author, commenters: the ``people`` field),
when exactly one full name there holds all of the question's name words; GitHub logins that are a
usual handle of that name ("pRaman", "praman") count as the same person (``who_to_ask.handles``).
Two people who fit ("Chen": Marcus Chen, Mei Chen) are named back instead of guessed.

"Which issues did Priya close?", "what has Marcus resolved?", "issues closed by Hannah": the
issues whose status that person moved to Closed, Resolved or Done, from the issues' history (the
``transition`` versions of the issues that name them), newest first with the day of the move."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation
from devkb.agent.frame.model import Frame
from devkb.agent.identifiers import issue_type
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import reads_all
from devkb.agent.kinds.relation import is_resolved
from devkb.agent.kinds.who_to_ask import handles
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.agent.words import name_words
from devkb.store.models import Document, SourceType
from devkb.store.protocol import GraphStore

STEP = Step(GraphQuery.name, "a person's work: issues assigned to them, what they wrote")
MOST = 2_000  # documents read per field
# the question's forms (agent/frame/phrases.py): "person_work" ("what did Priya work on?", "show
# me Sofia's work"), "closed_by" ("which issues did Priya close?", "bugs closed by Hannah": who
# moved an issue's status to a done one, from its history, not its assignee), "created_by" ("which
# PRs did Marcus open?", "which bugs did Grace report?": one type, the person as its author or
# reporter), "now" ("what is Marcus working on?": what is still going on)
DONE_STATUSES = ("closed", "resolved", "done")
_CREATED_KIND = {"commits": "commit", "pull requests": "pull", "prs": "pull", "pages": "page"}


def created_kind(noun: str) -> str:
    """The document kind a "which <noun> did … open" question names (issue for its issue words)."""
    return _CREATED_KIND.get(" ".join(noun.lower().split()), "issue")


_PEOPLE_FIELDS = ("assignee", "reporter", "author")


def asked_name(frame: Frame) -> str | None:
    """ "What did Priya work on?", "which issues did Priya close?" → "Priya"."""
    form = frame.form("person_work") or frame.form("closed_by") or frame.form("created_by")
    return form.get("name") if form else None


class PersonWork(QuestionKind):
    name = "person-work"
    honours = frozenset(
        {"person:assignee", "person:author", "person:reporter", "person:involved", "person:mover", "type"}
    )
    needs_no_model = True  # the list is exact: a model would list the few it is shown
    filters = False

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        name = asked_name(frame)
        return name is not None and not set(name.split()) & set(parsed.projects)

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        out = ctx.outcome
        frame = ctx.frame
        asked = asked_name(frame) or ""
        store = ctx.toolbox.graph_query.store
        names = people_named(ctx, asked)
        out.anchor_words = asked
        out.reads_all = reads_all()
        out.composed_kind = names[0] if len(names) == 1 else ""
        out.listed = []
        if len(names) == 1:
            full = names[0]
            logins = sorted(handles(full))
            mode = _mode(frame)
            created = frame.form("created_by")
            if mode == "closed":
                out.listed = closed_by(ctx, full)
            elif mode == "created" and created is not None:
                out.listed = created_by(ctx, full, logins, created["noun"])
            else:
                found: dict[str, Document] = {}
                for field, values in (("assignee", [full]), ("author", [full, *logins])):
                    for d in store.find_documents({field: values}, limit=MOST):
                        if ctx.scope.allows(d):
                            found.setdefault(d.id, d)
                docs = sorted(found.values(), key=lambda d: d.updated_at, reverse=True)
                if frame.takes("now"):  # still going on: unresolved issues, open pull requests
                    docs = [d for d in docs if _going_on(d)]
                out.listed = [
                    EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(docs)
                ]
            ctx.scope.add(out.listed[:LIST_SHOWN])
            ctx.scope.record(
                ToolCall(GraphQuery.name, {"assignee": [full], "author": [full, *logins]}, len(out.listed))
            )
        out.not_found = {} if len(names) == 1 else {asked: tuple(names)}
        ctx.took(STEP)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        return (out.listed or [])[:most]

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        if not out.composed_kind:
            who = "two or more people" if out.not_found.get(out.anchor_words) else "nobody"
            return "not_found", trust.exact_confidence(f"{who} named {out.anchor_words}", kind="key_missing")
        n = len(out.listed or [])
        found = trust.exact_confidence(f"{n} listed from the graph", docs, "graph_list")
        if out.unrecorded:  # who closed some is not recorded: the list may be short
            return trust.capped("answered", found, f"the record is incomplete: {out.unrecorded}")
        return "answered", found

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        whose = "" if out.reads_all else " you can read"
        if not out.composed_kind:
            fits = out.not_found.get(out.anchor_words) or ()
            if fits:
                return f"More than one person is called {out.anchor_words}: {', '.join(fits)}. Which one do you mean?"
            return f"I found nobody called {out.anchor_words} in the documents{whose}."
        person, listed = out.composed_kind, out.listed or []
        assert out.frame is not None
        now = out.frame.takes("now")
        mode = _mode(out.frame)
        if mode == "closed":
            text = _compose_closed(person, listed, docs, whose)
            return text + (f" {out.unrecorded[:1].upper()}{out.unrecorded[1:]}." if out.unrecorded else "")
        if mode == "created":
            return _compose_created(person, out.frame, listed, docs, whose)
        if not listed and now:
            return (
                f"{person} has no unresolved issue assigned and no open pull request in the documents{whose}."
            )
        if not listed:
            return f"{person} has no issue assigned and wrote no commit, pull request or page in the documents{whose}."
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        kinds = Counter(_noun(d.document) for d in listed)
        summary = ", ".join(f"{n} {k}{'s' * (n != 1)}" for k, n in kinds.most_common())
        items = []
        for d in listed[:LIST_SHOWN]:
            cite = citation(d, numbers)
            status = d.document.metadata.get("status") or d.document.metadata.get("state")
            role = "assignee" if _noun(d.document) == "issue" else "author"
            items.append(f"{d.document.title} ({role}{f', {status}' if status else ''}){cite}")
        more = f"; and {len(listed) - LIST_SHOWN} more" if len(listed) > LIST_SHOWN else ""
        verb = "is working on" if now else "worked on"
        return f"{person} {verb} {summary}; the newest first: " + "; ".join(items) + more + "."


def _mode(frame: Frame) -> str:
    """Which list the question asks for: "closed" (who closed what), "created" (what a person
    opened or reported), else "work" (a person's work)."""
    if frame.takes("closed_by"):
        return "closed"
    if not frame.takes("person_work") and frame.takes("created_by"):
        return "created"
    return "work"


def closed_by(ctx: Context, person: str) -> list[EvidenceDoc]:
    """The issues whose status ``person`` moved to Closed, Resolved or Done (the latest such move
    of each, newest first; ``relation`` says the status and the day)."""
    store = ctx.toolbox.graph_query.store
    issues = {
        d.id: d
        for d in store.find_documents({"people": [person]}, types=[SourceType.JIRA], limit=MOST)
        if ctx.scope.allows(d)
    }
    moved, recorded = moves_to_done(store, sorted(issues), person)
    unknown = sorted(
        (
            str(d.metadata.get("key") or d.title)
            for i, d in issues.items()
            if i not in recorded and is_resolved(d.metadata)
        ),
    )
    if unknown:  # closed, but no status history recorded: who closed them is not known
        n = len(unknown)
        ctx.outcome.unrecorded = (
            f"{n} more closed issue{'s' * (n != 1)} involving {person} {'has' if n == 1 else 'have'} no "
            f"recorded status history, so who closed {'it' if n == 1 else 'them'} is not known: "
            + ", ".join(unknown[:LIST_SHOWN])
            + (f" and {n - LIST_SHOWN} more" if n > LIST_SHOWN else "")
        )
    order = sorted(moved, key=lambda i: moved[i][0], reverse=True)
    return [
        EvidenceDoc(
            issues[i],
            (issues[i].title,),
            1.0 / (1 + n),
            GraphQuery.name,
            f"{moved[i][1]} on {moved[i][0][:10]}",
        )
        for n, i in enumerate(order)
    ]


def moves_to_done(
    store: GraphStore, issue_ids: Sequence[str], person: str
) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """Of ``issue_ids``: the ones whose status ``person`` moved to Closed, Resolved or Done (id →
    the day and the status of the latest such move), and the ones whose status history is recorded
    at all (of the others, who closed them is not known — not "nobody")."""
    moved: dict[str, tuple[str, str]] = {}
    recorded: set[str] = set()
    if issue_ids:
        # every change of these issues, newest first: the first move to done by the person counts
        for v in store.changes_between(
            "", "9999", types=[SourceType.JIRA], document_ids=list(issue_ids), limit=100_000
        ):
            if v.kind == "transition" and v.field.lower() == "status":
                recorded.add(v.document_id)
                if v.author == person and v.to_value.lower() in DONE_STATUSES:
                    moved.setdefault(v.document_id, (v.valid_from, v.to_value))
    return moved, recorded


def created_by(ctx: Context, person: str, logins: Sequence[str], noun: str) -> list[EvidenceDoc]:
    """The documents of the type ``noun`` names that ``person`` wrote (author, or one of their
    usual logins) or, for issues, reported; newest first."""
    kind = created_kind(noun)
    if kind == "issue":
        wanted, field, names = {"kind": ["issue"]}, "reporter", [person]
        if noun.lower() not in ("issues", "tickets"):  # "which bugs did Grace report?": that type
            wanted["issue_type"] = [issue_type(noun.lower())]
    else:
        wanted, field, names = ({"kind": [kind]} if kind != "page" else {}), "author", [person, *logins]
    docs = [
        d
        for d in ctx.toolbox.graph_query.store.find_documents({**wanted, field: names}, limit=MOST)
        if ctx.scope.allows(d) and _noun(d) == {"pull": "pull request"}.get(kind, kind)
    ]
    docs.sort(key=lambda d: d.updated_at, reverse=True)
    return [EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(docs)]


def _compose_created(
    person: str, frame: Frame, listed: Sequence[EvidenceDoc], docs: Sequence[EvidenceDoc], whose: str
) -> str:
    said = (frame.form("created_by") or {}).get("noun", "")
    kind = created_kind(said) if said else "issue"
    noun = {"pull": "pull request"}.get(kind, kind)
    if kind == "issue" and said and said.lower() not in ("issues", "tickets"):
        noun = issue_type(said.lower()).lower()  # "bugs" → bug
    verb = {"issue": "reported", "pull": "opened"}.get(kind, "wrote")
    n = len(listed)
    if not listed:
        return f"{person} {verb} no {noun} in the documents{whose}."
    numbers = {d.id: i for i, d in enumerate(docs, 1)}
    items = []
    for d in listed[:LIST_SHOWN]:
        status = d.document.metadata.get("status") or d.document.metadata.get("state")
        items.append(f"{d.document.title}{f' ({status})' if status else ''}{citation(d, numbers)}")
    more = f"; and {n - LIST_SHOWN} more" if n > LIST_SHOWN else ""
    return f"{person} {verb} {n} {noun}{'s' * (n != 1)}; the newest first: " + "; ".join(items) + more + "."


def _compose_closed(
    person: str, listed: Sequence[EvidenceDoc], docs: Sequence[EvidenceDoc], whose: str
) -> str:
    if not listed:
        return f"{person} moved no issue to Closed, Resolved or Done in the documents{whose}."
    numbers = {d.id: i for i, d in enumerate(docs, 1)}
    items = [f"{d.document.title} ({d.relation}){citation(d, numbers)}" for d in listed[:LIST_SHOWN]]
    more = f"; and {len(listed) - LIST_SHOWN} more" if len(listed) > LIST_SHOWN else ""
    n = len(listed)
    return (
        f"{person} closed {n} issue{'s' * (n != 1)} (moved to Closed, Resolved or Done); the newest first: "
        + "; ".join(items)
        + more
        + "."
    )


def people_named(ctx: Context, asked: str) -> list[str]:
    """The full names, among the people of the documents a search for ``asked`` finds, that hold
    every word of it (one: the person; two or more: ambiguous; none: nobody)."""
    words = name_words(asked)
    if not words:
        return []
    store = ctx.toolbox.graph_query.store
    seen: Counter[str] = Counter()
    for hit in store.keyword_search(asked, top_k=50):
        if not ctx.scope.allows(hit.document):
            continue
        meta = hit.document.metadata
        people = [meta.get(f) for f in _PEOPLE_FIELDS] + list(meta.get("people") or [])
        for p in people:
            if isinstance(p, str) and " " in p.strip() and set(words) <= set(name_words(p)):
                seen[p.strip()] += 1
    names = sorted(seen, key=lambda p: (-seen[p], p))
    # "Priya Raman" and "priya raman" are one person
    return list({tuple(name_words(n)): n for n in reversed(names)}.values())[::-1]


def _going_on(doc: Document) -> bool:
    kind = str(doc.metadata.get("kind") or "")
    if kind in ("issue", "gh-issue"):
        return not is_resolved(doc.metadata) and str(doc.metadata.get("state", "open")).lower() == "open"
    return kind == "pull" and str(doc.metadata.get("state", "")).lower() == "open"


def _noun(doc: Document) -> str:
    kind = str(doc.metadata.get("kind") or "")
    return {"pull": "pull request", "gh-issue": "issue", "": "page"}.get(kind, kind)
