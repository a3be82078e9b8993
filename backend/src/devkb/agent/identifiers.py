"""Structured lookups read off a question by rules: issue keys, commit SHAs, pull request
numbers, file paths, repositories, quoted titles, project keys, spaces, dates.

Every lookup is a ``Lookup``: field → values for the store's structured find, where field names
are members of ``FIND_FIELDS`` and values are data (bound as query parameters by the store).
Several lookups are run separately and their results merged, so "FLUID-1 and commit abc…"
finds both instead of AND-ing them into nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from devkb.store.models import FIND_FIELDS

ISSUE_KEY = re.compile(r"(?<![A-Za-z0-9_/\-])([A-Za-z][A-Za-z0-9]{1,9})-([1-9][0-9]{0,6})(?![A-Za-z0-9_])")
SHA = re.compile(r"(?<![0-9A-Za-z])([0-9a-f]{40})(?![0-9A-Za-z])")
PULL = re.compile(
    r"\b(?:pull\s+requests?|PRs?|pulls?|merge\s+requests?)\s*(?:number\s*)?#?\s*(\d{1,7})\b|(?<![\w&])#(\d{1,7})\b",
    re.IGNORECASE,
)
PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,6})(?![\w/])")
FILE_NAME = re.compile(r"(?<![\w/.-])([\w-]{2,}\.(?:md|markdown|json|txt|html|ya?ml|py))\b")
_REPO = r"([A-Za-z0-9][\w.-]{0,38}/[A-Za-z0-9][\w.-]{0,99})"
REPOSITORY = re.compile(
    rf"(?:\brepo(?:sitory)?\s+|github\.com/){_REPO}(?![\w/])|(?<![\w/.-]){_REPO}\s+repo(?:sitory)?\b",
    re.IGNORECASE,
)
QUOTED = re.compile(r"[\"“”]([^\"“”]{3,120})[\"“”]")
SPACE = re.compile(r"\b(?:space\s+([A-Z][A-Z0-9]{1,15})\b|([A-Z][A-Z0-9]{1,15})\s+space\b)")
PROJECT_WORD = re.compile(r"\b(?:project\s+([A-Z][A-Z0-9]{1,9})\b|([A-Z][A-Z0-9]{1,9})\s+project\b)")
DATE = re.compile(r"\b(since|after|from|before|until|by|in)\s+(\d{4}(?:-\d{2}(?:-\d{2})?)?)\b", re.IGNORECASE)
STATUS = re.compile(r"\b(open|closed|resolved|reopened|in progress)\b", re.IGNORECASE)
ISSUE_TYPE_WORDS = r"bugs?|tasks?|improvements?|new features?|sub-?tasks?|stories|story|epics?"
ISSUE_TYPE = re.compile(rf"\b({ISSUE_TYPE_WORDS})\b", re.IGNORECASE)


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


def read_lookups(question: str, project_keys: Iterable[str] = ()) -> QuestionLookups:
    """The structured lookups a question names (none when it names no identifier)."""
    known = {k.upper() for k in project_keys}
    lookups: list[Lookup] = []
    kinds: set[str] = set()
    date_from, date_to = _dates(question)

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
            statuses = [s.title() for s in dict.fromkeys(m.lower() for m in STATUS.findall(question))]
            if statuses:
                filters["status"] = tuple(statuses)
            types = [issue_type(t) for t in dict.fromkeys(m.lower() for m in ISSUE_TYPE.findall(question))]
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
    found = [a or b for a, b in PROJECT_WORD.findall(question)]
    if known:
        found += [w for w in re.findall(r"\b[A-Z][A-Z0-9]{1,9}\b", question) if w in known]
        # a known key in any case where it names a project: "achecker bugs", "in floe project"
        found += [
            w.upper()
            for w in re.findall(
                r"\b([A-Za-z][A-Za-z0-9]{1,9})\s+(?:issues?|tickets?|bugs?|tasks?|project)\b", question
            )
            if w.upper() in known
        ]
    return list(dict.fromkeys(found))


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


def _dates(question: str) -> tuple[str | None, str | None]:
    start = end = None
    for word, value in DATE.findall(question):
        w = word.lower()
        if w in ("since", "after", "from"):
            start = _pad(value, low=True)
        elif w in ("before", "until", "by"):
            end = _pad(value, low=False)
        elif w == "in":
            start, end = _pad(value, low=True), _pad(value, low=False)
    return start, end


def _pad(value: str, low: bool) -> str:
    parts = value.split("-")
    if len(parts) == 1:
        return f"{value}-01-01" if low else f"{value}-12-31T23:59:59"
    if len(parts) == 2:
        return f"{value}-01" if low else f"{value}-31T23:59:59"
    return value if low else f"{value}T23:59:59"
