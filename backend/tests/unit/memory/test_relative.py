"""What a turn's relative words of time meant on the day it was said (memory/relative.py)."""

from datetime import date

from devkb.memory.relative import meanings


def test_a_weekday_last_is_the_one_before_the_day_it_was_said() -> None:
    found = meanings("I ran a charity race for mental health last Saturday – it was great.", "2023-05-25")
    assert [(m.phrase, m.text, m.day) for m in found] == [
        ("last saturday", "the Saturday before 25 May 2023: 20 May 2023", date(2023, 5, 20))
    ]
    # abbreviated, and said on that weekday: a week back, not the same day
    assert meanings("I joined a new group last Tues.", "2023-07-20")[0].day == date(2023, 7, 18)
    assert meanings("Last Friday I went to a meeting", "2023-07-14")[0].day == date(2023, 7, 7)
    assert meanings("see you next Friday", "2023-01-20")[0].day == date(2023, 1, 27)


def test_counts_ago_and_the_fixed_words() -> None:
    said = "two days ago I moved; two weekends ago we camped; ten years ago; this past weekend; this week"
    assert [m.text for m in meanings(said, "2023-07-12")] == [
        "10 July 2023",
        "two weekends before 12 July 2023",
        "2013",
        "the weekend before 12 July 2023",
        "the week of 12 July 2023",
    ]
    assert [m.text for m in meanings("Last night was amazing! This month, next year", "2023-08-14")] == [
        "13 August 2023",
        "August 2023",
        "2024",
    ]
    assert meanings("last weekend", "not a day") == []
    assert meanings("nothing relative in a weekly weekend plan", "2023-08-14") == []
