"""The loader interface every source implements, and the document it yields.

A loader does a full load, a load of what changed since a cursor, and lists the ids that exist
now (for deletion sync). Loads yield batches so indexing can checkpoint between them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from devkb.store.models import Reference, SourceType, Version

VERSION_MESSAGES_FIELD = "version-messages"  # reference_text field of a page's version messages
RAMP_FIRST = 4  # documents in a load's first batch when each costs requests of its own (ramp_up)

T = TypeVar("T")


def ramp_up(items: Sequence[T], first: int = RAMP_FIRST) -> Iterator[Sequence[T]]:
    """``items`` in groups of ``first``, twice that, four times, … (the last holds the rest).

    For a load whose documents each cost requests and conversion of their own (a page with its
    older versions): the first batch reaches the pipeline, and the embedder, after a few
    documents instead of a whole page of results, and the rest load while it embeds."""
    start, size = 0, max(1, first)
    while start < len(items):
        yield items[start : start + size]
        start += size
        size *= 2


@dataclass
class SourceDocument:
    """One document as a source delivers it, before splitting and embedding."""

    id: str
    type: SourceType
    kind: str  # issue | page | file | pull | commit | gh-issue
    title: str
    url: str
    updated_at: str
    content: str  # the text to split and embed
    metadata: dict[str, Any] = field(default_factory=dict)
    # References the source states explicitly (issue links, page hierarchy, …); owned by this doc.
    references: list[Reference] = field(default_factory=list)
    # Named text fields scanned for references (defaults to the whole content).
    reference_text: dict[str, str] = field(default_factory=dict)
    # Versions to store with it (docs/history.md): new page versions, transitions, file diffs.
    versions: list[Version] = field(default_factory=list)

    @property
    def content_hash(self) -> str:
        payload = json.dumps(
            {
                "title": self.title,
                "url": self.url,
                "content": self.content,
                "metadata": self.metadata,
                "references": sorted((r.from_id, r.to_id, r.kind, r.evidence) for r in self.references),
            },
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class LoadBatch:
    """A batch of changed documents and the cursor to store once it is indexed."""

    documents: list[SourceDocument]
    cursor: str | None
    total: int | None = None  # total items the load expects, when the source knows


ProgressCallback = Callable[[str, int, int | None], None]  # (phase, done, total)


@runtime_checkable
class SourceLoader(Protocol):
    name: str
    type: SourceType

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        """Documents changed since ``since`` (a cursor from a previous batch; ``None`` = all)."""
        ...

    def list_ids(self) -> set[str]:
        """Ids of every document that exists in the source now (for deletion sync)."""
        ...

    def describe(self) -> dict[str, Any]:
        """What this loader reads (URL, projects, …), without secrets."""
        ...


# -- optional capabilities: a loader has them or not; callers check with isinstance ----------
@runtime_checkable
class RetryReporting(Protocol):
    """A loader that reports each retry of a call to its service (shown in the run's status)."""

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None: ...


@runtime_checkable
class VersionedText(Protocol):
    """A loader whose documents' text follows a recipe that can change in a new release (what a
    Jira issue's text names of its links): when the recipe recorded for the source differs, the
    next run reads every document again (nothing is re-embedded that did not change)."""

    text_version: str


@runtime_checkable
class Refetching(Protocol):
    """A loader that fetches given documents again (deletion sync re-indexes their neighbours)."""

    def fetch(self, document_ids: list[str]) -> list[SourceDocument]: ...


@runtime_checkable
class LinkHinting(Protocol):
    """A loader that tells the reference rules what its source names (project keys, repos, URLs)."""

    def link_hints(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class HistoryPolicy:
    """How much history a loader reads (``Settings.history*``) and what the store already has:
    ``stored(document_id, kind)`` lists the stored versions, so a sync fetches only new ones."""

    enabled: bool = True
    max_versions: int = 1000
    max_diff_bytes: int = 65536
    stored: Callable[[str, str], list[Version]] = field(default=lambda _id, _kind: [])


@runtime_checkable
class HistoryReading(Protocol):
    """A loader that reads its documents' versions (``SourceDocument.versions``)."""

    def set_history(self, policy: HistoryPolicy) -> None: ...


@runtime_checkable
class PermissionSource(Protocol):
    """A loader that says who holds the principals its documents' gates name (``metadata["acl"]``,
    see :mod:`devkb.sources.acl`): ``(principal, email)`` pairs, the e-mail lower-cased, ``"*"``
    meaning every signed-in member (a public repository). Accounts without an e-mail (none in the
    source, none in the source's ``people`` mapping) are left out and counted in a warning."""

    def fetch_permissions(self) -> list[tuple[str, str]]: ...


@runtime_checkable
class ProblemReporting(Protocol):
    """A loader that skips an item it cannot read (a corrupt PDF, a page that answers 404) and
    says why, instead of failing the run: each problem is one line in the run's errors."""

    def set_problem_hook(self, on_problem: Callable[[str], None] | None) -> None: ...
