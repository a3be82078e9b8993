"""A stored document's text split back into fields, for field-weighted lexical scores.

Chunks are the only text the store keeps. Every chunk but the first starts with a header line
(``title`` or ``title — section``) added by the splitter; it is dropped here, then the text is cut
on its ``## `` headings. For a Jira issue (``sources/jira/convert.py``):

    summary      the title without the key
    facts        the line of fields (type, status, project, components, versions, people)
    description  ``## Description`` and ``## Environment``
    comments     ``## Comments``
    links        ``## Links`` (issue links with the other issue's summary)

Other documents get ``summary`` (the title) and ``description`` (the rest).
"""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent.patterns import H2_HEADING, KEY_PREFIX
from devkb.store.models import Chunk, Document, SourceType

FIELDS = ("summary", "facts", "description", "comments", "links")


def document_text(doc: Document, chunks: Sequence[Chunk]) -> str:
    parts = []
    for c in sorted(chunks, key=lambda c: c.chunk_index):
        text = c.content
        if c.chunk_index > 0 and doc.title and text.startswith(doc.title):
            text = text.split("\n", 1)[1] if "\n" in text else ""
        parts.append(text)
    return "\n".join(parts)


def summary_of(doc: Document) -> str:
    return KEY_PREFIX.sub("", doc.title) if doc.type == SourceType.JIRA else doc.title


def document_fields(doc: Document, chunks: Sequence[Chunk]) -> dict[str, str]:
    text = document_text(doc, chunks)
    summary = summary_of(doc)
    if doc.type != SourceType.JIRA:
        return {"summary": summary, "description": text}
    pieces = H2_HEADING.split(text)
    head_lines = pieces[0].strip().split("\n")
    out: dict[str, list[str]] = {"facts": head_lines[1:], "description": [], "comments": [], "links": []}
    for name, body in zip(pieces[1::2], pieces[2::2], strict=False):
        lowered = name.lower()
        field = (
            "comments" if lowered.startswith("comment") else "links" if lowered == "links" else "description"
        )
        out[field].append(body)
    return {"summary": summary, **{k: "\n".join(v) for k, v in out.items()}}
