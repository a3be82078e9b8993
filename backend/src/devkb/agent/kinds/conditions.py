"""Conditions: a count, a list or a ranking of documents under any mix of conditions — "how many
bugs did FLUID get in 2011?", "what did Marcus Chen work on last week?", "open critical bugs in
PAY assigned to Priya", "which issues fixed in 1.4 did Justin file?", "who reported the most bugs
in FLUID in 2011?".

It reads the question's frame only (:mod:`devkb.agent.frame`), never its text: one structured
find over the store's typed document filters with every exact condition (project, type, status,
priority, fix version, label, the person in their role), then the period on the date its event
names (created, resolved, updated) and the state category (resolved / unresolved). Every condition
it applied is named in the answer; a name the store does not know is reported, not dropped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, ClassVar

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import LIST_SHOWN, citation, identifier
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.person_work import moves_to_done
from devkb.agent.kinds.relation import is_resolved
from devkb.agent.kinds.who_to_ask import handles
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery
from devkb.store.models import Document, SourceType

STEP = Step(GraphQuery.name, "conditions: one find with every condition of the question")
MOST = 20_000  # documents read; a larger set is given as "at least"
# the person's role → the document field that holds them
ROLE_FIELD = {
    "assignee": "assignee",
    "reporter": "reporter",
    "author": "author",
    "commenter": "people",
    "involved": "people",
}
_KIND_TYPES = {
    "pull": SourceType.GITHUB,
    "commit": SourceType.GITHUB,
    "file": None,
    "page": SourceType.CONFLUENCE,
}
_NOUN = {"issue": "issues", "pull": "pull requests", "commit": "commits", "page": "pages", "file": "files"}


class Conditions(QuestionKind):
    name = "conditions"
    needs_no_model = True  # the set is exact: a model would list the few it is shown
    filters = False
    reads_work = True  # a person's work: what is assigned to them and what they wrote
    honours: ClassVar[frozenset[str]] = frozenset(
        {"period", "scope", "type", "state", "priority", "version", "label"}
        | {f"person:{r}" for r in ROLE_FIELD}
        | {"person:mover"}  # read off the issues' status history (who moved them to done)
    )

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return False  # chosen by the route table (agent/frame/route.py), never by the registry

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        out = ctx.outcome
        frame = out.frame
        assert frame is not None
        out.listed = []
        missing = frame.unresolved()
        if missing:
            out.not_found = dict.fromkeys(missing, ())
            ctx.took(STEP)
            return
        store = ctx.toolbox.graph_query.store
        filters, types = query(frame)
        found = {d.id: d for d in store.find_documents(filters, types=types, limit=MOST)}
        for person in frame.people:
            if frame.person_work(person) and person.resolved:
                # a person's work: what is assigned to them and what they wrote (commits, pull
                # requests, pages; GitHub names them by login)
                wrote = {k: v for k, v in filters.items() if k not in ("assignee", "people")}
                wrote["author"] = [person.resolved, *sorted(handles(person.resolved))]
                for d in store.find_documents(wrote, types=None, limit=MOST):
                    found.setdefault(d.id, d)
        docs = [d for d in found.values() if ctx.scope.allows(d)]
        kept = [d for d in docs if holds(frame, d)]
        for person in frame.people:
            if person.role == "mover" and person.resolved:  # "closed by Priya": the issue's history
                moved, recorded = moves_to_done(store, [d.id for d in kept], person.resolved)
                unknown = [d for d in kept if d.id not in recorded]
                kept = [d for d in kept if d.id in moved]
                if unknown:
                    n = len(unknown)
                    out.unrecorded = (
                        f"{n} more {_noun(frame, n)} {'meets' if n == 1 else 'meet'} the other conditions "
                        f"but {'its' if n == 1 else 'their'} status history is not recorded, so who "
                        f"closed {'it' if n == 1 else 'them'} is not known: "
                        + ", ".join(identifier(EvidenceDoc(d, ())) for d in unknown[:LIST_SHOWN])
                        + (f" and {n - LIST_SHOWN} more" if n > LIST_SHOWN else "")
                    )
        if not kept and frame.issue_types and frame.shape != "rank":
            near = _other_types(ctx, frame)  # "which bugs …?" when none is a Bug: said, with what is
            ctx.scope.add(
                [EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(near)]
            )
        kept.sort(key=lambda d: _when(frame, d), reverse=frame.order != "oldest")
        if frame.limit and frame.shape == "list" and frame.order in ("newest", "oldest"):
            kept = kept[: frame.limit]
        out.listed = [EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(kept)]
        if frame.shape == "rank":
            field = _rank_field(frame)
            counts: Counter[str] = Counter()
            for d in kept:
                for who in _values(d.metadata.get(field)):
                    counts[who] += 1
            out.ranked = counts.most_common()
            out.ranked_of = len(kept)
        ctx.scope.add(out.listed[:LIST_SHOWN])
        arguments: dict[str, Any] = {k: list(v) for k, v in filters.items()}
        if frame.period is not None:
            arguments[f"{frame.period.event}_from"] = frame.period.start
            arguments[f"{frame.period.event}_to"] = frame.period.end
        if frame.category:
            arguments["state_category"] = frame.category
        ctx.scope.record(ToolCall(GraphQuery.name, arguments, len(out.listed)))
        ctx.took(STEP)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        """The set found; when it is empty for a type, the issues of other types that meet every
        other condition (named as such)."""
        return (out.listed or list(selection))[:most]

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        frame = out.frame
        assert frame is not None
        if out.not_found:
            return "I could not answer under every condition: " + "; ".join(out.not_found) + "."
        listed = out.listed or []
        said = describe(frame)
        capped = len(listed) >= MOST
        if frame.shape == "rank":
            field = _rank_field(frame)
            if not out.ranked:
                return f"There are no {_noun(frame, 2)}{said}, so there is no one to rank."
            top = "; ".join(f"{who} ({c})" for who, c in out.ranked[:10])
            return f"By {field}, among the {out.ranked_of} {_noun(frame, out.ranked_of)}{said}: {top}."
        n = len(listed)
        if not listed and docs and frame.issue_types:
            others = describe(frame.model_copy(update={"issue_types": ()}))
            numbers = {d.id: i + 1 for i, d in enumerate(docs)}
            named = "; ".join(
                f"{identifier(d)} ({d.document.metadata.get('issue_type') or 'no type'}){citation(d, numbers)}"
                for d in docs[:LIST_SHOWN]
            )
            return (
                f"There are no {_noun(frame, 2)}{said}. Of other types, {len(docs)} "
                f"{'issue meets' if len(docs) == 1 else 'issues meet'} the other conditions{others}: {named}."
            )
        if not listed:
            unknown = f" {out.unrecorded[:1].upper()}{out.unrecorded[1:]}." if out.unrecorded else ""
            return f"There are no {_noun(frame, 2)}{said}.{unknown}"
        count = f"at least {n}" if capped else str(n)
        verb = "is" if n == 1 else "are"
        head = f"There {verb} {count} {_noun(frame, n)}{said}"
        numbers = {d.id: i + 1 for i, d in enumerate(docs)}
        items = []
        for d in listed[:LIST_SHOWN]:
            meta = d.document.metadata
            status = f" ({meta['status']})" if meta.get("status") else ""
            title = d.document.title
            name = identifier(d)
            label = title if title.startswith(name) else f"{name}: {title}"
            items.append(f"{label}{status}{citation(d, numbers)}")
        order = "the oldest first" if frame.order == "oldest" else "the newest first"
        more = f"; and {n - LIST_SHOWN} more" if n > LIST_SHOWN else ""
        unknown = f" {out.unrecorded[:1].upper()}{out.unrecorded[1:]}." if out.unrecorded else ""
        return f"{head}; {order}: " + "; ".join(items) + more + "." + unknown

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        if out.not_found:
            reason = "; ".join(out.not_found)
            return "not_found", trust.exact_confidence(reason, kind="key_missing")
        listed = out.listed or []
        ids = {d.id for d in docs}
        shown = sum(1 for d in listed if d.id in ids)
        frame = out.frame
        said = ", ".join(frame.describe()) if frame is not None else ""
        if frame is not None and frame.shape in ("count", "rank"):
            shown = len(listed)  # the count is exact whatever part of the list is cited (as the count kind)
        if out.unrecorded:  # who closed some of them is not recorded: the list may be short
            found = trust.exact_confidence(f"{len(listed)} found", docs, "graph_list", shown, len(listed))
            return trust.capped("answered", found, f"the record is incomplete: {out.unrecorded}")
        return "answered", trust.exact_confidence(
            f"{len(listed)} found with every condition ({said})", docs, "graph_list", shown, len(listed)
        )


def _other_types(ctx: Context, frame: Frame) -> list[Document]:
    """The issues that meet every condition of ``frame`` but its issue type, newest first."""
    other = frame.model_copy(update={"issue_types": ()})
    filters, types = query(other)
    store = ctx.toolbox.graph_query.store
    found = [d for d in store.find_documents(filters, types=types, limit=MOST) if ctx.scope.allows(d)]
    kept = [d for d in found if holds(other, d)]
    kept.sort(key=lambda d: _when(other, d), reverse=True)
    return kept[:LIST_SHOWN]


def query(frame: Frame) -> tuple[dict[str, list[str]], list[SourceType] | None]:
    """The structured find for ``frame``'s exact conditions: filters and source types."""
    filters: dict[str, list[str]] = {}
    if frame.scope.projects:
        filters["project"] = list(frame.scope.projects)
    if frame.scope.spaces:
        filters["space"] = list(frame.scope.spaces)
    if frame.scope.repositories:
        filters["repository"] = list(frame.scope.repositories)
    if frame.issue_types:
        filters["issue_type"] = list(frame.issue_types)
    if frame.statuses and "merged" not in frame.statuses:
        filters["status"] = list(frame.statuses)
    if frame.priorities:
        filters["priority"] = list(frame.priorities)
    if frame.versions:
        filters["fix_version"] = list(frame.versions)
    if frame.labels:
        filters["label"] = list(frame.labels)
    for p in frame.people:
        field = ROLE_FIELD.get(p.role, "people")
        if frame.kinds and "issue" not in frame.kinds and field == "reporter":
            field = "author"
        filters[field] = [p.resolved or p.said]
    kinds = [k for k in frame.kinds if k != "issue"]
    if kinds and "issue" not in frame.kinds:
        filters["kind"] = kinds
        types = [t for t in (_KIND_TYPES.get(k) for k in kinds) if t is not None] or None
        return filters, types
    if frame.kinds == ("issue",) or frame.issue_types or not frame.kinds:
        if not frame.people or frame.issue_types or frame.kinds:
            return filters, [SourceType.JIRA]
    return filters, None


