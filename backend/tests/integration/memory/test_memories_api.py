"""``/memories`` on the real app and container (accounts, the real embedder, the embedded store):
the supersession scenarios of ``tests/data/memory`` (recall now returns only the newer fact, as of
a date between them the older one, other facts about the same subject untouched), correction,
verification by a reviewer, retraction, forgetting, and bad input as 4xx."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.memory.conftest import sign_in

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[2] / "data" / "memory"
BEFORE, BETWEEN, AFTER = "2026-01-01", "2026-02-01", "2026-03-01"


def scenarios(name: str = "supersession.json") -> list[dict[str, Any]]:
    return list(json.loads((DATA / name).read_text(encoding="utf-8"))["scenarios"])


def create(client: Any, text: str, **body: Any) -> dict[str, Any]:
    r = client.post("/memories", json={"text": text, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def recalled(client: Any, q: str, as_of: str | None = None) -> list[str]:
    params = {"q": q, "limit": 10, **({"as_of": as_of} if as_of else {})}
    r = client.get("/memories/search", params=params)
    assert r.status_code == 200, r.text
    return [x["memory"]["id"] for x in r.json()]


def test_supersession_scenarios_newest_now_older_as_of_no_collateral(memory_world: Any) -> None:
    _, client, _ = memory_world
    sign_in(client, "alice@acme.example")  # an admin: team memories are current at once
    written = []
    for s in scenarios():
        old = create(client, s["old"], scope="team", valid_from=BEFORE)
        others = [create(client, o, scope="team", valid_from=BEFORE) for o in s["others"]]
        new = create(client, s["new"], scope="team", valid_from=AFTER)
        written.append((s, old, others, new))
    now_ok = as_of_ok = collateral = superseded = 0
    for s, old, others, new in written:
        superseded += new["supersedes"] == old["id"]
        now = recalled(client, s["query"])
        now_ok += new["id"] in now and old["id"] not in now
        then = recalled(client, s["query"], as_of=BETWEEN)
        as_of_ok += old["id"] in then and new["id"] not in then
        for o in others:
            got = client.get(f"/memories/{o['id']}").json()
            collateral += got["status"] != "active" or got["valid_until"] != ""
        old_now = client.get(f"/memories/{old['id']}").json()
        assert old_now["status"] == "superseded" and old_now["valid_until"].startswith(AFTER), old_now
        assert old_now["superseded_by"] == new["id"]
    n = len(written)
    print(
        f"\nsupersession: {n} pairs, superseded {superseded}/{n}, recall now {now_ok}/{n}, as of {as_of_ok}/{n}, collateral {collateral}"
    )
    assert n >= 50
    assert (superseded, now_ok, as_of_ok, collateral) == (n, n, n, 0)
    # the older fact stays in the history of the newer one
    s, old, _, new = written[0]
    history = [m["id"] for m in client.get(f"/memories/{new['id']}/history").json()]
    assert history == [old["id"], new["id"]]


def test_correct_verify_retract_forget(memory_world: Any) -> None:
    c, client, _ = memory_world
    sign_in(client, "bob@acme.example")
    mine = create(client, "My standup notes live in the team drive")
    assert mine["scope"] == "private" and mine["status"] == "active" and mine["owner"] == "bob@acme.example"
    fixed = client.patch(f"/memories/{mine['id']}", json={"text": "My standup notes live in Notion"}).json()
    assert fixed["supersedes"] == mine["id"] and fixed["status"] == "active"
    assert client.get(f"/memories/{mine['id']}").json()["status"] == "superseded"
    assert [m["id"] for m in client.get(f"/memories/{fixed['id']}/history").json()] == [
        mine["id"],
        fixed["id"],
    ]

    # a member's team memory is proposed: recalled by no one until an admin verifies it
    proposal = create(client, "The team lunch is on Thursdays", scope="team")
    assert proposal["status"] == "proposed"
    assert proposal["id"] not in recalled(client, "When is the team lunch?")
    assert client.post(f"/memories/{proposal['id']}/verify").status_code == 403
    sign_in(client, "alice@acme.example")
    verified = client.post(f"/memories/{proposal['id']}/verify").json()
    assert verified["status"] == "verified" and verified["verified_by"] == "alice@acme.example"
    assert proposal["id"] in recalled(client, "When is the team lunch?")

    # superseding a verified team memory needs a reviewer: bob's newer fact waits as proposed
    sign_in(client, "bob@acme.example")
    newer = create(client, "The team lunch is on Fridays", scope="team")
    assert newer["status"] == "proposed"
    assert client.get(f"/memories/{proposal['id']}").json()["status"] == "verified"
    sign_in(client, "alice@acme.example")
    assert client.post(f"/memories/{newer['id']}/verify").json()["supersedes"] == proposal["id"]
    assert client.get(f"/memories/{proposal['id']}").json()["status"] == "superseded"
    now = recalled(client, "When is the team lunch?")
    assert newer["id"] in now and proposal["id"] not in now

    # retract: kept, recalled by no one
    wrong = create(client, "The fire drill is on Monday", scope="team")
    assert (
        client.patch(f"/memories/{wrong['id']}", json={"status": "retracted"}).json()["status"] == "retracted"
    )
    assert wrong["id"] not in recalled(client, "When is the fire drill?")

    # forget: gone from the store, its full text and vectors, the graph and the answers at once
    gone = create(client, "The quokka deployment codename is marshmallow", scope="team")
    assert gone["id"] in recalled(client, "quokka deployment codename")
    assert (
        client.post("/ask", json={"question": "What is the quokka deployment codename?"}).json()["sources"][
            0
        ]["document_id"]
        == gone["id"]
    )
    sign_in(client, "bob@acme.example")
    assert client.delete(f"/memories/{gone['id']}").status_code == 403  # a team memory: admins forget it
    sign_in(client, "alice@acme.example")
    assert client.delete(f"/memories/{gone['id']}").json() == {"deleted": [gone["id"]]}
    assert client.get(f"/memories/{gone['id']}").status_code == 404
    assert client.get(f"/documents/{gone['id']}").status_code == 404
    assert gone["id"] not in recalled(client, "quokka deployment codename")
    answer = client.post("/ask", json={"question": "What is the quokka deployment codename?"}).json()
    assert all(s["document_id"] != gone["id"] for s in answer["sources"])
    assert "marshmallow" not in answer["answer"]
    assert c.store().get_document(gone["id"]) is None


def test_a_memory_is_a_document_with_edges_found_by_the_reference_rules(memory_world: Any) -> None:
    _, client, _ = memory_world
    sign_in(client, "alice@acme.example")
    handbook = client.get("/documents", params={"source": "files"}).json()[0]["id"]
    m = create(client, "The release handbook is outdated since PAY-12 moved", scope="team", about=[handbook])
    doc = client.get(f"/documents/{m['id']}").json()
    assert doc["document"]["type"] == "MEMORY" and doc["chunks"][0]["content"].startswith(
        "The release handbook"
    )
    edges = {(n["document"]["id"], n["kind"]) for n in client.get(f"/documents/{m['id']}/neighbors").json()}
    assert (handbook, "memory-about") in edges
    graph = client.get("/graph", params={"around": m["id"]}).json()
    assert m["id"] in {n["id"] for n in graph["nodes"]}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("post", "/memories", {"text": ""}, 422),
        ("post", "/memories", {"text": "x", "scope": "everyone"}, 422),
        ("post", "/memories", {"text": "x", "subject": "only a subject"}, 422),
        ("post", "/memories", {"text": "x", "valid_from": "next tuesday"}, 422),
        ("post", "/memories", {"text": "x", "derived_from": ["jira:NOPE-1"]}, 404),
        ("post", "/memories", {"text": "x", "unknown": 1}, 422),
        ("post", "/memories", {"text": "x" * 5000}, 422),
        ("get", "/memories/search?q=", None, 422),
        ("get", "/memories/search?q=x&as_of=yesterday", None, 422),
        ("get", "/memories?as_of=2026-13-01", None, 422),
        ("get", "/memories/not-a-memory", None, 404),
        ("get", "/memories/memory:00000000-0000-4000-8000-000000000000", None, 404),
        ("patch", "/memories/memory:00000000-0000-4000-8000-000000000000", {"text": "y"}, 404),
        ("delete", "/memories/memory:00000000-0000-4000-8000-000000000000", None, 404),
        ("post", "/memories/memory:00000000-0000-4000-8000-000000000000/verify", None, 404),
    ],
)
def test_bad_input_is_a_clear_4xx(memory_world: Any, method: str, path: str, body: Any, status: int) -> None:
    _, client, _ = memory_world
    sign_in(client, "bob@acme.example")
    r = getattr(client, method)(path, **({"json": body} if body is not None else {}))
    assert r.status_code == status, r.text
    assert r.json()["detail"]


def test_signed_out_is_refused(memory_world: Any) -> None:
    _, client, _ = memory_world
    client.cookies.clear()
    assert client.post("/memories", json={"text": "anonymous fact"}).status_code == 401
    assert client.get("/memories").status_code == 401
