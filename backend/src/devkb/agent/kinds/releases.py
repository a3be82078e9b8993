"""Releases: "what is the latest release of PAY?", "what's the next version?", "which versions
are there in KETTLE?" — a question about a project's versions as a whole → ``GraphQuery`` over
the reader's issues, grouped by their fix versions; and "what was fixed in 2026.6?", "what went
into FLUID 4.7?", "what's new in release 2026.10?" — one version's content → the count kind's
list of the issues with that fix version. The figures are exact, never a passage that happens to
say "latest release".

Versions are ordered by their numbers ("2026.10" after "2026.9", "4.8.0" after "4.7.1"). A
tracker says which versions are released and when (Jira's ``released`` and ``releaseDate``, kept by
the converter as ``fix_version_release``), the answer uses that; an export that does not (the
Fluid corpus keeps only the names) is read off the issues, and the answer says so: the **latest release** is
the highest version with most of its issues resolved (one old issue left open does not make a
shipped version unreleased), with the day its last issue was resolved; the **next** one is the
lowest version above it with issues still open. The numbers behind both are in the answer."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import citation
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.blocked import waits_on
from devkb.agent.kinds.count import FIX_VERSION, MOST, Count
from devkb.agent.kinds.lookup import reads_all
from devkb.agent.kinds.relation import is_resolved
from devkb.agent.kinds.search import Search
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.store.models import Document, SourceType

STEP = Step(GraphQuery.name, "releases: every issue with a fix version, grouped by version")
COUNT, SEARCH = Count(), Search()
SHOWN = 5  # issues cited for the version an answer is about
LISTED = 12  # versions named in a list
PROJECTS = 5  # projects answered for when none is named
_WHICH = {
    "latest": "latest",
    "newest": "latest",
    "last": "latest",
    "current": "latest",
    "highest": "latest",
    "recent": "latest",
    "next": "next",
    "upcoming": "next",
    "coming": "next",
    "planned": "next",
    "previous": "previous",
}


def _target(n: int) -> str:
    """ " of PAY", " in the Web Checkout project": the project word(s), as group ``target<n>``."""
    return (
        rf"(?:\s+(?:of|in|for|from)\s+(?:the\s+)?(?P<target{n}>[A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)?)"
        r"(?:\s+project)?)?"
    )


# "what is the latest release of PAY?", "what's our next version", "which is the most recent
# fix version in Web Checkout?", "what is PAY's latest release?", "what's the newest PAY release?",
# "what was the last version we released in PAY" — the whole question; "what is the latest
# version of jQuery we use?" says more and is a search
_WORD = r"[A-Za-z][\w.-]*"
ONE_VERSION = re.compile(
    r"^\s*(?:so\s+|and\s+)?(?:what|which)(?:'s|’s|\s+is|\s+was|\s+will\s+be)?\s+(?:the\s+|our\s+)?"
    rf"(?:(?P<target3>{_WORD})(?:'s|’s)\s+)?"
    r"(?P<which>latest|newest|most\s+recent|last|current|highest|next|upcoming|previous)\s+"
    rf"(?:(?!fix\b)(?P<target4>{_WORD})\s+)?(?:fix\s+)?(?:release|version)\b"
    r"(?:\s+(?:that\s+)?(?:we|they|you)\s+(?:released|shipped|put\s+out|cut|made))?"
    + _target(1)
    + r"\s*[?.!]*\s*$"
    # "which PAY release comes next?", "what version is next for PAY?"
    rf"|^\s*(?:what|which)\s+(?:(?P<target5>{_WORD})\s+)?(?:release|version)\s+"
    r"(?P<soon>comes\s+next|is\s+(?:coming\s+)?next|is\s+coming|is\s+planned\s+next)"
    + _target(2)
    + r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "when was the last release of PAY?", "when did we last ship?"
WHEN_LAST = re.compile(
    r"^\s*when\s+(?:was|is|will\s+be)\s+(?:the\s+|our\s+)?(?P<which>latest|last|most\s+recent|next|upcoming)\s+"
    r"(?:release|version)\b" + _target(1) + r"\s*[?.!]*\s*$|"
    r"^\s*when\s+did\s+(?:we|they|you)\s+last\s+(?:release|ship)\b" + _target(2) + r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "when will 5.0 be released?", "when was Infusion 4.7 released?", "when did FLUID 4.8.0 ship?",
# "is 2026.12 out yet?": one named version's release
_NUMBER = r"v?(?P<version>\d+(?:\.\d+){1,3})"
WHEN_VERSION = re.compile(
    rf"^\s*(?:when\s+(?:was|is|will|did|does)|is|has|was)\s+(?:the\s+)?(?:(?P<target1>{_WORD})\s+)?"
    rf"(?:(?:release|version)\s+)?{_NUMBER}(?:\s+release)?\s+(?:be\s+|been\s+|get\s+|got\s+)?"
    r"(?:released|shipped|ship|out|come\s+out|came\s+out|cut|published|due|going\s+out)\b(?:\s+yet)?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "what's the status of the FLUID 5.0 release?", "how is 2026.12 going?", "where are we with 5.0?":
# the same answer as "is it out?"
_VERSION_NAMED = (
    rf"(?:the\s+)?(?:(?P<target2>{_WORD})\s+)?(?:(?:release|version)\s+)?{_NUMBER}(?:\s+(?:release|version))?"
)
STATUS_VERSION = re.compile(
    r"^\s*(?:what(?:'s|’s|\s+is)\s+the\s+)?(?:status|state|progress)\s+(?:of|on|for)\s+"
    + _VERSION_NAMED
    + r"\s*[?.!]*\s*$|^\s*how\s+(?:is|are)\s+(?:things\s+(?:with|for)\s+)?"
    + _VERSION_NAMED.replace("target2", "target3").replace("version>", "version2>")
    + r"\s+(?:going|coming\s+along|doing|progressing)\s*[?.!]*\s*$|^\s*where\s+(?:are\s+we|do\s+we\s+stand)\s+(?:with|on)\s+"
    + _VERSION_NAMED.replace("target2", "target4").replace("version>", "version3>")
    + r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "who is working on FLUID 5.0?", "who's assigned to the 2026.12 release?": the version's open
# issues by assignee
WHO_VERSION = re.compile(
    r"^\s*who(?:'s|’s|\s+is|\s+are)?\s+(?:working|assigned)\s+(?:on|to)\s+"
    + _VERSION_NAMED.replace("target2", "target5").replace("version>", "version4>")
    + r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "what's blocking the 5.0 release?", "what is holding up FLUID 5.0?", "what's left before 2026.12
# can ship?": its open issues, the most urgent first, and what they wait on
BLOCKING_VERSION = re.compile(
    r"^\s*(?:what|which\s+issues?)(?:'s|’s|\s+is|\s+are)?\s+(?:(?:still\s+)?blocking|holding\s+up|holding\s+back|"
    r"in\s+the\s+way\s+of|standing\s+in\s+the\s+way\s+of|left\s+(?:before|for)|delaying)\s+"
    + _VERSION_NAMED.replace("target2", "target6").replace("version>", "version5>")
    + r"(?:\s+(?:from\s+)?(?:shipping|being\s+released|release|can\s+ship|ships))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# how urgent a priority is, most first (Jira Cloud's and Data Center's schemes together)
URGENCY = (
    "blocker",
    "highest",
    "critical",
    "high",
    "major",
    "medium",
    "normal",
    "minor",
    "low",
    "trivial",
    "lowest",
)
# "which versions are there in KETTLE?", "list the releases of PAY", "what releases does WEB have?"
ALL_VERSIONS = re.compile(
    r"^\s*(?:(?:what|which)\s+(?:fix\s+)?(?:releases|versions)\s+(?:are\s+there|do\s+we\s+have|exist|have\s+we\s+(?:had|shipped))"
    + _target(1)
    + r"|(?:list|show)(?:\s+me)?\s+(?:all\s+)?(?:the\s+)?(?:fix\s+)?(?:releases|versions)"
    + _target(2)
    + r"|(?:what|which)\s+(?:fix\s+)?(?:releases|versions)\s+(?:does|did|has)\s+(?P<target3>[A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)?)\s+(?:have|had|shipped))"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)


@dataclass
class Version:
    """One fix version of one project, read off its issues."""

    project: str
    name: str
    issues: list[Document] = field(default_factory=list)

    @property
    def resolved(self) -> list[Document]:
        return [d for d in self.issues if is_resolved(d.metadata)]

    @property
    def open(self) -> int:
        return len(self.issues) - len(self.resolved)

    @property
    def tracker(self) -> dict[str, object]:
        """What the tracker says of this version (``released``, ``date``), from any of its issues."""
        said: dict[str, object] = {}
        for d in self.issues:
            for r in d.metadata.get("fix_version_release") or []:
                if isinstance(r, dict) and r.get("name") == self.name:
                    said.update({k: v for k, v in r.items() if k in ("released", "date") and v is not None})
        return said

    @property
    def out(self) -> bool:
        """Released: as the tracker says, else read off the issues — most of them resolved."""
        released = self.tracker.get("released")
        if isinstance(released, bool):
            return released
        return len(self.resolved) * 2 > len(self.issues)

    @property
    def last_resolved(self) -> str:
        return max((str(d.metadata.get("resolved") or "")[:10] for d in self.resolved), default="")

    def cited(self, open_only: bool = False) -> list[Document]:
        """Its issues, the last resolved first, then the open ones (newest first); or only the open
        ones (who is working on it)."""
        done = sorted(self.resolved, key=lambda d: str(d.metadata.get("resolved") or ""), reverse=True)
        ids = {d.id for d in done}
        rest = sorted((d for d in self.issues if d.id not in ids), key=lambda d: d.updated_at, reverse=True)
        return rest if open_only else done + rest


def version_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """ "2026.10" after "2026.9", "4.8.0" after "4.8", "0.5B" after "0.5": numbers as numbers."""
    parts = re.findall(r"\d+|[A-Za-z]+", name)
    return tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in parts)


def asked(parsed: ParsedQuestion) -> tuple[str, str | None, str | None] | None:
    """(latest | next | previous | all | when, the project word named or None, the version a
    "when" question names), or None."""
    for which, pattern in (
        ("when", WHEN_VERSION),
        ("when", STATUS_VERSION),
        ("who", WHO_VERSION),
        ("blocking", BLOCKING_VERSION),
    ):
        m = pattern.search(parsed.text)
        if m:
            version = next(v for k, v in m.groupdict().items() if k.startswith("version") and v)
            return which, _named(m), version
    for pattern in (ONE_VERSION, WHEN_LAST):
        m = pattern.search(parsed.text)
        if m:
            if m.groupdict().get("soon"):
                return "next", _named(m), None
            which = (m.groupdict().get("which") or "last").lower().split()[-1]
            return _WHICH.get(which, "latest"), _named(m), None
    m = ALL_VERSIONS.search(parsed.text)
    return ("all", _named(m), None) if m else None


def same_version(name: str, asked_for: str) -> bool:
    """ "4.8.0" is also "4.8" (and the other way round); "2.0" is not "2"."""
    a, b = name.lower().removeprefix("v"), asked_for.lower().removeprefix("v")
    return (
        a == b
        or (a.count(".") >= 2 and a.removesuffix(".0") == b)
        or (b.count(".") >= 2 and b.removesuffix(".0") == a)
    )


def _named(m: re.Match[str]) -> str | None:
    return next((v for k, v in m.groupdict().items() if k.startswith("target") and v), None)


class Releases(QuestionKind):
    name = "releases"
    honours = frozenset({"scope", "version"})
    needs_no_model = True  # versions counted from the graph: a model would see a few issues
    filters = False

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        if asked(parsed) is not None:
            return True
        return FIX_VERSION.search(parsed.text) is not None and set(parsed.lookups.kinds) <= {"project"}

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        question = asked(ctx.parsed)
        if question is None:  # one version's content: the issues with that fix version
            ctx.outcome.kind = COUNT
            COUNT.run(ctx)
            return
        which, target, asked_for = question
        store = ctx.toolbox.graph_query.store
        named = [v for lookup in ctx.parsed.lookups.lookups for v in lookup.filters.get("project", ())]
        filters: dict[str, list[str]] = {"kind": ["issue"]}
        issues: list[Document] = []
        if ctx.scope.allows_type(SourceType.JIRA):
            base = {"project": named} if named else filters
            issues = [
                d
                for d in store.find_documents(base, types=[SourceType.JIRA], limit=MOST)
                if ctx.scope.allows(d)
            ]
        projects = _projects(issues)
        if not named and target:
            key = _project_named(target, projects)
            if key is None and asked_for is None:  # "the latest version of jQuery": not a project
                ctx.outcome.kind = SEARCH
                SEARCH.run(ctx)
                return
            if key is not None:  # "when was Infusion 4.7 released?": a product's name, every project
                named = [key]
                issues = [d for d in issues if d.metadata.get("project") == key]
        versions = _versions(issues)
        if asked_for is not None:  # that version, in each project that has it
            versions = {
                p: kept
                for p, vs in versions.items()
                if (kept := [v for v in vs if same_version(v.name, asked_for)])
            }
            if not versions:  # no such fix version: what the documents say of it
                ctx.outcome.kind = SEARCH
                SEARCH.run(ctx)
                return
        out = ctx.outcome
        out.reads_all = reads_all()
        out.composed_kind = which
        out.releases = versions
        out.release_projects = named
        picked = [_pick(which, vs) for vs in versions.values()]
        if which == "blocking":  # what each open issue waits on: unresolved issues it depends on
            out.waits = {
                d.id: waits_on(ctx.toolbox.fetch_neighbors.store, d, ctx.scope.allows)
                for v in picked
                if v is not None
                for d in v.cited(open_only=True)
            }
        out.listed = [
            EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name)
            for v in picked
            if v is not None
            for i, d in enumerate(_evidence(v, which)[:SHOWN])
        ]
        ctx.scope.add(out.listed)
        call = {"fields": {"project": named} if named else filters, "group_by": "fix_version", "which": which}
        ctx.scope.record(ToolCall(GraphQuery.name, call, sum(len(vs) for vs in versions.values())))
        ctx.took(STEP)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        return (out.listed or [])[:most]

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        n = sum(len(vs) for vs in out.releases.values())
        if not n:
            return "not_found", trust.exact_confidence(
                "no issue you can read has a fix version", kind="key_missing"
            )
        what = f"{n} fix version{'s' * (n != 1)}"
        return "answered", trust.exact_confidence(f"{what} read off the issues", docs, "graph_list")

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        cites = {d.id: d for d in docs}
        whose = "" if out.reads_all else " that you can read"
        scope = f" in {', '.join(out.release_projects)}" if out.release_projects else ""
        if not out.releases:
            return f"No issue{scope}{whose} has a fix version, so there is no release to name."
        ranked = sorted(out.releases.items(), key=lambda kv: _activity(kv[1]), reverse=True)[:PROJECTS]
        lines = [_project_line(out.composed_kind, p, vs, numbers, cites, out.waits) for p, vs in ranked]
        more = len(out.releases) - len(ranked)
        tail = f" ({more} more project{'s' * (more != 1)} with versions not shown.)" if more > 0 else ""
        note = (
            " Released is read off the issues (most of a version's issues resolved): the tracker's"
            " versions here carry no release flags or dates."
        )
        guessed = any(not isinstance(v.tracker.get("released"), bool) for _, vs in ranked for v in vs)
        readable = "" if out.reads_all else " The issues counted are the ones you can read."
        return (
            " ".join(lines)
            + tail
            + (note if guessed and out.composed_kind not in ("all", "who", "blocking") else "")
            + readable
        )


def _projects(issues: Sequence[Document]) -> dict[str, str]:
    """Project key → name, of the issues read."""
    out: dict[str, str] = {}
    for d in issues:
        key = str(d.metadata.get("project") or "")
        if key and key not in out:
            out[key] = str(d.metadata.get("project_name") or key)
    return out


def _project_named(word: str, projects: dict[str, str]) -> str | None:
    """The project a word names: its key or its name, in any case ("web checkout", "Payments")."""
    w = re.sub(r"\s+project$", "", word.strip().lower())
    for key, name in projects.items():
        if w == key.lower() or w == name.lower():
            return key
    for key, name in projects.items():  # "Payments" for "Payments Platform"
        if name.lower().startswith(w + " ") or name.lower().split()[0] == w:
            return key
    return None


def _versions(issues: Sequence[Document]) -> dict[str, list[Version]]:
    """Each project's fix versions, highest first."""
    by: dict[tuple[str, str], Version] = {}
    for d in issues:
        values = d.metadata.get("fix_version")
        for name in values if isinstance(values, list) else [values] if values else []:
            project = str(d.metadata.get("project") or "")
            v = by.setdefault((project, str(name)), Version(project, str(name)))
            v.issues.append(d)
    grouped: dict[str, list[Version]] = defaultdict(list)
    for v in by.values():
        grouped[v.project].append(v)
    return {p: sorted(vs, key=lambda v: version_key(v.name), reverse=True) for p, vs in grouped.items()}


