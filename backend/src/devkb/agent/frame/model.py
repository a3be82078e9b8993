"""The question frame: what a question asks, understood once, as typed data.

One extractor (:mod:`devkb.agent.frame.extract`) — or a language model filling the same JSON
schema (:mod:`devkb.agent.frame.llm`) — turns a question into a :class:`Frame`: its **shape**
(count, list, rank, who, when, look up, compare, history, search, remember, recall, …) and its
**slots** — the conditions every answer is held to:

==========  =====================================================================
slot        what it holds
==========  =====================================================================
person      people with their role (assignee, reporter, author, commenter, mover,
            involved), each resolved against the store or reported unresolved
period      one window ``[start, end)`` (UTC ISO) and the event it dates (created,
            resolved, updated)
scope       projects (Jira), spaces (Confluence), repositories (GitHub)
type        issue types (Bug, Task, …) or document kinds (pull, commit, page, file)
state       statuses named ("Open", "In Progress") or a category (resolved / unresolved)
priority    priorities (Blocker, Major, …)
version     fix versions / releases
label       labels and components
order       newest / oldest / most, and a limit
==========  =====================================================================

A slot the route's executor does not honour is never dropped silently: the route picks an
executor that honours it, or the answer says which condition it could not apply
(:mod:`devkb.agent.frame.route`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Shape = Literal[
    "count", "list", "rank", "who", "when", "lookup", "compare", "history", "changed", "search",
    "remember", "recall",
]  # fmt: skip
Role = Literal["assignee", "reporter", "author", "commenter", "mover", "involved"]
Event = Literal["created", "resolved", "updated"]
Category = Literal["resolved", "unresolved"]
SLOTS: tuple[str, ...] = ("person", "period", "scope", "type", "state", "priority", "version", "label")


class _Slot(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Person(_Slot):
    said: str = Field(description="the name as the question says it")
    role: Role = "involved"
    resolved: str | None = Field(None, description="the full name the store knows; None: nobody found")
    candidates: tuple[str, ...] = Field((), description="two or more people who fit a partial name")
    asker: bool = Field(
        False, description='the person asking ("assigned to me", "my bugs"): said holds their name'
    )


class Period(_Slot):
    start: str = Field(description='window start, UTC ISO-8601, inclusive ("" = since the beginning)')
    end: str = Field(description="window end, UTC ISO-8601, exclusive")
    label: str = Field(description='how the answer names it ("in February 2011", "this week")')
    event: Event = "created"


class Scope(_Slot):
    projects: tuple[str, ...] = ()
    spaces: tuple[str, ...] = ()
    repositories: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = Field((), description="scope names the store does not know")


class Frame(_Slot):
    """One question, understood."""

    text: str
    shape: Shape = "search"
    documents: tuple[str, ...] = Field((), description="documents named: issue keys, titles, paths, URLs")
    people: tuple[Person, ...] = ()
    period: Period | None = None
    scope: Scope = Scope()
    issue_types: tuple[str, ...] = ()
    kinds: tuple[str, ...] = Field(
        (), description="document kinds asked for: issue, pull, commit, page, file"
    )
    statuses: tuple[str, ...] = ()
    category: Category | None = None
    priorities: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    order: Literal["newest", "oldest", "most"] | None = None
    rank_by: Role | None = Field(None, description="a ranking: the role people are counted in")
    limit: int | None = None
    topic: str = Field("", description="the words left once the conditions are read (what it is about)")
    statement: bool = Field(False, description="a statement, not a question (no question mark or opener)")
    # the question forms its words take (the form tables of agent/frame/phrases.py, read by
    # agent/frame/match.py): form → its captures as written ("person_work" → {"name": "Priya"})
    forms: dict[str, dict[str, str]] = Field(default_factory=dict)
    state_words: tuple[str, ...] = Field((), description="status words as said, in order (Open, In Progress)")
    field_words: tuple[str, ...] = Field(
        (),
        description='the words that ask for a field ("who is assigned", "status"): the rest names a document',
    )

    any_documents: bool = Field(
        False,
        description='the question counts documents of any kind ("closed items in FLUID", "anything X filed")',
    )

    unread: tuple[str, ...] = Field(
        (), description="words that say a condition the question's reading left unread (a priority, a year)"
    )

    def form(self, name: str) -> dict[str, str] | None:
        """The captures of the form ``name`` when the question takes it, else None."""
        return self.forms.get(name)

    def takes(self, *names: str) -> bool:
        """Whether the question takes one of the forms ``names``."""
        return any(n in self.forms for n in names)

    def slots(self) -> frozenset[str]:
        """The condition slots this frame fills (``SLOTS``)."""
        have = {
            "person": bool(self.people),
            "period": self.period is not None,
            "scope": bool(self.scope.projects or self.scope.spaces or self.scope.repositories),
            "type": bool(self.issue_types),
            "state": bool(self.statuses or self.category),
            "priority": bool(self.priorities),
            "version": bool(self.versions),
            "label": bool(self.labels),
        }
        return frozenset(k for k, v in have.items() if v)

    def unresolved(self) -> list[str]:
        """What the question names that the store does not know, as the answer reports it."""
        out = [
            _unknown_asker(p.said) if p.asker else f"nobody named {p.said!r}"
            for p in self.people
            if p.resolved is None and not p.candidates
        ]
        out += [f"{p.said!r} could be {' or '.join(p.candidates)}" for p in self.people if p.candidates]
        out += [f"no project, space or repository named {s!r}" for s in self.scope.unresolved]
        return out

    def person_work(self, person: Person) -> bool:
        """Whether ``person`` asks for a person's work — assigned to them or written by them
        (issues, commits, pull requests, pages) — as the conditions executor reads it: an assignee
        or someone involved, in a question that names no kind of document."""
        return person.role in ("assignee", "involved") and not self.kinds

    def describe(self, work: bool = False) -> list[str]:
        """Each condition as the answer names it ("assignee Marcus Chen", "created in 2011");
        ``work``: the executor reads a person's work (:meth:`person_work`) as assigned or
        written, and says so ("assignee or author Marcus Chen"). None for a statement to
        remember: its dates and names are what is remembered, not conditions on anything."""
        out: list[str] = []
        if self.shape == "remember":
            return out
        for p in self.people:
            said = "assignee or author" if work and self.person_work(p) else _ROLE_SAID[p.role]
            out.append(f"{said} {p.resolved or p.said}")
        if self.scope.projects:
            out.append("project " + " or ".join(self.scope.projects))
        if self.scope.spaces:
            out.append("space " + " or ".join(self.scope.spaces))
        if self.scope.repositories:
            out.append("repository " + " or ".join(self.scope.repositories))
        if self.issue_types:
            out.append("type " + " or ".join(self.issue_types))
        if self.statuses:
            out.append("status " + " or ".join(self.statuses))
        if self.category:
            out.append(self.category)
        if self.priorities:
            out.append("priority " + " or ".join(self.priorities))
        if self.versions:
            out.append("fix version " + " or ".join(self.versions))
        if self.labels:
            out.append("label/component " + " or ".join(self.labels))
        if self.period is not None:  # a search keeps what was created or updated in the period
            event: str = self.period.event
            if self.shape == "search" and event == "created":
                event = "created or updated"
            out.append(f"{event} {self.period.label}")
        return out


def _unknown_asker(name: str) -> str:
    """Why "me" could not be applied: the asker's name is in none of the documents they may read,
    or their account holds no name (a server without accounts, a token without a person)."""
    if not name:
        return "I do not know who you are in the sources (you are not signed in as a named person)"
    return f"you ({name}) are named in none of the documents you can read"


_ROLE_SAID: dict[str, str] = {
    "assignee": "assignee",
    "reporter": "reported by",
    "author": "author",
    "commenter": "commented on by",
    "mover": "moved by",
    "involved": "involving",
}
