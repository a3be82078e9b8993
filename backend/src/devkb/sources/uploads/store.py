"""``UploadStore``: the files people uploaded, on disk under the data directory.

    <root>/.incoming/<random>          bytes being received (never read; cleared at start)
    <root>/<id>.bin                    the file, once complete
    <root>/<id>.json                   who uploaded it, its name, size and hash — written last
    <root>/<id>.quarantine.json        why it cannot be converted (no sync reads it again)

The same file name uploaded again by the same person is a new **version** of the same document,
not a second document: its record names the first upload of the name (``document``, the id of
the document ``upload:<document>``) and its number (``version``); identical bytes add nothing.
Someone else's upload of the same name is a document of its own (and private to them).

Each file is written to ``.incoming``, flushed and fsynced, then renamed into place (a rename is
atomic on one filesystem); the ``.json`` record is written the same way after it. An upload
exists when its record does, so a restart mid-upload leaves either nothing or a complete upload,
and an upload is acknowledged only after its record is on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from devkb.errors import DevkbError

_ID = re.compile(r"^[0-9a-f]{24}$")
QUARANTINE = ".quarantine.json"


class UploadError(DevkbError):
    """An upload refused (``status``: the HTTP status the API answers with)."""

    def __init__(self, message: str, status: int = 422, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after  # seconds (429: when a quota has room again)


@dataclass(frozen=True)
class UploadRecord:
    id: str
    filename: str
    uploader: str  # e-mail, lower case
    bytes: int
    sha256: str
    uploaded_at: str
    document: str = ""  # the first upload of this name by this person ("" on it, and before versions)
    version: int = 1  # this upload's number among the uploads of its document

    @property
    def series(self) -> str:
        """The id of the upload that names this one's document (``upload:<series>``)."""
        return self.document or self.id


def order(record: UploadRecord) -> tuple[int, str, str]:
    """Versions in the order they were made (two saved at once by two processes: by time)."""
    return (record.version, record.uploaded_at, record.id)


MAX_NAME_CHARS = 255  # what file systems allow in one name


def safe_name(filename: str) -> str:
    """The upload's file name, refused (422, with why) when it has path parts, control
    characters (NUL, newlines) or more than 255 characters — never silently rewritten."""
    name = (filename or "").strip()
    if not name or name in (".", ".."):
        raise UploadError("the upload has no file name", 422)
    if "/" in name or "\\" in name:
        raise UploadError(
            f"the file name {_shown(name)} has path parts ('/' or '\\'): send its base name", 422
        )
    if any(not ch.isprintable() for ch in name):
        kind = "a NUL byte" if "\0" in name else "control characters"
        raise UploadError(f"the file name {_shown(name)} contains {kind}", 422)
    if len(name) > MAX_NAME_CHARS:
        raise UploadError(
            f"the file name is {len(name)} characters long (at most {MAX_NAME_CHARS}): {_shown(name)}", 422
        )
    return name


def _shown(name: str) -> str:
    shown = repr(name)
    return shown if len(shown) <= 80 else shown[:60] + "…" + shown[-15:]


class UploadStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._records: dict[str, UploadRecord] = {}  # read once: records never change
        self._quarantine: dict[str, str] = {}
        self._lock = threading.Lock()
        self._saving = threading.Lock()

    def _incoming(self) -> Path:
        path = self.root / ".incoming"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def clear_incoming(self) -> int:
        """Remove partial uploads a crash left behind; returns how many."""
        path = self.root / ".incoming"
        if not path.is_dir():
            return 0
        partial = list(path.iterdir())
        shutil.rmtree(path, ignore_errors=True)
        return len(partial)

    def _write_atomic(self, target: Path, data: bytes) -> None:
        tmp = self._incoming() / secrets.token_hex(12)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        dir_fd = os.open(self.root, os.O_RDONLY)
        try:
            os.fsync(dir_fd)  # the rename itself survives a power cut
        finally:
            os.close(dir_fd)

    def save(self, filename: str, data: bytes, uploader: str) -> UploadRecord:
        """Store an upload; the same name by the same person becomes the next version of their
        document (identical bytes to its latest version: that version is returned, nothing is
        stored)."""
        name, person = safe_name(filename), uploader.strip().lower()
        sha256 = hashlib.sha256(data).hexdigest()
        with self._saving:  # one version number per upload of this process
            earlier = self.versions_of(name, person)
            if earlier and earlier[-1].sha256 == sha256:
                return earlier[-1]
            record = UploadRecord(
                id=secrets.token_hex(12),
                filename=name,
                uploader=person,
                bytes=len(data),
                sha256=sha256,
                uploaded_at=datetime.now(UTC).isoformat(timespec="seconds"),
                document=earlier[0].series if earlier else "",
                version=earlier[-1].version + 1 if earlier else 1,
            )
            self.root.mkdir(parents=True, exist_ok=True)
            self._write_atomic(self.root / f"{record.id}.bin", data)
            self._write_atomic(self.root / f"{record.id}.json", json.dumps(asdict(record)).encode())
        return record

    def versions_of(self, filename: str, uploader: str) -> list[UploadRecord]:
        """``uploader``'s uploads named ``filename`` (one document), oldest version first."""
        person = uploader.strip().lower()
        mine = [r for r in self.records() if r.uploader == person and r.filename == filename]
        if not mine:
            return []
        series = min(mine, key=order).series  # the first upload of the name names the document
        return self.series(series)

    def series(self, document: str) -> list[UploadRecord]:
        """The uploads of one document (``upload:<document>``), oldest version first."""
        return sorted((r for r in self.records() if r.series == document), key=order)

    def documents(self) -> dict[str, list[UploadRecord]]:
        """Every document's uploads, oldest version first, by the document's upload id."""
        out: dict[str, list[UploadRecord]] = {}
        for r in sorted(self.records(), key=order):
            out.setdefault(r.series, []).append(r)
        return out

    def records(self) -> list[UploadRecord]:
        """Every complete upload, by id. One directory listing a call: a record is read from
        disk once (records never change; another process's new ones are read when they appear),
        so a run after the 10,000th upload does not read 10,000 files again."""
        names = self._listing()
        ids = sorted(
            n[:-5] for n in names if n.endswith(".json") and _ID.match(n[:-5]) and f"{n[:-5]}.bin" in names
        )
        with self._lock:
            for gone in self._records.keys() - set(ids):
                del self._records[gone]
        out = []
        for upload_id in ids:
            record = self._records.get(upload_id)
            if record is None:
                try:
                    text = (self.root / f"{upload_id}.json").read_text(encoding="utf-8")
                    record = UploadRecord(**json.loads(text))
                except (OSError, ValueError, TypeError):
                    continue
                with self._lock:
                    self._records[upload_id] = record
            out.append(record)
        return out

    def _listing(self) -> set[str]:
        try:
            return set(os.listdir(self.root))
        except OSError:
            return set()

    def get(self, upload_id: str) -> UploadRecord | None:
        return next((r for r in self.records() if r.id == upload_id), None) if _ID.match(upload_id) else None

    def data(self, record: UploadRecord) -> bytes:
        return (self.root / f"{record.id}.bin").read_bytes()

    def delete(self, upload_id: str) -> bool:
        if not _ID.match(upload_id):
            return False
        found = (self.root / f"{upload_id}.json").exists()
        (self.root / f"{upload_id}.json").unlink(missing_ok=True)  # the record first: it makes the upload
        (self.root / f"{upload_id}.bin").unlink(missing_ok=True)
        (self.root / f"{upload_id}{QUARANTINE}").unlink(missing_ok=True)
        return found

    # -- quarantine: stored files that cannot be converted ---------------------------------------
    def quarantine(self, upload_id: str, reason: str) -> None:
        """Record that ``upload_id`` cannot be converted and why; no sync converts it again
        (until it is deleted)."""
        if not _ID.match(upload_id):
            return
        note = {"reason": reason, "at": datetime.now(UTC).isoformat(timespec="seconds")}
        self.root.mkdir(parents=True, exist_ok=True)
        self._write_atomic(self.root / f"{upload_id}{QUARANTINE}", json.dumps(note).encode())

    def quarantined(self) -> dict[str, str]:
        """``{upload id: reason}`` of the quarantined uploads (each note read once)."""
        out: dict[str, str] = {}
        for name in self._listing():
            if not name.endswith(QUARANTINE) or not _ID.match(upload_id := name[: -len(QUARANTINE)]):
                continue
            reason = self._quarantine.get(upload_id)
            if reason is None:
                try:
                    reason = str(json.loads((self.root / name).read_text(encoding="utf-8"))["reason"])
                except (OSError, ValueError, KeyError, TypeError):
                    reason = "cannot be converted"
                with self._lock:
                    self._quarantine[upload_id] = reason
            out[upload_id] = reason
        with self._lock:
            for gone in self._quarantine.keys() - out.keys():
                del self._quarantine[gone]
        return out
