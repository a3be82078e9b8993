"""Count: "how many issues are in WEB?", "how many open bugs does PAY have?", "which issues are
assigned to Marcus Chen?", "which issues have no assignee?", "which PRs are waiting for review?" — a question about every document that has some fields, not about one
document → ``GraphQuery`` on those fields over the reader's documents, answered with the exact
count and the newest of them listed (``LIST_SHOWN``), never a passage of one of them.

The fields come from the parse (a project, space or repository; a status, an issue type) and
"assigned to <Name>"; the documents counted are the wanted type's (issues unless the question
asks for commits, pull requests, pages or files). "Open" is the status Open, as everywhere else
in the lookups; the answer then also names the issues with the same fields that are unresolved in
another status ("In Progress", "To Do", …), which people often mean by open too, without counting
them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation, identifier
from devkb.agent.frame.model import Frame
from devkb.agent.history.when import today_local
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import reads_all
from devkb.agent.kinds.person_work import people_named
from devkb.agent.kinds.relation import is_resolved
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.store.models import Document, SourceType

STEP = Step(GraphQuery.name, "count: every document with the asked fields")
MOST = 20_000  # documents read to count; a larger count is given as "at least"
# The question's forms (agent/frame/phrases.py, ``FORMS``) this kind recognises itself from:
# "how_many" ("how many [open] [PAY] bugs", "the number of pull requests": the counted noun right
# after, so "how many story points" counts no stories), "listed" ("what PRs are open?", "list the
# open pull requests", "what are the open bugs in WEB?"), "recent" / "recent_one" ("the latest 5
# pull requests", "what is the most recent commit?"), "recently_updated", "newest_created",
# "newest_resolved", "oldest", "stale" ("issues not touched for 6 months", "stale bugs"),
# "closing" ("did we close", "were fixed": resolved in any way, where "how many issues are closed?"
# asks for the status Closed), "assigned" ("assigned to Marcus Chen", "Hannah's open issues"),
# "unassigned", "priority", "awaiting_review", "left", "fix_version", "created", "merged".
PULL_STATES = {"open": ("open",), "closed": ("closed", "merged"), "merged": ("merged",)}
STALE_DAYS = 180  # "stale" with no span: not updated in half a year
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "nine": 9,
    "twelve": 12,
}
_UNIT_DAYS = {"year": 365, "month": 30, "week": 7, "day": 1}
# a priority word → the priorities it means, in Jira Cloud's scheme (Highest … Lowest) and Data
# Center's (Blocker … Trivial)
PRIORITIES = {
    "highest": ["Highest", "Blocker"],
    "top": ["Highest", "Blocker"],
    "high": ["Highest", "High", "Blocker", "Critical"],
    "medium": ["Medium", "Major"],
    "normal": ["Medium", "Major"],
    "low": ["Low", "Lowest", "Minor", "Trivial"],
    "lowest": ["Lowest", "Trivial"],
}
_SCOPES = ("project", "space", "repository")
_FIELDS = ("status", "issue_type", "priority")
# the wanted type → (what find_documents filters on, the source, the noun)
WANTED: dict[str, tuple[dict[str, list[str]], SourceType, str]] = {
    "issue": ({"kind": ["issue"]}, SourceType.JIRA, "issue"),
    "commit": ({"kind": ["commit"]}, SourceType.GITHUB, "commit"),
    "pull": ({"kind": ["pull"]}, SourceType.GITHUB, "pull request"),
    "file": ({"kind": ["file"]}, SourceType.GITHUB, "file"),
    "page": ({}, SourceType.CONFLUENCE, "page"),
}


def assignee_named(frame: Frame) -> str | None:
    """ "… assigned to Marcus Chen?", "Hannah's open issues", "… that Marcus Chen is assigned
    to" → the name as said: the form's, else the frame's assignee (the kind honours it, so the
    answer applies every assignee the frame read and shows)."""
    form = frame.form("assigned")
    if form and form.get("name"):
        return form["name"]
    return next((p.said for p in frame.people if p.role == "assignee"), None)


def fix_version(frame: Frame) -> str | None:
    """ "what was fixed in 2026.6?", "the issues in the 2026.6 release" → "2026.6"."""
    form = frame.form("fix_version")
    return form["v"].lstrip("vV") if form and form.get("v") else None


class Count(QuestionKind):
    name = "count"
    honours = frozenset({"scope", "type", "state", "person:assignee"})
    needs_no_model = True  # a count from the graph: a model would count the 25 it is shown
    filters = False  # the list is exact: FilterDocs would reorder what the count describes

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        if parsed.relation is not None and parsed.relation.name != "subtask":  # "how many sub-tasks": a type
            # "how many blocker issues …": a priority, not what blocks what
            # "… not touched for a year" is how long it lay untouched, not who touched it
            if not frame.takes("priority", "stale"):
                return False
        kinds = set(parsed.lookups.kinds)
        if not kinds <= set(_SCOPES):  # a named commit, pull request, file or page is a lookup
            return False
        if frame.takes("how_many", "recent", "listed", "recent_one", "recently_updated"):
            return True
        if frame.takes("stale") and not frame.takes("list_asked"):
            return False  # "why has the page not been updated in a year?": a topic
        if frame.takes("newest_created", "newest_resolved", "oldest", "stale"):
            return parsed.wanted in (None, "issue", "pull", "page") and (
                not parsed.relation or frame.takes("stale")
            )
        if parsed.wanted == "pull":
            return frame.takes("awaiting_review")
        if parsed.wanted not in (None, "issue"):
            return False
        return frame.takes("assigned", "fix_version", "unassigned")

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        docs, wanted, base, filters, others = counted_documents(ctx)
        order = ordered_by(ctx.frame)
        if order != "updated":  # by when they were created or resolved, or the oldest first
            docs.sort(key=lambda d: _day(d, order), reverse=ORDERS[order][1])
        listed = [EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(docs)]
        ctx.outcome.unresolved_elsewhere = [EvidenceDoc(d, (d.title,)) for d in others]
        ctx.scope.add(listed[:LIST_SHOWN])
        ctx.scope.record(
            ToolCall(GraphQuery.name, {"fields": {**base, **filters}, "count": True}, len(listed))
        )
        ctx.outcome.listed = listed
        ctx.outcome.reads_all = reads_all()
        ctx.outcome.composed_kind = wanted
        ctx.took(STEP)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        assert out.frame is not None
        return (out.listed or [])[: min(most, named_at_most(out.frame))]

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        # the count is exact whatever part of the list is cited
        n = len(out.listed or [])
        return "answered", trust.exact_confidence(f"{n} counted in the graph", docs, "graph_list")

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        listed = out.listed or []
        noun = WANTED.get(out.composed_kind, WANTED["issue"])[2]
        n = len(listed)
        frame = out.frame
        assert frame is not None
        fields = asked_fields(out.parsed, frame)
        if out.anchor_words and "assignee" in fields:  # the name completed in run
            fields["assignee"] = [out.anchor_words]
        where = describe(fields)
        whose = "" if out.reads_all else " that you can read"
        counted = f"at least {n}" if n >= MOST else str(n)
        head = f"{counted} {noun}{'s' * (n != 1)}{where}{whose}"
        also = _unresolved_elsewhere(out.unresolved_elsewhere, noun)
        if not listed:
            return f"There are no {noun}s{where}{whose}.{also}"
        shown = named_at_most(frame)
        order = ordered_by(frame)
        if shown == 1 and ((frame.takes("recent_one") and not frame.takes("recent")) or order != "updated"):
            first = listed[0]
            status = first.document.metadata.get("status") or first.document.metadata.get("state")
            day = _day(first.document, order)[:10]
            of = f" of the {counted} {noun}s{where}{whose}" if n > 1 else f" {noun}{where}{whose}"
            _, _, _, which, label = ORDERS[order]
            return (
                f"The {which}{of} is {first.document.title}"
                f"{f' ({status}' if status else ' ('}{', ' if status else ''}{label} {day}){citation(first, numbers)}.{also}"
            )
        items = []
        for d in listed[:shown]:
            cite = citation(d, numbers)
            status = d.document.metadata.get("status")
            facts = [str(status)] if status else []
            if order != "updated":
                facts.append(f"{ORDERS[order][4]} {_day(d.document, order)[:10]}")
            said = f" ({', '.join(facts)})" if facts else ""
            items.append(f"{d.document.title}{said}{cite}")
        more = f"; and {n - shown} more" if n > shown else ""
        newest = ORDERS[order][2] if n > 1 else "it is"
        return f"There {'is' if n == 1 else 'are'} {head}; {newest}: " + "; ".join(items) + more + "." + also


def counted_documents(
    ctx: Context, wanted: str | None = None
) -> tuple[list[Document], str, dict[str, list[str]], dict[str, list[str]], list[Document]]:
    """The reader's documents with the question's fields, newest first: (them, the wanted type, the
    base filter, the store's filters, and for the status Open the issues with the same fields
    unresolved in another status). What the count kind counts, and the ranking kind ranks (which
    names the type: a "who" question's wanted is a person)."""
    parsed, scope = ctx.parsed, ctx.scope
    wanted = wanted or (parsed.wanted if parsed.wanted in WANTED else "issue")
    base, source, _noun = WANTED[wanted]
    filters = asked_fields(parsed, ctx.frame)
    if "assignee" in filters:  # "assigned to Hannah": the one person of that name, in full
        named = people_named(ctx, filters["assignee"][0])
        if len(named) == 1:
            filters["assignee"] = named
            ctx.outcome.anchor_words = named[0]
    # read off the documents below: a pull request's state and approval, closed as something
    # done, the first and last day created, nobody assigned, still unresolved
    states = filters.pop("state", [])
    unapproved = bool(filters.pop("unapproved", []))
    closed = bool(filters.pop("resolved", []))
    created = filters.pop("created", [])
    merged = filters.pop("merged", [])
    stale = filters.pop("stale", [])
    unassigned = bool(filters.pop("unassigned", []))
    unresolved = bool(filters.pop("unresolved", []))

    def read_off(d: Document) -> bool:
        m = d.metadata
        return (
            (not states or str(m.get("state", "")).lower() in states)
            and (not unapproved or not m.get("approved_by"))
            and (not closed or is_resolved(m))
            and (not created or created[0] <= str(m.get("created", ""))[:10] <= created[1])
            and (not merged or merged[0] <= str(m.get("merged", ""))[:10] <= merged[1])
            and (not stale or d.updated_at[:10] < stale[0])
            and (not unassigned or not m.get("assignee"))
            and (not unresolved or not is_resolved(m))
        )

    if any(f in filters for f in _FIELDS) or "project" in filters or unassigned:
        base, source = WANTED["issue"][0], SourceType.JIRA  # only issues have them
    store = ctx.toolbox.graph_query.store
    docs: list[Document] = []
    if scope.allows_type(source):  # else the question's source filter leaves it out: nothing to count
        docs = [
            d
            for d in store.find_documents({**base, **filters}, types=[source], limit=MOST)
            if scope.allows(d) and read_off(d)
        ]
    docs.sort(key=lambda d: d.updated_at, reverse=True)
    others: list[Document] = []
    if filters.get("status") == ["Open"] and source == SourceType.JIRA and scope.allows_type(source):
        rest = {k: v for k, v in filters.items() if k != "status"}
        others = [
            d
            for d in store.find_documents({**base, **rest}, types=[source], limit=MOST)
            if scope.allows(d)
            and d.metadata.get("status") != "Open"
            and not is_resolved(d.metadata)
            and read_off(d)
        ]
        others.sort(key=lambda d: d.updated_at, reverse=True)
    return docs, wanted, base, filters, others


def _unresolved_elsewhere(docs: Sequence[EvidenceDoc], noun: str, most: int = 5) -> str:
    """ " Not counted: 1 more issue is unresolved in another status: WEB-6 (In Progress)." """
    if not docs:
        return ""
    n = len(docs)
    names = [f"{identifier(d)} ({d.document.metadata.get('status')})" for d in docs[:most]]
    more = f" and {n - most} more" if n > most else ""
    verb = "is" if n == 1 else "are"
    return f" Not counted: {n} more {noun}{'s' * (n != 1)} {verb} unresolved in another status: {', '.join(names)}{more}."


# an order → (the date it reads, newest first?, how a list says it, how one says it, the date's label)
ORDERS: dict[str, tuple[str, bool, str, str, str]] = {
    "updated": ("updated", True, "the newest first", "newest", "updated"),
    "created": ("created", True, "the last created first", "last created", "created"),
    "resolved": ("resolved", True, "the last resolved first", "last resolved", "resolved"),
    "oldest": ("created", False, "the oldest first", "oldest", "created"),
    "stale": ("updated", False, "the longest untouched first", "longest untouched", "last updated"),
}


def ordered_by(frame: Frame) -> str:
    """The order the question asks for (``ORDERS``): the newest by when created ("the last issue
    created") or resolved ("the issues closed most recently"), the oldest ("the oldest open bug"),
    the longest untouched ("issues not updated in a year"), else the newest by the last update."""
    for form, order in (
        ("stale", "stale"),
        ("oldest", "oldest"),
        ("newest_resolved", "resolved"),
        ("newest_created", "created"),
    ):
        if frame.takes(form):
            return order
    return "updated"


def stale_since(frame: Frame, today: date) -> str | None:
    """The day before which a "not updated in a year" / "stale" document was last updated."""
    form = frame.form("stale")
    if form is None:
        return None
    if form.get("stale"):
        days = STALE_DAYS
    else:
        n = form.get("n")
        count = int(n) if n and n.isdigit() else _NUMBERS.get((n or "a").lower(), 1)
        days = count * _UNIT_DAYS[form.get("unit", "day").lower().rstrip("s")]
    return (today - timedelta(days=days)).isoformat()


def _day(doc: Document, order: str) -> str:
    """The document's date for ``order`` (ISO; its last update where it has none)."""
    m = doc.metadata
    field = ORDERS[order][0]
    if field == "created":
        return str(m.get("created") or doc.updated_at)
    if field == "resolved":
        return str(m.get("resolved") or m.get("merged") or doc.updated_at)
    return doc.updated_at


def named_at_most(frame: Frame) -> int:
    """How many of the list the answer names: N of "the latest N …", one for "the latest commit"
    (the forms "recent_one", "one_newest"), else ``LIST_SHOWN``."""
    if frame.takes("recent_one") and not frame.takes("recent"):
        return 1
    if ordered_by(frame) != "updated" and frame.takes("one_newest"):
        return 1
    n = (frame.form("recent") or {}).get("n", "")
    return min(int(n), LIST_SHOWN) if n.isdigit() else LIST_SHOWN


def asked_fields(parsed: ParsedQuestion, frame: Frame) -> dict[str, list[str]]:
    """The store's fields for the question's conditions: its scopes and issue fields (from the
    parse's lookups and the frame), an assignee, a fix version, a period, and what is read off the
    documents (resolved, unresolved, stale, unassigned, a pull request's state)."""
    out: dict[str, list[str]] = {}
    for lookup in parsed.lookups.lookups:
        for name, values in lookup.filters.items():
            if name in _SCOPES or name in _FIELDS:
                out.setdefault(name, []).extend(v for v in values if v not in out.get(name, []))
    if not any(scope in out for scope in _SCOPES) and parsed.wanted in (None, "issue"):
        # "how many issues are in NOPE?": a project key the reader has no issue of is still the
        # scope (nothing counted, in the words a hidden project gets), not the whole tracker
        key = (frame.form("in_key") or {}).get("key")
        if key:
            out["project"] = [key]
    if "status" not in out and frame.state_words:  # a status without a project ("open bugs assigned to …")
        out["status"] = list(frame.state_words)
    if frame.category == "unresolved" and not frame.statuses:
        # "which bugs are still open?": unresolved in any status (In Progress too), not the status Open
        out.pop("status", None)
        out["unresolved"] = ["yes"]
    if "issue_type" not in out and frame.issue_types:
        out["issue_type"] = list(frame.issue_types)
    if parsed.wanted in (None, "issue") and frame.takes("closing", "newest_resolved"):
        # "did we close", "were fixed": resolved in any way, not the status the verb's word names
        out.pop("status", None)
        out["resolved"] = ["yes"]
    version = fix_version(frame)
    if "fix_version" not in out and version:
        if frame.takes("left") and "status" not in out:  # "how many issues are left for 5.0?"
            out["unresolved"] = ["yes"]
        short = version.count(".") >= 2 and version.endswith(".0")  # "2026.6.0" is also "2026.6"
        out["fix_version"] = [version] + ([version.removesuffix(".0")] if short else [])
    if parsed.time_from and parsed.time_to and parsed.wanted == "pull" and frame.takes("merged"):
        out["merged"] = [parsed.time_from[:10], parsed.time_to[:10]]  # "how many PRs were merged in 2023?"
    elif parsed.time_from and parsed.time_to and frame.takes("created"):
        out["created"] = [parsed.time_from[:10], parsed.time_to[:10]]
    if (cutoff := stale_since(frame, today_local())) is not None:
        out["stale"] = [cutoff]
    priority = (frame.form("priority") or {}).get("p")
    if "priority" not in out and priority:
        word = priority.lower().removesuffix("s")
        out["priority"] = PRIORITIES.get(word, [word.title()])
    if "stale" in out and parsed.wanted in (None, "issue") and "status" not in out and "resolved" not in out:
        out["unresolved"] = ["yes"]  # "which issues are stale?": the ones still to do
    if parsed.wanted in (None, "issue") and frame.takes("unassigned"):
        out["unassigned"] = ["yes"]
        if "status" not in out and "resolved" not in out:
            out["unresolved"] = ["yes"]
    else:
        person = assignee_named(frame)
        if person:
            out["assignee"] = [person]
    if parsed.wanted == "pull":  # a pull request has a state (open, closed, merged), not a status
        out.pop("status", None)
        out.pop("issue_type", None)
        said = [w for w in parsed.words if w in PULL_STATES]
        states = [s for w in dict.fromkeys(said) for s in PULL_STATES[w]]
        if frame.takes("awaiting_review"):  # waiting for a review: still open, nobody approved
            states, out["unapproved"] = ["open"], ["yes"]
        if states:
            out["state"] = list(dict.fromkeys(states))
    return out


def describe(fields: dict[str, list[str]]) -> str:
    """ " in WEB, status Open, type Bug, assigned to Marcus Chen" (empty with no fields)."""
    parts = []
    for scope in _SCOPES:
        if scope in fields:
            parts.append(f" in {', '.join(fields[scope])}")
    named = {
        "status": "status",
        "issue_type": "type",
        "priority": "priority",
        "fix_version": "fix version",
        "state": "state",
    }
    extra = [
        f"{named[f]} {' or '.join(fields[f])}" for f in (*_FIELDS, "fix_version", "state") if f in fields
    ]
    if "created" in fields:
        extra.append(f"created {fields['created'][0]} to {fields['created'][1]}")
    if "merged" in fields:
        extra.append(f"merged {fields['merged'][0]} to {fields['merged'][1]}")
    if "stale" in fields:
        extra.append(f"not updated since {fields['stale'][0]}")
    if "resolved" in fields:
        extra.append("closed or resolved")
    if "unresolved" in fields:
        extra.append("unresolved")
    if "unassigned" in fields:
        extra.append("nobody assigned")
    if "unapproved" in fields:
        extra.append("not approved by anyone")
    if "assignee" in fields:
        extra.append(f"assigned to {fields['assignee'][0]}")
    return "".join(parts) + (" (" + ", ".join(extra) + ")" if extra else "")
