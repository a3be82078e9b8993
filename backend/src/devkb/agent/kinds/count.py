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

import re
from collections.abc import Sequence
from datetime import date, timedelta

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation, identifier
from devkb.agent.history.when import today_local
from devkb.agent.identifiers import ISSUE_TYPE, ISSUE_TYPE_WORDS, STATUS, issue_type
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import reads_all
from devkb.agent.kinds.person_work import people_named
from devkb.agent.kinds.relation import is_resolved
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.store.models import Document, SourceType

STEP = Step(GraphQuery.name, "count: every document with the asked fields")
MOST = 20_000  # documents read to count; a larger count is given as "at least"
# "how many [open] [PAY] bugs", "the number of pull requests": the counted noun right after — an
# issue type the lookups know (agent/identifiers.py: bugs, new features, sub-tasks, …) or a kind
# plural only: "how many story points" counts no stories
_TYPES = "|".join(w.removesuffix("?") for w in ISSUE_TYPE_WORDS.split("|") if w.endswith(("?", "ies")))
_COUNTED = (
    r"(?:(?:open|closed|resolved|reopened|in\s+progress|[A-Z][A-Z0-9]{1,9})\s+)*"
    rf"(?:issues|tickets|{_TYPES}|commits|pull\s+requests|prs|pages|files)\b"
)
# "the open bugs", "the PAY issues": at least one status or project before the noun (what makes
# "what are the open bugs in WEB?" a list, and "what are the issues with the checkout?" a topic)
_QUALIFIED = (
    r"(?:(?:open|closed|resolved|reopened|in\s+progress|[A-Z][A-Z0-9]{1,9})\s+)+"
    rf"(?:issues|tickets|{_TYPES}|commits|pull\s+requests|prs|pages|files)\b"
)
# closing as something done: "how many bugs did we close in WEB?", "which issues were fixed in
# PAY?" — every resolved issue (a resolution, or the status Closed, Resolved or Done), where "how
# many issues are closed?" asks for the status Closed
_CLOSE_VERB = r"(?:close|fix|resolve|finish|complete|ship)"
_CLOSED_WORD = r"(?:closed|fixed|resolved|finished|completed|done|shipped)"
# who closed them: "we", "they", "the team", "the web team" — a person ("did Priya close") is not
# read as all closing (who moved an issue to Done is in its history, not a field)
_CLOSERS = r"(?:we|they|you|i|(?:the\s+)?(?:\w+\s+)?team)"
CLOSING = re.compile(
    rf"\b(?:did\s+{_CLOSERS}\s+{_CLOSE_VERB}|(?:were|was|got|have\s+been|has\s+been)\s+{_CLOSED_WORD})\b",
    re.IGNORECASE,
)
HOW_MANY = re.compile(rf"\b(?:how\s+many|(?:the\s+)?(?:number|count)\s+of)\s+{_COUNTED}", re.IGNORECASE)
# "what PRs are open?", "which bugs are still open", "list the open pull requests", "what are the
# open bugs in WEB?", "what open PRs are there?": every one, listed
LISTED = re.compile(
    rf"\b(?:(?:what|which)\s+{_COUNTED}\s+(?:are|were|is)\s+(?:still\s+)?"
    r"(?:open|closed|merged|resolved|reopened|in\s+progress)\b|"
    rf"\b(?:list|show)(?:\s+me)?(?:\s+all)?(?:\s+the)?\s+{_COUNTED}|"
    rf"\b(?:what|which)\s+are\s+(?:all\s+)?the\s+{_QUALIFIED}|"
    rf"\b(?:what|which)\s+{_QUALIFIED}\s+(?:are\s+there|do\s+(?:we|you|i)\s+have)\b|"
    rf"\b(?:what|which)\s+{_COUNTED}\s+(?:did\s+{_CLOSERS}\s+{_CLOSE_VERB}|"
    rf"(?:were|got|have\s+been)\s+{_CLOSED_WORD})\b)",
    re.IGNORECASE,
)
_IN_KEY = re.compile(r"\b(?:in|of|for)\s+([A-Z][A-Z0-9]{1,9})\b(?!-\d)")
PULL_STATES = {"open": ("open",), "closed": ("closed", "merged"), "merged": ("merged",)}
# "show me recent commits", "the latest 5 pull requests", "last 3 PAY bugs": the newest, listed
RECENT = re.compile(
    rf"\b(?:recent|latest|newest|most\s+recent|last)\s+(?:(\d{{1,2}})\s+)?{_COUNTED}", re.IGNORECASE
)
# "what is the most recent commit?", "the latest issue in PAY?": the newest one, the question
# ending there (so "the last issue Marcus worked on" is not every issue's newest)
RECENT_ONE = re.compile(
    r"\b(?:most\s+recent|latest|newest|last)\s+(?:(?:open|closed|merged|[A-Z][A-Z0-9]{1,9})\s+)*"
    r"(?:commit|pull\s+request|pr|issue|bug|ticket|page|file)(?:\s+(?:in|of|for|on)\s+[\w.-]+)?\s*[?.!]?\s*$",
    re.IGNORECASE,
)
# "which issues were updated most recently?", "the most recently edited pages", "what pages were
# changed recently": the newest by their last update, listed
RECENTLY_UPDATED = re.compile(
    rf"\b(?:what|which)\s+{_COUNTED}\s+(?:were|was|have\s+been|has\s+been|got)\s+"
    r"(?:updated|edited|changed|modified|touched)\s+(?:most\s+)?(?:recently|lately|last)\b|"
    rf"\b(?:most\s+)?recently\s+(?:updated|edited|changed|modified|touched)\s+{_COUNTED}",
    re.IGNORECASE,
)
# "what was the last issue created in FLUID?", "the newest bugs reported in PAY", "which issues
# were opened most recently?": the newest by when they were created, not by their last update
_ONE_OR_MORE = r"(?:issues?|bugs?|tickets?|tasks?|stor(?:y|ies)|pull\s+requests?|prs?|pages?)"
_SCOPED = _ONE_OR_MORE + r"(?:\s+(?:in|of|for|on)\s+(?:the\s+)?[\w.-]+(?:\s+project)?)?"  # "issues in FLUID"
NEWEST_CREATED = re.compile(
    rf"\b(?:most\s+recent(?:ly)?|latest|newest|last)\s+(?:(?:\d{{1,2}}|open|closed|[A-Z][A-Z0-9]{{1,9}})\s+)*"
    rf"{_ONE_OR_MORE}\s+(?:to\s+be\s+|that\s+(?:was|were)\s+|(?:we|they|someone)\s+)?"
    r"(?:created|opened|filed|reported|raised|logged|submitted)\b|"
    rf"\b{_SCOPED}\s+(?:were|was|have\s+been|has\s+been|got)\s+(?:created|opened|filed|reported|raised|logged)"
    r"\s+(?:most\s+)?recently\b|\b(?:most\s+)?recently\s+(?:created|opened|filed|reported|raised)\s+"
    + _ONE_OR_MORE,
    re.IGNORECASE,
)
# "which issues were recently closed in FLUID?", "the last bugs we fixed", "the most recently
# resolved issues": resolved ones, the newest by their resolution date
NEWEST_RESOLVED = re.compile(
    rf"\b{_SCOPED}\s+(?:were|was|have\s+been|has\s+been|got)\s+(?:most\s+)?(?:recently|just|lately|last)\s+"
    r"(?:closed|resolved|fixed|finished|completed|done)\b|"
    rf"\b{_SCOPED}\s+(?:were|was|have\s+been|has\s+been|got)\s+(?:closed|resolved|fixed|finished|completed)\s+"
    r"(?:most\s+)?(?:recently|lately|last)\b|"
    r"\b(?:most\s+)?recently\s+(?:closed|resolved|fixed|finished|completed)\s+" + _ONE_OR_MORE + r"|"
    rf"\b(?:last|latest|newest|most\s+recent)\s+(?:\d{{1,2}}\s+)?{_ONE_OR_MORE}\s+(?:that\s+)?(?:we|they|you|the\s+team)?\s*"
    r"(?:closed|resolved|fixed|finished|completed)\b",
    re.IGNORECASE,
)
# "what is the oldest open bug in FLUID?", "the first issues filed in KETTLE", "the earliest open
# tickets": the oldest by when they were created
OLDEST = re.compile(
    r"\b(?:oldest|earliest)\s+(?:(?:\d{1,2}|open|unresolved|closed|[A-Z][A-Z0-9]{1,9})\s+)*"
    r"(?:issues?|bugs?|tickets?|tasks?|stor(?:y|ies)|pull\s+requests?|prs?|pages?)\b|"
    r"\bfirst\s+(?:\d{1,2}\s+)?(?:issues?|bugs?|tickets?|tasks?|pull\s+requests?|prs?|pages?)\s+"
    r"(?:(?:ever\s+)?(?:created|opened|filed|reported|raised|logged))\b",
    re.IGNORECASE,
)
# "which open issues haven't been updated in a year?", "issues not touched for 6 months", "stale
# bugs in PAY": not updated since then, the longest untouched first
_AMOUNT = r"(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|nine|twelve)"
STALE = re.compile(
    r"(?:\bnot|n['’]t|\bnever)\s+(?:been\s+)?(?:updated|touched|changed|modified|edited|moved)\s+"
    rf"(?:in|for|since|over)\s+(?:(?:the\s+)?(?:last|past)\s+|more\s+than\s+|over\s+)?{_AMOUNT}?\s*"
    r"(?P<unit>years?|months?|weeks?|days?)\b|"
    # "stale bugs", "which issues are stale?" — about work items, not "stale branches" or "abandoned carts"
    r"\b(?P<stale>stale|untouched|abandoned|dormant)\s+(?:open\s+)?"
    r"(?:issues?|bugs?|tickets?|tasks?|stor(?:y|ies)|pull\s+requests?|prs?|pages?)\b|"
    r"\b(?:issues?|bugs?|tickets?|tasks?|stor(?:y|ies)|pull\s+requests?|prs?|pages?)\s+"
    r"(?:\w+\s+){0,3}?(?:is|are|look|looks|seem|seems|have\s+gone|went)\s+(?P<stale2>stale|untouched|abandoned|dormant)\b",
    re.IGNORECASE,
)
# a question that asks for documents, not about a topic: "which …", "what …", "list …", "how many …"
LIST_ASKED = re.compile(
    r"^\s*(?:which|what|list|show|how\s+many|are\s+there|find|give|any|stale|untouched|abandoned|dormant)\b",
    re.IGNORECASE,
)
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
ASSIGNED = re.compile(
    r"\bassigned\s+to\s+((?:[A-Z][\w'’.-]*)(?:\s+[A-Z][\w'’.-]*){0,3})"
    # "Hannah's open issues", "show me Marcus Chen's bugs": theirs, as the assignee
    r"|\b([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})[’']s\s+(?:(?i:open|closed|resolved|in\s+progress)\s+)?"
    r"(?i:issues|bugs|tickets|tasks)\b"
)
# "the high priority bugs", "priority Critical", "critical issues", "blockers": the priorities a
# word stands for, in Jira Cloud's scheme (Highest … Lowest) and Data Center's (Blocker … Trivial)
PRIORITY = re.compile(
    r"\b(highest|high|medium|normal|low|lowest|top)[\s-]+priority\b|"
    r"\bpriority\s+(highest|high|medium|low|lowest|blocker|critical|major|minor|trivial)\b|"
    r"\b(blocker|critical)\s+(?:bugs|issues|tickets|tasks)\b|\b(blocker)s\b",
    re.IGNORECASE,
)
PRIORITIES = {
    "highest": ["Highest", "Blocker"],
    "top": ["Highest", "Blocker"],
    "high": ["Highest", "High", "Blocker", "Critical"],
    "medium": ["Medium", "Major"],
    "normal": ["Medium", "Major"],
    "low": ["Low", "Lowest", "Minor", "Trivial"],
    "lowest": ["Lowest", "Trivial"],
}
# "which issues have no assignee?", "what's unassigned in WEB?": nobody assigned (and, unless a
# status or closing is asked, still unresolved: work nobody owns, not the tracker's history)
UNASSIGNED = re.compile(
    r"\b(?:unassigned|not\s+(?:yet\s+)?assigned(?:\s+to\s+any(?:one|body))?|(?:have|has|with)\s+no\s+assignee|"
    r"without\s+(?:an?\s+)?assignee|no\s*(?:one|body)\s+(?:is\s+)?assigned|"
    # "assigned to no one", not "assigned to Nobody Here": a name starts with a capital letter
    r"assigned\s+to\s+(?-i:no\s*(?:one|body)))\b",
    re.IGNORECASE,
)
# "which pull requests are waiting for review?", "PRs that need a review", "unapproved PRs": open
# and not approved by anyone (a pull request's reviews: its ``approved_by``)
AWAITING_REVIEW = re.compile(
    r"\b(?:(?:waiting|wait|waits|pending)\s+(?:for\s+|on\s+)?(?:an?\s+)?(?:review|approval)|awaiting\s+(?:review|approval)|"
    r"needs?\s+(?:an?\s+)?(?:review|approval)|(?:up|ready)\s+for\s+review|not\s+(?:yet\s+)?(?:been\s+)?(?:reviewed|approved)|"
    r"unreviewed|unapproved|without\s+(?:an?\s+)?(?:review|approval))\b",
    re.IGNORECASE,
)
# what is still to do in a version: "how many issues are left for 5.0?", "what's remaining in 2026.12?"
LEFT = re.compile(
    r"\b(?:left|remaining|outstanding|pending|unresolved|still\s+to\s+do|to\s+go)\b", re.IGNORECASE
)
# "what did we ship in 2026.6?", "which issues are in release 2026.6.0?", "what was fixed in
# FLUID 4.7?", "what went into 2026.10?", "what's new in 4.8.0?", "the issues in the 2026.6
# release": the fix version (a project's key or name may stand before it)
_IN_VERSION = (
    r"(?:(?:ship(?:ped|s)?|fixed|resolved|closed|done|released|landed|included|delivered|went|goes|going|"
    r"planned|scheduled|targeted|slated|open|left|remaining|outstanding|pending|unresolved)\s+(?:in(?:to)?|for)|new\s+in|"
    r"(?:in|for|of|from|into)\s+(?:the\s+)?(?:release|version)|fix\s+version)"
)
FIX_VERSION = re.compile(
    rf"\b{_IN_VERSION}\s+(?:(?:the\s+)?(?!release\b|version\b)[A-Za-z][\w-]{{1,20}}\s+)?"
    r"(?:(?:release|version)\s+)?v?(\d+(?:\.\d+){1,3})\b(?!\s*(?:%|percent|days?|hours?|minutes?|weeks?|ms|seconds?))"
    r"|\b(?:in|for|of|into)\s+(?:the\s+)?(?:[A-Za-z][\w-]{1,20}\s+)?v?(\d+(?:\.\d+){1,3})\s+release\b",
    re.IGNORECASE,
)
# "how many bugs were reported this year?": created in the question's period
CREATED = re.compile(r"\b(?:reported|created|opened|filed|raised|logged)\b", re.IGNORECASE)
# "how many pull requests were merged in 2023?": merged in the question's period
MERGED = re.compile(r"\bmerged\b", re.IGNORECASE)
_SCOPES = ("project", "space", "repository")
_FIELDS = ("status", "issue_type", "priority")
# the wanted type → (what find_documents filters on, the source, the noun)
_WANTED: dict[str, tuple[dict[str, list[str]], SourceType, str]] = {
    "issue": ({"kind": ["issue"]}, SourceType.JIRA, "issue"),
    "commit": ({"kind": ["commit"]}, SourceType.GITHUB, "commit"),
    "pull": ({"kind": ["pull"]}, SourceType.GITHUB, "pull request"),
    "file": ({"kind": ["file"]}, SourceType.GITHUB, "file"),
    "page": ({}, SourceType.CONFLUENCE, "page"),
}


