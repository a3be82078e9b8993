"""The scheduler: triggers from schedules, one job per schedule in dependency order, next runs."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from devkb.config.sources_file import SourceConfig
from devkb.errors import ConfigurationError, SyncInProgressError
from devkb.scheduling import SyncScheduler, trigger_for
from devkb.scheduling.scheduler import crontab_weekdays
from devkb.store.models import SourceType


def test_triggers_from_schedules():
    assert isinstance(trigger_for("30m"), IntervalTrigger)
    assert trigger_for("2h").interval.total_seconds() == 7200
    assert isinstance(trigger_for("*/15 * * * 1-5"), CronTrigger)
    with pytest.raises(ConfigurationError):
        trigger_for("61 * * * *")


def test_crontab_weekdays_count_from_sunday():
    assert crontab_weekdays("1-5") == "mon,tue,wed,thu,fri"
    assert crontab_weekdays("0,6") == crontab_weekdays("sat,7") == "sun,sat"
    assert crontab_weekdays("*/3") == "sun,wed,sat"
    friday_9 = trigger_for("0 9 * * 5").get_next_fire_time(
        None, datetime(2026, 11, 22, tzinfo=UTC)
    )  # a Sunday
    assert friday_9 == datetime(2026, 11, 27, 9, 0, tzinfo=UTC)


class FakeLoader:
    def __init__(self, name: str, type_: SourceType) -> None:
        self.name, self.type = name, type_


class FakeRuns:
    """Speaks RunManager's interface: ordered names, per-source lock, run()."""

    def __init__(self) -> None:
        self.loaders = {
            "jira": FakeLoader("jira", SourceType.JIRA),
            "wiki": FakeLoader("wiki", SourceType.CONFLUENCE),
            "code": FakeLoader("code", SourceType.GITHUB),
        }
        self.calls: list[str] = []
        self.busy: set[str] = set()
        self.ran = threading.Event()

    def ordered_names(self) -> list[str]:
        return ["wiki", "code", "jira"]

    def run(self, name: str):
        if name in self.busy:
            raise SyncInProgressError(name)
        self.calls.append(name)
        self.ran.set()
        return type("S", (), {"state": "succeeded"})()

    def run_many(self, names: list[str]):
        """Like RunManager.run_many one after the other: each name's status or what it raised."""
        out = {}
        for name in sorted(names, key=self.ordered_names().index):
            try:
                out[name] = self.run(name)
            except Exception as e:
                out[name] = e
        return {name: out[name] for name in names}


def sources(schedule: str = "1s") -> list[SourceConfig]:
    return [
        SourceConfig(name="jira", type="jira", url="http://j", schedule=schedule),
        SourceConfig(name="wiki", type="confluence", url="http://w", schedule=schedule),
        SourceConfig(name="code", type="github", repos=["a/b"], schedule="manual"),
    ]


def test_job_runs_sources_in_dependency_order_and_skips_busy_ones():
    runs = FakeRuns()
    s = SyncScheduler(lambda: runs, sources)
    runs.busy.add("wiki")
    assert s.run_sources(["wiki", "jira"]) == {"wiki": "skipped", "jira": "succeeded"}


def test_started_scheduler_runs_due_jobs_and_reports_next_runs():
    runs = FakeRuns()
    s = SyncScheduler(lambda: runs, sources)
    assert s.next_runs() == {}
    s.start()
    try:
        assert set(s.next_runs()) == {"wiki", "jira"}  # code is manual
        assert runs.ran.wait(5)
    finally:
        s.stop(wait=True)
    assert runs.calls[:2] == ["wiki", "jira"]
    assert s.next_runs() == {}


def test_disabled_scheduler_never_resolves_its_dependencies():
    def boom():
        raise AssertionError("resolved")

    s = SyncScheduler(boom, boom, enabled=False)
    s.start()
    s.stop()
    assert s.next_runs() == {}
