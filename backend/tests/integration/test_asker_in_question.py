""" "Me" in a question is the person asking (issue 61, a day of use; the question frame): "what is
assigned to me?", "my open bugs", "which issues did I report?" are conditions on the signed-in
person as the sources name them — not dropped (before: "does not say", or all 27 PAY issues), and
when the asker is named in no document they may read, that is said. On the demo workspace, read as
someone named like a person of its tracker (Marcus Chen: the raw demo Jira assigns him PAY-1, 5, 6,
10, 11, 12, 15, 16, 17, 20 and 27, and he reported none) and as the demo's Bob Payments, whom no
document names."""

from __future__ import annotations

import pytest

from devkb.access.readers import Reader, reading_as
from devkb.agent.ask_service import AskService
from devkb.container import prepare_store, shutdown
from tests.demo_workspace import make_container

pytestmark = [pytest.mark.integration]

MARCUS = Reader(email="marcus@acme.example", role="system", name="Marcus Chen")
BOB = Reader(email="bob@acme.example", role="system", name="Bob Payments")
ASSIGNED = {f"jira:PAY-{n}" for n in (1, 5, 6, 10, 11, 12, 15, 16, 17, 20, 27)}


@pytest.fixture(scope="module")
def ask(demo_workspace, embedder, tmp_path_factory):
    data = demo_workspace.copy_data(tmp_path_factory.mktemp("asker") / "data")
    container = make_container(data, demo_workspace.sources_file, embedder)
    prepare_store(container)
    yield AskService(container.planner()).ask
    shutdown(container)


@pytest.mark.parametrize(
    "question", ["Which issues are assigned to me?", "my issues", "any tickets assigned to me?"]
)
def test_what_is_assigned_to_me_lists_the_askers_issues(ask, question) -> None:
    with reading_as(MARCUS):
        a = ask(question)
    assert a.understood is not None and a.understood.route == "conditions: conditions", a.understood
    assert any("Marcus Chen" in c for c in a.understood.conditions), a.understood.conditions
    cited = {s.document_id for s in a.sources}
    assert cited and cited <= ASSIGNED, (cited, a.answer)
    assert "11" in a.answer, a.answer


def test_my_open_bugs_holds_every_condition(ask) -> None:
    with reading_as(MARCUS):
        a = ask("my open bugs")
    assert [s.document_id for s in a.sources] == ["jira:PAY-27"], a.answer


def test_which_issues_did_i_report_is_none_not_every_issue(ask) -> None:
    with reading_as(MARCUS):
        a = ask("Which PAY issues did I report?")
    assert a.answer.startswith("There are no issues"), a.answer
    assert "reported by Marcus Chen" in a.answer, a.answer


def test_an_asker_no_document_names_is_told_so(ask) -> None:
    with reading_as(BOB):
        a = ask("What is assigned to me?")
    assert "you (Bob Payments) are named in none of the documents you can read" in a.answer, a.answer
    assert a.status == "not_found" and not a.sources, a


def test_without_a_named_asker_me_is_not_guessed(ask) -> None:
    a = ask("which PAY issues did I report?")
    assert "I do not know who you are" in a.answer, a.answer
    assert a.status == "not_found" and not a.sources, a


def test_how_do_i_is_not_a_person(ask) -> None:
    with reading_as(MARCUS):
        a = ask("How do I file a bug?")
    assert a.understood is not None and not any("Marcus" in c for c in a.understood.conditions)
