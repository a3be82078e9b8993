"""``UploadIngest``: one upload from the API or the MCP ``ingest`` tool — checked, stored
durably, then indexed by a run of the ``uploads`` source before it is acknowledged.

Checks, each with its HTTP status: over ``upload_max_bytes`` → 413; a file type not accepted →
415; a file that cannot be converted (an encrypted PDF, binary content under a text name, an
empty file) → 422 with the reason. A run of ``uploads`` already going (another upload) is waited
for, then run again, so the upload is indexed when the call returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import PurePosixPath

from devkb.errors import SyncInProgressError
from devkb.indexing.run_manager import RunManager
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
    def __init__(self, store: UploadStore, runs: RunManager, source: str, max_bytes: int) -> None:
        self.store = store
        self.runs = runs
        self.source = source
        self.max_bytes = max_bytes

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

    def ingest(self, filename: str, data: bytes, uploader: str) -> Ingested:
        name = self.check(filename, len(data))
        try:
            converted = convert_bytes(name, data, self.max_bytes)
        except Unreadable as e:
            raise UploadError(f"{name}: {e.reason}", 422) from e
        except ConversionUnavailable as e:
            raise UploadError(f"{name}: cannot be converted now, try again later ({e})", 503) from e
        probe = UploadRecord("0" * 24, name, uploader, len(data), "", "")
        document = to_document(probe, data, converted=converted)
        record = self.store.save(name, data, uploader)  # durable before anything else
        loader = self.runs.loaders.get(self.source)
        if isinstance(loader, UploadsLoader):
            loader.prepared(record.sha256, converted)
        self._index()
        return Ingested(record, doc_id(record.id), document.title)

    def _index(self) -> None:
        deadline = time.monotonic() + WAIT_FOR_RUN_SECONDS
        while True:
            try:
                self.runs.run(self.source)
                return
            except SyncInProgressError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
