"""``ReferenceWriter``: replaces the REFERENCES owned by documents already in the store, without
touching the documents or their chunks (nothing is split or embedded again)."""

from __future__ import annotations

from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.shared_document import Batch
from devkb.store.models import Reference
from devkb.store.protocol import GraphStore


@component
class ReferenceWriter:
    def __init__(self, store: GraphStore) -> None:
        self.store = store

    @component.output_types(documents=int, references_written=int)
    def run(self, documents: Batch[HsDocument], references: Batch[Reference]) -> dict[str, int]:
        owners = [d.id for d in documents]
        if owners:
            self.store.write_references(owners, references)  # one transaction per batch
        return {"documents": len(owners), "references_written": len(references)}
