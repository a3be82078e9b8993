""" "Which FLOE tickets got resolved in July 2014?": issues listed by resolution date, the project
read in any case, every one of them named with the count — real Jira JSON through the Jira
converter into the embedded store, answered by the rule planner."""

from __future__ import annotations

import pytest

from devkb.agent.ask_service import AskService
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.identifiers import read_lookups
from devkb.agent.planner import Planner
from devkb.agent.question import parse_question
from devkb.agent.tools import Toolbox
from devkb.indexing.references.context import LinkContext
from devkb.sources.jira.convert import issue_to_document
from devkb_devtools.testkit import build_indexer


def _issue(key: str, summary: str, resolved: str | None, status: str = "Closed") -> dict:
    return {
        "key": key,
        "fields": {
            "summary": summary,
            "description": f"{summary}. Details of the work.",
            "status": {"name": status},
            "resolution": {"name": "Fixed"} if resolved else None,
            "project": {"key": key.split("-")[0]},
            "issuetype": {"name": "Task"},
            "created": "2014-01-02T10:00:00.000-0400",
            "updated": "2015-01-02T10:00:00.000-0400",
            "resolutiondate": resolved,
        },
    }


ISSUES = [
    _issue("FLOE-193", "Publish the captioning guide", "2014-07-03T09:00:00.000-0400"),
    _issue("FLOE-204", "Fix the colour contrast of the header", "2014-07-31T22:30:00.000-0400"),  # Aug 1 UTC
    _issue("FLOE-198", "Add transcripts to the videos", "2014-07-15T12:00:00.000-0400"),
    _issue("FLOE-150", "Old work", "2014-06-30T12:00:00.000-0400"),
    _issue("FLOE-210", "Still open", None, status="Open"),
    _issue("CITY-7", "Another project, same month", "2014-07-10T12:00:00.000-0400"),
]


@pytest.fixture(scope="module")
def service(tmp_path_factory, embedder) -> AskService:
    data_dir = tmp_path_factory.mktemp("resolved")
    indexer = build_indexer(data_dir, embedder, [], link_context=LinkContext(project_keys={"FLOE", "CITY"}))
    indexer.pipeline.run([issue_to_document(i, "https://jira.example") for i in ISSUES], "jira")
    store = indexer.store
    toolbox = Toolbox(store, HybridSearch(store, embedder), lambda: {"FLOE", "CITY"})
    return AskService(Planner(toolbox, lambda: {"FLOE", "CITY"}))


def test_the_converter_records_the_month_of_resolution_in_utc() -> None:
    doc = issue_to_document(ISSUES[1], "https://jira.example")
    assert doc.metadata["resolved_month"] == "2014-08"  # 22:30 at UTC-4 is the next day in UTC
    assert "resolved_month" not in issue_to_document(ISSUES[4], "https://jira.example").metadata


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("ENGAGE issues resolved december 2009?", "2009-12-01", "2009-12-31T23:59:59"),
        ("which achecker bugs were resolved in aug 2018?", "2018-08-01", "2018-08-31T23:59:59"),
        ("What got resolved in DECA during October 2011?", "2011-10-01", "2011-10-31T23:59:59"),
        # "May" as a verb: not May 2019, the whole year the question names
        ("May the fix land in 2019?", "2019-01-01", "2019-12-31T23:59:59"),
        ("May the fix land?", None, None),
    ],
)
def test_months_are_read_with_or_without_a_preposition(question: str, start: str, end: str) -> None:
    parsed = parse_question(question, {"ENGAGE", "ACHECKER", "DECA"})
    assert (parsed.time_from, parsed.time_to) == (start, end)


def test_a_known_project_is_read_in_lower_case_where_it_names_a_project() -> None:
    lookups = read_lookups("which achecker bugs were resolved in aug 2018?", {"ACHECKER"})
    assert [lk.filters.get("project") for lk in lookups.lookups] == [("ACHECKER",)]
    assert read_lookups("the city is lovely", {"CITY"}).lookups == ()


@pytest.mark.parametrize(
    "question",
    [
        "which FLOE tickets got resolved in July 2014?",
        "what did the floe project finish in July 2014?",
        "FLOE issues closed during july 2014",
    ],
)
def test_issues_resolved_in_a_month_are_listed_whole_with_their_count(
    service: AskService, question: str
) -> None:
    answer = service.ask(question)
    assert answer.answer.startswith("2 issues were resolved from 2014-07-01 to 2014-07-31 in FLOE"), (
        answer.answer
    )
    assert [s.document_id for s in answer.sources] == ["jira:FLOE-193", "jira:FLOE-198"]
    for absent in ("FLOE-204", "FLOE-150", "FLOE-210", "CITY-7"):
        assert absent not in answer.answer


def test_without_a_project_every_project_counts(service: AskService) -> None:
    answer = service.ask("What was resolved in July 2014?")
    assert answer.answer.startswith("3 issues were resolved"), answer.answer
    assert {s.document_id for s in answer.sources} == {"jira:FLOE-193", "jira:FLOE-198", "jira:CITY-7"}


def test_a_month_with_nothing_resolved_says_so(service: AskService) -> None:
    answer = service.ask("Which FLOE issues were resolved in March 2013?")
    assert (
        answer.answer == "No issue in FLOE was resolved from 2013-03-01 to 2013-03-31 in the knowledge base."
    )
    assert answer.sources == []


def test_nothing_resolved_is_said_of_what_a_member_can_read(service: AskService) -> None:
    """A member is never told that nothing exists in the whole knowledge base: they are told of
    what they may read (the demo walk: bob heard "… in the knowledge base")."""
    from devkb.access.readers import Reader, reading_as

    with reading_as(Reader("bob@x", "member", frozenset({"everyone"}))):
        answer = service.ask("Which FLOE issues were resolved in March 2013?")
    assert answer.answer.endswith("2013-03-31 among the documents you can read."), answer.answer
