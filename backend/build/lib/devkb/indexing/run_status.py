"""The status of one sync run, as the API, CLI and UI show it."""

from __future__ import annotations

import copy
import threading
import uuid
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class RunStatus:
    source: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    state: str = "queued"  # queued | running | succeeded | failed
    phase: str = "queued"  # queued | loading | indexing | deleting | done
    done: int = 0
    total: int | None = None
    documents_indexed: int = 0
    documents_unchanged: int = 0
    documents_deleted: int = 0
    chunks_written: int = 0
    chunks_embedded: int = 0
    references_written: int = 0
    retries: int = 0
    errors: list[str] = field(default_factory=list)
    started_at: str | None = None
    finished_at: str | None = None
    full: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def update(self, **changes: Any) -> None:
        with self._lock:
            for k, v in changes.items():
                setattr(self, k, v)

    def note_retry(self, message: str) -> None:
        with self._lock:
            self.retries += 1
            if len(self.errors) < 50:
                self.errors.append(message)

    def snapshot(self) -> dict[str, Any]:
        # not asdict(): it deep-copies every field, and a Lock cannot be copied
        with self._lock:
            return {f.name: copy.copy(getattr(self, f.name)) for f in fields(self) if f.name != "_lock"}

    @property
    def finished(self) -> bool:
        return self.state in ("succeeded", "failed")
