"""Small, cited results for models: every document an MCP tool returns carries its id (for the
next call), title, type, URL (the citation) and a short snippet — never whole documents unasked."""

from __future__ import annotations

from typing import Any

from devkb.agent.evidence import EvidenceDoc
from devkb.store.models import Document, Neighbor

SNIPPET_CHARS = 400


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def document_ref(doc: Document) -> dict[str, Any]:
    return {
        "id": doc.id,
        "title": doc.title,
        "type": str(doc.type),
        "url": doc.url,
        "updated_at": doc.updated_at,
    }


def evidence_result(e: EvidenceDoc) -> dict[str, Any]:
    return {**document_ref(e.document), "score": round(e.score, 4), "snippet": snippet(" ".join(e.passages))}


def neighbor_result(n: Neighbor) -> dict[str, Any]:
    return {
        **document_ref(n.document),
        "relation": n.kind,
        "direction": "outgoing" if n.direction == "out" else "incoming",
        "via": n.via,
    }