def holds(frame: Frame, doc: Document) -> bool:
    """Whether ``doc`` meets the conditions the find could not express: the period on its
    event's date, the state category, a merged pull request."""
    meta = doc.metadata
    if frame.category == "resolved" and not is_resolved(meta):
        return False
    if frame.category == "unresolved" and is_resolved(meta):
        return False
    if "merged" in frame.statuses and not meta.get("merged") and str(meta.get("state", "")) != "merged":
        return False
    if frame.period is not None:
        when = _when(frame, doc)
        if not when or not (frame.period.start <= when < frame.period.end):
            return False
    return True


def _when(frame: Frame, doc: Document) -> str:
    meta = doc.metadata
    event = frame.period.event if frame.period is not None else "updated"
    if event == "created":
        return str(meta.get("created") or meta.get("created_at") or doc.updated_at or "")
    if event == "resolved":
        return str(meta.get("resolved") or meta.get("merged") or meta.get("closed") or "")
    return str(doc.updated_at or "")


def _rank_field(frame: Frame) -> str:
    return ROLE_FIELD.get(frame.rank_by or "assignee", "assignee") if frame.rank_by != "mover" else "assignee"


def _values(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v]
    return []


def _noun(frame: Frame, n: int) -> str:
    kinds = [k for k in frame.kinds if k != "issue"]
    if kinds:
        noun = " and ".join(_NOUN.get(k, k) for k in kinds)
    else:
        noun = "issues" if frame.kinds or frame.issue_types or frame.scope.projects else "items"
    if n == 1:
        return noun.replace("pull requests", "pull request").removesuffix("s")
    return noun


