"""A thumbs-down with "the right answer is …" (``POST /feedback`` with ``correction``) on the real
app: it still feeds the gaps page, and it becomes a proposed team memory about the cited documents
that admins see in their "to review" listing — recalled by no other member (search, ``/ask``) until
an admin verifies it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.memory.conftest import sign_in

pytestmark = pytest.mark.integration

QUESTION = "Which team owns the billing reconciliation job?"
CORRECTION = "The billing reconciliation job is owned by the ledger squad, not payments."


def recalled(client: Any, q: str) -> list[str]:
    r = client.get("/memories/search", params={"q": q, "limit": 20})
    assert r.status_code == 200, r.text
    return [x["memory"]["id"] for x in r.json()]


def test_correction_is_proposed_for_reviewers_and_recalled_only_once_verified(memory_world: Any) -> None:
    c, client, _ = memory_world
    sign_in(client, "bob@acme.example")
    handbook = client.get("/documents", params={"source": "files"}).json()[0]["id"]
    r = client.post(
        "/feedback",
        json={
            "question": QUESTION,
            "answer": "The payments team owns it.",
            "rating": "down",
            "document_ids": [handbook, "files:handbook/not-there.md"],
            "correction": CORRECTION,
        },
    )
    assert r.status_code == 201, r.text
    memory_id = r.json()["memory_id"]
    assert memory_id and memory_id.startswith("memory:")
    # the vote is kept as before, with the memory it became
    votes = [json.loads(x) for x in (Path(c.settings().data_dir) / "feedback.jsonl").read_text().splitlines()]
    assert votes[-1]["correction"] == CORRECTION and votes[-1]["memory_id"] == memory_id

    mine = client.get(f"/memories/{memory_id}").json()
    assert (mine["scope"], mine["status"], mine["origin"], mine["owner"]) == (
        "team",
        "proposed",
        "correction",
        "bob@acme.example",
    )
    assert mine["about"] == [handbook]  # linked to the cited documents bob may read, no others

    # carol (another member) does not recall it, by search or through /ask
    sign_in(client, "carol@acme.example")
    assert memory_id not in recalled(client, "who owns billing reconciliation")
    ask = client.post("/ask", json={"question": QUESTION})
    assert ask.status_code == 200, ask.text
    assert memory_id not in [s["document_id"] for s in ask.json()["sources"]]
    assert CORRECTION not in ask.text

    # alice (an admin) sees it to review, verifies it; then carol recalls it
    sign_in(client, "alice@acme.example")
    to_review = client.get("/memories", params={"status": "proposed", "scope": "team"}).json()
    assert memory_id in [m["id"] for m in to_review]
    verified = client.post(f"/memories/{memory_id}/verify")
    assert verified.status_code == 200 and verified.json()["status"] == "verified", verified.text
    sign_in(client, "carol@acme.example")
    assert memory_id in recalled(client, "who owns billing reconciliation")


def test_a_reviewers_own_correction_is_proposed_too(memory_world: Any) -> None:
    _, client, _ = memory_world
    sign_in(client, "alice@acme.example")
    r = client.post(
        "/feedback",
        json={"question": "q?", "answer": "a", "rating": "down", "correction": "Deploys happen on Tuesdays."},
    )
    assert r.status_code == 201, r.text
    assert client.get(f"/memories/{r.json()['memory_id']}").json()["status"] == "proposed"


def test_bad_corrections_are_4xx(memory_world: Any) -> None:
    _, client, _ = memory_world
    sign_in(client, "bob@acme.example")
    base = {"question": "q?", "answer": "a"}
    # a thumbs-up is not a correction: stored as a vote, no memory (the schema allows the field)
    up = client.post("/feedback", json={**base, "rating": "up", "correction": "x is y"})
    assert up.status_code == 201 and up.json()["memory_id"] is None
    blank = client.post("/feedback", json={**base, "rating": "down", "correction": "   "})
    assert blank.status_code == 422
    long = client.post("/feedback", json={**base, "rating": "down", "correction": "x" * 4001})
    assert long.status_code == 422
    plain = client.post("/feedback", json={**base, "rating": "down"})
    assert plain.status_code == 201 and plain.json()["memory_id"] is None
