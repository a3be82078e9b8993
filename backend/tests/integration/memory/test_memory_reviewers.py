"""Reviewers per project or space (``DEVKB_MEMORY_REVIEWERS``) on the real app: bob reviews
project PAY, carol space ENG, alice is an admin. A reviewer verifies answers and team memories
about documents of what they review — all of them, not some — and their team facts about it are
current at once; about anything else they are a member like any other (proposed, 403). Each
reviewer lists for review only the verified answers citing what they review."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from devkb.container import Container, shutdown
from devkb.sources import acl
from devkb.sources.base import SourceDocument
from devkb.store.models import SourceType
from tests.integration.memory.conftest import client_for, memory_container, sign_in

pytestmark = pytest.mark.integration

REVIEWERS = {"project:PAY": ["bob@acme.example"], "space:eng": ["Carol@acme.example"]}


def document(doc_id: str, title: str, **meta: Any) -> SourceDocument:
    return SourceDocument(
        id=doc_id,
        type=SourceType.JIRA if "project" in meta else SourceType.CONFLUENCE,
        kind="issue" if "project" in meta else "page",
        title=title,
        url="",
        updated_at="2026-12-01T00:00:00+00:00",
        content=f"{title}. Everyone on the team may read this.",
        metadata={**meta, "acl": [[acl.EVERYONE]]},
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[tuple[Container, Any]]:
    c = memory_container(tmp_path_factory.mktemp("reviewers"), embedder, memory_reviewers=REVIEWERS)
    c.pipeline().run(
        [
            document("jira:PAY-1", "Refund limits for support agents", project="PAY", key="PAY-1"),
            document("jira:WEB-1", "Checkout button colour", project="WEB", key="WEB-1"),
            document("confluence:ENG-1", "On-call handbook", space="ENG"),
        ],
        "fixtures",
    )
    c.reader_store().forget_catalog()
    client = client_for(c)
    try:
        yield c, client
    finally:
        client.__exit__(None, None, None)
        shutdown(c)


def verify_answer(client: Any, question: str, citations: list[str]) -> int:
    r = client.post(
        "/memories/answers",
        json={"question": question, "answer": f"Answer: {question}", "citations": citations},
    )
    return int(r.status_code)


def test_a_reviewer_verifies_answers_citing_what_they_review_and_nothing_else(world: Any) -> None:
    _, client = world
    sign_in(client, "bob@acme.example")
    assert verify_answer(client, "What is the refund limit for support agents?", ["jira:PAY-1"]) == 201
    assert verify_answer(client, "What colour is the checkout button?", ["jira:WEB-1"]) == 403
    assert verify_answer(client, "Who is on call for refunds?", ["jira:PAY-1", "confluence:ENG-1"]) == 403
    assert verify_answer(client, "What is the refund policy?", []) == 403  # about nothing: admins only
    sign_in(client, "carol@acme.example")
    assert verify_answer(client, "Where is the on-call handbook?", ["confluence:ENG-1"]) == 201
    assert verify_answer(client, "What is the refund limit for managers?", ["jira:PAY-1"]) == 403

    # each reviewer lists what they review; the admin everything
    def review(email: str) -> set[str]:
        sign_in(client, email)
        r = client.get("/memories/answers/review", params={"within_days": 3650})
        assert r.status_code == 200, r.text
        return {x["question"] for x in r.json()}

    assert review("bob@acme.example") == {"What is the refund limit for support agents?"}
    assert review("carol@acme.example") == {"Where is the on-call handbook?"}
    assert review("alice@acme.example") == {
        "What is the refund limit for support agents?",
        "Where is the on-call handbook?",
    }


def test_team_facts_about_what_they_review_are_current_at_once_others_are_proposed(world: Any) -> None:
    _, client = world
    sign_in(client, "bob@acme.example")
    mine = client.post(
        "/memories", json={"text": "The refund limit is 200 euros", "scope": "team", "about": ["jira:PAY-1"]}
    ).json()
    assert mine["status"] == "active"
    other = client.post(
        "/memories",
        json={"text": "The on-call rota changes on Mondays", "scope": "team", "about": ["confluence:ENG-1"]},
    ).json()
    assert other["status"] == "proposed"
    assert client.post(f"/memories/{other['id']}/verify").status_code == 403  # not bob's space
    sign_in(client, "carol@acme.example")
    assert client.post(f"/memories/{mine['id']}/verify").status_code == 403  # not carol's project
    assert client.post(f"/memories/{other['id']}/verify").json()["status"] == "verified"
    # superseding the verified ENG fact: carol (its reviewer) directly, bob only as a proposal
    sign_in(client, "bob@acme.example")
    proposal = client.post(
        "/memories",
        json={"text": "The on-call rota changes on Tuesdays", "scope": "team", "about": ["confluence:ENG-1"]},
    ).json()
    assert proposal["status"] == "proposed"
    assert client.get(f"/memories/{other['id']}").json()["status"] == "verified"
    sign_in(client, "carol@acme.example")
    corrected = client.patch(f"/memories/{other['id']}", json={"text": "The on-call rota changes on Fridays"})
    assert corrected.status_code == 200 and corrected.json()["status"] == "active", corrected.text
    assert client.get(f"/memories/{other['id']}").json()["status"] == "superseded"


def test_without_reviewers_only_admins_review(tmp_path: Any, embedder: Any) -> None:
    c = memory_container(tmp_path, embedder)
    client = client_for(c)
    try:
        sign_in(client, "bob@acme.example")
        assert client.get("/memories/answers/review").status_code == 403
        handbook = client.get("/documents", params={"source": "files"}).json()[0]["id"]
        assert verify_answer(client, "Where is the handbook?", [handbook]) == 403
    finally:
        client.__exit__(None, None, None)
        shutdown(c)


def test_an_admin_names_reviewers_per_project_in_the_app(tmp_path: Any, embedder: Any) -> None:
    """``PUT /admin/reviewers/{scope}`` (the admin page's Reviewers card): granted at once, added
    to the setting's, taken back by an empty list; only admins may, and only existing people."""
    c = memory_container(tmp_path, embedder, memory_reviewers={"space:ENG": ["carol@acme.example"]})
    c.pipeline().run(
        [document("jira:PAY-1", "Refund limits for support agents", project="PAY", key="PAY-1")], "fixtures"
    )
    c.reader_store().forget_catalog()
    client = client_for(c)
    try:
        sign_in(client, "bob@acme.example")
        assert verify_answer(client, "What is the refund limit?", ["jira:PAY-1"]) == 403
        assert (
            client.put("/admin/reviewers/project:PAY", json={"people": ["bob@acme.example"]}).status_code
            == 403
        )

        sign_in(client, "alice@acme.example")
        listed = client.get("/admin/reviewers").json()
        assert listed == [{"scope": "space:ENG", "people": [], "configured": ["carol@acme.example"]}]
        bad = client.put("/admin/reviewers/project:PAY", json={"people": ["nobody@acme.example"]})
        assert bad.status_code == 404 and "nobody@acme.example" in bad.json()["detail"]
        assert client.put("/admin/reviewers/team:PAY", json={"people": []}).status_code == 422
        huge = client.put(
            "/admin/reviewers/project:PAY", json={"people": ["x" * 1_000_000 + "@acme.example"]}
        )
        assert huge.status_code == 404 and len(huge.text) < 1000  # the name is not echoed whole
        r = client.put("/admin/reviewers/project:pay", json={"people": ["Bob@acme.example"]})
        assert r.status_code == 200, r.text
        assert {"scope": "project:PAY", "people": ["bob@acme.example"], "configured": []} in r.json()

        sign_in(client, "bob@acme.example")  # at once, no restart
        assert verify_answer(client, "What is the refund limit?", ["jira:PAY-1"]) == 201
        assert client.get("/memories/answers/review").status_code == 200

        sign_in(client, "alice@acme.example")
        assert client.put("/admin/reviewers/project:PAY", json={"people": []}).status_code == 200
        sign_in(client, "bob@acme.example")
        assert verify_answer(client, "What is the refund limit for managers?", ["jira:PAY-1"]) == 403
    finally:
        client.__exit__(None, None, None)
        shutdown(c)
