"""History answers over truncated records say what is recorded, never that something did not
happen (docs/history.md, "What the record lacks"): every history kind — state, first, page_at,
timeline, digest — on a store whose histories are cut short the way real ones are (a page whose
versions before 11 were never captured, versions missing between two stored ones, an issue with
no changelog, a changelog that starts late, documents updated with no version recorded)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from devkb.agent.history import answer, recognise
from devkb.agent.question import parse_question
from devkb.store.models import Document, SourceType, Version
from devkb.store.sqlite import SQLiteGraphStore

TODAY = date(2026, 11, 25)
# words that claim something did not happen
DENIALS = ("did not exist", "never", "nothing changed", "has no version", "no stored", "unchanged")


def _page(pid: str, title: str, current: int) -> Document:
    return Document(
        f"confluence:page:{pid}",
        SourceType.CONFLUENCE,
        title,
        url=f"https://wiki.example.com/pages/{pid}",
        updated_at="2026-09-12T10:30:00+00:00",
        metadata={"space": "PAY", "version": current},
        source="confluence",
    )


def _issue(key: str, status: str, created: str, updated: str, **meta: str) -> Document:
    return Document(
        f"jira:{key}",
        SourceType.JIRA,
        f"{key}: {status} issue",
        url=f"https://jira.example.com/browse/{key}",
        updated_at=updated,
        metadata={"key": key, "project": "PAY", "status": status, "created": created, **meta},
        source="jira",
    )


def _version(doc: Document, seq: int, when: str, body: str = "") -> Version:
    return Version(doc.id, "page", seq, when, author="Sofia Alvarez", message=f"edit {seq}", body=body)


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = SQLiteGraphStore(tmp_path / "graph.sqlite")
    retry = _page("2000004", "PSP Retry Policy", 11)
    gaps = _page("2000005", "Refund Runbook", 5)
    pay7 = _issue("PAY-7", "Closed", "2026-01-10T09:00:00+00:00", "2026-02-19T09:00:00+00:00",
                  resolution="Fixed", resolved="2026-02-19T09:00:00+00:00")  # fmt: skip
    pay27 = _issue("PAY-27", "In Review", "2026-03-01T09:00:00+00:00", "2026-09-20T09:00:00+00:00")
    pay30 = _issue("PAY-30", "Open", "2026-10-02T09:00:00+00:00", "2026-10-15T09:00:00+00:00")
    s.write_documents(
        [(d, []) for d in (retry, gaps, pay7, pay27, pay30)],
        versions=[
            _version(retry, 11, "2026-09-12T10:30:00+00:00", "Retry at most 4 times."),
            _version(gaps, 1, "2026-01-05T10:00:00+00:00", "Refunds by hand."),
            _version(gaps, 2, "2026-02-05T10:00:00+00:00", "Refunds through the console."),
            _version(gaps, 5, "2026-05-05T10:00:00+00:00", "Refunds through the API."),
            # PAY-27's changelog starts late: only its last move is recorded
            Version(
                pay27.id,
                "transition",
                1,
                "2026-09-20T09:00:00+00:00",
                author="Marcus Chen",
                field="status",
                from_value="In Progress",
                to_value="In Review",
            ),  # fmt: skip
        ],
    )
    yield s
    s.close()


def _ask(store: SQLiteGraphStore, question: str):  # type: ignore[no-untyped-def]
    intent = recognise(parse_question(question, ["PAY"], today=TODAY), TODAY)
    assert intent is not None, question
    return intent.kind, answer(intent, store, TODAY)


@pytest.mark.parametrize(
    ("question", "kind", "says"),
    [
        # page_at: only version 11 of the page was ever stored
        (
            "What did the PSP Retry Policy page say in March?",
            "page_at",
            "What “PSP Retry Policy” said at the end of March 2026 is not recorded: the oldest stored "
            "version is 11, saved 2026-09-12 by Sofia Alvarez",
        ),
        ("What did the PSP Retry Policy page say at version 3?", "page_at", "Version 3 of “PSP Retry Policy” is not recorded"),
        # page_at: versions 3 and 4 are missing between the stored 2 and 5
        ("What did the Refund Runbook page say on 2026-04-01?", "page_at", "versions 3–4 of “Refund Runbook” are not recorded"),
        # first: no changelog at all, and a changelog that starts late
        ("When did PAY-7 move to Done?", "first", "No changelog is recorded for PAY-7, so whether and when it moved to Done is not known"),
        ("When did PAY-27 move to Done?", "first", "No move of PAY-27 to Done is recorded (its changelog has 1 recorded change"),
        # state: no changelog, so the past state is not today's
        ("What was the status of PAY-7 on 2026-02-01?", "state", "No changelog is recorded for PAY-7, so its state on 2026-02-01 is not known"),
        # timeline
        ("Show the history of PAY-7", "timeline", "No history is recorded for"),
        ("How has the PSP Retry Policy page evolved?", "timeline", "versions 1–10 of “PSP Retry Policy” are not recorded"),
        # digest: PAY-30 was updated in October, and no version records it
        ("What changed in PAY last month?", "digest", "No change in PAY is recorded"),
    ],
)  # fmt: skip
def test_every_history_kind_says_what_is_recorded_over_missing_records(store, question, kind, says):  # type: ignore[no-untyped-def]
    got_kind, found = _ask(store, question)
    assert got_kind == kind
    assert says in found.text, found.text
    assert not any(word in found.text.lower() for word in DENIALS), found.text
    assert found.unrecorded, "an answer over missing records says what is missing (its confidence is capped)"
    assert found.evidence, "it cites what it has"


def test_a_digest_names_documents_updated_without_a_recorded_change(store):  # type: ignore[no-untyped-def]
    _, found = _ask(store, "What changed in PAY last month?")
    assert found.text.endswith(
        "(by Marcus Chen) [1]. Yet 1 of its documents was updated then (PAY-30: Open issue [2]): "
        "what changed in them is not recorded as versions."
    ), found.text


def test_a_page_whose_first_version_is_recorded_did_not_exist_before_it(store):  # type: ignore[no-untyped-def]
    """The claim of non-existence stays where the record supports it: version 1 is stored."""
    _, found = _ask(store, "What did the Refund Runbook page say on 2025-12-01?")
    assert found.text.startswith(
        "“Refund Runbook” did not exist yet on 2025-12-01: its first version is from 2026-01-05"
    )
    assert not found.unrecorded


def test_the_history_kind_caps_its_confidence_over_missing_records(store):  # type: ignore[no-untyped-def]
    from devkb.agent.confidence import CAPPED_PROBABILITY
    from devkb.agent.kinds.base import Outcome
    from devkb.agent.kinds.history import History

    kind = History()
    _, found = _ask(store, "What did the PSP Retry Policy page say in March?")
    parsed = parse_question("What did the PSP Retry Policy page say in March?", ["PAY"], today=TODAY)
    out = Outcome(parsed, kind, composed=found.text, composed_kind="page_at", unrecorded=found.unrecorded)
    status, confidence = kind.assess(out, found.evidence)
    assert (status, confidence.level) == ("partial", "low")
    assert confidence.probability <= CAPPED_PROBABILITY and "record is incomplete" in confidence.reason
    out.unrecorded = ""
    assert kind.assess(out, found.evidence)[1].level == "high"  # the same answer over a whole record
