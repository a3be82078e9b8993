"""``KindAwareSplitter``: source documents → chunk documents, split by the document's kind."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from haystack import Document as HsDocument
from haystack import component

from devkb.indexing.shared_document import Batch, SharedDocument
from devkb.indexing.splitting.packer import SectionPacker
from devkb.indexing.splitting.sections import Section, split_markdown_sections
from devkb.store.models import Chunk

Segmenter = Callable[[HsDocument], list[Section]]


def _default_segmenter(doc: HsDocument) -> list[Section]:
    return split_markdown_sections(doc.content or "")


@component
class KindAwareSplitter:
    """Each output chunk carries ``meta``: ``document_id``, ``chunk_index``, ``section``; its content
    starts with the document title (and section) so a chunk read alone still says what it is."""

    def __init__(
        self, chunk_size: int = 1000, chunk_overlap: int = 100, segmenters: dict[str, Segmenter] | None = None
    ) -> None:
        self.packer = SectionPacker(chunk_size, chunk_overlap)
        self.segmenters = segmenters or {}
        self._lock = threading.Lock()  # segmenters hold parsers; the sync's read-ahead splits too

    @component.output_types(chunks=Batch[HsDocument])
    def run(self, documents: Batch[HsDocument]) -> dict[str, Batch[HsDocument]]:
        with self._lock:
            return {"chunks": Batch(self._split(documents))}

    def _split(self, documents: Sequence[HsDocument]) -> list[HsDocument]:
        out: list[HsDocument] = []
        for doc in documents:
            kind = str(doc.meta.get("kind", ""))
            segment = self.segmenters.get(kind, _default_segmenter)
            pieces = self.packer.pack(segment(doc))
            title = str(doc.meta.get("title", ""))
            for i, piece in enumerate(pieces):
                header = (
                    title if not piece.section or piece.section == title else f"{title} — {piece.section}"
                )
                text = piece.text if piece.text.startswith(title) else f"{header}\n{piece.text}"
                out.append(
                    SharedDocument.of(
                        Chunk.make_id(doc.id, i, text),
                        text,
                        {"document_id": doc.id, "chunk_index": i, "section": piece.section},
                    )
                )
        return out
