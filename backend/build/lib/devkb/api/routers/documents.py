"""``GET /documents/{id}`` and its neighbours."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from devkb.api.deps import StoreDep
from devkb.api.routers.convert import document_out
from devkb.api.schemas import ChunkOut, DocumentDetail, ErrorResponse, NeighborOut

router = APIRouter(prefix="/documents", tags=["documents"])


@router.get(
    "/{document_id:path}/neighbors",
    response_model=list[NeighborOut],
    operation_id="documentNeighbors",
    responses={404: {"model": ErrorResponse}},
)
def neighbors(
    document_id: str,
    store: StoreDep,
    kinds: Annotated[list[str] | None, Query(max_length=50)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[NeighborOut]:
    """Documents one REFERENCES hop away, in both directions."""
    if not store.get_documents([document_id]):
        raise HTTPException(404, f"no document with id {document_id!r}")
    return [
        NeighborOut(
            document=document_out(n.document), kind=n.kind, evidence=n.evidence, direction=n.direction
        )
        for n in store.neighbors([document_id], "both", kinds=kinds or None, limit=limit)
    ]


@router.get(
    "/{document_id:path}",
    response_model=DocumentDetail,
    operation_id="getDocument",
    responses={404: {"model": ErrorResponse}},
)
def get_document(document_id: str, store: StoreDep) -> DocumentDetail:
    """A document's metadata and its chunks."""
    found = store.get_document(document_id)
    if found is None:
        raise HTTPException(404, f"no document with id {document_id!r}")
    return DocumentDetail(
        document=document_out(found.document),
        chunks=[
            ChunkOut(id=c.id, chunk_index=c.chunk_index, section=c.section, content=c.content)
            for c in found.chunks
        ],
    )
