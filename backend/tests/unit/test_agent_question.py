"""The question parse (anchor, wanted type, relation and direction, time, follow-up), the
neighbour filter that keeps a relation's direction, "not found", and extractive sentence choice."""

from __future__ import annotations

from datetime import date

import pytest

from devkb.agent.ask_service import AskService
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import compose_extractive
from devkb.agent.kinds.relation import neighbour_filter, relation_list
from devkb.agent.planner import Planner
from devkb.agent.question import Relation, expand_ellipsis, is_follow_up, parse_question
from devkb.agent.tools.filter_docs import keywords
from devkb.store.models import Document, Neighbor, SourceType

KEYS = {"FLUID", "PAY", "DS"}


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("what does FLUID-1179 depend on?", "out"),
        ("what's blocking fluid-6519?", "out"),
        ("DECA-69 depends on which issues?", "out"),
        ("What is FLUID-1209 waiting on?", "out"),
        ("what needs to land before FLUID-1753?", "out"),
        ("what depends on FLUID-5534?", "in"),
        ("What is FLUID-1177 blocking?", "in"),
        ("Is anything waiting on FLUID-1213?", "in"),
        ("which tickets are depending on fluid-3878", "in"),
    ],
)
def test_dependency_direction_is_read_from_the_question(question: str, direction: str) -> None:
    p = parse_question(question, KEYS | {"DECA"})
    assert p.relation is not None and p.relation.name == "depends"
    assert p.relation.direction == direction


def test_keys_in_any_case_for_known_projects_and_the_wanted_type() -> None:
    assert parse_question("what is the status of ds-1000?", KEYS).issue_keys == ("DS-1000",)
    assert parse_question("status of DS-99999", KEYS).issue_keys == ("DS-99999",)
    p = parse_question("Which pull request worked on FLUID-5598?", KEYS)
    assert p.wanted == "pull" and p.relation is not None and p.relation.name == "worked_on"
    # "pull request #1" names the anchor; the wanted type is the issue
    p = parse_question("Which Jira issue is referenced by pull request #1?", KEYS)
    assert p.wanted == "issue" and p.relation is not None
    # a project scopes a search; it is not a document to connect from
    assert parse_question("Open bugs in project PAY", KEYS).relation is None
    p = parse_question("any PR for fluid-5581?", KEYS)
    assert p.wanted == "pull" and p.relation is not None
    assert parse_question("who's on FLUID-6504?", KEYS).fields == ("assignee",)
    assert "reporter" in parse_question("DECA-101 - who raised this one?", KEYS | {"DECA"}).fields
    # "the latest on X", "any update on X": where it stands
    for text in ("what's the latest on FLUID-6504?", "any update on FLUID-6504?", "any news on FLUID-6504?"):
        assert parse_question(text, KEYS).fields == ("status",), text


def test_follow_up_only_when_the_question_refers_back() -> None:
    assert not is_follow_up("What is blocked?")
    assert not is_follow_up("Open bugs?")
    assert is_follow_up("And its status?")
    assert is_follow_up("what does it depend on?")
    assert is_follow_up("what about PAY-2?", anchored=True)
    assert not is_follow_up("Is it possible to retry refunds?")
    assert not parse_question("What is blocked?", KEYS, has_context=True).follow_up


@pytest.mark.parametrize(
    ("question", "reference", "own_words"),
    [
        ("and who worked on it?", "it", set()),
        ("what is its status?", "its", set()),
        ("when did it change?", "it", set()),
        ("what is the status of this one?", "this one", set()),
        ("which commits touched them?", "them", set()),
        ("who owns that issue?", "that", set()),
        ("how do I configure it for production?", "it", {"configure", "production"}),
        ("Why did it fail?", "it", {"fail"}),
        ("Is it possible to retry refunds?", None, {"possible", "retry", "refund"}),
        ("What is the issue that blocks releases?", None, {"issue", "block", "release"}),
        ("who worked on PAY-7?", None, {"work", "pay-7"}),  # an identifier: nothing refers back
    ],
)
def test_a_reference_and_the_words_of_its_own_are_read_off_the_question(
    question: str, reference: str | None, own_words: set[str]
) -> None:
    """The word a question uses for something said earlier, and the content words left once that
    word and what the question asks about it (field, relation, type, wanted document) are out."""
    p = parse_question(question, KEYS)
    assert p.reference == reference
    assert keywords(p.own_words) == own_words


def test_time_expressions() -> None:
    today = date(2026, 3, 15)
    p = parse_question("Which issues were resolved in April 2019?", KEYS, today=today)
    assert (p.time_from, p.time_to) == ("2019-04-01", "2019-04-30T23:59:59")
    p = parse_question("what changed last month", KEYS, today=today)
    assert (p.time_from, p.time_to) == ("2026-02-01", "2026-02-28T23:59:59")
    p = parse_question("what changed last month", KEYS, today=date(2026, 1, 5))
    assert p.time_from == "2025-12-01"


def test_ellipsis_reuses_the_previous_question() -> None:
    assert expand_ellipsis("and PAY-2?", "What does PAY-1 depend on?", KEYS) == "What does PAY-2 depend on?"
    assert (
        expand_ellipsis("what about pay-2", "Who is assigned to PAY-1?", KEYS) == "Who is assigned to PAY-2?"
    )
    assert expand_ellipsis("What is blocked?", "What is PAY-12 about?", KEYS) == "What is blocked?"


