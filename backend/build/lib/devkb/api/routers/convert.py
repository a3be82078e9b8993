"""Store and agent objects → API models."""

from __future__ import annotations

from devkb.api import schemas
from devkb.indexing.run_status import RunStatus
from devkb.store.models import Document


def document_out(d: Document) -> schemas.DocumentOut:
    return schemas.DocumentOut(
        id=d.id,
        type=d.type.value,
        title=d.title,
        url=d.url,
        updated_at=d.updated_at,
        metadata=d.metadata,
        source=d.source,
    )


def run_out(r: RunStatus | None) -> schemas.RunOut | None:
    return None if r is None else schemas.RunOut(**r.snapshot())
