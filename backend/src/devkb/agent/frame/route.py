"""Routing as data: from a question's frame to the executor that answers it.

Each row of :data:`ROUTES` reads: *for these shapes, when the frame fills these slots, this
executor answers*. The rows are tried in order; the last row hands the question to the kinds'
registry (:mod:`devkb.agent.kinds`), whose own order decides among the kinds that read a
question by its parse. After the route is chosen, every condition slot the frame fills must be
honoured by the executor (its ``honours``); one that is not is reported in the answer as a
condition it could not apply, and caps the confidence — never dropped silently.

    shape                       slots needed                      executor
    --------------------------  --------------------------------  ------------------
    remember                    —                                 remember (memory)
    recall                      —                                 recall (memory)
    count / list / rank         a condition the registry's kind   conditions
                                does not honour, or two or more
    anything else               —                                 the registry
"""

from __future__ import annotations

from dataclasses import dataclass

from devkb.agent.frame.model import Frame

# the shapes whose answer is a set of documents: every condition defines the set
SET_SHAPES = frozenset({"count", "list", "rank"})


@dataclass(frozen=True)
class Route:
    shapes: frozenset[str]
    executor: str  # a kind's name, or "registry"
    why: str
    # the frame must fill at least one slot the registry's kind does not honour, or two slots
    when_conditions: bool = False


ROUTES: tuple[Route, ...] = (
    Route(frozenset({"remember"}), "remember", "a fact to remember"),
    Route(frozenset({"recall"}), "recall", "a question about earlier conversations"),
    Route(SET_SHAPES, "conditions", "documents under combined conditions", when_conditions=True),
    Route(frozenset(), "registry", "the kinds' registry (by its order)"),
)


def set_question(frame: Frame) -> bool:
    """Whether ``frame`` asks for a set of documents under conditions (not a topic, not a named
    document): a count, a ranking, or a list of a document kind or of a person's work."""
    if frame.documents or frame.shape not in SET_SHAPES:
        return False
    if frame.shape == "list":
        return bool(frame.kinds or frame.issue_types or frame.people or frame.any_documents)
    return True


def route(frame: Frame, registry_honours: frozenset[str], available: frozenset[str]) -> Route:
    """The first row of :data:`ROUTES` that takes ``frame``; ``registry_honours``: the slots the
    kind the registry would choose honours; ``available``: the executors that exist."""
    for row in ROUTES:
        if row.executor != "registry" and row.executor not in available:
            continue
        if row.shapes and frame.shape not in row.shapes:
            continue
        if row.when_conditions:
            if not set_question(frame) or not slot_keys(frame) - registry_honours:
                continue
        return row
    return ROUTES[-1]


def slot_keys(frame: Frame) -> frozenset[str]:
    """The frame's condition slots as executors declare them: ``person:<role>`` for each person."""
    return (frame.slots() - {"person"}) | {f"person:{p.role}" for p in frame.people}


def unapplied(frame: Frame, honours: frozenset[str]) -> list[str]:
    """The conditions of ``frame`` an executor honouring ``honours`` does not apply, as the answer
    names them (only for questions about a set of documents, where conditions define the set)."""
    if not set_question(frame):
        return []
    missing = {k.split(":")[0] for k in slot_keys(frame) - honours}
    roles = {k.split(":")[1] for k in slot_keys(frame) - honours if ":" in k}
    said = {
        "person": [f"{p.role} {p.resolved or p.said}" for p in frame.people if p.role in roles],
        "period": [f"{frame.period.event} {frame.period.label}"] if frame.period else [],
        "scope": ["in " + ", ".join(frame.scope.projects + frame.scope.spaces + frame.scope.repositories)],
        "type": ["type " + " or ".join(frame.issue_types)],
        "state": ["status " + " or ".join(frame.statuses)] if frame.statuses else [str(frame.category)],
        "priority": ["priority " + " or ".join(frame.priorities)],
        "version": ["fix version " + " or ".join(frame.versions)],
        "label": ["label " + " or ".join(frame.labels)],
    }
    unread = [f"{w!r} (not read as a condition)" for w in frame.unread]
    return [s for slot in sorted(missing) for s in said[slot]] + unread
