"""``UploadQuota``: what one person may upload (the API, the web app and MCP ``ingest`` alike).

Per person, over the last 24 hours (a sliding window): at most ``files_per_day`` files and
``bytes_per_day`` bytes sent — every file that reached conversion counts, accepted or refused,
since a refused bomb costs a worker as much as an accepted file — and at most ``concurrent``
conversions at once. A refusal is ``UploadError`` 429 with ``retry_after`` (seconds until the
window has room; a second or two for the concurrency limit). Admins (and the operator of a
server without accounts) are exempt unless ``admins_bounded``; then the same limits hold for them
too. The window is seeded from the stored uploads at start, so a restart forgets only refused
files. 0 turns a limit off.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from devkb.sources.uploads import UploadError, UploadRecord

DAY = 86_400.0
BUSY_RETRY_SECONDS = 2


@dataclass(frozen=True)
class QuotaLimits:
    files_per_day: int = 200
    bytes_per_day: int = 500_000_000
    concurrent: int = 2
    admins_bounded: bool = False


@dataclass(frozen=True)
class QuotaUse:
    files: int
    bytes: int
    running: int


class UploadQuota:
    def __init__(
        self,
        limits: QuotaLimits,
        records: list[UploadRecord] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limits = limits
        self.clock = clock
        self._sent: dict[str, deque[tuple[float, int]]] = {}
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()
        now = clock()
        for record in sorted(records or [], key=lambda r: r.uploaded_at):
            try:
                at = datetime.fromisoformat(record.uploaded_at).timestamp()
            except ValueError:
                continue
            if now - at < DAY:
                self._sent.setdefault(record.uploader, deque()).append((at, record.bytes))

    def bounded(self, admin: bool) -> bool:
        return self.limits.admins_bounded or not admin

    def use(self, person: str) -> QuotaUse:
        with self._lock:
            window = self._window(person)
            return QuotaUse(len(window), sum(b for _, b in window), self._running.get(person, 0))

    def usage(self) -> dict[str, QuotaUse]:
        """Every person's use in the last 24 hours (those with any), for the admins' view."""
        with self._lock:
            people = set(self._sent) | set(self._running)
            out = {}
            for person in sorted(people):
                window = self._window(person)
                running = self._running.get(person, 0)
                if window or running:
                    out[person] = QuotaUse(len(window), sum(b for _, b in window), running)
            return out

    def _window(self, person: str) -> deque[tuple[float, int]]:
        window = self._sent.setdefault(person, deque())
        cutoff = self.clock() - DAY
        while window and window[0][0] <= cutoff:
            window.popleft()
        return window

    def check(self, person: str, size: int, admin: bool) -> None:
        """Raises ``UploadError`` 429 when one more file of ``size`` bytes is over a daily limit."""
        if not self.bounded(admin):
            return
        with self._lock:
            self._check(person, size)

    def _check(self, person: str, size: int) -> None:
        window = self._window(person)
        now = self.clock()
        files, limit_bytes = self.limits.files_per_day, self.limits.bytes_per_day
        if files and len(window) >= files:
            wait = window[len(window) - files][0] + DAY - now
            raise _refused(f"{files} files a day per person (upload_quota_files_per_day)", wait)
        used = sum(b for _, b in window)
        if limit_bytes and used + size > limit_bytes:
            if size > limit_bytes:
                raise UploadError(
                    f"{size / 1e6:.1f} MB is more than a day's upload quota of {limit_bytes / 1e6:.1f} MB "
                    "(upload_quota_bytes_per_day)",
                    413,
                )
            freed, wait = used + size - limit_bytes, 0.0
            for at, sent in window:  # the oldest expire first
                freed -= sent
                wait = at + DAY - now
                if freed <= 0:
                    break
            raise _refused(
                f"{limit_bytes / 1e6:.1f} MB a day per person (upload_quota_bytes_per_day; "
                f"{used / 1e6:.1f} MB sent in the last 24 hours)",
                wait,
            )

    @contextmanager
    def converting(self, person: str, size: int, admin: bool) -> Iterator[None]:
        """One conversion of ``person``'s: counted against the daily limits (whatever its outcome)
        and the concurrency limit while it runs."""
        if not self.bounded(admin):
            yield
            return
        with self._lock:
            self._check(person, size)
            running = self._running.get(person, 0)
            if self.limits.concurrent and running >= self.limits.concurrent:
                raise _refused(
                    f"{self.limits.concurrent} uploads at once per person (upload_concurrent_per_person)",
                    BUSY_RETRY_SECONDS,
                )
            self._running[person] = running + 1
            self._window(person).append((self.clock(), size))
        try:
            yield
        finally:
            with self._lock:
                self._running[person] -= 1


def _refused(limit: str, wait: float) -> UploadError:
    seconds = max(1, math.ceil(wait))
    error = UploadError(f"upload quota reached: {limit}; try again in {_human(seconds)}", 429)
    error.retry_after = seconds
    return error


def _human(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds / 3600:.1f} h"
