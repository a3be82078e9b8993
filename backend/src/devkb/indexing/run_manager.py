"""``RunManager``: starts sync runs (at most one per source at a time), keeps their status for
the API, CLI and UI, and runs several sources in dependency order.

With ``shared`` (the persistent mode, several replicas on one store) "one at a time" holds across
replicas: a run takes the source's lease in the store and renews it while it runs, and its status
is published to the store, so every replica can show a run another one started."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from devkb.errors import ConfigurationError, SyncInProgressError
from devkb.indexing.heap import collector_for_sync
from devkb.indexing.run_status import RunStatus
from devkb.indexing.sync import SourceSync
from devkb.sources.base import SourceLoader
from devkb.store.models import SourceType
from devkb.store.shared_state import SharedState, SyncRunRecord

log = logging.getLogger(__name__)

# Pages and repositories first, so Jira text can be matched against their titles and URLs.
SYNC_ORDER = {SourceType.CONFLUENCE: 0, SourceType.GITHUB: 1, SourceType.JIRA: 2}
# What the other sources' text is matched against (page titles and URLs, a repository's files and
# renames, read from the store when a run starts): these sync first, then the rest (each wave side
# by side with ``side_by_side``). Their own references need only what loaders say (project keys).
MATCHED_AGAINST = frozenset({SourceType.CONFLUENCE, SourceType.GITHUB})
MAX_RUNS_KEPT = 200
PUBLISH_EVERY = 1.0  # seconds between status updates of a running sync in the store (replicas)


def sync_lease(source: str) -> str:
    return f"sync:{source}"


class RunManager:
    def __init__(
        self,
        sync: SourceSync,
        loaders: list[SourceLoader],
        shared: SharedState | None = None,
        instance: str = "local",
        lease_seconds: float = 15.0,
        side_by_side: bool = False,
    ) -> None:
        self.sync = sync
        self.side_by_side = side_by_side  # run_many: sources at once (default: one after the other)
        self.loaders: dict[str, SourceLoader] = {loader.name: loader for loader in loaders}
        self._locks = {name: threading.Lock() for name in self.loaders}
        self._runs: OrderedDict[str, RunStatus] = OrderedDict()
        self._current: dict[str, RunStatus] = {}
        self._guard = threading.Lock()
        self.shared = shared
        self.instance = instance
        self.lease_seconds = lease_seconds
        # called with the run's status after each sync that succeeded (e.g. retrieval adaptation);
        # what one raises is logged, never the sync's failure
        self.after_run: list[Callable[[RunStatus], object]] = []

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
        if self.shared is not None and not self.shared.acquire_lease(
            sync_lease(name), self.instance, self.lease_seconds, time.time()
        ):
            self._locks[name].release()
            lease = self.shared.lease(sync_lease(name))
            raise SyncInProgressError(
                f"a sync of {name} is already running" + (f" on replica {lease.holder}" if lease else "")
            )
        status = RunStatus(source=loader.name, full=full)
        with self._guard:
            self._runs[status.id] = status
            self._current[name] = status
            while len(self._runs) > MAX_RUNS_KEPT:
                self._runs.popitem(last=False)
        self._publish(status)  # other replicas see the run from the moment it is accepted
        return status

    def _execute(
        self,
        name: str,
        status: RunStatus,
        full: bool,
        on_progress: Callable[[RunStatus], None] | None,
        allow_mass_delete: bool,
    ) -> None:
        heartbeat = self._start_heartbeat(name, status)
        try:
            with collector_for_sync():  # fewer, cheaper garbage collections while it runs (heap.py)
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
            if heartbeat is not None:
                heartbeat.set()
                self._publish(status)
                self._release_lease(name)
            self._locks[name].release()
        if status.state == "succeeded":
            for hook in list(self.after_run):
                try:
                    hook(status)
                except Exception:
                    log.exception("a hook after the sync of %s failed", name)

    # -- replicas: the source's lease and the run's status in the store ----------------------------
    def _start_heartbeat(self, name: str, status: RunStatus) -> threading.Event | None:
        """Renew the source's lease and publish the run's status every third of the lease."""
        if self.shared is None:
            return None
        stop = threading.Event()
        shared = self.shared

        def beat() -> None:
            renewed = time.monotonic()
            while not stop.wait(min(PUBLISH_EVERY, self.lease_seconds / 3)):
                self._publish(status)
                if time.monotonic() - renewed < self.lease_seconds / 3:
                    continue
                renewed = time.monotonic()
                try:
                    shared.acquire_lease(sync_lease(name), self.instance, self.lease_seconds, time.time())
                except Exception as e:  # the run goes on; the lease may lapse
                    log.warning("renewing the sync lease of %s failed: %s", name, e)

        self._publish(status)
        threading.Thread(target=beat, name=f"sync-lease-{name}", daemon=True).start()
        return stop

    def _publish(self, status: RunStatus) -> None:
        if self.shared is None:
            return
        snap = status.snapshot()
        try:
            self.shared.save_run(
                SyncRunRecord(status.id, status.source, str(snap["state"]), self.instance, time.time(), snap)
            )
        except Exception as e:  # status publishing never fails a sync
            log.warning("publishing the status of run %s failed: %s", status.id, e)

    def _release_lease(self, name: str) -> None:
        if self.shared is None:
            return
        try:
            self.shared.release_lease(sync_lease(name), self.instance)
        except Exception as e:  # it expires by itself
            log.warning("releasing the sync lease of %s failed: %s", name, e)

    def _shared_run(self, record: SyncRunRecord | None, name: str) -> RunStatus | None:
        if record is None or record.source != name:
            return None
        known = {f for f in RunStatus.__dataclass_fields__ if f != "_lock"}
        return RunStatus(**{k: v for k, v in record.status.items() if k in known})

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

    def waves(self, names: list[str]) -> list[list[list[str]]]:
        """``names`` as ``run_many`` runs them: waves one after the other; in a wave, lanes side by
        side; in a lane, sources one after the other. The first wave holds the sources whose
        documents the others' text is matched against (``MATCHED_AGAINST``); a lane holds one
        source type, so one vendor never gets two of our syncs at once (GitHub asks for a
        client's requests to be made serially)."""
        order = {n: i for i, n in enumerate(self.ordered_names())}
        ranked = sorted(dict.fromkeys(names), key=lambda n: order.get(n, len(order)))
        if not self.side_by_side:
            return [[[n]] for n in ranked]
        out: list[list[list[str]]] = []
        for first in (True, False):
            lanes: dict[SourceType, list[str]] = {}
            for name in ranked:
                kind = self.loader(name).type
                if (kind in MATCHED_AGAINST) == first:
                    lanes.setdefault(kind, []).append(name)
            if lanes:
                out.append(list(lanes.values()))
        return out

    def run_many(
        self,
        names: list[str],
        full: bool = False,
        on_progress: Callable[[RunStatus], None] | None = None,
        allow_mass_delete: bool = False,
    ) -> dict[str, RunStatus | Exception]:
        """Sync ``names`` in waves (``waves``), each source's lanes in threads of their own; returns,
        per name in the order given, its run's status or what its run raised (a source already
        syncing gives ``SyncInProgressError``). One source failing stops no other."""
        names = list(dict.fromkeys(names))
        for name in names:
            self.loader(name)  # an unknown name fails before anything runs
        outcome: dict[str, RunStatus | Exception] = {}

        def lane(lane_names: list[str]) -> None:
            for name in lane_names:
                try:
                    outcome[name] = self.run(name, full, on_progress, allow_mass_delete)
                except Exception as e:  # recorded on the run and the source; reported to the caller
                    outcome[name] = e

        for wave in self.waves(names):
            threads = [
                threading.Thread(target=lane, args=(lane_names,), name=f"sync-{lane_names[0]}", daemon=True)
                for lane_names in wave[1:]
            ]
            for t in threads:
                t.start()
            lane(wave[0])  # the first lane in this thread
            for t in threads:
                t.join()
        return {name: outcome[name] for name in names}

    def start(self, name: str, full: bool = False) -> RunStatus:
        """Start a sync in a background thread and return its status at once."""
        status = self._begin(name, full)

        def work() -> None:
            try:
                self._execute(name, status, full, None, False)
            except Exception:  # already recorded on the run and the source state
                log.exception("background sync of %s failed", name)

        threading.Thread(target=work, name=f"sync-{name}", daemon=True).start()
        return status

    def get_run(self, name: str, run_id: str) -> RunStatus | None:
        run = self._runs.get(run_id)
        if run is not None:
            return run if run.source == name else None
        if self.shared is not None:  # started on another replica
            return self._shared_run(self.shared.get_run(run_id), name)
        return None

    def current(self, name: str) -> RunStatus | None:
        run = self._current.get(name)
        if run is None and self.shared is not None:
            lease = self.shared.lease(sync_lease(name))
            if lease is not None and lease.expires_at > time.time():
                last = self.last_run(name)
                return last if last is not None and not last.finished else None
        return run

    def last_run(self, name: str) -> RunStatus | None:
        if self.shared is not None:
            records = self.shared.runs(name, limit=1)
            if records:
                return self._shared_run(records[0], name)
        for run in reversed(self._runs.values()):
            if run.source == name:
                return run
        return None