def _latest(versions: Sequence[Version]) -> Version | None:
    return next((v for v in versions if v.out), None)


def _pick(which: str, versions: Sequence[Version]) -> Version | None:
    """The version a question is about, from a project's versions (highest first)."""
    if which in ("when", "who", "blocking"):  # the one asked for (``run`` kept only it)
        return versions[0] if versions else None
    latest = _latest(versions)
    if which == "next":
        above = versions[: versions.index(latest)] if latest is not None else list(versions)
        return next((v for v in reversed(above) if _pending(v)), None)
    if which == "previous":
        after = versions[versions.index(latest) + 1 :] if latest is not None else []
        return next((v for v in after if v.out), None)
    if which == "all":
        return latest or (versions[0] if versions else None)
    return latest


def _urgency(doc: Document) -> int:
    priority = str(doc.metadata.get("priority") or "").lower()
    return URGENCY.index(priority) if priority in URGENCY else len(URGENCY)


def _evidence(v: Version, which: str) -> list[Document]:
    """The issues an answer about ``v`` cites: its open ones for who is on it, the open ones by
    urgency for what holds it up (ties: the newest first), else all of them (``Version.cited``)."""
    if which == "blocking":
        return sorted(v.cited(open_only=True), key=_urgency)  # stable: newest first within a priority
    return v.cited(open_only=which == "who")


