"""``SyncScheduler``: runs each source's sync on its schedule, inside the server process.

APScheduler's ``BackgroundScheduler`` (UTC) holds one job per distinct schedule; a job syncs
the sources that share it with ``RunManager.run_many``: pages and repositories first, then Jira
and the rest (one after the other, or side by side with ``DEVKB_SYNC_SIDE_BY_SIDE``), so Jira
text is matched against titles already indexed.

    schedule: 30m | 2h | 1d        IntervalTrigger, first run one interval after start
    schedule: "*/15 * * * 1-5"     CronTrigger from the crontab fields (weekdays 0/7 = Sunday, as in cron)
    schedule: manual (or none)     no job; sync through the API or CLI

Housekeeping jobs (``housekeeping``: a name and a callable, e.g. the memory retention job) run
every ``HOUSEKEEPING_HOURS``, the first one interval after start; ``run_housekeeping`` runs them now.

Guarantees: one run per source at a time (``max_instances=1`` per job, and ``RunManager``'s
per-source lock against API- or CLI-started runs — a due source that is already running is
skipped, not queued); missed runs (server busy or asleep) are coalesced into one run if less
than ``MISFIRE_GRACE`` late, else skipped until the next due time. A run that crashes resumes
from the cursor its last written batch checkpointed (``SourceSync``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from devkb.config.sources_file import SourceConfig, parse_interval_seconds
from devkb.errors import ConfigurationError, SyncInProgressError
from devkb.indexing.run_manager import RunManager

log = logging.getLogger(__name__)

MISFIRE_GRACE = 600  # seconds a due run may be late and still run
MAX_PARALLEL_JOBS = 4
HOUSEKEEPING_HOURS = 6


_WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


def _weekday(value: str) -> int:
    v = value.strip().lower()
    return _WEEKDAYS.index(v[:3]) if v[:3] in _WEEKDAYS else int(v)


def crontab_weekdays(field: str) -> str:
    """A crontab day-of-week field (0 or 7 = Sunday, names allowed) as APScheduler day names —
    APScheduler 3 numbers days from Monday = 0, so numbers cannot be passed through."""
    if field == "*":
        return "*"
    days: set[int] = set()
    for part in field.split(","):
        span, _, step = part.partition("/")
        if span == "*":
            lo, hi = 0, 6
        elif "-" in span:
            lo, hi = (_weekday(x) for x in span.split("-", 1))
        else:
            lo = _weekday(span)
            hi = 6 if step else lo
        if not (0 <= lo <= 7 and 0 <= hi <= 7 and lo <= hi):
            raise ValueError(f"bad day-of-week {part!r}")
        days.update(d % 7 for d in range(lo, hi + 1, int(step or 1)))
    return ",".join(_WEEKDAYS[d] for d in sorted(days))


def trigger_for(schedule: str) -> BaseTrigger:
    """An APScheduler trigger for a sources-file schedule (``30m`` or a crontab expression)."""
    seconds = parse_interval_seconds(schedule)
    if seconds is not None:
        if seconds <= 0:
            raise ConfigurationError(f"schedule {schedule!r}: the interval must be positive")
        return IntervalTrigger(seconds=seconds, timezone=UTC)
    try:
        minute, hour, day, month, weekday = schedule.split()
        return CronTrigger(
            minute=minute,
            hour=hour,
            day=day,
            month=month,
            day_of_week=crontab_weekdays(weekday),
            timezone=UTC,
        )
    except ValueError as e:
        raise ConfigurationError(f"schedule {schedule!r} is not a valid crontab expression: {e}") from e


class SyncScheduler:
    """Scheduled syncs. ``runs`` and ``sources`` are resolved on ``start`` (not at construction),
    so creating, stopping or asking an unstarted scheduler costs nothing."""

    def __init__(
        self,
        runs: Callable[[], RunManager],
        sources: Callable[[], list[SourceConfig]],
        enabled: bool = True,
        housekeeping: Sequence[tuple[str, Callable[[], object]]] = (),
    ) -> None:
        self._runs_provider = runs
        self.housekeeping = list(housekeeping)
        self._sources_provider = sources
        self.enabled = enabled
        self._scheduler: BackgroundScheduler | None = None
        self._job_of: dict[str, str] = {}  # source name → job id
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._scheduler is not None and self._scheduler.running

    def start(self) -> None:
        """Schedule every enabled source that has a schedule and start the background thread."""
        with self._lock:
            if not self.enabled or self._scheduler is not None:
                return
            runs = self._runs_provider()
            groups: dict[str, list[str]] = {}
            for cfg in self._sources_provider():
                if cfg.enabled and cfg.schedule and cfg.name in runs.loaders:
                    groups.setdefault(cfg.schedule, []).append(cfg.name)
            scheduler = BackgroundScheduler(
                timezone=UTC,
                executors={
                    "default": ThreadPoolExecutor(
                        max_workers=max(1, min(len(groups) + len(self.housekeeping), MAX_PARALLEL_JOBS))
                    )
                },
                job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": MISFIRE_GRACE},
            )
            order = {name: i for i, name in enumerate(runs.ordered_names())}
            for schedule, names in sorted(groups.items()):
                names.sort(key=lambda n: order.get(n, len(order)))
                job_id = "sync:" + ",".join(names)
                scheduler.add_job(
                    self.run_sources,
                    trigger_for(schedule),
                    args=[names],
                    id=job_id,
                    name=f"sync {', '.join(names)} ({schedule})",
                )
                for name in names:
                    self._job_of[name] = job_id
            for name, job in self.housekeeping:
                scheduler.add_job(
                    self._housekeep,
                    IntervalTrigger(hours=HOUSEKEEPING_HOURS, timezone=UTC),
                    args=[name, job],
                    id=f"housekeeping:{name}",
                    name=name,
                )
            scheduler.start()
            self._scheduler = scheduler
            log.info("scheduler started: %s", dict(groups))

    def stop(self, wait: bool = False) -> None:
        """Stop scheduling. A sync in progress finishes in its thread unless ``wait`` waits for it
        (its checkpoints make an interrupted run resumable anyway)."""
        with self._lock:
            if self._scheduler is not None:
                self._scheduler.shutdown(wait=wait)
                self._scheduler = None
                self._job_of.clear()

    def run_sources(self, names: list[str]) -> dict[str, str]:
        """The job: sync ``names`` (``RunManager.run_many``: pages and repositories first, then the
        rest); returns ``{name: state}`` (``skipped`` when a run of that source was
        already going). Failures are recorded on the run and the source state."""
        outcome: dict[str, str] = {}
        for name, result in self._runs_provider().run_many(names).items():
            if isinstance(result, SyncInProgressError):
                log.info("scheduled sync of %s skipped: a run is already going", name)
                outcome[name] = "skipped"
            elif isinstance(result, Exception):  # recorded by SourceSync; the next due time retries
                log.warning("scheduled sync of %s failed: %s", name, result)
                outcome[name] = "failed"
            else:
                outcome[name] = result.state
        return outcome

    @staticmethod
    def _housekeep(name: str, job: Callable[[], object]) -> object:
        try:
            result = job()
        except Exception:  # logged; the next interval tries again
            log.warning("housekeeping job %s failed", name, exc_info=True)
            return None
        log.info("housekeeping job %s: %s", name, result)
        return result

    def run_housekeeping(self) -> dict[str, object]:
        """Run every housekeeping job now, in this thread (for the CLI and tests)."""
        return {name: self._housekeep(name, job) for name, job in self.housekeeping}

    def run_now(self, name: str | None = None) -> dict[str, str]:
        """Run the scheduled job of ``name`` (or every job) now, in this thread — what the next due
        time would do. For the CLI and tests."""
        runs = self._runs_provider()
        names = [name] if name else runs.ordered_names()
        return self.run_sources(names)

    def next_runs(self) -> dict[str, str | None]:
        """Next due time (UTC, ISO 8601) per scheduled source."""
        with self._lock:
            if self._scheduler is None:
                return {}
            out: dict[str, Any] = {}
            for name, job_id in self._job_of.items():
                job = self._scheduler.get_job(job_id)
                when = job.next_run_time if job is not None else None
                out[name] = when.astimezone(UTC).isoformat(timespec="seconds") if when else None
            return out
