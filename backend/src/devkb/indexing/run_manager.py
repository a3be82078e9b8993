"""``RunManager``: starts sync runs (at most one per source at a time), keeps their status for
the API, CLI and UI, and runs several sources in dependency order."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable

from devkb.errors import ConfigurationError, SyncInProgressError
from devkb.indexing.run_status import RunStatus
from devkb.indexing.sync import SourceSync
from devkb.sources.base import SourceLoader
from devkb.store.models import SourceType

log = logging.getLogger(__name__)

# Pages and repositories first, so Jira text can be matched against their titles and URLs.
SYNC_ORDER = {SourceType.CONFLUENCE: 0, SourceType.GITHUB: 1, SourceType.JIRA: 2}
MAX_RUNS_KEPT = 200


class RunManager:
    def __init__(self, sync: SourceSync, loaders: list[SourceLoader]) -> None:
        self.sync = sync
        self.loaders: dict[str, SourceLoader] = {l.name: l for l in loaders}
        self._locks = {name: threading.Lock() for name in self.loaders}
        self._runs: OrderedDict[str, RunStatus] = OrderedDict()
        self._current: dict[str, RunStatus] = {}
        self._guard = threading.Lock()

    def loader(self, name: str) -> SourceLoader:
        try:
            return self.loaders[name]
        except KeyError:
            raise ConfigurationError(
                f"no source named {name!r}; configured: {', '.join(sorted(self.loaders)) or 'none'}"
            ) from None

    def ordered_names(self) -> list[str]:
        return sorted(self.loaders, key=lambda n: (SYNC_ORDER.get(self.loaders[n].type, 9), n))

    def _begin(self, name: str, full: bool) -> RunStatus:
        loader = self.loader(name)
        if not self._locks[name].acquire(blocking=False):
            running = self._current.get(name)
            raise SyncInProgressError(
                f"a sync of {name} is already running" + (f" (run {running.id})" if running else "")
            )
        status = RunStatus(source=loader.name, full=full)
        with self._guard:
            self._runs[status.id] = status
            self._current[name] = status
            while len(self._runs) > MAX_RUNS_KEPT:
                self._runs.popitem(last=False)
        return status

    def _execute(
        self, name: str, status: RunStatus, full: bool, on_progress, allow_mass_delete: bool
    ) -> None:
        try:
            self.sync.run(
                self.loaders[name],
                status,
                full=full,
                on_progress=on_progress,
                allow_mass_delete=allow_mass_delete,
            )
        finally:
            with self._guard:
                self._current.pop(name, None)
            self._locks[name].release()

    def run(
        self,
        name: str,
        full: bool = False,
        on_progress: Callable[[RunStatus], None] | None = None,
        allow_mass_delete: bool = False,
    ) -> RunStatus:
        """Run a sync in this thread; raises what the sync raised."""
        status = self._begin(name, full)
        self._execute(name, status, full, on_progress, allow_mass_delete)
        return status

    def start(self, name: str, full: bool = False) -> RunStatus:
        """Start a sync in a background thread and return its status at once."""
        status = self._begin(name, full)

        def work() -> None:
            try:
                self._execute(name, status, full, None, False)
            except Exception:  # noqa: BLE001 - already recorded on the run and the source state
                log.exception("background sync of %s failed", name)

        threading.Thread(target=work, name=f"sync-{name}", daemon=True).start()
        return status

    def get_run(self, name: str, run_id: str) -> RunStatus | None:
        run = self._runs.get(run_id)
        return run if run is not None and run.source == name else None

    def current(self, name: str) -> RunStatus | None:
        return self._current.get(name)

    def last_run(self, name: str) -> RunStatus | None:
        for run in reversed(self._runs.values()):
            if run.source == name:
                return run
        return None
