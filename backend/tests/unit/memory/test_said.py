"""The day a question about a conversation names (memory/said.py): turns said then are the ones
that answer; a number or a verb that only looks like a date is not one."""

from __future__ import annotations

import pytest

from devkb.memory.said import day_in


@pytest.mark.parametrize(
    ("question", "year", "month", "day"),
    [
        ("Which test page broke after the merge on June 4?", None, 6, 4),
        ("What did Justin say on 31 October 2017 about requests?", 2017, 10, 31),
        ("Where did Cindy copy the reports to in November?", None, 11, None),
        ("What moved on March 6, 2020?", 2020, 3, 6),
        ("What was merged on 2015-06-04?", 2015, 6, 4),
        ("What did Bob say on 7 May 2023?", 2023, 5, 7),
        ("What did Jan say on Jan 5?", None, 1, 5),
    ],
)
def test_a_named_day(question, year, month, day):
    found = day_in(question)
    assert found is not None and (found.year, found.month, found.day) == (year, month, day)


@pytest.mark.parametrize(
    "question",
    [
        "What may break the build?",
        "Which fix version, 1.9?",
        "What did we decide in 2015?",
        "What should it say, after the discussion with Jan?",
    ],
)
def test_no_day(question):
    assert day_in(question) is None


def test_holds_the_turns_of_that_day():
    june4 = day_in("on June 4")
    assert june4 is not None and june4.holds("2015-06-04") and june4.holds("2019-06-04")
    assert not june4.holds("2015-06-05") and not june4.holds("")


def test_relative_words_get_the_day_they_meant():
    from devkb.memory.said import relative_days

    said = "I went to the support group yesterday; last weekend we hiked, and last year I moved."
    assert relative_days(said, "2023-05-08") == [
        "yesterday: 7 May 2023",
        "last weekend: the weekend before 8 May 2023",
        "last year: 2022",
    ]
    assert relative_days("Next month, in January", "2023-12-08") == ["next month: January 2024"]
    assert relative_days("nothing relative here", "2023-12-08") == []


def test_a_name_called_is_not_a_name_told_about() -> None:
    from devkb.memory.said import _unaddressed

    names = {"caroline", "mel", "melanie"}
    said = "Thanks, Caroline! I told Caroline about it. Hey Mel, great. Melanie, look. Caroline's bowl"
    left = _unaddressed(said, names)
    assert "Caroline about it" in left and "Caroline's bowl" in left
    assert "Thanks, Caroline" not in left and "Hey Mel" not in left and "Melanie, look" not in left


def test_a_turn_that_asks_is_told_apart_from_one_that_tells() -> None:
    from devkb.memory.said import _asks, _stems

    topic = _stems("creative projects pottery")
    assert _asks("That cup is cute! What other creative projects do you do, besides pottery?", topic)
    assert not _asks("Besides pottery, our creative projects are paintings. Want to see?", topic)


def test_cosine_of_stored_vectors() -> None:
    from devkb.memory.said import cosine

    assert cosine([1.0, 0.0], [2.0, 0.0]) == pytest.approx(1.0)
    assert cosine([1.0, 0.0], [0.0, 3.0]) == pytest.approx(0.0)
    assert cosine([1.0, 1.0], [-1.0, -1.0]) == pytest.approx(-1.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0  # no vector, no meaning


@pytest.mark.parametrize(
    ("question", "several"),
    [
        ("What activities does Melanie partake in?", True),
        ("Where has Melanie camped?", True),
        ("What has Melanie painted?", True),
        ("What LGBTQ+ events has Caroline participated in?", True),
        ("What are Melanie's pets' names?", True),
        ("What did Caroline research?", False),
        ("What is Caroline's identity?", False),
        ("When did Melanie paint a sunrise?", False),
        ("Who supports Caroline when she has a negative experience?", False),
    ],
)
def test_a_question_asking_for_several_things(question: str, several: bool) -> None:
    from devkb.memory.said import _many

    assert _many(question) is several


def test_a_turn_telling_of_its_speaker_is_not_one_about_the_listener() -> None:
    from devkb.memory.said import _stems, _tells

    race = _stems("charity race")
    assert _tells("Hi Mel! I ran a charity race for mental health last Saturday.", race)
    assert not _tells("Wow, Mel! Congrats on finishing. How was your charity race?", race)
    assert _tells("We did the charity race together, my legs still hurt.", race)