def assignee_named(text: str) -> str | None:
    """ "… assigned to Marcus Chen?" → "Marcus Chen"."""
    m = ASSIGNED.search(text)
    return next(g for g in m.groups() if g).strip(" .?!") if m else None


class Count(QuestionKind):
    name = "count"
    honours = frozenset({"scope", "type", "state", "person:assignee"})
    needs_no_model = True  # a count from the graph: a model would count the 25 it is shown
    filters = False  # the list is exact: FilterDocs would reorder what the count describes

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        if parsed.relation is not None and parsed.relation.name != "subtask":  # "how many sub-tasks": a type
            # "how many blocker issues …": a priority, not what blocks what
            # "… not touched for a year" is how long it lay untouched, not who touched it
            if not PRIORITY.search(parsed.text) and not STALE.search(parsed.text):
                return False
        kinds = set(parsed.lookups.kinds)
        if not kinds <= set(_SCOPES):  # a named commit, pull request, file or page is a lookup
            return False
        if HOW_MANY.search(parsed.text) or RECENT.search(parsed.text) or LISTED.search(parsed.text):
            return True
        if RECENT_ONE.search(parsed.text) or RECENTLY_UPDATED.search(parsed.text):
            return True
        if STALE.search(parsed.text) and not LIST_ASKED.search(parsed.text):
            return False  # "why has the page not been updated in a year?": a topic
        if any(p.search(parsed.text) for p in (NEWEST_CREATED, NEWEST_RESOLVED, OLDEST, STALE)):
            return parsed.wanted in (None, "issue", "pull", "page") and (
                not parsed.relation or STALE.search(parsed.text) is not None
            )
        if parsed.wanted == "pull":
            return AWAITING_REVIEW.search(parsed.text) is not None
        if parsed.wanted not in (None, "issue"):
            return False
        return (
            assignee_named(parsed.text) is not None
            or FIX_VERSION.search(parsed.text) is not None
            or UNASSIGNED.search(parsed.text) is not None
        )

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        docs, wanted, base, filters, others = counted_documents(ctx)
        order = ordered_by(ctx.parsed.text)
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
        return (out.listed or [])[: min(most, named_at_most(out.parsed))]

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        # the count is exact whatever part of the list is cited
        n = len(out.listed or [])
        return "answered", trust.exact_confidence(f"{n} counted in the graph", docs, "graph_list")

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        listed = out.listed or []
        noun = _WANTED.get(out.composed_kind, _WANTED["issue"])[2]
        n = len(listed)
        fields = asked_fields(out.parsed)
        if out.anchor_words and "assignee" in fields:  # the name completed in run
            fields["assignee"] = [out.anchor_words]
        where = describe(fields)
        whose = "" if out.reads_all else " that you can read"
        counted = f"at least {n}" if n >= MOST else str(n)
        head = f"{counted} {noun}{'s' * (n != 1)}{where}{whose}"
        also = _unresolved_elsewhere(out.unresolved_elsewhere, noun)
        if not listed:
            return f"There are no {noun}s{where}{whose}.{also}"
        shown = named_at_most(out.parsed)
        order = ordered_by(out.parsed.text)
        if shown == 1 and (
            (RECENT_ONE.search(out.parsed.text) and not RECENT.search(out.parsed.text)) or order != "updated"
        ):
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
    wanted = wanted or (parsed.wanted if parsed.wanted in _WANTED else "issue")
    base, source, _noun = _WANTED[wanted]
    filters = asked_fields(parsed)
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
        base, source = _WANTED["issue"][0], SourceType.JIRA  # only issues have them
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


