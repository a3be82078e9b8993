"""A page's versions (docs/history.md): which ones a sync fetches, and each as a ``page``
``Version`` with the text the current page would have.

Only versions the store lacks are fetched (``HistoryPolicy.stored``): a page edited once since
the last sync costs one request on Data Center (``GET /rest/api/content/{id}?status=historical&
version=N&expand=body.storage,version`` for each new older version; the newest is the page the
search returned) and two on Cloud (``GET /wiki/api/v2/pages/{id}/versions`` for messages and
authors, ``GET /wiki/api/v2/pages/{id}?version=N&body-format=storage`` per older version). An
unchanged page costs none. At most ``max_versions`` newest versions are kept per page.

A page's older versions are fetched a few at a time (``VERSION_FETCHES`` requests in flight, the
loader's pool): a first index of a space with history is a request per older version, and over a
real network each one is a round trip the sync would otherwise wait for in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from devkb.sources.base import VERSION_MESSAGES_FIELD, HistoryPolicy, SourceDocument
from devkb.sources.confluence.storage_format import storage_to_text
from devkb.sources.timestamps import to_utc_iso
from devkb.store.models import Version

# (page id, version number) → the page at that version, v1-shaped (``version``, ``body``), or None
FetchVersion = Callable[[str, int], dict[str, Any] | None]
VERSION_FETCHES = 4  # a page's older versions requested at once (Atlassian asks for no serial order)


def version_of(doc_id: str, raw: dict[str, Any], message: str | None = None) -> Version:
    """A v1-shaped page (current or historical) as a ``page`` version."""
    version = raw.get("version") or {}
    by = version.get("by") or {}
    body = ((raw.get("body") or {}).get("storage") or {}).get("value") or ""
    return Version(
        document_id=doc_id,
        kind="page",
        seq=int(version.get("number") or 0),
        valid_from=to_utc_iso(version.get("when")),
        author=str(by.get("displayName") or by.get("username") or by.get("publicName") or ""),
        message=str(message if message is not None else version.get("message") or ""),
        body=storage_to_text(body).text,
    )


def attach_versions(
    doc: SourceDocument,
    page: dict[str, Any],
    policy: HistoryPolicy,
    fetch: FetchVersion,
    messages: Callable[[str], dict[int, str]] | None = None,
    pool: Executor | None = None,
) -> None:
    """Put the page's new versions on ``doc`` and every version's message into its reference
    text (keys named in edit messages become edges). ``messages``: a page's messages by number,
    for deployments whose page objects leave them out (Cloud). ``pool``: fetches the older
    versions side by side (in order of number all the same; the first failure is raised)."""
    if not policy.enabled:
        return
    page_id = str(page["id"])
    number = int((page.get("version") or {}).get("number") or 0)
    stored = policy.stored(doc.id, "page")
    known = max((v.seq for v in stored), default=0)
    first = max(known + 1, number - policy.max_versions + 1, 1)
    new: list[Version] = []
    if first <= number:
        said = messages(page_id) if messages is not None else {}
        # a number the listing does not have is skipped (Fluid's page 1000085 has no version 5)
        numbers = [n for n in range(first, number) if messages is None or n in said]
        fetched = (
            pool.map(lambda n: fetch(page_id, n), numbers)
            if pool is not None and len(numbers) > 1
            else (fetch(page_id, n) for n in numbers)
        )
        for n, raw in zip(numbers, fetched, strict=True):
            if raw is not None:
                new.append(version_of(doc.id, raw, said.get(n)))
        new.append(version_of(doc.id, page, said.get(number)))
    doc.versions = new
    text = "\n".join(v.message for v in [*stored, *new] if v.message)
    if text:
        doc.reference_text[VERSION_MESSAGES_FIELD] = text
