"""A conversation told to devkb (memory/transcripts.py): checked and bounded before anything is
written; each turn one memory whose id is derived from what it is."""

from __future__ import annotations

import pytest

from devkb.memory import transcripts as t
from devkb.memory.transcripts import TranscriptError, memories_of, parse_sessions

GOOD = [
    {
        "date": "2010-11-25T08:28:00-05:00",
        "title": "FLUID-3801",
        "turns": [{"speaker": "James Yoon", "text": "A blue border persists."}],
    },
    {
        "date": "2010-12-15",
        "turns": [{"speaker": "Colin Clark", "text": "Committed.", "time": "2010-12-15T20:00:00-05:00"}],
    },
]


def test_turns_become_memories_with_speaker_day_and_place():
    sessions = parse_sessions(GOOD)
    turns = memories_of(sessions, "c1", "demos", "private", "bob@acme.example", "2026-12-07T00:00:00+00:00")
    assert [m.turn for m in turns] == ["c1#s1t1", "c1#s2t1"]
    # the day as the speaker's calendar had it, the moment in UTC
    assert turns[1].said == "Colin Clark on 2010-12-15: Committed."
    assert turns[1].valid_from == "2010-12-16T01:00:00+00:00"
    assert turns[0].origin == "transcript" and turns[0].gates == (("user:bob@acme.example",),)
    again = memories_of(
        parse_sessions(GOOD), "c1", "demos", "private", "bob@acme.example", "2027-01-01T00:00:00+00:00"
    )
    assert [m.id for m in again] == [m.id for m in turns]  # the same conversation: the same ids
    other = memories_of(sessions, "c1", "demos", "private", "carol@acme.example", "2026-12-07T00:00:00+00:00")
    assert not {m.id for m in other} & {m.id for m in turns}


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ([], "non-empty list"),
        ("hello", "non-empty list"),
        ([{"date": "someday", "turns": [{"speaker": "a", "text": "b"}]}], "date"),
        ([{"date": "2020-01-01", "turns": []}], "turns"),
        ([{"date": "2020-01-01", "turns": [{"speaker": "", "text": "b"}]}], "speaker is empty"),
        ([{"date": "2020-01-01", "turns": [{"speaker": "a", "text": 5}]}], "text must be text"),
        ([{"date": "2020-01-01", "turns": [{"speaker": "a", "text": "x" * (t.MAX_TURN_CHARS + 1)}]}], "over"),
    ],
)
def test_bad_conversations_are_refused_with_what_to_change(raw, says):
    with pytest.raises(TranscriptError, match=says):
        parse_sessions(raw)


def test_sizes_are_bounded(monkeypatch):
    monkeypatch.setattr(t, "MAX_TOTAL_CHARS", 50)
    many = [{"date": "2020-01-01", "turns": [{"speaker": "a", "text": "y" * 20}] * 3}]
    with pytest.raises(TranscriptError, match="characters of turns"):
        parse_sessions(many)
    monkeypatch.setattr(t, "MAX_SESSIONS", 2)
    with pytest.raises(TranscriptError, match="at most 2 sessions"):
        parse_sessions([GOOD[0]] * 3)


@pytest.mark.parametrize(
    ("written", "iso"),
    [
        ("2023-05-08", "2023-05-08"),
        ("1:56 pm on 8 May, 2023", "2023-05-08T13:56:00"),
        ("12:09 am on 13 September, 2023", "2023-09-13T00:09:00"),
        ("2023/05/20 (Sat) 02:21", "2023-05-20T02:21:00"),
        ("May 8, 2023", "2023-05-08T00:00:00"),
        ("someday", "someday"),
    ],
)
def test_session_dates_as_people_and_datasets_write_them(written, iso):
    assert t.iso_date(written) == iso


def test_role_and_content_are_speaker_and_text():
    from devkb.memory.transcripts import SessionIn

    s = SessionIn.model_validate(
        {"date": "2023/05/20 (Sat) 02:21", "turns": [{"role": "user", "content": "hi"}]}
    )
    (session,) = parse_sessions([s.model_dump()])
    assert session.turns[0].speaker == "user" and session.turns[0].said_on == "2023-05-20"
