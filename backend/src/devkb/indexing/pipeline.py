"""The indexing pipeline, as a Haystack ``Pipeline``:

    detect (ChangeDetector) → relate (RelationshipManager) → split (KindAwareSplitter)
        → embed (ChunkEmbedder) → write (DocumentChunkWriter ← documents, chunks, references)

Unchanged documents stop at ``detect``; the writer persists documents, chunks and the edges they
own in one transaction per batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from haystack import Document as HsDocument
from haystack import Pipeline

from devkb.indexing.components.change_detector import ChangeDetector
from devkb.indexing.components.chunk_embedder import ChunkEmbedder
from devkb.indexing.components.chunk_writer import DocumentChunkWriter
from devkb.indexing.components.relationship_manager import RelationshipManager
from devkb.indexing.components.splitter import KindAwareSplitter, Segmenter
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.extractor import ReferenceExtractor
from devkb.indexing.shared_document import Batch, SharedDocument
from devkb.sources.base import SourceDocument
from devkb.store.protocol import GraphStore
from devkb.store.sqlite.write_process import WriteProcess


def to_haystack(doc: SourceDocument, source: str) -> HsDocument:
    return SharedDocument.of(
        doc.id,
        doc.content,
        {
            "type": doc.type,
            "kind": doc.kind,
            "title": doc.title,
            "url": doc.url,
            "updated_at": doc.updated_at,
            "metadata": {**doc.metadata, "kind": doc.kind},
            "source": source,
            "content_hash": doc.content_hash,
            "source_document": doc,
        },
    )


@dataclass
class BatchResult:
    received: int
    unchanged: int
    documents_written: int
    chunks_written: int
    references_written: int


class IndexingPipeline:
    def __init__(
        self,
        store: GraphStore,
        embedder: TextEmbedder,
        extractor: ReferenceExtractor,
        context: Callable[[], LinkContext],
        chunk_size: int = 1000,
        chunk_overlap: int = 100,
        segmenters: dict[str, Segmenter] | None = None,
        embed_batch_size: int = 64,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.chunk_embedder = ChunkEmbedder(embedder, store, batch_size=embed_batch_size)
        self._detect = ChangeDetector(store)
        self._split = KindAwareSplitter(chunk_size, chunk_overlap, segmenters)
        p = Pipeline()
        p.add_component("detect", self._detect)
        p.add_component("relate", RelationshipManager(extractor, context))
        p.add_component("split", self._split)
        p.add_component("embed", self.chunk_embedder)
        p.add_component("write", DocumentChunkWriter(store))
        p.connect("detect.documents", "relate.documents")
        p.connect("relate.documents", "split.documents")
        p.connect("relate.documents", "write.documents")
        p.connect("relate.references", "write.references")
        p.connect("split.chunks", "embed.chunks")
        p.connect("embed.chunks", "write.chunks")
        self.pipeline = p

    def warm_up(self) -> None:
        self.pipeline.warm_up()

    @property
    def embeds_ahead(self) -> bool:
        """Whether ``embed_ahead`` pays: a remote embedder taking several requests at once."""
        return self.chunk_embedder.concurrency > 1

    def embed_ahead(self, documents: list[SourceDocument], source: str, force: bool = False) -> None:
        """Split and embed the changed documents of a batch that ``run`` will get next, so the
        embedder works while the store writes the batch before (called by the sync's read-ahead
        thread). ``run`` takes the vectors by chunk id, which hashes the chunk's text: a chunk
        that came out differently is simply embedded again."""
        unique = list({d.id: d for d in documents}.values())
        changed = self._detect.run(Batch(to_haystack(d, source) for d in unique), force)["documents"]
        assert isinstance(changed, Batch)
        self.chunk_embedder.embed_ahead(self._split.run(changed)["chunks"], source)

    def run(
        self, documents: list[SourceDocument], source: str, force: bool = False, wait: bool = True
    ) -> BatchResult:
        """Index a batch. ``wait=False``: a store that applies writes behind (``WriteProcess``) may
        still be writing it on return — the sync's batches, flushed at the end of the run."""
        # the same id twice in one batch: the last one wins
        unique = list({d.id: d for d in documents}.values())
        out: dict[str, Any] = self.pipeline.run(
            {
                "detect": {"documents": Batch(to_haystack(d, source) for d in unique), "force": force},
                "embed": {"source": source},  # counted per source: syncs may run side by side
            },
            include_outputs_from={"detect"},
        )
        write = out.get("write", {})
        if wait and isinstance(self.store, WriteProcess):
            self.store.flush()
        return BatchResult(
            received=len(documents),
            unchanged=int(out["detect"]["unchanged"]),
            documents_written=int(write.get("documents_written", 0)),
            chunks_written=int(write.get("chunks_written", 0)),
            references_written=int(write.get("references_written", 0)),
        )