def _pending(v: Version) -> bool:
    """Not released: the tracker says so, or (where it says nothing) an issue is still open."""
    released = v.tracker.get("released")
    return released is False or (not isinstance(released, bool) and v.open > 0)


def _activity(versions: Sequence[Version]) -> str:
    """When a project's versions last moved (ordering projects when none is named)."""
    return max((max((d.updated_at for d in v.issues), default="") for v in versions), default="")


def _facts(v: Version) -> str:
    said = v.tracker
    when = str(said.get("date") or "")[:10]
    if said.get("released") is True or (when and said.get("released") is None and v.out):
        day = f"released on {when}, " if when else "released, "
    elif said.get("released") is False:
        day = f"planned for {when}, " if when else "not released yet, "
    else:
        day = ""
    return day + _issue_facts(v)


def _issue_facts(v: Version) -> str:
    n, done = len(v.issues), len(v.resolved)
    issues = f"{n} issue{'s' * (n != 1)}"
    if done == n:
        state = "all resolved" if n > 1 else "resolved"
    elif done == 0:
        state = "none resolved yet" if n > 1 else "not resolved yet"
    else:
        state = f"{done} resolved, {v.open} still open"
    last = f", the last resolved on {v.last_resolved}" if v.last_resolved else ""
    return f"{issues}, {state}{last}"