def ordered_by(text: str) -> str:
    """The order the question asks for (``ORDERS``): the newest by when created ("the last issue
    created") or resolved ("the issues closed most recently"), the oldest ("the oldest open bug"),
    the longest untouched ("issues not updated in a year"), else the newest by the last update."""
    if STALE.search(text):
        return "stale"
    if OLDEST.search(text):
        return "oldest"
    if NEWEST_RESOLVED.search(text):
        return "resolved"
    if NEWEST_CREATED.search(text):
        return "created"
    return "updated"


def stale_since(text: str, today: date) -> str | None:
    """The day before which a "not updated in a year" / "stale" document was last updated."""
    m = STALE.search(text)
    if not m:
        return None
    if m.group("stale") or m.group("stale2"):
        days = STALE_DAYS
    else:
        n = m.group("n")
        count = int(n) if n and n.isdigit() else _NUMBERS.get((n or "a").lower(), 1)
        days = count * _UNIT_DAYS[m.group("unit").lower().rstrip("s")]
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


# "the last issue created in FLUID", "the most recently closed bug": one, where the order is asked
_ONE_NEWEST = re.compile(
    r"\b(?:most\s+recent(?:ly)?|latest|newest|last|oldest|earliest)\s+(?:(?:open|unresolved|closed|[A-Z][A-Z0-9]{1,9})\s+)*"
    r"(?:issue|bug|ticket|task|story|pull\s+request|pr|page)\b(?!s)|"
    r"\b(?:most\s+)?recently\s+(?:created|opened|filed|reported|raised|closed|resolved|fixed)\s+"
    r"(?:issue|bug|ticket|task|story|pull\s+request|pr|page)\b(?!s)|"
    r"^\s*(?:what|which)\s+(?:[A-Z][A-Z0-9]{1,9}\s+)?(?:issue|bug|ticket|task|story|pull\s+request|pr|page)"
    r"(?:\s+(?:in|of|for)\s+[\w.-]+)?\s+(?:was|got)\b",
    re.IGNORECASE,
)


