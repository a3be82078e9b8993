"""Recognising history questions and resolving their time words (agent/history)."""

from __future__ import annotations

from datetime import UTC, date

import pytest

from devkb.agent.history import recognise
from devkb.agent.history.diffing import diff_sections
from devkb.agent.history.when import window_in
from devkb.agent.question import parse_question

TODAY = date(2026, 11, 25)  # a Wednesday


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was the status of PAY-12 on 2026-05-01?", "state"),
        ("Who was PAY-20 assigned to on September 27, 2026?", "state"),
        ("What was PAY-7's fix version as of 3 March 2026?", "state"),
        ("When did PAY-12 move to Done, and who moved it?", "first"),
        ("Who closed PAY-13?", "first"),
        ("What changed in PAY last week?", "digest"),
        ("What happened in space ILDH between 2022-06-01 and 2022-06-30?", "digest"),
        ("What's new in the payments-service repo?", "digest"),
        ("What was committed to acme/payments-service last month?", "digest"),
        ('What did the "Retry policy" page say at version 3?', "page_at"),
        ("How does version 2 of the Retry policy page differ from today?", "page_at"),
        ("What did the Retry policy page say on 2026-03-01?", "page_at"),
        ("How has our idempotency approach evolved?", "timeline"),
        ("Show the history of PAY-12", "timeline"),
        ("What did the Retry policy page say in March?", "page_at"),
        ("what did the retry policy page say on March 3?", "page_at"),
        ("Who was PAY-20 assigned to in May?", "state"),
        ("What changed in PAY since June?", "digest"),
    ],
)
def test_each_kind_is_recognised_from_the_parsed_question(question, kind):
    intent = recognise(parse_question(question, ["PAY", "ILDH"], today=TODAY), TODAY)
    assert intent is not None and intent.kind == kind


@pytest.mark.parametrize(
    "question",
    [
        "What is PAY-12 about?",
        "Who worked on PAY-12?",
        "How do we retry failed webhooks?",
        "What happened in the card data exposure incident postmortem?",
        "Which commits changed the ledger?",
        "What caused customers to be charged twice on 2026-04-14, and what was changed to prevent it?",
        "Which Web Checkout issues depend on changes in the payments API?",
    ],
)
def test_other_questions_are_left_to_the_planner(question):
    assert recognise(parse_question(question, ["PAY"], today=TODAY), TODAY) is None


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("last week", "2026-11-19", "2026-11-26"),
        ("last month", "2026-10-01", "2026-11-01"),
        ("last quarter", "2026-07-01", "2026-10-01"),
        ("this quarter", "2026-10-01", "2027-01-01"),
        ("in March 2019", "2019-03-01", "2019-04-01"),
        ("between 5 May 2026 and 2026-05-01", "2026-05-01", "2026-05-06"),
        ("from Mar 1, 2019 to 03/31/2019", "2019-03-01", "2019-04-01"),
        ("since 2026-11-01", "2026-11-01", "2026-11-26"),
        ("on July 4th, 2020", "2020-07-04", "2020-07-05"),
        # without a year: the latest such month or day that has begun by today
        ("in March", "2026-03-01", "2026-04-01"),
        ("in November", "2026-11-01", "2026-12-01"),
        ("last December", "2025-12-01", "2026-01-01"),
        ("on March 3", "2026-03-03", "2026-03-04"),
        ("as of 3rd March", "2026-03-03", "2026-03-04"),
        ("on December 25", "2025-12-25", "2025-12-26"),
        ("since June", "2026-06-01", "2026-11-26"),
        ("before June", "", "2026-06-01"),
        ("from March 3 to March 10", "2026-03-03", "2026-03-11"),
        ("between March 3 and 10 March", "2026-03-03", "2026-03-11"),
        # "what changed yesterday?" read the last 30 days
        ("what changed yesterday?", "2026-11-24", "2026-11-25"),
        ("closed today", "2026-11-25", "2026-11-26"),
        ("since yesterday", "2026-11-24", "2026-11-26"),
    ],
)
def test_time_words_resolve_against_today(text, start, end):
    window = window_in(text, TODAY, UTC)
    assert window is not None and (window.start[:10], window.end[:10]) == (start, end)