def _project_line(
    which: str,
    project: str,
    versions: Sequence[Version],
    numbers: dict[str, int],
    cites: dict[str, EvidenceDoc],
    waits: dict[str, list[str]] | None = None,
) -> str:
    waits = waits or {}

    def cited(v: Version) -> str:
        return "".join(citation(cites[d.id], numbers) for d in _evidence(v, which) if d.id in cites)

    latest = _latest(versions)
    picked = _pick(which, versions)
    if which == "blocking" and picked is not None:
        still = _evidence(picked, "blocking")
        if not still:
            n = len(picked.issues)
            all_done = "its only issue is resolved" if n == 1 else f"all {n} of its issues are resolved"
            return f"{project} {picked.name}: {all_done}; nothing holds it up."
        items = []
        for d in still[:SHOWN]:
            m = d.metadata
            facts = ", ".join(str(x) for x in (m.get("priority"), m.get("status")) if x)
            key = str(m.get("key") or d.title)
            cite = citation(cites[d.id], numbers) if d.id in cites else ""
            items.append(f"{key}: {d.title.split(': ', 1)[-1]} ({facts}){cite}")
        more = f"; and {len(still) - SHOWN} more" if len(still) > SHOWN else ""
        waiting = [(str(d.metadata.get("key") or d.id), waits[d.id]) for d in still if waits.get(d.id)]
        wait_text = ""
        if waiting:
            shown = "; ".join(f"{k} waits on {', '.join(w)}" for k, w in waiting[:SHOWN])
            wait_text = f" Waiting on other unresolved issues: {shown}."
        n = len(still)
        return (
            f"{project} {picked.name} has {n} open issue{'s' * (n != 1)}, the most urgent first: "
            + "; ".join(items)
            + more
            + "."
            + wait_text
        )
    if which == "who" and picked is not None:
        still = picked.cited(open_only=True)
        if not still:
            n = len(picked.issues)
            which_ones = "its only issue is resolved" if n == 1 else f"all {n} of its issues are resolved"
            return f"{project} {picked.name}: {which_ones}, so nobody is working on it."
        people: dict[str, int] = defaultdict(int)
        for d in still:
            people[str(d.metadata.get("assignee") or "")] += 1
        assigned = sorted(((p, c) for p, c in people.items() if p), key=lambda pc: (-pc[1], pc[0]))
        parts = [f"{p} ({c})" for p, c in assigned[:SHOWN]]
        if len(assigned) > SHOWN:
            parts.append(f"{len(assigned) - SHOWN} more")
        nobody = people.get("", 0)
        tail = f"; {nobody} unassigned" if nobody else ""
        who = ", ".join(parts) if parts else "nobody"
        return (
            f"{project} {picked.name} has {len(still)} open issue{'s' * (len(still) != 1)}, assigned to "
            f"{who}{tail}{cited(picked)}."
        )
    if which == "when" and picked is not None:
        said = picked.tracker
        when = str(said.get("date") or "")[:10]
        if said.get("released") is True:
            head = f"{project} {picked.name} was released" + (f" on {when}" if when else "")
        elif said.get("released") is False:
            head = f"{project} {picked.name} is not released yet" + (
                f"; it is planned for {when}" if when else ""
            )
        elif picked.out:
            head = f"{project} {picked.name} is out, as far as its issues say"
        else:
            head = f"{project} {picked.name} is not out yet, as far as its issues say"
        return f"{head}: {_issue_facts(picked)}{cited(picked)}."
    if which == "all":
        shown = ", ".join(f"{v.name} ({_facts(v)})" for v in versions[:LISTED])
        more = f", and {len(versions) - LISTED} older" if len(versions) > LISTED else ""
        return f"{project} has {len(versions)} fix version{'s' * (len(versions) != 1)}, the highest first: {shown}{more}."
    if which == "next":
        if picked is None:
            after = f" above {latest.name}" if latest is not None else ""
            return (
                f"{project}: no version{after} has open issues, so no next release is planned in the tracker."
            )
        since = f" (after {latest.name})" if latest is not None else ""
        return f"{project}'s next release is {picked.name}{since}: {_facts(picked)}{cited(picked)}."
    if picked is None:
        if which == "previous":
            return f"{project}: no release before {latest.name if latest else 'the first'} has most of its issues resolved."
        highest = versions[0]
        return (
            f"{project}: no version has most of its issues resolved yet; the highest is {highest.name}"
            f" ({_facts(highest)}){cited(highest)}."
        )
    head = "release before the latest" if which == "previous" else "latest release"
    line = f"{project}'s {head} is {picked.name}: {_facts(picked)}{cited(picked)}."
    higher = [v for v in versions[: versions.index(picked)] if _pending(v)]
    if higher and which != "previous":
        named = ", ".join(f"{v.name} ({v.open} of {len(v.issues)} open)" for v in reversed(higher[-3:]))
        line += f" Above it, not released yet: {named}."
    return line
