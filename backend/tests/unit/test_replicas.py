"""Persistent conversations, the scheduler's leader election and one sync per source across
replicas — on real SQLite files, with several "replicas" in one process (the multi-process test
is ``tests/integration/test_replicas.py``)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from devkb.conversations.memory import ChatMemory, StoredMessage
from devkb.conversations.store_memory import StoreChatMemory
from devkb.errors import StoreUnavailableError, SyncInProgressError
from devkb.indexing.run_manager import RunManager, sync_lease
from devkb.indexing.run_status import RunStatus
from devkb.scheduling.leader import SCHEDULER_LEASE, LeaderElection
from devkb.scheduling.scheduler import SyncScheduler
from devkb.store.models import SourceType
from devkb.store.sqlite.shared_state import SQLiteSharedState


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def msg(role: str, text: str) -> StoredMessage:
    return StoredMessage(role, text, "2026-11-24T05:00:00+00:00")


def test_store_memory_is_shared_by_replicas_and_survives_a_restart(tmp_path: Path):
    path = tmp_path / "graph.sqlite"
    a = StoreChatMemory(SQLiteSharedState(path), history_limit=3)
    b = StoreChatMemory(SQLiteSharedState(path), history_limit=3)
    sid = a.create()
    assert b.touch(sid) and not b.touch("0b7e4a2c-8f1d-4c3e-9a5b-7d6e2f1a0c99")
    a.append(sid, msg("user", "What is PAY-12 about?"))
    b.append(sid, msg("assistant", "Retries."))
    a.append(sid, msg("user", "and PAY-7?"))
    b.append(sid, msg("assistant", "Ledger."))
    assert [m.content for m in a.history(sid)] == ["Retries.", "and PAY-7?", "Ledger."]  # the agent's window
    assert len(a.state.messages(sid)) == 4  # the store keeps the whole conversation
    a.state.close()
    b.state.close()
    restarted = StoreChatMemory(SQLiteSharedState(path), history_limit=3)
    assert restarted.touch(sid) and len(restarted) == 1
    assert restarted.clear(sid) == 4 and restarted.history(sid) == []


def test_in_memory_mode_forgets_on_restart():
    sid = ChatMemory().create()
    assert ChatMemory().touch(sid) is False  # a new process knows no session


def test_retention_runs_on_create_at_most_hourly(tmp_path: Path):
    clock = Clock(0.0)
    memory = StoreChatMemory(SQLiteSharedState(tmp_path / "g.sqlite"), retention_days=1, clock=clock)
    old = memory.create()
    memory.append(old, msg("user", "old"))
    clock.t = 86_400 + 10  # a day later, the first expiry pass was at t=0: this create runs one
    fresh = memory.create()
    assert not memory.touch(old) and memory.touch(fresh)


class _Scheduler(SyncScheduler):
    def __init__(self) -> None:
        super().__init__(lambda: None, lambda: [], enabled=True)  # type: ignore[arg-type, return-value]
        self.started = 0
        self.stopped = 0
        self.is_running = False

    @property
    def running(self) -> bool:
        return self.is_running

    def start(self) -> None:
        self.started += 1
        self.is_running = True

    def stop(self, wait: bool = False) -> None:
        self.stopped += 1
        self.is_running = False


def test_one_leader_and_failover_within_one_lease(tmp_path: Path):
    path = tmp_path / "graph.sqlite"
    clock = Clock()
    replicas = [
        LeaderElection(SQLiteSharedState(path), _Scheduler(), f"r{i}", lease_seconds=15, clock=clock)
        for i in range(3)
    ]
    assert [r.step() for r in replicas] == [True, False, False]
    for _ in range(5):  # renewals keep the leader
        clock.t += 5
        assert [r.step() for r in replicas] == [True, False, False]
    assert [r.scheduler.started for r in replicas] == [1, 0, 0]  # type: ignore[attr-defined]
    # r0 dies (stops renewing): its lease runs out, the next replica to try takes over
    clock.t += 14.9
    assert [r.step() for r in replicas[1:]] == [False, False]
    clock.t += 0.2
    assert [r.step() for r in replicas[1:]] == [True, False]
    assert replicas[1].is_leader and replicas[1].scheduler.running
    # r0 comes back: it finds the lease taken and stops its scheduler
    assert replicas[0].step() is False and replicas[0].scheduler.stopped == 1  # type: ignore[attr-defined]


def test_a_replica_that_cannot_reach_the_store_steps_down(tmp_path: Path):
    state = SQLiteSharedState(tmp_path / "g.sqlite")
    leader = LeaderElection(state, _Scheduler(), "r0", lease_seconds=15, clock=Clock())
    assert leader.step()

    def unreachable(*_a: object) -> bool:
        raise StoreUnavailableError("down")

    state.acquire_lease = unreachable  # type: ignore[method-assign]
    assert leader.step() is False and not leader.scheduler.running


class _Loader:
    def __init__(self, name: str) -> None:
        self.name = name
        self.type = SourceType.JIRA


class _BlockingSync:
    """A sync that waits until released — long enough for another replica to try the same source."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.runs = 0

    def run(self, loader: object, status: RunStatus, **_kw: object) -> None:
        self.runs += 1
        status.update(state="running")
        self.entered.set()
        assert self.release.wait(30)
        status.update(state="succeeded", done=7)


def test_a_source_syncs_on_one_replica_at_a_time_and_its_run_is_visible_everywhere(tmp_path: Path):
    path = tmp_path / "graph.sqlite"
    sync_a, sync_b = _BlockingSync(), _BlockingSync()
    a = RunManager(sync_a, [_Loader("jira")], shared=SQLiteSharedState(path), instance="a", lease_seconds=30)  # type: ignore[arg-type, list-item]
    b = RunManager(sync_b, [_Loader("jira")], shared=SQLiteSharedState(path), instance="b", lease_seconds=30)  # type: ignore[arg-type, list-item]
    run = a.start("jira")
    assert sync_a.entered.wait(30)
    with pytest.raises(SyncInProgressError, match="replica a"):
        b.run("jira")
    for _ in range(100):  # the running replica publishes its status every PUBLISH_EVERY
        seen = b.get_run("jira", run.id)
        if seen is not None and seen.state == "running":
            break
        threading.Event().wait(0.05)
    assert seen is not None and seen.state == "running"
    assert b.current("jira") is not None
    sync_a.release.set()
    for _ in range(300):
        if a.current("jira") is None:
            break
        threading.Event().wait(0.05)
    done = b.get_run("jira", run.id)
    assert done is not None and done.state == "succeeded" and done.done == 7
    assert b.shared is not None and b.shared.lease(sync_lease("jira")) is None  # released at the end
    sync_b.release.set()
    assert b.run("jira").state == "succeeded" and (sync_a.runs, sync_b.runs) == (1, 1)
    assert SCHEDULER_LEASE != sync_lease("scheduler")
