"""``GraphQuery``: exact lookups in the graph — an issue by key, a commit by SHA, a pull request
by number, a file by path, a page by title, issues by project/status/assignee, a date range.

Filters come from two places: rules that read identifiers off the question
(:mod:`devkb.agent.identifiers`), and typed tool arguments the model fills in. Either way the
store receives a ``{field: values}`` mapping whose field names are members of ``FIND_FIELDS``
(checked here and again by the store) and whose values are bound as parameters. No text written
by the model is ever used as a query string. Each document found is returned with its content
rebuilt from its chunks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal

from haystack.tools.from_function import create_tool_from_function
from haystack.tools.tool import Tool

from devkb.access.scoped_store import ReaderStore
from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.history.compose import value_at
from devkb.agent.identifiers import Lookup, read_lookups
from devkb.agent.tools.content import load_content
from devkb.agent.tools.rendering import render_documents
from devkb.errors import InvalidQueryError
from devkb.store.models import FIND_FIELDS, Document

NAME = "GraphQuery"
MAX_VALUE_CHARS = 200
MAX_LIMIT = 25
CONTENT_CHARS = 4000
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$")
_DOC_ID = re.compile(r"^[a-z]+:[^\s]{1,500}$")

DESCRIPTION = (
    "Exact lookup of documents by identifiers and fields: Jira issue keys (FLUID-123), project, "
    "status, issue type, assignee; GitHub repository, file path, pull request number, commit SHA, "
    "author; Confluence space and page title; an updated date range. Pass the user's question as "
    "`question` (identifiers in it are looked up automatically) and/or fill in fields. Returns the "
    "full text of each document found."
)

# Tool argument → store filter field. Every value must be a member of FIND_FIELDS.
ARGUMENT_FIELDS: dict[str, str] = {
    "key": "key",
    "project": "project",
    "issue_type": "issue_type",
    "status": "status",
    "priority": "priority",
    "resolution": "resolution",
    "assignee": "assignee",
    "reporter": "reporter",
    "component": "component",
    "fix_version": "fix_version",
    "label": "label",
    "repository": "repository",
    "path": "path",
    "kind": "kind",
    "number": "number",
    "sha": "sha",
    "author": "author",
    "space": "space",
}
assert set(ARGUMENT_FIELDS.values()) <= set(FIND_FIELDS)


class GraphQuery:
    name = NAME

    def __init__(
        self, store: ReaderStore, project_keys: Callable[[], Iterable[str]] | None = None, limit: int = 10
    ) -> None:
        self.store = store
        self.project_keys = project_keys or (lambda: ())
        self.limit = limit

    def lookups_for(
        self,
        question: str = "",
        fields: Mapping[str, Any] | None = None,
        lookups: Sequence[Lookup] | None = None,
    ) -> list[Lookup]:
        """The structured finds a question and explicit fields ask for (deterministic); ``lookups``
        already read off the question (the planner's parse) are used as they are."""
        if lookups is not None:
            found = list(lookups)
        else:
            found = list(read_lookups(question, self.project_keys()).lookups) if question else []
        explicit = _explicit_lookup(fields or {})
        if explicit is not None:
            found.append(explicit)
        return found

    def run(
        self,
        scope: Scope,
        question: str = "",
        fields: Mapping[str, Any] | None = None,
        document_ids: Sequence[str] | None = None,
        limit: int | None = None,
        label: str | None = None,
        lookups: Sequence[Lookup] | None = None,
        changed_from: str | None = None,
        changed_to: str | None = None,
        as_of: str | None = None,
    ) -> list[EvidenceDoc]:
        """``changed_from``/``changed_to`` (dates): only documents with a version (page edit, Jira
        transition, commit) in that range, newest change first. ``as_of`` (a date): the Jira
        fields status, assignee, resolution and fix version match their values at the end of that
        day (docs/history.md) instead of today's."""
        k = max(1, min(int(limit or self.limit), MAX_LIMIT))
        for name, value in (("changed_from", changed_from), ("changed_to", changed_to), ("as_of", as_of)):
            if value is not None and not _DATE.match(str(value)):
                raise InvalidQueryError(f"{name} must be a date like 2014-05-20, not {value!r}")
        at = f"{as_of[:10]}T23:59:59+00:00" if as_of else None
        past: dict[str, tuple[str, ...]] = {}
        if at is not None and fields:
            fields = dict(fields)
            for name in AS_OF_FIELDS:
                if fields.get(name):
                    past[name] = tuple(
                        v.strip().lower() for v in str(fields.pop(name)).split(",") if v.strip()
                    )
        lookups = self.lookups_for(question, fields, lookups)
        ids = [i for i in dict.fromkeys(document_ids or []) if _DOC_ID.match(i)][:MAX_LIMIT]
        found: dict[str, Document] = {}
        if ids:
            for d in self.store.get_documents(ids):
                if scope.allows(d):
                    found.setdefault(d.id, d)
        for lookup in lookups:
            for d in self.store.find_documents(
                {f: list(v) for f, v in lookup.filters.items()},
                types=scope.allowed_types,
                title_contains=lookup.title_contains,
                updated_from=lookup.updated_from,
                updated_to=lookup.updated_to,
                limit=CANDIDATES if (past or changed_from or changed_to) else k,
            ):
                if scope.allows(d):
                    found.setdefault(d.id, d)
        if changed_from or changed_to:
            start = f"{changed_from[:10]}T00:00:00+00:00" if changed_from else ""
            end = f"{changed_to[:10]}T23:59:59+00:00" if changed_to else "9999"
            changes = self.store.changes_between(
                start, end, types=scope.allowed_types, document_ids=list(found) if found else None, limit=5000
            )
            newest = list(dict.fromkeys(v.document_id for v in changes))
            if found or lookups or ids:
                found = {i: found[i] for i in newest if i in found}
            else:
                found = {d.id: d for d in self.store.get_documents(newest[: k * 4]) if scope.allows(d)}
        if past:
            if not (lookups or ids):
                raise InvalidQueryError("as_of needs a project, key or other field to look in")
            found = {i: d for i, d in found.items() if _held(self.store, d, past, at or "")}
        docs = []
        for d in list(found.values())[:k]:
            text = load_content(self.store, d.id, CONTENT_CHARS) or d.title
            docs.append(EvidenceDoc(d, (text,), 1.0, NAME))
        accepted = scope.add(docs)
        arguments: dict[str, Any] = {"lookups": [lk.arguments() for lk in lookups]}
        if ids:
            arguments["document_ids"] = ids
        for name, value in (("changed_from", changed_from), ("changed_to", changed_to), ("as_of", as_of)):
            if value:
                arguments[name] = value
        if past:
            arguments["as_of_fields"] = {k2: list(v) for k2, v in past.items()}
        if label:
            arguments["reason"] = label
        scope.record(ToolCall(NAME, arguments, len(accepted)))
        return accepted

    def as_tool(self, scope: Scope) -> Tool:
        def graph_query(
            question: Annotated[str, "The user's question; identifiers in it are looked up exactly."] = "",
            key: Annotated[
                str | None, "Jira issue key(s), e.g. FLUID-5327; comma-separated for several."
            ] = None,
            project: Annotated[str | None, "Jira project key, e.g. FLUID."] = None,
            issue_type: Annotated[
                str | None, "Jira issue type: Bug, Task, Improvement, New Feature, ..."
            ] = None,
            status: Annotated[str | None, "Jira status: Open, Closed, Resolved, In Progress, ..."] = None,
            priority: Annotated[
                str | None, "Jira priority: Blocker, Critical, Major, Minor, Trivial."
            ] = None,
            resolution: Annotated[str | None, "Jira resolution: Fixed, Won't Fix, Duplicate, ..."] = None,
            assignee: Annotated[str | None, "Assignee's display name."] = None,
            reporter: Annotated[str | None, "Reporter's display name."] = None,
            component: Annotated[str | None, "Jira component name."] = None,
            fix_version: Annotated[str | None, "Jira fix version, e.g. 1.5."] = None,
            label: Annotated[str | None, "Jira label."] = None,
            repository: Annotated[str | None, "GitHub repository as owner/name."] = None,
            path: Annotated[str | None, "File path inside a repository."] = None,
            kind: Annotated[
                Literal["file", "pull", "commit", "issue"] | None, "GitHub document kind."
            ] = None,
            number: Annotated[int | None, "Pull request number."] = None,
            sha: Annotated[str | None, "Full 40-character commit SHA."] = None,
            author: Annotated[str | None, "Commit or pull request author."] = None,
            space: Annotated[str | None, "Confluence space key."] = None,
            title: Annotated[str | None, "Text the document title contains."] = None,
            updated_from: Annotated[
                str | None, "Only documents updated on or after this date (YYYY-MM-DD)."
            ] = None,
            updated_to: Annotated[
                str | None, "Only documents updated on or before this date (YYYY-MM-DD)."
            ] = None,
            document_ids: Annotated[list[str] | None, "Fetch these document ids (e.g. jira:FLUID-1)."] = None,
            changed_from: Annotated[
                str | None,
                "Only documents changed (edited, transitioned, committed) on or after this date (YYYY-MM-DD).",
            ] = None,
            changed_to: Annotated[
                str | None, "Only documents changed on or before this date (YYYY-MM-DD)."
            ] = None,
            as_of: Annotated[
                str | None,
                "Match status, assignee, resolution and fix_version as they were on this date (YYYY-MM-DD).",
            ] = None,
            limit: Annotated[int, "Maximum number of documents (1-25)."] = self.limit,
        ) -> str:
            fields = {
                "key": key,
                "project": project,
                "issue_type": issue_type,
                "status": status,
                "priority": priority,
                "resolution": resolution,
                "assignee": assignee,
                "reporter": reporter,
                "component": component,
                "fix_version": fix_version,
                "label": label,
                "repository": repository,
                "path": path,
                "kind": kind,
                "number": number,
                "sha": sha,
                "author": author,
                "space": space,
                "title": title,
                "updated_from": updated_from,
                "updated_to": updated_to,
            }
            docs = self.run(
                scope,
                question,
                fields,
                document_ids,
                limit,
                changed_from=changed_from,
                changed_to=changed_to,
                as_of=as_of,
            )
            return render_documents(scope, docs, "GraphQuery results")

        return create_tool_from_function(graph_query, name=NAME, description=DESCRIPTION)


CANDIDATES = 2000  # documents a lookup may return before the time filters narrow them
AS_OF_FIELDS = ("status", "assignee", "resolution", "fix_version")  # fields with transitions


def _held(store: ReaderStore, doc: Document, past: Mapping[str, tuple[str, ...]], at: str) -> bool:
    """Whether ``doc``'s fields had the wanted values at ``at`` (its stored transitions)."""
    transitions = store.versions(doc.id, ["transition"])
    for name, wanted in past.items():
        values, _ = value_at(doc, transitions, name.replace("_", " "), at)
        if not {v.lower() for v in values} & set(wanted):
            return False
    return True


def _explicit_lookup(fields: Mapping[str, Any]) -> Lookup | None:
    filters: dict[str, tuple[str, ...]] = {}
    title = updated_from = updated_to = None
    for name, raw in fields.items():
        if raw is None or raw == "" or raw == []:
            continue
        if name == "title":
            title = _value(name, raw)
        elif name in ("updated_from", "updated_to"):
            value = _value(name, raw)
            if not _DATE.match(value):
                raise InvalidQueryError(f"{name} must be a date like 2014-05-20, not {value!r}")
            updated_from, updated_to = (
                (value, updated_to) if name == "updated_from" else (updated_from, value)
            )
        elif name in ARGUMENT_FIELDS:
            values = (
                raw if isinstance(raw, (list, tuple)) else str(raw).split(",") if name == "key" else [raw]
            )
            cleaned = tuple(dict.fromkeys(_value(name, v) for v in values if str(v).strip()))
            if cleaned:
                filters[ARGUMENT_FIELDS[name]] = (
                    tuple(v.upper() for v in cleaned) if name == "key" else cleaned
                )
        else:
            raise InvalidQueryError(f"GraphQuery has no field {name!r}")
    if not filters and not title and not updated_from and not updated_to:
        return None
    return Lookup(
        filters, title_contains=title, updated_from=updated_from, updated_to=updated_to, label="fields"
    )


def _value(name: str, raw: Any) -> str:
    value = " ".join(str(raw).split())
    if not value or len(value) > MAX_VALUE_CHARS:
        raise InvalidQueryError(f"{name} must be 1-{MAX_VALUE_CHARS} characters")
    return value
