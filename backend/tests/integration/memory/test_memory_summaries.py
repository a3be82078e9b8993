"""Summaries of older private memories (``DEVKB_MEMORY_PRIVATE_SUMMARY_DAYS``) on the real
container: a person's memories said in conversations and recorded longer ago than the setting are
folded into their one summary memory — the folded ones superseded by it (kept, recalled as of
before), their text, dates and ids kept in it; a later run makes a new version; a newer fact drops
its line; others' memories, team memories, derived ones and recent ones are untouched. The moment
is passed in (no waiting on the wall clock)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from devkb.container import Container, shutdown
from devkb.memory.service import MemoryError
from devkb.memory.summary import MAX_SUMMARY_TEXT, text_of
from tests.integration.memory.conftest import client_for, memory_container, sign_in

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC).replace(microsecond=0)


def at(days: float) -> str:
    return (NOW + timedelta(days=days)).isoformat(timespec="seconds")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[tuple[Container, Any]]:
    c = memory_container(tmp_path_factory.mktemp("summaries"), embedder, memory_private_summary_days=30)
    client = client_for(c)
    try:
        yield c, client
    finally:
        client.__exit__(None, None, None)
        shutdown(c)


def said(c: Container, client: Any, days: float, text: str, **body: Any) -> dict[str, Any]:
    """``text`` remembered ``days`` from now (negative: in the past)."""
    memories = c.memories()
    real = memories.clock
    memories.clock = lambda: at(days)
    try:
        r = client.post("/memories", json={"text": text, **body})
    finally:
        memories.clock = real
    assert r.status_code == 201, r.text
    return dict(r.json())


def search(client: Any, q: str, as_of: str | None = None) -> list[dict[str, Any]]:
    params = {"q": q, **({"as_of": as_of} if as_of else {})}
    r = client.get("/memories/search", params=params)
    assert r.status_code == 200, r.text
    return [x["memory"] for x in r.json()]


def test_older_conversation_memories_fold_into_one_summary(world: Any) -> None:
    c, client = world
    memories = c.memories()
    sign_in(client, "bob@acme.example")
    handbook = client.get("/documents", params={"source": "files"}).json()[0]["id"]
    scratch = said(c, client, -45, "My scratch database is quokka-dev", about=[handbook])
    node = said(c, client, -40, "The build needs Node 20")
    tenant = said(c, client, -35, "My test tenant is capybara-7")
    recent = said(c, client, -3, "My favourite editor is pangolin-vim")
    derived = said(c, client, -50, "The release checklist lives in the handbook", derived_from=[handbook])
    sign_in(client, "carol@acme.example")
    lone = said(c, client, -60, "My desk is by the narwhal window")  # one old memory: no summary
    sign_in(client, "alice@acme.example")
    team = said(c, client, -90, "The payments freeze starts on 15 December", scope="team")

    written = memories.summarise_private(30, now=at(0))
    assert [s.owner for s in written] == ["bob@acme.example"]
    summary = written[0]
    assert summary.origin == "summary" and summary.scope == "private"
    assert [f[0] for f in summary.folded] == [scratch["id"], node["id"], tenant["id"]]  # oldest first
    assert summary.text.splitlines() == [
        f"Summary of 3 earlier notes from conversations ({at(-45)[:10]} to {at(-35)[:10]}):",
        f"- {at(-45)[:10]}: My scratch database is quokka-dev",
        f"- {at(-40)[:10]}: The build needs Node 20",
        f"- {at(-35)[:10]}: My test tenant is capybara-7",
    ]
    assert summary.about == (handbook,)  # what the folded memories were about

    sign_in(client, "bob@acme.example")
    for m in (scratch, node, tenant):  # superseded by the summary, kept
        now = client.get(f"/memories/{m['id']}").json()
        assert now["status"] == "superseded" and now["superseded_by"] == summary.id, now
    for m in (recent, derived):  # recent, or carrying documents' permissions: untouched
        assert client.get(f"/memories/{m['id']}").json()["status"] == "active"
    # recall now finds the fact in the summary; as of a day before, the memory itself
    assert search(client, "capybara test tenant")[0]["id"] == summary.id
    assert search(client, "capybara test tenant", as_of=at(-1)[:10])[0]["id"] == tenant["id"]
    exported = client.get("/memories/export").json()["memories"]
    row = next(m for m in exported if m["id"] == summary.id)
    assert [f["id"] for f in row["folded"]] == [scratch["id"], node["id"], tenant["id"]]
    assert row["origin"] == "summary"
    # no one else reads it
    for other in ("alice@acme.example", "carol@acme.example"):
        sign_in(client, other)
        assert client.get(f"/memories/{summary.id}").status_code == 404
        assert "capybara" not in client.get("/memories/search", params={"q": "capybara"}).text
    assert client.get(f"/memories/{lone['id']}").json()["status"] == "active"
    sign_in(client, "alice@acme.example")
    assert client.get(f"/memories/{team['id']}").json()["status"] == "active"

    # ten days later the editor memory is old too: a new version folds it, superseding the first
    again = memories.summarise_private(30, now=at(30))
    assert [s.owner for s in again] == ["bob@acme.example"]
    second = again[0]
    assert second.supersedes == summary.id
    assert [f[0] for f in second.folded] == [scratch["id"], node["id"], tenant["id"], recent["id"]]
    sign_in(client, "bob@acme.example")
    assert [m["id"] for m in client.get(f"/memories/{second.id}/history").json()] == [summary.id, second.id]
    assert memories.summarise_private(30, now=at(31)) == []  # nothing new to fold

    # a newer fact about a folded subject: the summary loses that line, nothing else
    newer = said(c, client, 32, "My scratch database is wombat-dev")
    third = client.get(f"/memories/{second.id}").json()
    assert third["status"] == "superseded"
    later = at(33)
    current = [m for m in search(client, "scratch database quokka wombat", later) if m["origin"] == "summary"]
    assert len(current) == 1 and "quokka" not in current[0]["text"] and "capybara" in current[0]["text"]
    assert any(m["id"] == newer["id"] for m in search(client, "scratch database wombat", later))
    before = search(client, "scratch database quokka", as_of=at(31)[:10])
    assert before[0]["id"] == second.id and "quokka" in before[0]["text"]

    with pytest.raises(MemoryError, match="more than 0"):
        memories.summarise_private(0)


def test_the_scheduler_runs_it_with_the_setting(world: Any) -> None:
    c, client = world
    assert [name for name, _ in c.scheduler().housekeeping] == ["memory summaries"]
    sign_in(client, "carol@acme.example")
    said(c, client, -70, "My monitor is a zebra-27")
    jobs = c.scheduler().run_housekeeping()
    folded = jobs["memory summaries"]
    assert [s.owner for s in folded] == ["carol@acme.example"]  # type: ignore[union-attr]
    assert "zebra-27" in folded[0].text and "narwhal" in folded[0].text  # type: ignore[index]


def test_no_job_without_the_setting(tmp_path: Path, embedder: Any) -> None:
    c = memory_container(tmp_path, embedder, accounts=False)
    try:
        assert c.scheduler().housekeeping == []
    finally:
        shutdown(c)


def test_the_text_is_the_same_for_the_same_memories_and_bounded() -> None:
    lines = [
        (f"memory:{i:05d}", "", f"2026-01-{1 + i % 28:02d}T00:00:00+00:00", f"fact number {i} " * 8)
        for i in range(500)
    ]
    first = text_of(sorted(lines, key=lambda x: (x[2], x[0])))
    assert first == text_of(sorted(lines, key=lambda x: (x[2], x[0])))
    assert len(first) <= MAX_SUMMARY_TEXT and "older notes (in this summary's record)" in first
    assert first.splitlines()[0].startswith("Summary of 500 earlier notes")
