"""``GET /documents`` (find by fields), ``GET /documents/{id}``, its neighbours and its history
(versions, docs/history.md)."""

from __future__ import annotations

import difflib
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Path, Query

from devkb.api.deps import StoreDep
from devkb.api.routers.convert import document_out
from devkb.api.schemas import (
    ChunkOut,
    DocumentDetail,
    DocumentHistory,
    DocumentOut,
    DocumentQuery,
    ErrorResponse,
    NeighborOut,
    VersionDetail,
    VersionOut,
)
from devkb.store.models import Version

router = APIRouter(prefix="/documents", tags=["documents"])


@router.get(
    "",
    response_model=list[DocumentOut],
    operation_id="findDocuments",
    responses={422: {"model": ErrorResponse}},
)
def find(query: Annotated[DocumentQuery, Query()], store: StoreDep) -> list[DocumentOut]:
    """Documents that match every field given (the same filters as the agent's GraphQuery and MCP
    ``find``; unknown parameters are refused), newest first, only those the caller may read;
    without a field, the newest documents."""
    lookup = query.lookup()
    if lookup is None:
        found = store.find_documents(types=query.source_types(), limit=query.limit)
    else:
        found = store.find_documents(
            {f: list(v) for f, v in lookup.filters.items()},
            types=query.source_types(),
            title_contains=lookup.title_contains,
            updated_from=lookup.updated_from,
            updated_to=lookup.updated_to,
            limit=query.limit,
        )
    return [document_out(d) for d in found]


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


def version_out(v: Version) -> VersionOut:
    return VersionOut(
        document_id=v.document_id,
        kind=v.kind,
        seq=v.seq,
        valid_from=v.valid_from,
        valid_until=v.valid_until,
        author=v.author,
        message=v.message,
        field=v.field,
        from_value=v.from_value,
        to_value=v.to_value,
        ref=v.ref,
    )


@router.get(
    "/{document_id:path}/history",
    response_model=DocumentHistory,
    operation_id="documentHistory",
    responses={404: {"model": ErrorResponse}},
)
def history(document_id: str, store: StoreDep) -> DocumentHistory:
    """A document's versions and transitions, oldest first (404 when missing or not readable)."""
    found = store.get_documents([document_id])
    if not found:
        raise HTTPException(404, f"no document with id {document_id!r}")
    return DocumentHistory(
        document=document_out(found[0]), versions=[version_out(v) for v in store.versions(document_id)]
    )


@router.get(
    "/{document_id:path}/versions/{seq}",
    response_model=VersionDetail,
    operation_id="documentVersion",
    responses={404: {"model": ErrorResponse}},
)
def version(
    document_id: str,
    seq: Annotated[int, Path(ge=1, le=1_000_000, description="the version's number")],
    store: StoreDep,
    kind: Annotated[Literal["page", "transition", "diff"], Query()] = "page",
) -> VersionDetail:
    """One version's body, and for a page how it differs from the current version."""
    found = store.get_version(document_id, kind, seq)
    if found is None:
        raise HTTPException(404, f"no version {seq} of {document_id!r}")
    newest = max((v for v in store.versions(document_id, [kind])), key=lambda v: v.seq, default=None)
    diff = ""
    if kind == "page" and newest is not None and newest.seq != found.seq:
        diff = "\n".join(
            difflib.unified_diff(
                found.body.splitlines(),
                newest.body.splitlines(),
                f"version {found.seq}",
                f"version {newest.seq}",
                lineterm="",
            )
        )
    return VersionDetail(
        version=version_out(found),
        body=found.body,
        current_seq=newest.seq if newest is not None else None,
        diff_to_current=diff,
    )


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
