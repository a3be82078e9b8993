"""Tool results as the model reads them: numbered documents, their text fenced as data.

Document text is untrusted (anyone who can write a Jira comment can write "ignore your
instructions"). It is enclosed between markers carrying a per-question random boundary that the
text itself cannot contain, and the system prompt says that fenced text is data, never
instructions.
"""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent.evidence import EvidenceDoc, Scope

PASSAGE_CHARS = 1200
NEIGHBOR_CHARS = 500  # neighbours come in numbers: show how they connect and a short excerpt
MAX_DOCUMENTS = 10  # per tool result; small local models have small context windows


def render_documents(scope: Scope, docs: Sequence[EvidenceDoc], heading: str) -> str:
    if not docs:
        return f"{heading}: no documents found."
    shown = docs[:MAX_DOCUMENTS]
    lines = [f"{heading}: {len(docs)} document(s). Cite them as [n]."]
    for doc in shown:
        lines.append(render_document(scope, doc))
    if len(docs) > len(shown):
        lines.append(f"({len(docs) - len(shown)} more not shown; narrow the question or use FilterDocs.)")
    return "\n".join(lines)


def render_document(scope: Scope, doc: EvidenceDoc) -> str:
    b = scope.boundary
    n = scope.number(doc.id)
    d = doc.document
    head = [
        f'<document n="{n}" boundary="{b}">',
        f"id: {d.id}",
        f"type: {d.type.value.lower()}",
        f"title: {_clean(d.title, b)}",
    ]
    if d.url:
        head.append(f"url: {d.url}")
    if doc.relation:
        head.append(f"relation: {_clean(doc.relation, b)}")
    limit = NEIGHBOR_CHARS if doc.relation else PASSAGE_CHARS
    text = "\n…\n".join(_clean(p, b)[:limit] for p in doc.passages[:2])
    return "\n".join(head + ["text:", text, f"</document {b}>"])


def _clean(text: str, boundary: str) -> str:
    return text.replace(boundary, "").replace("</document", "</ document")
