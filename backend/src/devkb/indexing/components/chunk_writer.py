"""``DocumentChunkWriter``: writes the two tiers — Document nodes and their Chunk nodes — in one
transaction per batch, so a document is never half-written."""

from __future__ import annotations

from collections import defaultdict

from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.shared_document import Batch
from devkb.store.models import Chunk, Document, Reference
from devkb.store.protocol import GraphStore


def to_store_document(doc: HsDocument) -> Document:
    m = doc.meta
    return Document(
        id=doc.id,
        type=m["type"],
        title=m["title"],
        url=m.get("url", ""),
        updated_at=m.get("updated_at", ""),
        content_hash=m["content_hash"],
        metadata=m.get("metadata", {}),
        source=m.get("source", ""),
    )


@component
class DocumentChunkWriter:
    def __init__(self, store: GraphStore) -> None:
        self.store = store

    @component.output_types(documents_written=int, chunks_written=int, references_written=int)
    def run(
        self, documents: Batch[HsDocument], chunks: Batch[HsDocument], references: Batch[Reference]
    ) -> dict[str, object]:
        by_doc: dict[str, list[Chunk]] = defaultdict(list)
        for c in chunks:
            by_doc[c.meta["document_id"]].append(
                Chunk(
                    id=c.id,
                    document_id=c.meta["document_id"],
                    chunk_index=c.meta["chunk_index"],
                    content=c.content or "",
                    embedding=c.embedding,
                    section=c.meta.get("section", ""),
                )
            )
        items = [(to_store_document(d), by_doc.get(d.id, [])) for d in documents]
        versions = [v for d in documents for v in getattr(d.meta.get("source_document"), "versions", [])]
        if items:
            self.store.write_documents(items, references=references, versions=versions or None)
        return {
            "documents_written": len(items),
            "chunks_written": len(chunks),
            "references_written": len(references),
        }
