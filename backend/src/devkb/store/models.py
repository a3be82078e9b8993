"""The graph's data model, shared by every store backend.

``Document`` nodes hold metadata only; ``Chunk`` nodes hold text and one embedding each;
``(Chunk)-[:PART_OF]->(Document)``; ``(Document)-[:REFERENCES {kind, evidence}]->(Document)``.
Document ids are stable and readable: ``jira:FLUID-123``, ``confluence:page:<id>``,
``github:<owner>/<repo>:file:<path>`` / ``:pull:<n>`` / ``:commit:<sha>`` / ``:issue:<n>``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class SourceType(StrEnum):
    JIRA = "JIRA"
    CONFLUENCE = "CONFLUENCE"
    GITHUB = "GITHUB"
    FILES = "FILES"  # a directory of documents (sources/files)
    WEB = "WEB"  # a crawled documentation site (sources/web)
    UPLOAD = "UPLOAD"  # files people uploaded (api/routes/uploads.py)
    MEMORY = "MEMORY"  # what people and agents told devkb (memory/, docs/memory.md)

    @classmethod
    def parse(cls, value: str) -> SourceType:
        try:
            return cls(value.strip().upper())
        except ValueError as e:
            allowed = ", ".join(t.value.lower() for t in cls)
            raise ValueError(f"unknown source {value!r}; expected one of {allowed}") from e


@dataclass(frozen=True)
class Document:
    id: str
    type: SourceType
    title: str
    url: str = ""
    updated_at: str = ""  # ISO-8601
    content_hash: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # name of the configured source that produced it (e.g. "jira")


@dataclass(frozen=True)
class Chunk:
    id: str
    document_id: str
    chunk_index: int
    content: str
    embedding: list[float] | None = None
    section: str = ""  # heading or symbol path, for citations

    @staticmethod
    def make_id(document_id: str, chunk_index: int, content: str) -> str:
        h = hashlib.sha256(f"{document_id}\x00{chunk_index}\x00{content}".encode()).hexdigest()
        return h[:32]


@dataclass(frozen=True)
class Reference:
    """A REFERENCES edge. ``owner_id`` is the document whose content produced it: re-indexing or
    deleting the owner replaces or removes the edge; edges whose endpoint is missing are kept but
    hidden until the endpoint appears."""

    from_id: str
    to_id: str
    kind: str
    evidence: str = ""
    owner_id: str = ""


VersionKind = str  # "page" | "transition" | "diff" (see ``VERSION_KINDS``)
VERSION_KINDS = ("page", "transition", "diff")


@dataclass(frozen=True)
class Version:
    """One dated state or change of a document, linked to it (``docs/history.md``):

    - ``page``: a Confluence page's (or an upload's) text at version ``seq`` (``body``), by ``author`` with
      ``message``, valid from ``valid_from`` until the next version (``valid_until``, ``""`` while
      current);
    - ``transition``: a Jira changelog item — ``field`` changed ``from_value`` → ``to_value`` by
      ``author`` at ``valid_from``, in force until the field's next change;
    - ``diff``: one file of a commit — ``field`` is the path, ``to_value`` the status (added,
      modified, renamed, removed), ``body`` the unified diff's hunks, ``ref`` the commit sha.

    ``seq`` numbers the document's versions of one kind (1-based); ``(document_id, kind, seq)``
    is the key, so writing a version again replaces it."""

    document_id: str
    kind: VersionKind
    seq: int
    valid_from: str  # ISO-8601 UTC
    valid_until: str = ""
    author: str = ""
    message: str = ""
    body: str = ""
    field: str = ""
    from_value: str = ""
    to_value: str = ""
    ref: str = ""


@dataclass(frozen=True)
class ChunkHit:
    chunk: Chunk
    document: Document
    score: float


@dataclass(frozen=True)
class Neighbor:
    document: Document
    kind: str
    evidence: str
    direction: str  # "out" (this → neighbour) or "in" (neighbour → this)
    via: str  # the document id it was reached from


@dataclass(frozen=True)
class DocumentWithChunks:
    document: Document
    chunks: list[Chunk]


@dataclass(frozen=True)
class GraphPage:
    nodes: list[Document]
    edges: list[Reference]


@dataclass(frozen=True)
class StoreStats:
    documents: int
    chunks: int
    references: int
    documents_by_type: dict[str, int]
    references_by_kind: dict[str, int]
    embedding_model: str | None
    embedding_dimension: int | None


@dataclass
class SyncState:
    source: str
    cursor: str | None = None  # e.g. last seen `updated` timestamp or commit sha
    last_success: str | None = None
    last_error: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


# Filter fields the structured find accepts. Keys are public names; values say where they live.
# Anything not listed is rejected before it reaches a query.
FIND_FIELDS: dict[str, str] = {
    "id": "document",
    "type": "document",
    "title": "document",
    "source": "document",
    "key": "metadata",
    "project": "metadata",
    "issue_type": "metadata",
    "status": "metadata",
    "priority": "metadata",
    "resolution": "metadata",
    "assignee": "metadata",
    "reporter": "metadata",
    "component": "metadata",
    "fix_version": "metadata",
    "label": "metadata",
    "repository": "metadata",
    "path": "metadata",
    "kind": "metadata",  # github: file | pull | commit | issue
    "number": "metadata",
    "sha": "metadata",
    "author": "metadata",
    "space": "metadata",
    "resolved_month": "metadata",  # jira: YYYY-MM of resolutiondate (UTC)
    "parent": "metadata",  # jira: the parent of a sub-task
    "epic": "metadata",  # jira: the epic an issue belongs to
    "sprint": "metadata",  # jira: sprint names
    "people": "metadata",  # jira: assignee, reporter, commenters and who changed it
    "memory_key": "metadata",  # memory: scope, owner, subject and attribute (what a newer one supersedes)
}