def test_section_diff_names_changed_added_and_removed_sections():
    old = "Intro\n# Retries\nthree times\n# Backoff\nlinear"
    new = "Intro\n# Retries\nfive times\n# Jitter\nfull"
    d = diff_sections(old, new)
    assert (d.changed, d.added, d.removed) == (["Retries"], ["Jitter"], ["Backoff"])
    assert "- three times" in d.sample and "+ five times" in d.sample


def test_no_question_of_the_other_evaluation_sets_is_taken_for_a_history_question():
    """The agent and answer evaluations and the demo's questions ask about content, not change."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [
        root / "tests" / "eval" / "agent_questions.jsonl",
        root / "tests" / "eval" / "answer_questions_heldout.jsonl",
        root / "tests" / "eval" / "answer_questions_tuning.jsonl",
        root / "devtools" / "src" / "devkb_devtools" / "demo" / "data" / "questions.jsonl",
    ]
    taken = []
    for path in files:
        for line in path.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            q = row.get("question") or row.get("query")
            if q and recognise(
                parse_question(q, ["FLUID", "PAY", "WEB", "FLOE", "CITY"], today=TODAY), TODAY
            ):
                taken.append(q)
    assert taken == []


def test_a_month_without_a_day_reads_a_page_or_an_issue_at_its_end():
    parsed = parse_question("What did the Retry policy page say in March?", ["PAY"], today=TODAY)
    intent = recognise(parsed, TODAY)
    assert intent is not None and intent.kind == "page_at"
    assert (intent.at[:10], intent.at_day, intent.at_label) == (
        "2026-04-01",
        date(2026, 3, 31),
        "at the end of March 2026",
    )
    state = recognise(parse_question("Who was PAY-20 assigned to in May 2026?", ["PAY"], today=TODAY), TODAY)
    assert state is not None and state.kind == "state" and state.at_label == "at the end of May 2026"


@pytest.mark.parametrize(
    "text",
    [
        "you may 5 times retry",
        "the march of progress",
        "we may need it",
        "how does it differ from today",
        "as of today",
    ],
)
def test_a_month_name_is_a_time_only_after_a_time_word(text):
    assert window_in(text, TODAY, UTC) is None


@pytest.mark.parametrize(
    ("said", "start", "end", "label"),
    [
        ("bugs from 2012 to 2013", "2012-01-01", "2014-01-01", "from 2012 to 2013"),
        ("issues created between 2010 and 2012", "2010-01-01", "2013-01-01", "from 2010 to 2012"),
        ("from March 2012 to May 2012", "2012-03-01", "2012-06-01", "from March 2012 to May 2012"),
        ("tasks from Q1 2011 through Q3 2011", "2011-01-01", "2011-10-01", "from Q1 2011 to Q3 2011"),
        ("from 2012 until 2013", "2012-01-01", "2014-01-01", "from 2012 to 2013"),
    ],
)
def test_a_range_of_periods_runs_from_the_first_to_the_end_of_the_second(said, start, end, label) -> None:
    """ "from 2012 to 2013" was read as "since 2012" (to today), "between 2010 and 2012" as no
    period at all, "from March 2012 to May 2012" as March alone."""
    from devkb.agent.history.when import window_in

    w = window_in(said, date(2026, 12, 7), UTC)
    assert w is not None and (w.start[:10], w.end[:10], w.label) == (start, end, label), w


def test_words_between_from_and_to_that_are_not_periods_are_no_range() -> None:
    from devkb.agent.history.when import window_in

    w = window_in("which issues moved from Open to Closed in 2012?", date(2026, 12, 7), UTC)
    assert w is not None and w.label == "in 2012", w


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "said",
    [" ".join(["from x to y and"] * 300), "between " * 500 + "and " * 500, "from 2012 " * 400 + "to 2013"],
)
def test_a_question_of_many_froms_and_tos_is_read_in_bounded_work(said: str) -> None:
    """Hostile input: each side of a range was read as a range again, so the work grew
    exponentially with the "from" / "to" words (8 repeats of "from x to y and" did not end in a
    minute). A side is now read as one period of a few words; this ends, whatever it finds."""
    from devkb.agent.history.when import window_in

    window_in(said, date(2026, 12, 7), UTC)
