"""``GET /stats``: counts of documents, chunks and references."""

from __future__ import annotations

from fastapi import APIRouter

from devkb.api.deps import StoreDep
from devkb.api.schemas import StatsResponse

router = APIRouter(tags=["stats"])


@router.get("/stats", response_model=StatsResponse, operation_id="getStats")
def stats(store: StoreDep) -> StatsResponse:
    """Counts by document type and edge kind, and the embedding model."""
    return StatsResponse(**store.stats().__dict__)
