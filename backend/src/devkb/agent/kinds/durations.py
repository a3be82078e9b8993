"""Durations: "how long does it take to fix a bug in KETTLE?", "what's the average time to close an
issue in FLUID?", "median resolution time for PAY bugs", "how long do pull requests stay open
before they are merged?" — a question about how long work takes, over every document with some
fields → ``GraphQuery`` on the count kind's selection (the same scopes, types, priorities,
assignee), then each resolved issue's days from created to resolved (a pull request's from opened
to merged): the median, the mean, the middle half and the longest, exact; never a passage that
happens to say "average"."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import datetime

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

STEP = Step(GraphQuery.name, "durations: every resolved document with the asked fields, created → resolved")
# the question's forms (agent/frame/phrases.py): "duration" ("how long does it take to fix a bug?",
# "how long do pull requests stay open?", "the average time to close a bug", "median resolution
# time"), "work" (about work: "the average time between deployments" is not an issue's), "pulls"
# (pull requests, merging)


def _days(start: object, end: object) -> float | None:
    try:
        a = datetime.fromisoformat(str(start))
        b = datetime.fromisoformat(str(end))
    except ValueError:
        return None
    days = (b - a).total_seconds() / 86400
    return days if days >= 0 else None


def took(doc: Document) -> float | None:
    """Days from created to resolved (a pull request: to merged); None while not done."""
    m = doc.metadata
    if m.get("kind") == "pull":
        return _days(m.get("created"), m.get("merged")) if m.get("merged") else None
    if not is_resolved(m) or not m.get("resolved"):
        return None
    return _days(m.get("created"), m.get("resolved"))


def _wanted(parsed: ParsedQuestion, frame: Frame) -> str:
    return "pull" if parsed.wanted == "pull" or frame.takes("pulls") else "issue"


class Durations(QuestionKind):
    name = "durations"
    honours = frozenset({"scope", "type"})
    needs_no_model = True  # figures over every document: a model would average the few it is shown
    filters = False

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        if parsed.issue_keys or parsed.follow_up:
            return False
        if not frame.takes("duration") or not set(parsed.lookups.kinds) <= {"project", "repository"}:
            return False
        # about work: "the average time between deployments" is not an issue's
        return frame.takes("work")

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [STEP]

    def run(self, ctx: Context) -> None:
        wanted = _wanted(ctx.parsed, ctx.frame)
        docs, _, base, filters, _ = counted_documents(ctx, wanted)
        timed = [(d, t) for d in docs if (t := took(d)) is not None]
        timed.sort(key=lambda dt: dt[1])
        out = ctx.outcome
        out.reads_all = reads_all()
        out.composed_kind = wanted
        out.ranked_of = len(docs)
        out.durations = [t for _, t in timed]
        # cited: the one nearest the median, the quickest, the longest
        picks: list[Document] = []
        if timed:
            middle = timed[len(timed) // 2][0]
            for d in (middle, timed[0][0], timed[-1][0]):
                if all(d.id != p.id for p in picks):
                    picks.append(d)
        out.listed = [EvidenceDoc(d, (d.title,), 1.0 / (1 + i), GraphQuery.name) for i, d in enumerate(picks)]
        ctx.scope.add(out.listed)
        ctx.scope.record(
            ToolCall(GraphQuery.name, {"fields": {**base, **filters}, "durations": True}, len(timed))
        )
        ctx.took(STEP)

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        return (out.listed or [])[:most]

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        n = len(out.durations)
        if not n:
            return "not_found", trust.exact_confidence(
                "no resolved document with these fields", kind="key_missing"
            )
        return "answered", trust.exact_confidence(f"{n} timed in the graph", docs, "graph_list")

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        numbers = {d.id: i for i, d in enumerate(docs, 1)}
        pull = out.composed_kind == "pull"
        noun = WANTED["pull"][2] if pull else WANTED["issue"][2]
        assert out.frame is not None
        fields = asked_fields(out.parsed, out.frame)
        fields.pop("resolved", None)
        fields.pop("state", None)
        where = describe(fields)
        whose = "" if out.reads_all else " that you can read"
        done = "merged" if pull else "resolved"
        span = "from opened to merged" if pull else "from created to resolved"
        times = out.durations
        if not times:
            return f"None of the {out.ranked_of} {noun}s{where}{whose} is {done} yet, so there is no time to give."
        n = len(times)
        median = statistics.median(times)
        mean = statistics.fmean(times)
        head = f"Of the {n} {done} {noun}{'s' * (n != 1)}{where}{whose}"
        if n == 1:
            return f"{head}, it took {_d(times[0])} {span}{''.join(citation(d, numbers) for d in docs[:1])}."
        low, high = (statistics.quantiles(times, n=4)[i] for i in (0, 2)) if n >= 4 else (times[0], times[-1])
        listed = out.listed or []
        tail = ""
        if listed:
            longest = listed[-1]
            m = longest.document.metadata
            name = str(m.get("key") or (f"PR #{m['number']}" if m.get("number") else longest.document.title))
            tail = f"; the longest, {name}, took {_d(times[-1])}{citation(longest, numbers)}"
        middle = "".join(citation(d, numbers) for d in listed[:1])
        return (
            f"{head}, the median took {_d(median)} {span}{middle} (mean {_d(mean)}); "
            f"half took between {_d(low)} and {_d(high)}{tail}."
        )


def _d(days: float) -> str:
    """ "3.5 hours", "1 day", "12 days", "1,204 days"."""
    if days < 1:
        hours = days * 24
        return f"{hours:.1f} hours" if hours < 10 else f"{hours:.0f} hours"
    whole = round(days)
    return f"{whole:,} day{'s' * (whole != 1)}"
