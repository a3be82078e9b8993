"""``ChangeDetector``: drops documents whose content hash the store already has."""

from __future__ import annotations

from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.shared_document import Batch
from devkb.store.protocol import GraphStore


@component
class ChangeDetector:
    def __init__(self, store: GraphStore) -> None:
        self.store = store

    @component.output_types(documents=Batch[HsDocument], unchanged=int)
    def run(self, documents: Batch[HsDocument], force: bool = False) -> dict[str, object]:
        if force:
            return {"documents": Batch(documents), "unchanged": 0}
        known = self.store.content_hashes([d.id for d in documents])
        changed = [d for d in documents if known.get(d.id) != d.meta["content_hash"]]
        return {"documents": Batch(changed), "unchanged": len(documents) - len(changed)}
