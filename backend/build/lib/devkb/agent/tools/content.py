"""A document's text rebuilt from its stored chunks (the store keeps text only in chunks).

Each chunk starts with a header line (the document title, or "title — section") and overlaps
the previous one by up to ``chunk_overlap`` characters; both are removed again here.
"""

from __future__ import annotations

from collections.abc import Sequence

from devkb.store.models import Chunk, Document
from devkb.store.protocol import GraphStore

MAX_OVERLAP = 2000


def rebuild_content(document: Document, chunks: Sequence[Chunk]) -> str:
    body = ""
    for chunk in sorted(chunks, key=lambda c: c.chunk_index):
        text = _strip_header(chunk.content, document.title, chunk.section)
        if not body:
            body = text
            continue
        rest = _drop_overlap(body, text)
        # an overlap found means ``rest`` continues ``body`` exactly; otherwise start a new line
        body += rest if rest is not None else "\n" + text
    body = body.strip()
    return body if body.startswith(document.title) else f"{document.title}\n{body}".strip()


def load_content(store: GraphStore, document_id: str, max_chars: int) -> str | None:
    """The rebuilt text of one document, cut at ``max_chars`` (``None`` if it does not exist)."""
    found = store.get_document(document_id)
    if found is None:
        return None
    text = rebuild_content(found.document, found.chunks)
    return text if len(text) <= max_chars else text[:max_chars].rstrip() + " …"


def _strip_header(text: str, title: str, section: str) -> str:
    first, sep, rest = text.partition("\n")
    headers = {title, f"{title} — {section}" if section else title}
    return rest if sep and first.strip() in headers else text


def _drop_overlap(previous: str, text: str) -> str | None:
    """``text`` without the prefix that repeats the end of ``previous`` (``None``: no overlap)."""
    probe = text[:16]
    if len(probe) < 16:
        return None
    tail_start = max(0, len(previous) - MAX_OVERLAP)
    pos = previous.find(probe, tail_start)
    while pos != -1:
        n = len(previous) - pos
        if text.startswith(previous[pos:]):
            return text[n:]
        pos = previous.find(probe, pos + 1)
    return None