def describe(frame: Frame) -> str:
    """ " in PAY (status Open, type Bug, fix version 3.0, created 2023-01-01 to 2023-12-31,
    reported by Grace Lee)": every condition applied, as the count kind says them."""
    scopes = frame.scope.projects + frame.scope.spaces + frame.scope.repositories
    extra: list[str] = []
    if frame.statuses:
        extra.append(("state " if "merged" in frame.statuses else "status ") + " or ".join(frame.statuses))
    if frame.issue_types:
        extra.append("type " + " or ".join(frame.issue_types))
    if frame.priorities:
        extra.append("priority " + " or ".join(frame.priorities))
    if frame.versions:
        extra.append("fix version " + " or ".join(frame.versions))
    if frame.labels:
        extra.append("label " + " or ".join(frame.labels))
    if frame.category == "resolved":
        extra.append("closed or resolved")
    elif frame.category == "unresolved":
        extra.append("unresolved")
    if frame.period is not None:
        p = frame.period
        event = "merged" if p.event == "resolved" and "pull" in frame.kinds else p.event
        first = p.start[:10] or "the beginning"
        last = (datetime.fromisoformat(p.end) - timedelta(seconds=1)).date().isoformat()
        extra.append(f"{event} {first} to {last}")
    for person in frame.people:
        said = _ROLE_SAID.get(person.role, person.role)
        if frame.person_work(person):
            said = "assigned to or written by"  # a person's work: their issues and what they wrote
        extra.append(f"{said} {person.resolved or person.said}")
    return (f" in {', '.join(scopes)}" if scopes else "") + (" (" + ", ".join(extra) + ")" if extra else "")


_ROLE_SAID = {
    "assignee": "assigned to",
    "reporter": "reported by",
    "author": "by",
    "commenter": "commented on by",
    "involved": "involving",
    "mover": "moved by",
}
