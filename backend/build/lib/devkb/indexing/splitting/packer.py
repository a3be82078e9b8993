"""Pack sections into chunks of at most ``chunk_size`` characters.

Small neighbouring sections are merged (under the first one's path); a section longer than a
chunk is split on paragraph, line, sentence and word boundaries by Haystack's
``RecursiveDocumentSplitter``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from haystack import Document as HsDocument
from haystack.components.preprocessors import RecursiveDocumentSplitter

from devkb.indexing.splitting.sections import Section

# Haystack warns when an overlap repeats the previous chunk's tail; that is expected for short tails.
logging.getLogger("haystack.components.preprocessors.recursive_splitter").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Piece:
    section: str
    text: str


class SectionPacker:
    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 100) -> None:
        self.chunk_size = chunk_size
        self._splitter = RecursiveDocumentSplitter(
            split_length=chunk_size,
            split_overlap=chunk_overlap,
            split_unit="char",
            separators=["\n\n", "\n", r"(?<=[.!?])\s", " "],
        )
        self._warm = False

    def _split_long(self, text: str) -> list[str]:
        if not self._warm:
            self._splitter.warm_up()
            self._warm = True
        out = self._splitter.run([HsDocument(content=text)])["documents"]
        parts = [d.content.strip() for d in out if d.content and d.content.strip()]
        # the splitter may leave an over-long piece when no separator occurs; hard-cut those
        final: list[str] = []
        for p in parts:
            while len(p) > self.chunk_size * 1.5:
                final.append(p[: self.chunk_size])
                p = p[self.chunk_size :]
            final.append(p)
        return final

    def pack(self, sections: list[Section]) -> list[Piece]:
        pieces: list[Piece] = []
        cur_path, cur = "", ""
        for s in sections:
            if len(s.text) > self.chunk_size:
                if cur:
                    pieces.append(Piece(cur_path, cur))
                    cur_path, cur = "", ""
                pieces.extend(Piece(s.path, t) for t in self._split_long(s.text))
                continue
            if cur and len(cur) + 2 + len(s.text) <= self.chunk_size:
                cur += "\n\n" + s.text
            else:
                if cur:
                    pieces.append(Piece(cur_path, cur))
                cur_path, cur = s.path, s.text
        if cur:
            pieces.append(Piece(cur_path, cur))
        return pieces
