"""The garbage collector while sources sync (devkb/indexing/heap.py): tuned inside, as it was after,
frozen once per process, and used by every run of the RunManager."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from devkb.indexing import heap
from devkb.indexing.run_manager import RunManager
from devkb.indexing.run_status import RunStatus
from devkb.store.models import SourceType


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The module as in a new process (nothing frozen yet), with ``gc.freeze`` recorded instead
    of freezing the test process; the process's thresholds put back afterwards."""
    calls: list[str] = []
    monkeypatch.setattr(heap, "_frozen", False)
    monkeypatch.setattr(heap.gc, "freeze", lambda: calls.append("freeze"))
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield calls
    finally:
        gc.set_threshold(*saved)


def test_a_sync_collects_the_young_less_often_and_the_thresholds_come_back(collector: list[str]):
    with heap.collector_for_sync():
        assert gc.get_threshold() == (heap.SYNC_GEN0_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_what_lives_when_the_first_sync_starts_is_frozen_once(collector: list[str]):
    with heap.collector_for_sync():
        pass
    with heap.collector_for_sync():
        pass
    assert collector == ["freeze"]


def test_overlapping_syncs_keep_the_tuning_until_the_last_one_ends(collector: list[str]):
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple[int, int, int]] = []

    def second() -> None:
        assert first_in.wait(5)
        with heap.collector_for_sync():
            second_in.set()
            assert first_out.wait(5)
            seen.append(gc.get_threshold())  # the first has ended; this one still runs

    t = threading.Thread(target=second)
    t.start()
    with heap.collector_for_sync():
        first_in.set()
        assert second_in.wait(5)
    first_out.set()
    t.join(5)
    assert seen == [(heap.SYNC_GEN0_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_collector_switched_off_stays_off(collector: list[str]):
    gc.set_threshold(0, 10, 10)
    with heap.collector_for_sync():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == (0, 10, 10)


def test_a_higher_threshold_of_the_process_is_kept(collector: list[str]):
    gc.set_threshold(50_000, 20, 20)
    with heap.collector_for_sync():
        assert gc.get_threshold() == (50_000, 20, 20)
    assert gc.get_threshold() == (50_000, 20, 20)


class _Loader:
    name = "jira"
    type = SourceType.JIRA


class _RecordingSync:
    def __init__(self) -> None:
        self.thresholds: list[tuple[int, int, int]] = []

    def run(self, loader: object, status: RunStatus, **_kw: object) -> None:
        self.thresholds.append(gc.get_threshold())
        status.update(state="succeeded")


def test_every_run_of_the_run_manager_syncs_with_the_tuned_collector(collector: list[str]):
    sync = _RecordingSync()
    runs = RunManager(sync, [_Loader()])  # type: ignore[arg-type, list-item]
    runs.run("jira")
    runs.run_many(["jira"])
    assert sync.thresholds == [(heap.SYNC_GEN0_THRESHOLD, 10, 10)] * 2
    assert gc.get_threshold() == (700, 10, 10)
