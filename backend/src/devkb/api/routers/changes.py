"""``GET /changes``: what changed in a date range — page edits, issue transitions, commit files
(docs/history.md), newest first, as the reader may see them."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated

from fastapi import APIRouter, Query

from devkb.api.deps import StoreDep
from devkb.api.routers.convert import document_out
from devkb.api.routers.documents import version_out
from devkb.api.schemas import ChangeOut, ErrorResponse
from devkb.store.models import SourceType

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
    """Versions dated in ``[start, end]``, newest first, with their documents (none when end is
    before start)."""
    if end < start:
        return []
    lo = datetime.combine(start, time(), UTC).isoformat()
    hi = (datetime.combine(end, time(), UTC) + timedelta(days=1)).isoformat() if end < date.max else "9999-99"
    ids = sorted(store.document_ids(source=source)) if source else None
    found = store.changes_between(lo, hi, types=[type] if type else None, document_ids=ids, limit=limit)
    docs = {d.id: d for d in store.get_documents(sorted({v.document_id for v in found}))}
    return [
        ChangeOut(document=document_out(docs[v.document_id]), version=version_out(v))
        for v in found
        if v.document_id in docs
    ]
