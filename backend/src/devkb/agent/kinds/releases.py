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

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import citation
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.blocked import waits_on
from devkb.agent.kinds.count import MOST, Count
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


# The question's forms (agent/frame/phrases.py), each the whole question: "release_one" ("what is
# the latest release of PAY?", "what's our next version", "which PAY release comes next?", "when
# was the last release of PAY?", "when did we last ship?" — "what is the latest version of jQuery
# we use?" says more and is a search), "release_when" ("when will 5.0 be released?", "is 2026.12
# out yet?", "what's the status of the FLUID 5.0 release?", "where are we with 5.0?"),
# "release_who" ("who is working on FLUID 5.0?": the version's open issues by assignee),
# "release_blocking" ("what's blocking the 5.0 release?": its open issues, the most urgent first,
# and what they wait on), "release_all" ("which versions are there in KETTLE?"); and the count's
# "fix_version" ("what was fixed in 2026.6?": one version's content).
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
    parts: list[str] = []
    last = ""  # the kind of the previous character: "d" a digit, "a" a letter, "" anything else
    for c in name:
        kind = "d" if c.isascii() and c.isdigit() else "a" if c.isascii() and c.isalpha() else ""
        if kind and kind == last:
            parts[-1] += c
        elif kind:
            parts.append(c)
        last = kind
    return tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in parts)


def asked(frame: Frame) -> tuple[str, str | None, str | None] | None:
    """(latest | next | previous | all | when | who | blocking, the project word named or None,
    the version a "when" question names), from the frame's release forms, or None."""
    for which, name in (("when", "release_when"), ("who", "release_who"), ("blocking", "release_blocking")):
        form = frame.form(name)
        if form is not None and form.get("version"):
            return which, form.get("target"), form["version"].lstrip("vV")
    form = frame.form("release_one")
    if form is not None:
        if form.get("soon"):
            return "next", form.get("target"), None
        which = (form.get("which") or "last").lower().split()[-1]
        return _WHICH.get(which, "latest"), form.get("target"), None
    form = frame.form("release_all")
    return ("all", form.get("target"), None) if form is not None else None


def same_version(name: str, asked_for: str) -> bool:
    """ "4.8.0" is also "4.8" (and the other way round); "2.0" is not "2"."""
    a, b = name.lower().removeprefix("v"), asked_for.lower().removeprefix("v")
    return (
        a == b
        or (a.count(".") >= 2 and a.removesuffix(".0") == b)
        or (b.count(".") >= 2 and b.removesuffix(".0") == a)
    )


class Releases(QuestionKind):
    name = "releases"
    honours = frozenset({"scope", "version"})
    needs_no_model = True  # versions counted from the graph: a model would see a few issues
    filters = False

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        if asked(frame) is not None:
            return True
        return frame.takes("fix_version") and set(parsed.lookups.kinds) <= {"project"}

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        question = asked(ctx.frame)
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
    w = " ".join(word.lower().split()).removesuffix(" project")
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
