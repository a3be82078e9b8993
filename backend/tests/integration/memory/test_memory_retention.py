"""Retention of private memories (``DEVKB_MEMORY_PRIVATE_RETENTION_DAYS``) on the real container:
private memories superseded or retracted longer ago than the setting are deleted — from the store,
its full-text and vector indexes and the caches — by the scheduler's job; current private memories
and team memories stay. The moment is passed in (no waiting on the wall clock)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from devkb.container import Container, shutdown
from devkb.memory.service import MemoryError
from devkb.store.models import SourceType
from tests.integration.memory.conftest import client_for, memory_container, sign_in

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[tuple[Container, Any]]:
    c = memory_container(tmp_path_factory.mktemp("retention"), embedder, memory_private_retention_days=30)
    client = client_for(c)
    try:
        yield c, client
    finally:
        client.__exit__(None, None, None)
        shutdown(c)


def create(client: Any, text: str, **body: Any) -> dict[str, Any]:
    r = client.post("/memories", json={"text": text, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def days_from_now(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat(timespec="seconds")


def indexed(c: Container, word: str, memory_id: str) -> bool:
    """Whether ``memory_id`` is still in the store's document table, full-text or vector index."""
    store = c.indexing_store()
    vector = c.embedder().embed([word])[0]
    return (
        bool(store.get_documents([memory_id]))
        or any(h.document.id == memory_id for h in store.keyword_search(word, 200, types=[SourceType.MEMORY]))
        or any(
            h.document.id == memory_id for h in store.vector_search(vector, 500, types=[SourceType.MEMORY])
        )
    )


def test_old_superseded_and_retracted_private_memories_are_deleted_everywhere(world: Any) -> None:
    c, client = world
    sign_in(client, "alice@acme.example")
    team_old = create(client, "The on-call rota lives in the zebrafish wiki", scope="team")
    client.patch(f"/memories/{team_old['id']}", json={"text": "The on-call rota lives in the narwhal wiki"})
    sign_in(client, "bob@acme.example")
    old = create(client, "My scratch database is quokka-dev")
    new = client.patch(f"/memories/{old['id']}", json={"text": "My scratch database is wombat-dev"}).json()
    wrong = create(client, "My pager number is axolotl-42")
    assert client.patch(f"/memories/{wrong['id']}", json={"status": "retracted"}).status_code == 200
    current = create(client, "My favourite editor is pangolin-vim")

    memories = c.memories()
    # 10 days later: within 30 days of their end, kept
    assert memories.purge_private(30, now=days_from_now(10)) == []
    assert indexed(c, "quokka", old["id"]) and indexed(c, "axolotl", wrong["id"])
    # 31 days later: the superseded and the retracted private ones go; the rest stay
    deleted = memories.purge_private(30, now=days_from_now(31))
    assert sorted(deleted) == sorted([old["id"], wrong["id"]])
    for word, memory_id in (("quokka", old["id"]), ("axolotl", wrong["id"])):
        assert not indexed(c, word, memory_id)
        assert client.get(f"/memories/{memory_id}").status_code == 404
        assert word not in client.get("/memories/export").text
        assert word not in client.get("/documents", params={"source": "memory", "limit": 500}).text
    assert client.get(f"/memories/{new['id']}").json()["status"] == "active"
    assert client.get(f"/memories/{current['id']}").status_code == 200
    assert [m["id"] for m in client.get(f"/memories/{new['id']}/history").json()] == [new["id"]]
    sign_in(client, "alice@acme.example")
    assert client.get(f"/memories/{team_old['id']}").json()["status"] == "superseded"  # team: kept

    with pytest.raises(MemoryError, match="more than 0"):
        memories.purge_private(0)


def test_the_scheduler_runs_it_with_the_setting(world: Any) -> None:
    c, client = world
    sign_in(client, "carol@acme.example")
    memories = c.memories()
    real_clock = memories.clock
    memories.clock = lambda: "2020-01-01T00:00:00+00:00"  # written and superseded long ago
    try:
        old = create(client, "My test tenant is capybara-7")
        client.patch(f"/memories/{old['id']}", json={"text": "My test tenant is tapir-9"})
    finally:
        memories.clock = real_clock
    jobs = c.scheduler().run_housekeeping()
    assert old["id"] in jobs["memory retention"]  # type: ignore[operator]
    assert not indexed(c, "capybara", old["id"])


def test_no_job_without_the_setting(tmp_path: Path, embedder: Any) -> None:
    c = memory_container(tmp_path, embedder, accounts=False)
    try:
        assert c.scheduler().housekeeping == []
    finally:
        shutdown(c)
