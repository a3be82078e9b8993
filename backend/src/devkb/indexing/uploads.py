"""``UploadIngest``: one upload from the API or the MCP ``ingest`` tool — checked, stored
durably, then indexed by a run of the ``uploads`` source before it is acknowledged.

Checks, each with its HTTP status: over ``upload_max_bytes`` → 413; a file type not accepted →
415; a file that cannot be converted (an encrypted PDF, binary content under a text name, an
empty file) → 422 with the reason. A run of ``uploads`` already going (another upload) is waited
for, then run again, so the upload is indexed when the call returns — and found by the next
question: each sync refreshes what the process keeps of the store before it returns
(``container.StoreViews``). The same file name by the same person is the next version of their
document (``UploadStore.save``). Each person's files per day,
bytes per day and conversions at once are bounded (``upload_quota.py``) → 429 with when to retry.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import PurePosixPath

from devkb.errors import SyncInProgressError
from devkb.indexing.run_manager import RunManager
from devkb.indexing.upload_quota import QuotaLimits, UploadQuota
from devkb.sources.formats import Unreadable, convert_bytes
from devkb.sources.formats.sandbox import ConversionUnavailable
from devkb.sources.uploads import (
    UPLOAD_TYPES,
    UploadError,
    UploadRecord,
    UploadsLoader,
    UploadStore,
    doc_id,
    to_document,
)
from devkb.sources.uploads.store import safe_name

WAIT_FOR_RUN_SECONDS = 120.0


@dataclass(frozen=True)
class Ingested:
    record: UploadRecord
    document_id: str
    title: str


class UploadIngest:
    def __init__(
        self,
        store: UploadStore,
        runs: RunManager,
        source: str,
        max_bytes: int,
        quota: QuotaLimits | None = None,
    ) -> None:
        self.store = store
        self.runs = runs
        self.source = source
        self.max_bytes = max_bytes
        self.quota = UploadQuota(quota or QuotaLimits(0, 0, 0), store.records())

    def check(self, filename: str, size: int) -> str:
        name = safe_name(filename)
        suffix = PurePosixPath(name).suffix.lower()
        if suffix not in UPLOAD_TYPES:
            raise UploadError(
                f"{name}: {suffix or 'no extension'} is not accepted; accepted: {', '.join(sorted(UPLOAD_TYPES))}",
                415,
            )
        if size > self.max_bytes:
            raise UploadError(
                f"{name}: {size / 1e6:.1f} MB is over the upload limit of {self.max_bytes / 1e6:.1f} MB", 413
            )
        return name

    def admit(self, uploader: str, admin: bool) -> None:
        """Raises ``UploadError`` 429 when ``uploader`` has no quota left for another file (before
        it is converted)."""
        self.quota.check(uploader, 0, admin)

    def ingest(self, filename: str, data: bytes, uploader: str, admin: bool = False) -> Ingested:
        """Check, convert (counted against ``uploader``'s quota unless ``admin`` is exempt), store
        durably, index; raises ``UploadError`` with the HTTP status and reason."""
        name = self.check(filename, len(data))
        try:
            with self.quota.converting(uploader, len(data), admin):
                converted = convert_bytes(name, data, self.max_bytes)
        except Unreadable as e:
            raise UploadError(f"{name}: {e.reason}", 422) from e
        except ConversionUnavailable as e:
            raise UploadError(f"{name}: cannot be converted now, try again later ({e})", 503, 30) from e
        probe = UploadRecord("0" * 24, name, uploader, len(data), "", "")
        document = to_document(probe, data, converted=converted)
        # durable before anything else; the same name by the same person: the document's next version
        record = self.store.save(name, data, uploader)
        loader = self.runs.loaders.get(self.source)
        if isinstance(loader, UploadsLoader):
            loader.prepared(record.sha256, converted)
        self._index()
        return Ingested(record, doc_id(record.series), document.title)

    def delete(self, record: UploadRecord) -> None:
        """Remove an upload from disk, then its document from the index: a quarantined later
        version alone, any other upload with every version of its document."""
        alone = record.id != record.series and record.id in self.store.quarantined()
        for upload_id in [record.id] if alone else [r.id for r in self.store.series(record.series)]:
            self.store.delete(upload_id)
        self._index()

    def _index(self) -> None:
        deadline = time.monotonic() + WAIT_FOR_RUN_SECONDS
        while True:
            try:
                self.runs.run(self.source)
                return
            except SyncInProgressError as e:
                if time.monotonic() > deadline:  # stored: the next run of uploads indexes it
                    raise UploadError(
                        f"stored, but not indexed yet: {e}; it is indexed by the next run of {self.source}",
                        503,
                        30,
                    ) from e
                time.sleep(0.05)
