"""``UploadsLoader``: the uploads as a source (``uploads``), so they are indexed, listed and
deleted like every other document. An upload is readable by its uploader only
(``metadata["acl"]``); an admin shares it with every member through the same share as any
document (``/admin/shared``), and the reader policy (``access/policy.py``) decides.

The cursor is ``{id: sha256}`` of the uploads indexed; a load converts the others, so an upload
stored just before a crash is indexed by the next run. An upload that cannot be converted (stored
before a limit existed, or refused by a stricter one) is quarantined with its reason
(``UploadStore.quarantine``): listed to its uploader and the admins, never converted again by a
start or a sync, deletable."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from devkb.sources import acl
from devkb.sources.base import LoadBatch, SourceDocument
from devkb.sources.formats import Converted, Unreadable, convert_bytes
from devkb.sources.uploads.store import UploadRecord, UploadStore
from devkb.store.models import SourceType

BATCH_SIZE = 50


def doc_id(upload_id: str) -> str:
    return f"upload:{upload_id}"


def to_document(
    record: UploadRecord, data: bytes, max_bytes: int | None = None, converted: Converted | None = None
) -> SourceDocument:
    """Raises ``Unreadable``; ``converted``: the conversion already made of these bytes."""
    if converted is None:
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
        self._prepared: dict[str, Converted] = {}  # sha256 → the conversion an upload was checked with

    def prepared(self, sha256: str, converted: Converted) -> None:
        """The conversion ``UploadIngest`` checked an upload with, used by the next load instead
        of converting the same bytes again."""
        self._prepared[sha256] = converted

    def set_problem_hook(self, on_problem: Callable[[str], None] | None) -> None:
        self._on_problem = on_problem

    def describe(self) -> dict[str, Any]:
        return {"uploads": len(self.store.records()), "quarantined": len(self.store.quarantined())}

    def list_ids(self) -> set[str]:
        quarantined = self.store.quarantined()
        return {doc_id(r.id) for r in self.store.records() if r.id not in quarantined}

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        indexed: dict[str, str] = json.loads(since) if since else {}
        records = self.store.records()
        batch: list[SourceDocument] = []
        quarantined = self.store.quarantined()
        for record in records:
            if indexed.get(record.id) == record.sha256 or record.id in quarantined:
                continue  # a quarantined upload is never converted again (deleting it is the way out)
            try:
                data = self.store.data(record)
                known = self._prepared.pop(record.sha256, None)
                batch.append(to_document(record, data, converted=known))
                indexed[record.id] = record.sha256
            except Unreadable as e:
                self.store.quarantine(record.id, e.reason)
                if self._on_problem:
                    self._on_problem(f"{record.filename} ({record.id}): quarantined: {e.reason}")
            except OSError as e:  # the disk, not the file: tried again on the next run
                if self._on_problem:
                    self._on_problem(f"{record.filename} ({record.id}): {e}")
            if len(batch) >= BATCH_SIZE:
                yield LoadBatch(batch, json.dumps(indexed), total=len(records))
                batch = []
        present = {r.id for r in records}
        yield LoadBatch(
            batch, json.dumps({k: v for k, v in indexed.items() if k in present}), total=len(records)
        )
