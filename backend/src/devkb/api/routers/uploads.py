"""``/uploads``: files people upload — private to the uploader until an admin shares them
(``POST /admin/shared``); every read goes through the reader policy like any document."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, File, HTTPException, Query, Request, Response, UploadFile
from starlette.concurrency import run_in_threadpool

from devkb.api.deps import ContainerDep, StoreDep
from devkb.api.schemas import ErrorResponse, UploadOut
from devkb.errors import ConfigurationError
from devkb.indexing.uploads import UploadIngest
from devkb.sources.uploads import UploadError, UploadRecord, doc_id

router = APIRouter(prefix="/uploads", tags=["uploads"])

READ_CHUNK = 1 << 20


def _ingest(container: ContainerDep) -> UploadIngest:
    try:
        value: UploadIngest = container.uploads()
    except ConfigurationError as e:
        raise HTTPException(404, str(e)) from e
    return value


def uploader(request: Request) -> str:
    """The signed-in user's e-mail; ``operator`` on a server without accounts."""
    user = getattr(request.state, "user", None)
    return str(user.email) if user is not None else "operator"


def _unbounded(request: Request) -> bool:
    """Admins, and the operator of a server without accounts, are exempt from upload quotas
    (unless ``upload_quota_admins``)."""
    if not getattr(request.state, "accounts", False):
        return True  # one user: the operator
    reader = getattr(request.state, "reader", None)
    return reader is not None and bool(reader.unrestricted)


@router.post(
    "",
    response_model=UploadOut,
    status_code=201,
    operation_id="uploadFile",
    responses={
        404: {"model": ErrorResponse},
        413: {"model": ErrorResponse},
        415: {"model": ErrorResponse},
        422: {"model": ErrorResponse},
        429: {"model": ErrorResponse},
        503: {"model": ErrorResponse},
    },
)
async def upload_file(
    request: Request, container: ContainerDep, file: Annotated[UploadFile, File(description="The file.")]
) -> UploadOut:
    """Upload one file (multipart); it is indexed and searchable, private to you, when this
    returns. The same file name again is a new version of your document."""
    ingest = _ingest(container)
    name = file.filename or ""
    person, admin = uploader(request), _unbounded(request)
    try:
        ingest.check(name, 0)
        ingest.admit(person, admin)  # a person over their quota is answered before any conversion
        data = bytearray()
        while chunk := await file.read(READ_CHUNK):  # stop reading as soon as it is too large
            data += chunk
            ingest.check(name, len(data))
        done = await run_in_threadpool(ingest.ingest, name, bytes(data), person, admin)
    except UploadError as e:
        headers = {"Retry-After": str(e.retry_after)} if e.retry_after else None
        raise HTTPException(e.status, str(e), headers=headers) from e
    versions = len(_usable(ingest, done.record.series))
    return _out(done.record, done.document_id, done.title, versions=max(versions, 1))


def _usable(ingest: UploadIngest, series: str) -> list[UploadRecord]:
    quarantined = ingest.store.quarantined()
    return [r for r in ingest.store.series(series) if r.id not in quarantined]


@router.get("", response_model=list[UploadOut], operation_id="listUploads")
def list_uploads(request: Request, container: ContainerDep, store: StoreDep) -> list[UploadOut]:
    """The uploads you may read, one per document (its latest version): your own, and those
    shared with every member; and the quarantined ones (files that cannot be converted, with the
    reason) you uploaded — every quarantined one for admins."""
    ingest = _ingest(container)
    documents = ingest.store.documents()
    quarantined = ingest.store.quarantined()
    usable = {
        doc_id(series): [r for r in records if r.id not in quarantined]
        for series, records in documents.items()
    }
    readable = {d.id: d for d in store.get_documents(sorted(i for i, rs in usable.items() if rs))}
    person, everything = uploader(request), _unbounded(request)
    out = []
    for series, records in documents.items():
        for r in records:
            reason = quarantined.get(r.id)
            if reason is not None and (everything or r.uploader == person):
                out.append(_out(r, doc_id(series), r.filename, reason, upload_id=r.id))
        versions = usable[doc_id(series)]
        if versions and doc_id(series) in readable:
            out.append(
                _out(versions[-1], doc_id(series), readable[doc_id(series)].title, versions=len(versions))
            )
    return out


def _out(
    r: UploadRecord,
    document_id: str,
    title: str,
    quarantined: str | None = None,
    versions: int = 1,
    upload_id: str | None = None,
) -> UploadOut:
    return UploadOut(
        id=upload_id or r.series,
        document_id=document_id,
        filename=r.filename,
        title=title,
        bytes=r.bytes,
        uploader=r.uploader,
        uploaded_at=r.uploaded_at,
        version=r.version,
        versions=versions,
        quarantined=quarantined,
    )


# How an upload is shown when its "Open in Upload" link is followed: a PDF in the browser's
# viewer; every text format (HTML included) as plain text, never as a page of this origin (an
# uploaded page could run script here); a DOCX downloaded.
_SHOWN_AS = {".pdf": "application/pdf", ".docx": ""}


@router.get(
    "/{upload_id}",
    operation_id="getUpload",
    response_class=Response,
    responses={
        200: {"content": {"application/pdf": {}, "text/plain": {}, "application/octet-stream": {}}},
        404: {"model": ErrorResponse},
    },
)
def get_upload(
    upload_id: str,
    container: ContainerDep,
    store: StoreDep,
    version: Annotated[
        int | None, Query(ge=1, le=1_000_000, description="a version of the document (default: the latest)")
    ] = None,
) -> Response:
    """The uploaded file, where its citations' "Open in Upload" link leads (the document's latest
    version, or ``version``): to anyone who may read its document (the uploader; everyone once
    shared). Another person's private upload is answered as missing."""
    ingest = _ingest(container)
    record = ingest.store.get(upload_id)
    if record is None or store.get_document(doc_id(record.series)) is None:
        raise HTTPException(404, f"no upload with id {upload_id!r}")
    if record.id == record.series:  # the document's id: its latest version, or the one asked for
        versions = _usable(ingest, record.series) or [record]
        record = next((r for r in versions if r.version == version), None) if version else versions[-1]
        if record is None:
            raise HTTPException(404, f"no version {version} of upload {upload_id!r}")
    data = ingest.store.data(record)
    suffix = PurePosixPath(record.filename).suffix.lower()
    media = _SHOWN_AS.get(suffix, "text/plain; charset=utf-8")
    quoted = quote(record.filename)
    disposition = "attachment" if not media else "inline"
    return Response(
        data,
        media_type=media or "application/octet-stream",
        headers={
            "Content-Disposition": f"{disposition}; filename*=UTF-8''{quoted}",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox; default-src 'none'",
        },
    )


@router.delete(
    "/{upload_id}",
    status_code=204,
    operation_id="deleteUpload",
    responses={404: {"model": ErrorResponse}},
)
def delete_upload(upload_id: str, request: Request, container: ContainerDep) -> None:
    """Delete an upload (yours; admins: any) — every version of its document — and the document
    from the index; a quarantined file alone. Someone else's upload is answered as missing."""
    ingest = _ingest(container)
    record = ingest.store.get(upload_id)
    mine = record is not None and (_unbounded(request) or record.uploader == uploader(request))
    if record is None or not mine:
        raise HTTPException(404, f"no upload with id {upload_id!r}")
    try:
        ingest.delete(record)
    except UploadError as e:
        raise HTTPException(e.status, str(e)) from e
