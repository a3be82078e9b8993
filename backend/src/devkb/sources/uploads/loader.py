"""``UploadsLoader``: the uploads as a source (``uploads``), so they are indexed, listed and
deleted like every other document. An upload is readable by its uploader only
(``metadata["acl"]``); an admin shares it with every member through the same share as any
document (``/admin/shared``), and the reader policy (``access/policy.py``) decides.

The cursor is ``{id: sha256}`` of the uploads indexed; a load converts the others, so an upload
stored just before a crash is indexed by the next run."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from devkb.sources import acl
from devkb.sources.base import LoadBatch, SourceDocument
from devkb.sources.formats import Unreadable, convert_bytes
from devkb.sources.uploads.store import UploadRecord, UploadStore
from devkb.store.models import SourceType

BATCH_SIZE = 50


def doc_id(upload_id: str) -> str:
    return f"upload:{upload_id}"


def to_document(record: UploadRecord, data: bytes, max_bytes: int | None = None) -> SourceDocument:
    """Raises ``Unreadable``."""
    converted = convert_bytes(record.filename, data, max_bytes)
    return SourceDocument(
        id=doc_id(record.id),
        type=SourceType.UPLOAD,
        kind="upload",
        title=converted.title or record.filename,
        url=f"/uploads/{record.id}",
        updated_at=record.uploaded_at,
        content=converted.text,
        metadata={
            "filename": record.filename,
            "path": record.filename,  # the splitter picks code-aware splitting by extension
            "format": converted.format,
            "uploader": record.uploader,
            "bytes": record.bytes,
            "sha256": record.sha256,
            "acl": [[acl.user(record.uploader)]],
            **converted.metadata,
        },
        reference_text={"content": converted.text, "links": "\n".join(converted.links)},
    )


class UploadsLoader:
    type = SourceType.UPLOAD

    def __init__(self, name: str, store: UploadStore) -> None:
        self.name = name
        self.store = store
        self._on_problem: Callable[[str], None] | None = None

    def set_problem_hook(self, on_problem: Callable[[str], None] | None) -> None:
        self._on_problem = on_problem

    def describe(self) -> dict[str, Any]:
        return {"uploads": len(self.store.records())}

    def list_ids(self) -> set[str]:
        return {doc_id(r.id) for r in self.store.records()}

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        indexed: dict[str, str] = json.loads(since) if since else {}
        records = self.store.records()
        batch: list[SourceDocument] = []
        for record in records:
            if indexed.get(record.id) == record.sha256:
                continue
            try:
                batch.append(to_document(record, self.store.data(record)))
                indexed[record.id] = record.sha256
            except (Unreadable, OSError) as e:
                if self._on_problem:
                    self._on_problem(f"{record.filename} ({record.id}): {getattr(e, 'reason', e)}")
            if len(batch) >= BATCH_SIZE:
                yield LoadBatch(batch, json.dumps(indexed), total=len(records))
                batch = []
        present = {r.id for r in records}
        yield LoadBatch(
            batch, json.dumps({k: v for k, v in indexed.items() if k in present}), total=len(records)
        )
