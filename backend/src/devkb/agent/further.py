"""Reading further in the documents a question found: their passages beyond the retrieved chunks.

A search returns a document with its best two chunks. In a long manual the sentence that says
*why* (or what happens, who does it, how) is often in another chunk of the same document — the
chunk before or after the one that matched the question's words. When no retrieved sentence holds
what the question asks, the extractive answer reads the found documents' other chunks, nearest to
the retrieved ones first, before it says "the sources mention X but do not say why".

Reads go through the reader's store (``get_document``: a document the reader may not read is never
returned), and the chunks come in the store's order, so the same question reads the same passages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from devkb.agent.evidence import EvidenceDoc
from devkb.store.models import DocumentWithChunks

DOCUMENTS = 3  # the found documents read further, best first
MORE_CHUNKS = 24  # chunks read beyond a document's retrieved ones, nearest first


class DocumentReader(Protocol):
    def get_document(self, document_id: str) -> DocumentWithChunks | None: ...


class FurtherReading:
    """``widened(docs)``: the first :data:`DOCUMENTS` of ``docs`` with up to :data:`MORE_CHUNKS`
    more of their own chunks as passages (after the retrieved ones, in the document's order);
    the others as they are."""

    def __init__(self, store: DocumentReader, documents: int = DOCUMENTS, more: int = MORE_CHUNKS) -> None:
        self.store = store
        self.documents = documents
        self.more = more

    def widened(self, docs: Sequence[EvidenceDoc]) -> list[EvidenceDoc]:
        return [self._widened(d) if i < self.documents else d for i, d in enumerate(docs)]

    def _widened(self, doc: EvidenceDoc) -> EvidenceDoc:
        found = self.store.get_document(doc.id)
        if found is None or not found.chunks:
            return doc
        chunks = sorted(found.chunks, key=lambda c: c.chunk_index)
        held = set(doc.passages)
        retrieved = [i for i, c in enumerate(chunks) if c.content in held]
        if not retrieved:  # passages that are no chunk of it (a memory, a rendering): leave it
            return doc
        others = [i for i, c in enumerate(chunks) if c.content not in held]
        nearest = sorted(others, key=lambda i: (min(abs(i - r) for r in retrieved), i))[: self.more]
        extra = tuple(chunks[i].content for i in sorted(nearest))
        return replace(doc, passages=doc.passages + extra) if extra else doc
