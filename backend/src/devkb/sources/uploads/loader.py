"""``UploadsLoader``: the uploads as a source (``uploads``), so they are indexed, listed and
deleted like every other document. An upload is readable by its uploader only
(``metadata["acl"]``); an admin shares it with every member through the same share as any
document (``/admin/shared``), and the reader policy (``access/policy.py``) decides.

The uploads of one name by one person are one document (``UploadStore.save``): its text is the
latest version's, and every version is stored as a ``page`` version of the document (``seq`` =
the upload's version number, body = its text, author = the uploader), so the document's history
and the version diff show what each upload changed, as for a Confluence page.

The cursor is ``{document: sha256 of its latest version}`` of the documents indexed (an upload
from before versions is a document of one version, so older cursors read the same); a load
converts the others, so an upload stored just before a crash is indexed by the next run. An upload that cannot be converted (stored
before a limit existed, or refused by a stricter one) is quarantined with its reason
(``UploadStore.quarantine``): listed to its uploader and the admins, never converted again by a
start or a sync, deletable."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from devkb.sources import acl
from devkb.sources.base import HistoryPolicy, LoadBatch, SourceDocument
from devkb.sources.formats import Converted, Unreadable, convert_bytes
from devkb.sources.uploads.store import UploadRecord, UploadStore
from devkb.store.models import SourceType, Version

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
        id=doc_id(record.series),
        type=SourceType.UPLOAD,
        kind="upload",
        title=converted.title or record.filename,
        url=f"/uploads/{record.series}",
        updated_at=record.uploaded_at,
        content=converted.text,
        metadata={
            "filename": record.filename,
            "path": record.filename,  # the splitter picks code-aware splitting by extension
            "format": converted.format,
            "uploader": record.uploader,
            "bytes": record.bytes,
            "sha256": record.sha256,
            "version": record.version,
            "acl": [[acl.user(record.uploader)]],
            **converted.metadata,
        },
        reference_text={"content": converted.text, "links": "\n".join(converted.links)},
    )


def version_of(record: UploadRecord, text: str) -> Version:
    """One upload as a version of its document."""
    return Version(
        document_id=doc_id(record.series),
        kind="page",
        seq=record.version,
        valid_from=record.uploaded_at,
        author=record.uploader,
        message=f"{record.filename} uploaded",
        body=text,
    )


class UploadsLoader:
    type = SourceType.UPLOAD

    def __init__(self, name: str, store: UploadStore) -> None:
        self.name = name
        self.store = store
        self._on_problem: Callable[[str], None] | None = None
        self._prepared: dict[str, Converted] = {}  # sha256 → the conversion an upload was checked with
        self._history = HistoryPolicy()

    def prepared(self, sha256: str, converted: Converted) -> None:
        """The conversion ``UploadIngest`` checked an upload with, used by the next load instead
        of converting the same bytes again."""
        self._prepared[sha256] = converted

    def set_problem_hook(self, on_problem: Callable[[str], None] | None) -> None:
        self._on_problem = on_problem

    def set_history(self, policy: HistoryPolicy) -> None:
        self._history = policy

    def describe(self) -> dict[str, Any]:
        return {"uploads": len(self.store.records()), "quarantined": len(self.store.quarantined())}

    def list_ids(self) -> set[str]:
        quarantined = self.store.quarantined()
        return {
            doc_id(series)
            for series, records in self.store.documents().items()
            if any(r.id not in quarantined for r in records)
        }

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        indexed: dict[str, str] = json.loads(since) if since else {}
        documents = self.store.documents()
        batch: list[SourceDocument] = []
        quarantined = self.store.quarantined()
        for series, records in documents.items():
            usable = [r for r in records if r.id not in quarantined]
            if not usable or indexed.get(series) == usable[-1].sha256:
                continue  # a quarantined upload is never converted again (deleting it is the way out)
            document = self._document(usable)
            if document is not None:
                batch.append(document)
                indexed[series] = str(document.metadata["sha256"])
            if len(batch) >= BATCH_SIZE:
                yield LoadBatch(batch, json.dumps(indexed), total=len(documents))
                batch = []
        yield LoadBatch(
            batch, json.dumps({k: v for k, v in indexed.items() if k in documents}), total=len(documents)
        )

    def _document(self, usable: list[UploadRecord]) -> SourceDocument | None:
        """The document of one name's uploads (oldest first): the latest readable version's text,
        with the versions the store does not have yet. None when it cannot be read now."""
        while usable:
            current = usable[-1]
            text = self._text(current)
            if text is None:  # the disk: tried again on the next run
                return None
            if isinstance(text, Converted):
                break
            usable = usable[:-1]  # quarantined: the version before it is the document's text
        else:
            return None
        document = to_document(current, b"", converted=text)
        if self._history.enabled:
            stored = {v.seq for v in self._history.stored(document.id, "page")}
            for record in usable[:-1]:
                if record.version not in stored:
                    older = self._text(record)
                    if isinstance(older, Converted):
                        document.versions.append(version_of(record, older.text))
            document.versions.append(version_of(current, text.text))
        return document

    def _text(self, record: UploadRecord) -> Converted | str | None:
        """The upload converted; its reason when it cannot be (quarantined: never converted
        again); None when the disk could not be read (tried again on the next run)."""
        try:
            known = self._prepared.pop(record.sha256, None)
            return known or convert_bytes(record.filename, self.store.data(record))
        except Unreadable as e:
            self.store.quarantine(record.id, e.reason)
            if self._on_problem:
                self._on_problem(f"{record.filename} ({record.id}): quarantined: {e.reason}")
            return e.reason
        except OSError as e:
            if self._on_problem:
                self._on_problem(f"{record.filename} ({record.id}): {e}")
            return None