def _doc(key: str) -> Document:
    return Document(f"jira:{key}", SourceType.JIRA, f"{key}: t", metadata={"key": key, "kind": "issue"})


def _edge(via: str, other: str, direction: str, evidence: str) -> Neighbor:
    return Neighbor(_doc(other), "jira-issuelink", evidence, direction, f"jira:{via}")


def test_neighbour_filter_keeps_direction_and_never_the_anchor() -> None:
    edges = [
        _edge("X-1", "X-2", "out", "X-1 depends on X-2"),  # X-1 waits for X-2
        _edge("X-1", "X-3", "in", "X-3 depends on X-1"),  # X-3 waits for X-1
        _edge("X-1", "X-4", "in", "X-4 blocks X-1"),  # X-1 waits for X-4
        _edge("X-1", "X-5", "out", "X-1 relates to X-5"),
        _edge("X-1", "X-1", "out", "X-1 relates to X-1"),
    ]
    out = neighbour_filter(Relation("depends", "out"), None, {"jira:X-1"})
    assert [e.document.id for e in edges if out(e)] == ["jira:X-2", "jira:X-4"]
    inward = neighbour_filter(Relation("depends", "in"), None, {"jira:X-1"})
    assert [e.document.id for e in edges if inward(e)] == ["jira:X-3"]
    related = neighbour_filter(Relation("related", "both"), None, {"jira:X-1"})
    assert "jira:X-1" not in [e.document.id for e in edges if related(e)]


def test_lists_say_how_many_and_which_are_shown() -> None:
    p = parse_question("Which issues are related to DS-895?", KEYS)
    anchor = EvidenceDoc(_doc("DS-895"), ("",), 1.0, "GraphQuery")
    listed = [
        EvidenceDoc(_doc(f"DS-{i}"), ("",), 0.5, "FetchNeighbors", f"DS-895 relates to DS-{i}")
        for i in range(13)
    ]
    numbers = {d.id: i for i, d in enumerate(listed[:8], 1)}
    text = relation_list(p, [anchor], listed, numbers)
    assert text.startswith("DS-895 is linked to 13 issues (8 shown as sources):")
    assert all(f"DS-{i}: t" in text for i in range(13)) and "DS-895: t" not in text


def test_unknown_identifiers_are_not_found_and_lower_case_keys_resolve(agent_toolbox) -> None:
    service = AskService(Planner(agent_toolbox, lambda: {"PAY"}))
    missing = service.ask("What is the status of PAY-99999?")
    assert "PAY-99999 was not found" in missing.answer and missing.sources == []
    near = service.ask("Who is assigned to PAY-33?")
    assert "PAY-33 was not found" in near.answer and "Close matches: PAY-3" in near.answer
    lower = service.ask("what is the status of pay-2?")
    assert lower.document_ids[0] == "jira:PAY-2" and "not found" not in lower.answer


def test_sentences_answer_the_question_type() -> None:
    passages = [
        (
            1,
            "Status: Closed · Priority: Major · Resolution: Fixed\nClosing issues that were resolved for 1.0 release.",
        ),
        (2, "Customers were charged twice on 2026-04-14. Root cause: read timeouts were retried."),
        (3, "The fix uses idempotency keys &amp; a store of results &lt;merchant, key&gt;."),
    ]
    why = compose_extractive("Why were customers charged twice?", passages, qtype="why")
    assert why.startswith("Root cause: read timeouts were retried. [2]")
    assert "Closing issues" not in why and "Status: Closed" not in why
    assert "idempotency keys & a store of results <merchant, key>" in compose_extractive(
        "idempotency keys store", passages
    )


def test_a_period_limits_the_answer_to_documents_of_that_period(agent_toolbox) -> None:
    service = AskService(Planner(agent_toolbox, lambda: {"PAY"}))
    a = service.ask("Show me documents from May 2024")
    assert a.tool_calls[0].tool == "GraphQuery" and a.tool_calls[0].arguments["reason"] == "period"
    assert a.answer.startswith("Updated from 2024-05-01 to 2024-05-31:")
    assert a.document_ids and "confluence:page:100" not in a.document_ids  # updated in April
    april = service.ask("How were refund webhooks retried in April 2024?")
    assert april.document_ids == ["confluence:page:100"]


@pytest.mark.parametrize(
    ("question", "embedded"),
    [
        ("Does anyone know who leads the Preferences Framework?", "who leads the preferences framework"),
        ("hey, any idea when PAY-214 ships", "when pay 214 ships"),
        ("I was wondering how you build Infusion", "how you build infusion"),
        ("I'd like to know the on-call rotation", "the on call rotation"),
        ("do you know if the flag is on", "if the flag is on"),
        ("Does the build pass?", "does the build pass"),  # a yes-or-no question stays one
        ("Do you know?", "do you know"),  # nothing embedded
    ],
)
def test_an_indirect_question_is_the_question_it_embeds(question: str, embedded: str) -> None:
    from devkb.agent.question import embedded_question, words_of

    assert " ".join(embedded_question(words_of(question))) == embedded
