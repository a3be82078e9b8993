"""Answers that answer what the question asks (agent/focus.py) on the demo workspace: the rows of
the walkthrough in issue 61, an upload that names its owner, an answer whose sources do not say
why (said so, confidence capped), and the demo part of the focus evaluation
(``devkb_devtools.evaluation.focus_eval``)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from devkb.agent.ask_service import AskService
from devkb.api.app import create_app
from devkb.container import prepare_store, shutdown
from devkb_devtools.evaluation import focus_eval
from tests.demo_workspace import make_container

pytestmark = [pytest.mark.integration]

RUNBOOK = b"""# Meridian sandbox key runbook

How the payments team keeps the Meridian sandbox credentials fresh.

## Rotating the sandbox key

The sandbox key is rotated every 30 days by Grace Lee, who also updates the Vault entry payments/sandbox.
Both keys stay valid for an hour, so nobody's tests break during the switch.

## If the sandbox rejects our key

Check the Vault entry first; if it holds the new key, ask in #meridian-partners.
"""


@pytest.fixture(scope="module")
def demo_app(demo_workspace, embedder, tmp_path_factory):
    data = demo_workspace.copy_data(tmp_path_factory.mktemp("focus") / "data")
    container = make_container(data, demo_workspace.sources_file, embedder)
    prepare_store(container)
    yield container
    shutdown(container)


@pytest.fixture(scope="module")
def ask(demo_app):
    return AskService(demo_app.planner()).ask


def test_why_is_web7_blocked_quotes_the_reason_before_the_links(ask) -> None:
    a = ask("Why is WEB-7 blocked?")
    assert a.answer.startswith("Blocked on the v2 endpoint being deployed to staging. ["), a.answer
    assert "WEB-7 is linked to 4 issues" in a.answer  # the list still follows


def test_what_happens_on_409_quotes_web8_and_not_a_feature_list(ask) -> None:
    a = ask("What happens in checkout when the payments API returns 409?")
    assert a.sources[0].document_id == "jira:WEB-8"
    assert (
        "On 409 we now regenerate the key, refresh the cart and ask the customer to confirm again. [1]"
        in a.answer
    )
    assert "One-page checkout" not in a.answer and "[3]" not in a.answer, a.answer


def test_how_do_we_retry_webhooks_is_one_fact_from_one_source(ask) -> None:
    a = ask("How do we retry failed webhooks?")
    assert "retry with backoff for up to 72 hours. [1]" in a.answer
    assert "[2]" not in a.answer and "Delivery worker done" not in a.answer, a.answer


def test_a_question_whose_sources_do_not_say_why_says_so_and_is_not_high(ask) -> None:
    a = ask("Who approves refunds?")
    assert "but do not say who." in a.answer, a.answer
    assert a.status == "partial" and a.confidence.level != "high", a.confidence


def test_who_does_it_in_an_uploaded_runbook_names_the_person(demo_app) -> None:
    with TestClient(create_app(demo_app, start_background=False), raise_server_exceptions=False) as client:
        up = client.post("/uploads", files={"file": ("sandbox-key-runbook.md", RUNBOOK)})
        assert up.status_code == 201, up.text
        a = client.post("/ask", json={"question": "who rotates the sandbox key?"}).json()
    assert "Grace Lee" in a["answer"], a["answer"]
    assert any(s["document_id"] == up.json()["document_id"] for s in a["sources"][:3])


def test_the_demo_part_of_the_focus_evaluation(ask) -> None:
    questions = focus_eval.rows(("dev", "heldout"), corpora=["demo"])
    assert len(questions) >= 50
    results = focus_eval.evaluate(lambda q: ask(q).answer, questions)
    rate = sum(r.hit for r in results) / len(results)
    misses = [(r.id, r.question) for r in results if not r.hit]
    assert rate >= FLOOR, (rate, misses)


FLOOR = 0.44  # the demo part, both splits: 24 of 52 measured (docs/evaluation.md, "Answers that answer"); one question of slack
