"""The document filters: one typed model for every face that finds documents by their fields — the
agent's ``GraphQuery`` tool, MCP ``find`` and the API's ``GET /documents``.

Each field maps to a store filter field (a member of ``FIND_FIELDS``) or to the title / updated
range of a :class:`~devkb.agent.identifiers.Lookup`; values are data, bound as query parameters by
the store. The faces that take flat keyword arguments (the agent's tool schema, MCP) read their
parameters off this model (:func:`keyword_parameters`), so a new filter is one field here.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema, field_validator

from devkb.agent.identifiers import Lookup
from devkb.errors import InvalidQueryError
from devkb.store.models import FIND_FIELDS

MAX_VALUE_CHARS = 200
Text = Annotated[str | None, Field(max_length=MAX_VALUE_CHARS)]
FROM_DAY = "Only documents updated on or after this date (YYYY-MM-DD)."
TO_DAY = "Only documents updated on or before this date (YYYY-MM-DD)."


def _day_schema(description: str) -> WithJsonSchema:
    """A day (YYYY-MM-DD; a date-time is cut to its day), described in the schema as a date."""
    return WithJsonSchema(
        {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}], "description": description}
    )


class DocumentFilters(BaseModel):
    """Fields a document must match (ANDed); ``key`` takes several keys, comma-separated."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    key: Annotated[
        Text, Field(description="Jira issue key(s), e.g. FLUID-5327; comma-separated for several.")
    ] = None
    project: Annotated[Text, Field(description="Jira project key, e.g. FLUID.")] = None
    issue_type: Annotated[
        Text, Field(description="Jira issue type: Bug, Task, Improvement, New Feature, ...")
    ] = None
    status: Annotated[Text, Field(description="Jira status: Open, Closed, Resolved, In Progress, ...")] = None
    priority: Annotated[
        Text, Field(description="Jira priority: Blocker, Critical, Major, Minor, Trivial.")
    ] = None
    resolution: Annotated[Text, Field(description="Jira resolution: Fixed, Won't Fix, Duplicate, ...")] = None
    assignee: Annotated[Text, Field(description="Assignee's display name.")] = None
    reporter: Annotated[Text, Field(description="Reporter's display name.")] = None
    component: Annotated[Text, Field(description="Jira component name.")] = None
    fix_version: Annotated[Text, Field(description="Jira fix version, e.g. 1.5.")] = None
    label: Annotated[Text, Field(description="Jira label.")] = None
    repository: Annotated[Text, Field(description="GitHub repository as owner/name.")] = None
    path: Annotated[Text, Field(description="File path inside a repository.")] = None
    kind: Annotated[
        Literal["file", "pull", "commit", "issue"] | None, Field(description="GitHub document kind.")
    ] = None
    number: Annotated[int | None, Field(ge=1, description="Pull request number.")] = None
    sha: Annotated[Text, Field(description="Full 40-character commit SHA.")] = None
    author: Annotated[Text, Field(description="Commit or pull request author.")] = None
    space: Annotated[Text, Field(description="Confluence space key.")] = None
    title: Annotated[Text, Field(description="Text the document title contains.")] = None
    updated_from: Annotated[str | None, Field(max_length=40, description=FROM_DAY), _day_schema(FROM_DAY)] = (
        None
    )
    updated_to: Annotated[str | None, Field(max_length=40, description=TO_DAY), _day_schema(TO_DAY)] = None

    @field_validator("updated_from", "updated_to")
    @classmethod
    def _day(cls, value: str | None) -> str | None:
        if not value:
            return None
        try:
            return datetime.fromisoformat(value).date().isoformat()
        except ValueError as e:
            raise ValueError(f"must be a date like 2014-05-20, not {value!r}") from e

    @classmethod
    def parse(cls, values: DocumentFilters | Mapping[str, Any] | None) -> DocumentFilters:
        """The model from a mapping (an LLM's or a caller's arguments); a bad value or an unknown
        field is an :class:`InvalidQueryError` naming it."""
        if isinstance(values, DocumentFilters):
            return values
        try:
            return cls.model_validate({k: v for k, v in (values or {}).items() if v not in (None, "", [])})
        except ValidationError as e:
            raise InvalidQueryError(describe(e)) from e

    def is_empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())

    def lookup(self) -> Lookup | None:
        """The structured find these filters ask for; None when no field is set."""
        filters: dict[str, tuple[str, ...]] = {}
        for name in STORE_FIELDS:
            raw = getattr(self, name)
            if raw is None:
                continue
            values = str(raw).split(",") if name == "key" else [str(raw)]
            cleaned = tuple(dict.fromkeys(" ".join(v.split()) for v in values if v.strip()))
            if cleaned:
                filters[name] = tuple(v.upper() for v in cleaned) if name == "key" else cleaned
        if not filters and not self.title and not self.updated_from and not self.updated_to:
            return None
        return Lookup(
            filters,
            title_contains=" ".join(self.title.split()) if self.title else None,
            updated_from=self.updated_from,
            updated_to=self.updated_to,
            label="fields",
        )


# fields that are store filter fields of the same name (title and the updated range are not)
STORE_FIELDS = tuple(
    n for n in DocumentFilters.model_fields if n not in ("title", "updated_from", "updated_to")
)
assert set(STORE_FIELDS) <= set(FIND_FIELDS), set(STORE_FIELDS) - set(FIND_FIELDS)


def describe(error: ValidationError) -> str:
    """A validation error as one line a person (or a model) can act on."""
    parts = []
    for e in error.errors():
        where = ".".join(str(p) for p in e["loc"]) or "filters"
        what = (
            "is not a filter field"
            if e["type"] == "extra_forbidden"
            else e["msg"].removeprefix("Value error, ")
        )
        parts.append(f"{where} {what}")
    return "; ".join(parts)


def keyword_parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """The model's fields as keyword-only parameters (type, default, description and constraints
    kept), for faces that read a function's signature (the MCP SDK)."""
    return [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=info.default,
            annotation=Annotated[info.annotation, Field(description=info.description), *info.metadata],
        )
        for name, info in model.model_fields.items()
    ]
