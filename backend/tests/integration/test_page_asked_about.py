""" "What's our retry policy for PSP calls?" names a page by its title and asks what it says: the
answer is the page's own text, not the sentences elsewhere that mention it (issue 61, a day of use:
it quoted "Written down on the wiki (PSP Retry Policy) and moved in the repo to <…>", "supersedes
PAY-9: …" and a link). On the demo workspace; the page's words are those of the raw demo wiki."""

from __future__ import annotations

import pytest

from devkb.agent.ask_service import AskService
from devkb.container import prepare_store, shutdown
from tests.demo_workspace import make_container

pytestmark = [pytest.mark.integration]


@pytest.fixture(scope="module")
def ask(demo_workspace, embedder, tmp_path_factory):
    data = demo_workspace.copy_data(tmp_path_factory.mktemp("page-asked") / "data")
    container = make_container(data, demo_workspace.sources_file, embedder)
    prepare_store(container)
    yield AskService(container.planner()).ask
    shutdown(container)


@pytest.mark.parametrize(
    "question",
    [
        "What's our retry policy for PSP calls?",
        "what is the PSP retry policy",
        "What does the retry policy say?",
    ],
)
def test_a_page_named_by_its_title_answers_from_its_own_text(ask, question) -> None:
    a = ask(question)
    assert a.answer.startswith("The page “PSP Retry Policy” ["), a.answer
    assert "Never retry a request that may have created a charge" in a.answer, a.answer
    assert "Written down on the wiki" not in a.answer, a.answer


def test_a_title_said_in_part_with_one_other_word(ask) -> None:
    a = ask("what's our API versioning policy?")
    assert a.answer.startswith("The page “Public API Versioning” ["), a.answer
    assert "without breaking merchants" in a.answer, a.answer


def test_a_question_with_a_focus_still_quotes_what_it_asks(ask) -> None:
    """ "Why …" about the same page is not answered with its opening."""
    a = ask("Why do we never retry a POST without an idempotency key?")
    assert not a.answer.startswith("The page “PSP Retry Policy” [1]: Rules for retrying"), a.answer
