"""``PermissionSync``: mirror who may read what from the sources, on a schedule of its own.

Content and permissions change independently: a page's restriction or a project's members can
change without a new version of any document. So each loader that is a ``PermissionSource``
(``sources/base.py``) is asked for its ``(principal, e-mail)`` pairs every
``DEVKB_PERMISSION_SYNC_MINUTES`` (and on demand, ``POST /admin/permissions/sync``); the pairs
replace that source's previous ones in one transaction (``AccountStore.replace_memberships``).
A failed source keeps its previous permissions and reports the error; it never widens access.
Which principals a document requires (its gates) is stored with the document at indexing time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from devkb.access.accounts import AccountStore
from devkb.access.policy import AccessPolicy
from devkb.sources.base import PermissionSource, SourceLoader
from devkb.sources.retry import call_with_retry

log = logging.getLogger(__name__)


@dataclass
class PermissionSyncStatus:
    source: str
    state: str = "never"  # never | ok | failed
    last_run: str | None = None
    last_success: str | None = None
    pairs: int = 0
    error: str | None = None
    seconds: float = 0.0


@dataclass
class PermissionSync:
    loaders: Callable[[], list[SourceLoader]]
    accounts: Callable[[], AccountStore]
    policy: Callable[[], AccessPolicy]
    interval_seconds: float = 600.0
    redact: Callable[[str], str] = lambda s: s
    status: dict[str, PermissionSyncStatus] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sources(self) -> list[SourceLoader]:
        return [loader for loader in self.loaders() if isinstance(loader, PermissionSource)]

    def run_once(self) -> dict[str, PermissionSyncStatus]:
        """Mirror every source's permissions now (one at a time); the statuses."""
        with self._lock:
            for loader in self.sources():
                assert isinstance(loader, PermissionSource)
                st = self.status.setdefault(loader.name, PermissionSyncStatus(loader.name))
                started = time.monotonic()
                st.last_run = datetime.now(UTC).isoformat(timespec="seconds")
                try:
                    pairs = call_with_retry(
                        f"permissions of {loader.name}", loader.fetch_permissions, attempts=3
                    )
                    st.pairs = self.accounts().replace_memberships(loader.name, pairs)
                    st.state, st.error, st.last_success = "ok", None, st.last_run
                except Exception as e:  # keep the previous permissions: never widen access on failure
                    st.state, st.error = "failed", self.redact(f"{type(e).__name__}: {e}")[:500]
                    log.warning("permission sync of %s failed: %s", loader.name, st.error)
                st.seconds = round(time.monotonic() - started, 3)
            self.policy().forget()
            return dict(self.status)

    def snapshot(self) -> list[dict[str, Any]]:
        return [vars(s).copy() for s in self.status.values()]

    # -- schedule ------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None or not self.sources():
            return
        self._stop.clear()

        fresh = any(st.last_success for st in self.status.values())  # just mirrored (serve --index)

        def loop() -> None:
            if fresh:
                self._stop.wait(self.interval_seconds)
            while not self._stop.is_set():
                try:
                    self.run_once()
                except Exception:
                    log.exception("permission sync failed")
                self._stop.wait(self.interval_seconds)

        self._thread = threading.Thread(target=loop, name="permission-sync", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread = None
