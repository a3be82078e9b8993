"""``RelationshipManager``: finds each changed document's REFERENCES (explicit ones from the
source plus those found in its text). The ``DocumentChunkWriter`` persists them together with
the document, so edges and documents never disagree after a crash."""

from __future__ import annotations

from collections.abc import Callable

from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.extractor import ReferenceExtractor
from devkb.indexing.shared_document import Batch
from devkb.store.models import Reference


@component
class RelationshipManager:
    def __init__(self, extractor: ReferenceExtractor, context: Callable[[], LinkContext]) -> None:
        self.extractor = extractor
        self.context = context

    @component.output_types(documents=Batch[HsDocument], references=Batch[Reference])
    def run(self, documents: Batch[HsDocument]) -> dict[str, object]:
        if not documents:
            return {"documents": Batch(documents), "references": Batch[Reference]()}
        ctx = self.context()
        refs = [r for d in documents for r in self.extractor.extract(d.meta["source_document"], ctx)]
        return {"documents": Batch(documents), "references": Batch(refs)}
