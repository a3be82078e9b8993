"""``GET /changes``: what changed in a date range — page and upload edits, issue transitions,
commit files (docs/history.md), documents created and comments made — newest first, as the
reader may see them."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated

from fastapi import APIRouter, Query

from devkb.api.deps import StoreDep
from devkb.api.routers.convert import document_out
from devkb.api.routers.documents import version_out
from devkb.api.schemas import ChangeOut, ErrorResponse
from devkb.store.models import SourceType
from devkb.store.protocol import GraphStore

router = APIRouter(tags=["history"])


@router.get(
    "/changes",
    response_model=list[ChangeOut],
    operation_id="listChanges",
    responses={422: {"model": ErrorResponse}},
)
def changes(
    store: StoreDep,
    start: Annotated[date, Query(description="first day (UTC), inclusive")],
    end: Annotated[date, Query(description="last day (UTC), inclusive")],
    source: Annotated[str | None, Query(max_length=200, description="a configured source's name")] = None,
    type: Annotated[SourceType | None, Query(description="JIRA, CONFLUENCE or GITHUB")] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
) -> list[ChangeOut]:
    """Changes dated in ``[start, end]``, newest first, with their documents (none when end is
    before start): stored versions, and documents created or commented on in the range."""
    if end < start:
        return []
    lo = datetime.combine(start, time(), UTC).isoformat()
    hi = (datetime.combine(end, time(), UTC) + timedelta(days=1)).isoformat() if end < date.max else "9999-99"
    ids = sorted(store.document_ids(source=source)) if source else None
    types = [type] if type else None
    found = store.changes_between(lo, hi, types=types, document_ids=ids, limit=limit)
    docs = {d.id: d for d in store.get_documents(sorted({v.document_id for v in found}))}
    out = [
        ChangeOut(
            document=document_out(docs[v.document_id]),
            at=v.valid_from,
            author=v.author,
            version=version_out(v),
        )
        for v in found
        if v.document_id in docs
    ]
    out += events(store, lo, hi, types, set(ids) if ids is not None else None, limit)
    out.sort(key=lambda c: c.at, reverse=True)
    return out[:limit]


def events(
    store: GraphStore,
    lo: str,
    hi: str,
    types: list[SourceType] | None,
    ids: set[str] | None,
    limit: int,
) -> list[ChangeOut]:
    """Documents created (``metadata.created``) or commented on (``metadata.comments``: ``at``,
    ``by``) in ``[lo, hi)``: a document with either was updated since ``lo``, so only those are
    read (as the reader may see them, newest first, at most ``limit``)."""
    out: list[ChangeOut] = []
    for d in store.find_documents(types=types, updated_from=lo, limit=limit):
        if ids is not None and d.id not in ids:
            continue
        meta = d.metadata or {}
        created = str(meta.get("created") or "")
        if lo <= created < hi:
            by = str(meta.get("reporter") or meta.get("author") or meta.get("uploader") or "")
            out.append(ChangeOut(document=document_out(d), event="created", at=created, author=by))
        for c in meta.get("comments") or []:
            at = str(c.get("at") or "") if isinstance(c, dict) else ""
            if lo <= at < hi:
                out.append(
                    ChangeOut(document=document_out(d), event="comment", at=at, author=str(c.get("by") or ""))
                )
    return out
