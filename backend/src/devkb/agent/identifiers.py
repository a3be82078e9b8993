"""Structured lookups read off a question by rules: issue keys, commit SHAs, pull request
numbers, file paths, repositories, quoted titles, project keys, spaces, dates.

Every lookup is a ``Lookup``: field → values for the store's structured find, where field names
are members of ``FIND_FIELDS`` and values are data (bound as query parameters by the store).
Several lookups are run separately and their results merged, so "FLUID-1 and commit abc…"
finds both instead of AND-ing them into nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from devkb.agent.patterns import (
    FILE_NAME,
    ISSUE_KEY,
    PATH,
    PROJECT,
    PULL,
    QUOTED,
    REPOSITORY,
    SHA,
    SPACE,
)
from devkb.agent.words import scan, spans, table, tokens_of, words_of
from devkb.store.models import FIND_FIELDS

# the states and types a project lookup filters by, as word patterns → their stored name
STATUS_WORDS = table(
    ("open", "open"),
    ("closed", "closed"),
    ("resolved", "resolved"),
    ("reopened", "reopened"),
    ("in progress", "in progress"),
)
ISSUE_TYPE_WORDS = table(
    ("bug|bugs", "bug"),
    ("task|tasks", "task"),
    ("improvement|improvements", "improvement"),
    ("new feature|features", "new feature"),
    ("sub task|tasks", "sub-task"),
    ("subtask|subtasks", "sub-task"),
    ("stories|story", "story"),
    ("epic|epics", "epic"),
)
# words after a key that make it a project's: "achecker bugs", "in floe project"
_PROJECT_NOUNS = frozenset(
    ("issue", "issues", "ticket", "tickets", "bug", "bugs", "task", "tasks", "project")
)


def statuses_in(words: Sequence[str]) -> list[str]:
    """The statuses ``words`` name, in order ("open", "in progress", …)."""
    return list(dict.fromkeys(m for _, m in scan(STATUS_WORDS, words)))


def issue_types_in(words: Sequence[str]) -> list[str]:
    """The issue types ``words`` name, in order, as :func:`issue_type` reads them."""
    return list(dict.fromkeys(m for _, m in scan(ISSUE_TYPE_WORDS, words)))


@dataclass(frozen=True)
class Lookup:
    """One structured find: ``filters`` ANDed, each value list ORed."""

    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    title_contains: str | None = None
    updated_from: str | None = None
    updated_to: str | None = None
    label: str = ""  # what it looks for, for the tool call log

    def __post_init__(self) -> None:
        unknown = set(self.filters) - set(FIND_FIELDS)
        if unknown:
            raise ValueError(f"not a filter field: {sorted(unknown)}")

    def arguments(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: list(v) if len(v) > 1 else v[0] for k, v in self.filters.items()}
        for k in ("title_contains", "updated_from", "updated_to"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        return out


@dataclass(frozen=True)
class QuestionLookups:
    lookups: tuple[Lookup, ...]
    kinds: frozenset[str]  # issue | commit | pull | file | page | repository | project | space

    @property
    def anchored(self) -> bool:
        return bool(self.lookups)


def read_lookups(
    question: str, project_keys: Iterable[str] = (), today: date | None = None
) -> QuestionLookups:
    """The structured lookups a question names (none when it names no identifier)."""
    known = {k.upper() for k in project_keys}
    lookups: list[Lookup] = []
    kinds: set[str] = set()
    date_from, date_to = _dates(question, today)

    keys = _issue_keys(question, known)
    if keys:
        lookups.append(Lookup({"key": tuple(keys)}, label="issue"))
        kinds.add("issue")
    shas = list(dict.fromkeys(SHA.findall(question)))
    if shas:
        lookups.append(Lookup({"sha": tuple(shas)}, label="commit"))
        kinds.add("commit")
    pulls = list(dict.fromkeys(a or b for a, b in PULL.findall(question)))
    if pulls:
        lookups.append(Lookup({"kind": ("pull",), "number": tuple(pulls)}, label="pull"))
        kinds.add("pull")
    paths = list(dict.fromkeys(PATH.findall(question)))
    if paths:
        lookups.append(Lookup({"path": tuple(paths)}, label="file"))
        kinds.add("file")
    else:
        for name in dict.fromkeys(FILE_NAME.findall(question)):
            lookups.append(Lookup({"kind": ("file",)}, title_contains=name, label="file"))
            kinds.add("file")
    if not paths:
        repos = list(dict.fromkeys((a or b).rstrip(".") for a, b in REPOSITORY.findall(question)))
        if repos:
            lookups.append(
                Lookup(
                    {"repository": tuple(repos)},
                    updated_from=date_from,
                    updated_to=date_to,
                    label="repository",
                )
            )
            kinds.add("repository")
    for title in dict.fromkeys(t.strip() for t in QUOTED.findall(question)):
        if not ISSUE_KEY.fullmatch(title):
            lookups.append(Lookup({}, title_contains=title, label="title"))
            kinds.add("page")
    spaces = list(dict.fromkeys(a or b for a, b in SPACE.findall(question)))
    if spaces:
        lookups.append(
            Lookup({"space": tuple(spaces)}, updated_from=date_from, updated_to=date_to, label="space")
        )
        kinds.add("space")
    if not keys:
        projects = _projects(question, known)
        if projects:
            filters: dict[str, tuple[str, ...]] = {"project": tuple(projects)}
            words = words_of(question)
            statuses = [s.title() for s in statuses_in(words)]
            if statuses:
                filters["status"] = tuple(statuses)
            types = [issue_type(t) for t in issue_types_in(words)]
            if types:
                filters["issue_type"] = tuple(dict.fromkeys(types))
            lookups.append(Lookup(filters, updated_from=date_from, updated_to=date_to, label="project"))
            kinds.add("project")
    return QuestionLookups(tuple(lookups), frozenset(kinds))


def _issue_keys(question: str, known: set[str]) -> list[str]:
    out: dict[str, None] = {}
    for m in ISSUE_KEY.finditer(question):
        project, number = m.group(1), m.group(2)
        if project.isupper() or project.upper() in known:
            if (
                project.upper() in {"UTF", "ISO", "SHA", "MD", "HTTP", "PR", "WCAG"}
                and project.upper() not in known
            ):
                continue
            out.setdefault(f"{project.upper()}-{number}", None)
    return list(out)


def _projects(question: str, known: set[str]) -> list[str]:
    found = [a or b for a, b in PROJECT.findall(question)]
    if known:
        tokens = tokens_of(question)
        found += [t for t in tokens if _key_like(t) and t.isupper() and t in known]
        # a known key in any case where it names a project: "achecker bugs", "in floe project"
        at = spans(question)
        found += [
            t.upper()
            for i, (t, nxt) in enumerate(zip(tokens, tokens[1:], strict=False))
            if nxt.lower() in _PROJECT_NOUNS
            and _key_like(t)
            and t.upper() in known
            and question[at[i][1] : at[i + 1][0]].isspace()  # "floe project", not "fluid-project/…"
        ]
    return list(dict.fromkeys(found))


def _key_like(word: str) -> bool:
    """A project key's shape: a letter, then 1–9 letters or digits."""
    return 2 <= len(word) <= 10 and word.isascii() and word.isalnum() and word[0].isalpha()


def issue_type(word: str) -> str:
    w = word.lower().rstrip("s")
    return {
        "bug": "Bug",
        "task": "Task",
        "improvement": "Improvement",
        "new feature": "New Feature",
        "sub-task": "Sub-task",
        "subtask": "Sub-task",
        "storie": "Story",
        "story": "Story",
        "epic": "Epic",
    }.get(w, word.title())


def _dates(question: str, today: date | None) -> tuple[str | None, str | None]:
    """The period the question names, as a lookup's ``updated_from`` / ``updated_to`` (both ends
    inclusive; an open end None): read by the product's one time parser
    (:func:`devkb.agent.history.when.window_in`)."""
    from devkb.agent.history.when import today_local, window_in  # history imports this module

    window = window_in(question, today or today_local())
    if window is None:
        return None, None
    start = window.start[:19].removesuffix("T00:00:00") or None
    if window.label.startswith(("since", "after")):
        return start, None
    last = datetime.fromisoformat(window.end) - timedelta(seconds=1)
    return start, last.strftime("%Y-%m-%dT%H:%M:%S")
