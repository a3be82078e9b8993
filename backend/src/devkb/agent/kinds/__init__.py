"""Question kinds, one module each, and the registry the planner walks in order: the first kind
whose ``matches`` accepts the parsed question runs its tools and composes its answer.

To add a kind: write ``kinds/<name>.py`` with a :class:`QuestionKind` subclass (``matches`` from the
parsed question, ``plan`` and ``run`` for its tools, ``compose`` for its extractive answer), put an
instance into ``KINDS`` before the kinds it must win over, and add its tests (docs/agent.md, "How to
add a question kind"). The order is the precedence: specific kinds first, ``Search`` always last.
"""

from __future__ import annotations

from devkb.agent.frame import Frame, extract
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.blocked import Blocked
from devkb.agent.kinds.carry_over import CarryOver
from devkb.agent.kinds.comparison import Comparison
from devkb.agent.kinds.conditions import Conditions
from devkb.agent.kinds.count import Count
from devkb.agent.kinds.durations import Durations
from devkb.agent.kinds.field import FieldByTitle
from devkb.agent.kinds.history import History
from devkb.agent.kinds.lookup import Lookup
from devkb.agent.kinds.period import Period
from devkb.agent.kinds.person_work import PersonWork
from devkb.agent.kinds.ranking import Ranking
from devkb.agent.kinds.recall import Recall
from devkb.agent.kinds.relation import RelationKind
from devkb.agent.kinds.releases import Releases
from devkb.agent.kinds.remember import Remember
from devkb.agent.kinds.resolved import ResolvedInPeriod
from devkb.agent.kinds.search import Search
from devkb.agent.kinds.unresolved import UnresolvedReference
from devkb.agent.kinds.who_to_ask import WhoToAsk
from devkb.agent.question import ParsedQuestion

KINDS: tuple[QuestionKind, ...] = (
    UnresolvedReference(),  # "who worked on it?" with nothing earlier: which document is meant?
    Ranking(),  # "who reported the most bugs?", "which issues have the most comments?": before who-to-ask
    Releases(),  # "the latest release of PAY?", "what went into 2026.6?": versions, before history
    Durations(),  # "how long does it take to fix a bug in KETTLE?": created → resolved, every one
    History(),  # about change (a date, a version, "first moved", "what changed"): from stored versions
    ResolvedInPeriod(),  # a project with a period is a scope, not an anchor: before Lookup
    Blocked(),
    WhoToAsk(),  # "who knows about X" with nothing named: people, not the field of a document
    Comparison(),  # two documents named and "compare" / "difference between" / "vs"
    Count(),  # "how many issues in WEB?", "… assigned to Marcus Chen": every document with fields
    PersonWork(),  # "what did Priya work on?": a person named, no document — before the relation "worked on"
    RelationKind(),  # its anchor comes from Lookup / CarryOver / a search
    Lookup(),
    CarryOver(),
    Period(),
    FieldByTitle(),  # "who is the assignee of the checkout redesign?": a field, a title
    Search(),
)


# executors the route table (agent/frame/route.py) chooses by the question's frame, not by the
# registry's order: each declares the slots it honours
EXECUTORS: tuple[QuestionKind, ...] = (
    Remember(),  # "Remember that …": a fact to store, not a question (memory/)
    Recall(),  # "what did I ask about webhooks last week?": the asker's conversations and memories
    Conditions(),  # a count, list or ranking under any mix of conditions
)


def kind_of(
    parsed: ParsedQuestion,
    carried: bool,
    kinds: tuple[QuestionKind, ...] = KINDS,
    frame: Frame | None = None,
) -> QuestionKind:
    """The first kind in ``kinds`` that recognises the question (``frame``: its frame, the
    planner's with names resolved; without one, the frame of ``parsed`` with none resolved)."""
    frame = frame if frame is not None else extract(parsed)
    for kind in kinds:
        if kind.recognises(frame, parsed, carried):
            return kind
    raise LookupError("no question kind matched; the registry must end with Search")


__all__ = ["EXECUTORS", "KINDS", "Context", "Outcome", "QuestionKind", "Step", "kind_of"]