def named_at_most(parsed: ParsedQuestion) -> int:
    """How many of the list the answer names: N of "the latest N …", one for "the latest commit",
    else ``LIST_SHOWN``."""
    if RECENT_ONE.search(parsed.text) and not RECENT.search(parsed.text):
        return 1
    if ordered_by(parsed.text) != "updated" and _ONE_NEWEST.search(parsed.text):
        return 1
    recent = RECENT.search(parsed.text)
    return min(int(recent.group(1)), LIST_SHOWN) if recent and recent.group(1) else LIST_SHOWN


def asked_fields(parsed: ParsedQuestion) -> dict[str, list[str]]:
    """The fields the question counts by: its scopes and issue fields, and an assignee."""
    out: dict[str, list[str]] = {}
    for lookup in parsed.lookups.lookups:
        for name, values in lookup.filters.items():
            if name in _SCOPES or name in _FIELDS:
                out.setdefault(name, []).extend(v for v in values if v not in out.get(name, []))
    if not any(scope in out for scope in _SCOPES) and parsed.wanted in (None, "issue"):
        # "how many issues are in NOPE?": a project key the reader has no issue of is still the
        # scope (nothing counted, in the words a hidden project gets), not the whole tracker
        m = _IN_KEY.search(parsed.text)
        if m:
            out["project"] = [m.group(1)]
    if "status" not in out:  # a status or type without a project ("open bugs assigned to …")
        statuses = [m.title() for m in dict.fromkeys(m.lower() for m in STATUS.findall(parsed.text))]
        if statuses:
            out["status"] = statuses
    if "issue_type" not in out:
        types = [issue_type(m) for m in dict.fromkeys(m.lower() for m in ISSUE_TYPE.findall(parsed.text))]
        if types:
            out["issue_type"] = list(dict.fromkeys(types))
    if parsed.wanted in (None, "issue") and (
        CLOSING.search(parsed.text) or NEWEST_RESOLVED.search(parsed.text)
    ):
        # "did we close", "were fixed": resolved in any way, not the status the verb's word names
        out.pop("status", None)
        out["resolved"] = ["yes"]
    if "fix_version" not in out and (m := FIX_VERSION.search(parsed.text)):
        if LEFT.search(parsed.text) and "status" not in out:  # "how many issues are left for 5.0?"
            out["unresolved"] = ["yes"]
        version = next(g for g in m.groups() if g)  # "2026.6.0" is also "2026.6" (but "2.0" is not "2")
        short = version.count(".") >= 2 and version.endswith(".0")
        out["fix_version"] = [version] + ([version.removesuffix(".0")] if short else [])
    if parsed.time_from and parsed.time_to and parsed.wanted == "pull" and MERGED.search(parsed.text):
        out["merged"] = [parsed.time_from[:10], parsed.time_to[:10]]  # "how many PRs were merged in 2023?"
    elif parsed.time_from and parsed.time_to and CREATED.search(parsed.text):
        out["created"] = [parsed.time_from[:10], parsed.time_to[:10]]
    if (cutoff := stale_since(parsed.text, today_local())) is not None:
        out["stale"] = [cutoff]
    if "priority" not in out and (m := PRIORITY.search(parsed.text)):
        word = next(g for g in m.groups() if g).lower()
        out["priority"] = PRIORITIES.get(word, [word.title()])
    if "stale" in out and parsed.wanted in (None, "issue") and "status" not in out and "resolved" not in out:
        out["unresolved"] = ["yes"]  # "which issues are stale?": the ones still to do
    if parsed.wanted in (None, "issue") and UNASSIGNED.search(parsed.text):
        out["unassigned"] = ["yes"]
        if "status" not in out and "resolved" not in out:
            out["unresolved"] = ["yes"]
    else:
        person = assignee_named(parsed.text)
        if person:
            out["assignee"] = [person]
    if parsed.wanted == "pull":  # a pull request has a state (open, closed, merged), not a status
        out.pop("status", None)
        out.pop("issue_type", None)
        words = re.findall(r"\b(open|closed|merged)\b", parsed.text.lower())
        states = [s for w in dict.fromkeys(words) for s in PULL_STATES[w]]
        if AWAITING_REVIEW.search(parsed.text):  # waiting for a review: still open, nobody approved
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
