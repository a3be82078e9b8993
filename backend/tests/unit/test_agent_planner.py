"""The rule planner (no LLM): which tools a question gets, carry-over of the previous turn's
documents, the extractive answer, and that text inside documents never changes the plan."""

from __future__ import annotations

import pytest

from devkb.agent.answer import HistoryTurn
from devkb.agent.ask_service import AskService
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.identifiers import read_lookups
from devkb.agent.planner import Planner
from devkb.agent.tools import Toolbox
from devkb.store.models import SourceType
from tests.agent_corpus import COMMIT_ID, FILE_ID, PULL_ID, build_store


def tools(planner: Planner, question: str, carried: tuple[str, ...] = ()) -> list[str]:
    return [s.tool for s in planner.plan(question, carried)]


@pytest.fixture
def planner(agent_toolbox):
    return Planner(agent_toolbox, lambda: {"PAY", "FLUID"})


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is the status of PAY-1?", ["GraphQuery", "FilterDocs"]),
        ("Who is assigned to fluid-5327?", ["GraphQuery", "FilterDocs"]),  # known project, any case
        ("What does commit abcdef0123456789abcdef0123456789abcdef01 change?", ["GraphQuery", "FilterDocs"]),
        ("What is pull request #7 about?", ["GraphQuery", "FilterDocs"]),
        ("Show me docs/retries.md", ["GraphQuery", "FilterDocs"]),
        ('What does the "Payments Runbook" say?', ["GraphQuery", "FilterDocs"]),
        # a fragment of conditions is a list under them: the exact set, nothing to filter
        ("Open bugs in project PAY", ["GraphQuery"]),
        ("Which fix version is PAY-1 planned for?", ["GraphQuery", "FilterDocs"]),  # "fix version" is a field
        ("Which commits reference PAY-1?", ["GraphQuery", "FetchNeighbors", "FilterDocs"]),
        ("What is related to PAY-2?", ["GraphQuery", "FetchNeighbors", "FilterDocs"]),
        ("What depends on PAY-1?", ["GraphQuery", "FetchNeighbors", "FilterDocs"]),
        ("Which pull request fixed PAY-1?", ["GraphQuery", "FetchNeighbors", "FilterDocs"]),
        ("What else touched the webhook retry code?", ["RAGSearch", "FetchNeighbors", "FilterDocs"]),
        ("How are refund webhooks retried?", ["RAGSearch", "FilterDocs"]),
        ("What does the handbook say about privacy?", ["RAGSearch", "FilterDocs"]),
        ("Is UTF-8 required for ISO-8601 dates?", ["RAGSearch", "FilterDocs"]),
    ],
)
def test_rules_choose_tools(planner, question, expected):
    assert tools(planner, question) == expected


def test_follow_ups_carry_over_the_previous_documents(planner):
    carried = ("jira:PAY-1",)
    assert tools(planner, "Which commits touched it?", carried) == [
        "GraphQuery",
        "FetchNeighbors",
        "FilterDocs",
    ]
    assert tools(planner, "And its status?", carried) == ["GraphQuery", "FilterDocs"]
    assert tools(planner, "How do other teams handle webhook retries in general?", carried) == [
        "RAGSearch",
        "FilterDocs",
    ]
    assert tools(planner, "What about PAY-2?", carried) == [
        "GraphQuery",
        "FilterDocs",
    ]  # its own identifier wins


def test_lookups_are_whitelisted_fields_with_values():
    lk = read_lookups(
        'PAY-1 and PR #7 in repo acme/payments, "Payments Runbook", space PAY since 2024-01', {"PAY"}
    )
    args = [x.arguments() for x in lk.lookups]
    assert {"key": "PAY-1"} in args and {"kind": "pull", "number": "7"} in args
    assert {"repository": "acme/payments", "updated_from": "2024-01-01"} in args
    assert {"title_contains": "Payments Runbook"} in args
    assert not read_lookups("How do retries work?").anchored


