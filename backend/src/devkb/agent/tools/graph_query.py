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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any

from haystack.tools.tool import Tool
from pydantic import Field, ValidationError

from devkb.access.scoped_store import ReaderStore
from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.history.compose import value_at
from devkb.agent.identifiers import Lookup, read_lookups
from devkb.agent.patterns import DOCUMENT_ID, ISO_INSTANT
from devkb.agent.tools.content import load_content
from devkb.agent.tools.filters import DocumentFilters, describe
from devkb.agent.tools.rendering import render_documents
from devkb.errors import InvalidQueryError
from devkb.store.models import Document

NAME = "GraphQuery"
MAX_LIMIT = 25
CONTENT_CHARS = 4000

DESCRIPTION = (
    "Exact lookup of documents by identifiers and fields: Jira issue keys (FLUID-123), project, "
    "status, issue type, assignee; GitHub repository, file path, pull request number, commit SHA, "
    "author; Confluence space and page title; an updated date range. Pass the user's question as "
    "`question` (identifiers in it are looked up automatically) and/or fill in fields. Returns the "
    "full text of each document found."
)


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
        fields: DocumentFilters | Mapping[str, Any] | None = None,
        lookups: Sequence[Lookup] | None = None,
    ) -> list[Lookup]:
        """The structured finds a question and explicit fields ask for (deterministic); ``lookups``
        already read off the question (the planner's parse) are used as they are."""
        if lookups is not None:
            found = list(lookups)
        else:
            found = list(read_lookups(question, self.project_keys()).lookups) if question else []
        explicit = DocumentFilters.parse(fields).lookup()
        if explicit is not None:
            found.append(explicit)
        return found

    def run(
        self,
        scope: Scope,
        question: str = "",
        fields: DocumentFilters | Mapping[str, Any] | None = None,
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
            if value is not None and not ISO_INSTANT.match(str(value)):
                raise InvalidQueryError(f"{name} must be a date like 2014-05-20, not {value!r}")
        at = f"{as_of[:10]}T23:59:59+00:00" if as_of else None
        filters = DocumentFilters.parse(fields)
        past: dict[str, tuple[str, ...]] = {}
        if at is not None:
            for name in AS_OF_FIELDS:
                value = getattr(filters, name)
                if value:
                    past[name] = tuple(v.strip().lower() for v in str(value).split(",") if v.strip())
            filters = filters.model_copy(update=dict.fromkeys(past))
        lookups = self.lookups_for(question, filters, lookups)
        ids = [i for i in dict.fromkeys(document_ids or []) if DOCUMENT_ID.match(i)][:MAX_LIMIT]
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
        def graph_query(**arguments: Any) -> str:
            try:
                args = GraphQueryArguments.model_validate(arguments)
            except ValidationError as e:
                raise InvalidQueryError(describe(e)) from e
            filters = DocumentFilters.model_validate(
                args.model_dump(include=set(DocumentFilters.model_fields))
            )
            docs = self.run(
                scope,
                args.question,
                filters,
                args.document_ids,
                args.limit or self.limit,
                changed_from=args.changed_from,
                changed_to=args.changed_to,
                as_of=args.as_of,
            )
            return render_documents(scope, docs, "GraphQuery results")

        return Tool(
            name=NAME,
            description=DESCRIPTION,
            parameters=GraphQueryArguments.model_json_schema(),
            function=graph_query,
        )


class GraphQueryArguments(DocumentFilters):
    """The tool's arguments as the model sees them: the document filters and what only the agent's
    tool takes (the question to read identifiers from, ids to fetch, the change range, as-of)."""

    question: Annotated[
        str, Field(description="The user's question; identifiers in it are looked up exactly.")
    ] = ""
    document_ids: Annotated[
        list[str] | None,
        Field(description="Fetch these document ids (e.g. jira:FLUID-1)."),
    ] = None
    changed_from: Annotated[
        str | None,
        Field(
            description="Only documents changed (edited, transitioned, committed) on or after this date (YYYY-MM-DD)."
        ),
    ] = None
    changed_to: Annotated[
        str | None, Field(description="Only documents changed on or before this date (YYYY-MM-DD).")
    ] = None
    as_of: Annotated[
        str | None,
        Field(
            description="Match status, assignee, resolution and fix_version as they were on this date (YYYY-MM-DD)."
        ),
    ] = None
    limit: Annotated[int | None, Field(description="Maximum number of documents (1-25).")] = None


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
