"""``GET /stats``: counts of documents, chunks and references."""

from __future__ import annotations

from fastapi import APIRouter

from devkb.api.deps import StoreDep
from devkb.store.models import StoreStats

router = APIRouter(tags=["stats"])


@router.get("/stats", response_model=StoreStats, operation_id="getStats")
def stats(store: StoreDep) -> StoreStats:
    """Counts by document type and edge kind, and the embedding model (the store's own type)."""
    return store.stats()
