"""The shared-state contract on the embedded store (Neo4j: ``test_neo4j_store.py``'s server, when
``DEVKB_NEO4J_URI`` is set), plus the cross-process guarantee SQLite gives the lease."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from devkb.store.sqlite.shared_state import SQLiteSharedState
from tests.contract.shared_state_contract import SharedStateContract, user


@pytest.fixture
def shared(tmp_path):
    s = SQLiteSharedState(tmp_path / "graph.sqlite")
    yield s
    s.close()


class TestSQLiteSharedState(SharedStateContract):
    pass


def _contend(
    path: str, holder: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue
) -> None:
    s = SQLiteSharedState(path)
    start.wait()
    out.put((holder, s.acquire_lease("scheduler", holder, 60.0, 1000.0)))
    s.close()


def test_processes_racing_for_a_lease_get_exactly_one_holder(tmp_path: Path):
    path = str(tmp_path / "graph.sqlite")
    SQLiteSharedState(path).close()
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_contend, args=(path, f"p{i}", start, out)) for i in range(6)]
    for p in procs:
        p.start()
    start.set()
    results = dict(out.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    winners = [h for h, won in results.items() if won]
    assert len(winners) == 1, results
    lease = SQLiteSharedState(path).lease("scheduler")
    assert lease is not None and lease.holder == winners[0]


def test_conversations_survive_reopening_the_file(tmp_path: Path):
    s = SQLiteSharedState(tmp_path / "g.sqlite")
    s.create_conversation("c1", "ann", "", 1.0)
    s.append_message("c1", user("q"), 2.0, 10)
    s.close()
    again = SQLiteSharedState(tmp_path / "g.sqlite")
    assert [m.content for m in again.messages("c1")] == ["q"]
