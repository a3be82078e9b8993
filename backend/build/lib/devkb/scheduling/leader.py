"""``LeaderElection``: exactly one replica runs the sync scheduler (persistent mode).

Every replica tries to take or renew the ``scheduler`` lease in the store every third of its
length. The holder runs ``SyncScheduler``; when it stops renewing (killed, hung, cut off from
the store) the lease expires and the next replica to try takes over — within one lease period
plus one renewal interval. A replica that finds the lease taken by another stops its scheduler.
Leases compare the store's clocks as seen by each replica (``time.time``): replicas must keep
their clocks in sync (NTP) to within a small part of the lease.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from devkb.errors import DevkbError
from devkb.scheduling.scheduler import SyncScheduler
from devkb.store.shared_state import SharedState

log = logging.getLogger(__name__)

SCHEDULER_LEASE = "scheduler"


class LeaderElection:
    def __init__(
        self,
        state: SharedState,
        scheduler: SyncScheduler,
        instance: str,
        lease_seconds: float = 15.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.state = state
        self.scheduler = scheduler
        self.instance = instance
        self.lease_seconds = lease_seconds
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._leader = False

    @property
    def is_leader(self) -> bool:
        return self._leader

    def start(self) -> None:
        if not self.scheduler.enabled or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="scheduler-leader", daemon=True)
        self._thread.start()

    def stop(self, wait: bool = False) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.lease_seconds)
            self._thread = None
        self._step_down(wait)

    def step(self) -> bool:
        """One round: take or renew the lease, start or stop the scheduler; whether we lead."""
        try:
            leading = self.state.acquire_lease(
                SCHEDULER_LEASE, self.instance, self.lease_seconds, self.clock()
            )
        except DevkbError as e:  # the store is unreachable: we cannot prove we lead, so we do not
            log.warning("scheduler lease not renewed: %s", e)
            leading = False
        if leading and not self._leader:
            log.info("%s leads the scheduler", self.instance)
            self._leader = True
            self.scheduler.start()
        elif not leading and self._leader:
            log.info("%s no longer leads the scheduler", self.instance)
            self._leader = False
            self.scheduler.stop()
        return leading

    def _loop(self) -> None:
        interval = self.lease_seconds / 3
        while not self._stop.is_set():
            self.step()
            self._stop.wait(interval)

    def _step_down(self, wait: bool) -> None:
        if self._leader:
            self._leader = False
            self.scheduler.stop(wait=wait)
            try:
                self.state.release_lease(SCHEDULER_LEASE, self.instance)
            except DevkbError as e:
                log.warning("releasing the scheduler lease failed (it expires by itself): %s", e)