def test_none_path_answers_extractively_with_citations(agent_toolbox, planner):
    service = AskService(planner)
    a = service.ask("What is the status of PAY-2?")
    assert a.mode == "extractive" and a.provider == "none"
    assert a.document_ids[0] == "jira:PAY-2"
    assert "status Closed [1]" in a.answer
    rel = service.ask("Which commits reference PAY-1?")
    assert rel.document_ids[0] == COMMIT_ID and "[1]" in rel.answer
    assert [t.tool for t in rel.tool_calls] == ["GraphQuery", "FetchNeighbors", "FilterDocs"]
    follow = service.ask(
        "Which pull request fixed it?",
        history=[HistoryTurn("user", "What is PAY-1?"), HistoryTurn("assistant", "…", ("jira:PAY-1",))],
    )
    assert follow.tool_calls[0].arguments["document_ids"] == ["jira:PAY-1"]
    assert follow.document_ids[0] == PULL_ID
    scoped = service.ask("How are refund webhooks retried?", sources=[SourceType.GITHUB])
    assert scoped.document_ids and all(i.startswith("github:") for i in scoped.document_ids)
    assert FILE_ID in scoped.document_ids


def test_injected_text_in_documents_does_not_change_the_tools(planner, tmp_path, embedder):
    """The same questions over the corpus with and without the injection run the same tools
    with the same arguments; the plan depends on the question only."""
    clean_store = build_store(tmp_path / "clean.sqlite", embedder, injection=False)
    clean = AskService(
        Planner(Toolbox(clean_store, HybridSearch(clean_store, embedder), lambda: {"PAY"}), lambda: {"PAY"})
    )
    injected = AskService(planner)
    for question in (
        "What is PAY-3 about?",
        "Duplicate refund emails",
        "What is related to PAY-3?",
        "Summarise the refund issues",
    ):
        a, b = injected.ask(question), clean.ask(question)
        assert [t.tool for t in a.tool_calls] == tools(planner, question), question
        assert [(t.tool, t.arguments) for t in a.tool_calls][:-1] == [
            (t.tool, t.arguments) for t in b.tool_calls
        ][:-1]
        assert a.tool_calls[-1].tool == b.tool_calls[-1].tool == "FilterDocs"
    clean_store.close()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("who is assigned to it?", "PAY-2: assignee Alan Turing [1]."),
        ("Who reported it?", "PAY-2: reporter Grace Hopper [1]."),
        ("who owns it", "PAY-2: assignee Alan Turing [1]."),  # the carried issue's people, not who-to-ask
        ("Who can help with this issue?", "PAY-2: assignee Alan Turing; reporter Grace Hopper [1]."),
    ],
)
def test_follow_ups_ask_the_fields_of_the_carried_document(planner, question, expected):
    """The carried document is what the follow-up is about: FilterDocs keeps it although its text
    shares no word with the question ("assigned"), and "who owns it?" is its field, not a topic."""
    service = AskService(planner)
    first = service.ask("What is the status of PAY-2?")
    history = [
        HistoryTurn("user", first.question),
        HistoryTurn("assistant", first.answer, tuple(first.document_ids)),
    ]
    a = service.ask(question, history=history)
    assert [t.tool for t in a.tool_calls] == ["GraphQuery", "FilterDocs"]
    assert a.tool_calls[0].arguments["document_ids"] == ["jira:PAY-2"]
    assert a.answer == expected and a.document_ids == ["jira:PAY-2"]


def test_filter_docs_keeps_pinned_documents_within_its_limit(agent_toolbox, agent_store):
    """A pinned document that shares no keyword stays; with more matches than ``keep`` it takes
    the place of the weakest match, and the order stays by score."""
    from devkb.agent.evidence import EvidenceDoc, Scope

    docs = [agent_store.get_document(i) for i in ("jira:PAY-1", "jira:PAY-2", "jira:PAY-3")]

    def kept(keep: int, pinned: set[str]) -> list[str]:
        scope = Scope()
        scope.replace_selection(
            [EvidenceDoc(d.document, tuple(c.content for c in d.chunks)) for d in docs if d]
        )
        return [d.id for d in agent_toolbox.filter_docs.run(scope, "refund emails", keep=keep, pinned=pinned)]

    assert kept(3, set()) == ["jira:PAY-3", "jira:PAY-1"]  # PAY-2 shares no word with the question
    assert kept(3, {"jira:PAY-2"}) == ["jira:PAY-3", "jira:PAY-1", "jira:PAY-2"]
    assert kept(2, {"jira:PAY-2"}) == ["jira:PAY-3", "jira:PAY-2"]
    assert kept(1, {"jira:PAY-2"}) == ["jira:PAY-2"]
