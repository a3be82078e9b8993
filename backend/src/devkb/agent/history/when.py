"""Time words and dates in a question → instants and windows (ISO-8601 UTC strings, the form
versions are stored in). "Today" is the server's local date; explicit dates are read in the
usual written forms (``2026-05-07``, ``7 May 2026``, ``May 7, 2026``, ``05/07/2026``, ``May 2026``)
in the server's zone.

The grammar is table data: word patterns (:mod:`devkb.agent.words`) over the question's words as
the tokeniser reads dates and versions (``-``, ``.`` and ``/`` held inside a word, so
"2026-05-07", "05/07/2026", "2011-W05" and "4.7" are one word each), with word classes for what is
a month, a day, a year, a quarter, an ISO week. One matcher runs them; the code below only turns
what they captured into dates."""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from devkb.agent.words import NUMERIC, Found, first, scan, spans, table, words

MONTHS: dict[str, int] = {}
for _n, _name in enumerate(calendar.month_name[1:], start=1):
    MONTHS[_name.lower()] = MONTHS[_name.lower()[:3]] = _n
MONTHS["sept"] = 9
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_SUFFIXES = ("st", "nd", "rd", "th")


def _digits(word: str, low: int, high: int) -> bool:
    return word.isascii() and word.isdigit() and low <= len(word) <= high


def _day_number(word: str) -> bool:
    """ "7", "07", "7th", "21st"."""
    return _digits(word[:-2] if word.endswith(_SUFFIXES) else word, 1, 2)


def _year(word: str) -> bool:
    return _digits(word, 4, 4) and word[:2] in ("19", "20")


def _parts(word: str, sep: str, sizes: tuple[tuple[int, int], ...]) -> bool:
    parts = word.split(sep)
    return len(parts) == len(sizes) and all(
        _digits(p, lo, hi) for p, (lo, hi) in zip(parts, sizes, strict=True)
    )


def _year_then(word: str, letter: str, low: int, high: int) -> bool:
    """ "2011-w05", "2011w05", "2011-q3", "2011q3"."""
    rest = word[4:].removeprefix("-")
    return _year(word[:4]) and rest[:1] == letter and _digits(rest[1:], low, high)


CLASSES = {
    "month": MONTHS.__contains__,
    "day": _day_number,
    "yyyy": lambda w: _digits(w, 4, 4),
    "year": _year,
    "num3": lambda w: _digits(w, 1, 3),
    "num2": lambda w: _digits(w, 1, 2),
    "digit": lambda w: w[:1].isdigit(),
    "isoday": lambda w: _parts(w, "-", ((4, 4), (1, 2), (1, 2))),
    "slashday": lambda w: _parts(w, "/", ((1, 2), (1, 2), (4, 4))),
    "isomonth": lambda w: _parts(w, "-", ((4, 4), (2, 2))),
    "isoweek": lambda w: _year_then(w, "w", 2, 2),
    "isoquarter": lambda w: _year_then(w, "q", 1, 1) and w[-1] in "1234",
    "quarter": lambda w: len(w) == 2 and w[0] == "q" and w[1] in "1234",
    "ordinal": _ORDINAL.__contains__,
}
# the words that introduce a time: a month or a day without its year only counts after one ("in
# March", "last March", "on March 3", "as of 3 March"), so "may" stays a verb
_INTRO = "in|during|of|last|since|before|until|till|by|from|after|on|to|and|through|between"

# a day: ISO, day-month-year, month-day-year, numeric with slashes
DAYS = table(
    ("d=<isoday>", "iso"),
    ("d=<slashday>", "slash"),
    ("d=<day> m=<month> ,? y=<yyyy>", "written"),
    ("m=<month> d=<day> ,? y=<yyyy>", "written"),
    classes=CLASSES,
)
# a day without its year: the latest such day not after today
DAYS_ALONE = table(
    (f"{_INTRO} m=<month> d=<day> !,?+<digit>", "alone"),
    (f"{_INTRO} d=<day> m=<month> !,?+<digit>", "alone"),
    classes=CLASSES,
)
# "what changed yesterday?", "closed today", "since yesterday" — not "differ from today" or "as of
# today" (the present, not a day's window)
TODAY = table(("~from|than|of|to|until|with w=today|yesterday", "day"), classes=CLASSES)
PAST_DAYS = table(("last|past n=<num3> days", "days"), classes=CLASSES)
# "Q1 2011", "the first quarter of 2011", "in 2011 Q3"; ISO weeks: "2011-W05", "week 5 of 2011"
QUARTERS = table(
    ("q=<quarter> of? y=<year>", "quarter"),
    ("y=<year> q=<quarter>", "quarter"),
    ("yq=<isoquarter>", "quarter"),
    ("o=<ordinal> quarter of? y=<year>", "quarter"),
    ("iso? week w=<num2> of? y=<year>", "week"),
    ("yw=<isoweek>", "week"),
    classes=CLASSES,
)
RELATIVE = table(("which=last|this|past|previous unit=week|month|quarter|year", "relative"), classes=CLASSES)
MONTHS_WITH_YEAR = table(("m=<month> y=<yyyy>", "written"), ("ym=<isomonth>", "iso"), classes=CLASSES)
# a month without its year ("in March", "last March"): the latest such month begun by today
MONTH_ALONE = table(
    ("w=as of m=<month> !,?+<digit>", "alone"),
    (f"w={_INTRO} m=<month> !,?+<digit>", "alone"),
    classes=CLASSES,
)
# "since 2019", "before 2012", "after 2019" (a whole year as a bound)
YEAR_BOUNDS = table(
    ("w=since|after|from y=<year>", "from"), ("w=before|until|till|by y=<year>", "to"), classes=CLASSES
)
# "in 2023" (not a version: "in 2026.6", nor a day: "in 2023-05")
YEARS = table(
    ("in|during|of|for the year y=<year>", "year"), ("in|during|of|for y=<year>", "year"), classes=CLASSES
)


def time_words(text: str) -> tuple[str, ...]:
    """``text``'s words as the time grammar reads them, a comma between two words kept as the
    word "," ("May 7, 2026"; "in March, 5 issues" is no day)."""
    out: list[str] = []
    end = 0
    for (start, stop), word in zip(spans(text, NUMERIC), words(text, NUMERIC), strict=True):
        if out and "," in text[end:start]:
            out.append(",")
        out.append(word)
        end = stop
    return tuple(out)


@dataclass(frozen=True)
class Window:
    """``start <= t < end`` (UTC ISO strings; ``start`` "" = since the beginning)."""

    start: str
    end: str
    label: str  # how the answer names it
    last_day: date | None = None  # a calendar month's last day (a page "in March" is read at its end)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def local_zone() -> tzinfo:
    zone = datetime.now().astimezone().tzinfo
    return zone if zone is not None else UTC


def today_local() -> date:
    return datetime.now(local_zone()).date()


def _start(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time(), zone)


def _date(found: Found, year: int | None = None) -> date | None:
    """The day a :data:`DAYS` / :data:`DAYS_ALONE` match names (None when there is no such day)."""
    got = found.captured
    d = got["d"]
    try:
        if "m" not in got:
            if "/" in d:  # month first, as written in the US; a first number above 12 is the day
                a, b, y = (int(x) for x in d.split("/"))
                month, day = (a, b) if a <= 12 else (b, a)
                return date(y, month, day)
            y, month, day = (int(x) for x in d.split("-"))
            return date(y, month, day)
        number = int(d[:-2] if d.endswith(_SUFFIXES) else d)
        return date(year if year is not None else int(got["y"]), MONTHS[got["m"]], number)
    except ValueError:
        return None


def days_in(text: str, today: date | None = None) -> list[tuple[int, date]]:
    """Every explicit day written in ``text``, with its position (a word's index); a day without
    its year ("on March 3") is the latest such day not after ``today``."""
    ws = time_words(text)
    out: list[tuple[int, date]] = []
    covered: set[int] = set()
    for found, _ in scan(DAYS, ws):
        day = _date(found)
        if day is not None:
            out.append((found.start, day))
            covered.update(range(found.start, found.end))
    today = today or today_local()
    for found, _ in scan(DAYS_ALONE, ws):
        if found.start + 1 in covered:
            continue
        day = _date(found, today.year)
        if day is not None:
            out.append((found.start + 1, day if day <= today else _a_year_earlier(day)))
    return sorted(out)


def _a_year_earlier(day: date) -> date:
    return (
        day.replace(year=day.year - 1)
        if not (day.month == 2 and day.day == 29)
        else date(day.year - 1, 2, 28)
    )


def month_alone(text: str, today: date) -> tuple[int, int, str] | None:
    """ "in March" / "last March" → (year, month, the word before it): the latest such month
    that has begun by ``today``."""
    hit = first(MONTH_ALONE, time_words(text))
    if hit is None:
        return None
    month = MONTHS[hit[0].captured["m"]]
    year = today.year if month <= today.month else today.year - 1
    return year, month, hit[0].captured["w"]


def _month_window(year: int, month: int, zone: tzinfo) -> Window:
    last = calendar.monthrange(year, month)[1]
    start = _start(date(year, month, 1), zone)
    end = _start(date(year, month, last), zone) + timedelta(days=1)
    return Window(iso(start), iso(end), "in " + start.strftime("%B %Y"), date(year, month, last))


_RANGE_OPENERS = ("from", "between")
_RANGE_JOINS = ("to", "and", "until", "till", "through", "thru")
_SIDE_WORDS = 5  # a side of a range is a short period ("Q1 2011", "7 May 2026", "March 2012")


def _range(ws: Sequence[str], today: date, zone: tzinfo) -> Window | None:
    """ "from 2012 to 2013", "between March and May 2012", "from Q1 2011 through Q3 2011": the
    first side's start to the second side's end, each side read by :func:`window_in` (it read
    "from 2012 to 2013" as "since 2012", and "from March 2012 to May 2012" as March alone)."""
    for i, w in enumerate(ws):
        if w not in _RANGE_OPENERS:
            continue
        for j in range(i + 2, min(len(ws), i + 2 + _SIDE_WORDS)):
            if ws[j] not in _RANGE_JOINS:
                continue
            after = ws[j + 1 : j + 1 + _SIDE_WORDS]
            after = after[: next((k for k, x in enumerate(after) if x in _RANGE_OPENERS), len(after))]
            left, right = _side_window(ws[i + 1 : j], today, zone), _side_window(after, today, zone)
            if left is None or right is None or not left.start or not right.end:
                continue
            if right.end <= left.start:
                continue  # "from 2013 to 2012": not a range
            return Window(left.start, right.end, f"from {_side(left.label)} to {_side(right.label)}")
    return None


def _side_window(side: Sequence[str], today: date, zone: tzinfo) -> Window | None:
    """One side of a range, read alone ("March 2012", "Q1 2011") or as a period ("2012" → in 2012);
    never itself as a range (a side read as one would make the reading exponential in the number of
    "from" / "to" words)."""
    said = " ".join(side)
    return window_in(said, today, zone, ranges=False) or window_in(f"in {said}", today, zone, ranges=False)


def _side(label: str) -> str:
    return label[3:] if label.startswith("in ") else label


def window_in(text: str, today: date, zone: tzinfo | None = None, ranges: bool = True) -> Window | None:
    """The window a question names: "between D1 and D2", "since D", "before D", "on D", a month,
    a year, or last/this/past week, month, quarter, year (resolved against ``today``)."""
    zone = zone or local_zone()
    days = days_in(text, today)
    ws = time_words(text)
    if len(days) >= 2:
        (_, a), (_, b) = days[0], days[1]
        a, b = min(a, b), max(a, b)
        return Window(iso(_start(a, zone)), iso(_start(b, zone) + timedelta(days=1)), f"between {a} and {b}")
    ranged = _range(ws, today, zone) if ranges else None
    if ranged is not None:
        return ranged
    if len(days) == 1:
        pos, day = days[0]
        before = ws[pos - 1] if pos > 0 else ""
        if before in ("since", "after", "from"):
            return Window(
                iso(_start(day, zone)), iso(_start(today, zone) + timedelta(days=1)), f"since {day}"
            )
        if before in ("before", "until", "by"):
            return Window("", iso(_start(day, zone)), f"before {day}")
        return Window(iso(_start(day, zone)), iso(_start(day, zone) + timedelta(days=1)), f"on {day}")
    hit = first(TODAY, ws)
    if hit is not None:
        said = hit[0].captured["w"]
        day = today - timedelta(days=1) if said == "yesterday" else today
        if hit[0].start > 0 and ws[hit[0].start - 1] == "since":
            return Window(
                iso(_start(day, zone)),
                iso(_start(today, zone) + timedelta(days=1)),
                f"since {said}",
            )
        return Window(iso(_start(day, zone)), iso(_start(day, zone) + timedelta(days=1)), said)
    hit = first(PAST_DAYS, ws)
    if hit is not None:
        n = int(hit[0].captured["n"])
        end = _start(today, zone) + timedelta(days=1)
        return Window(iso(end - timedelta(days=n)), iso(end), f"in the last {n} days")
    hit = first(QUARTERS, ws)
    if hit is not None:
        return _quarter_or_week(hit[0], hit[1], zone)
    hit = first(RELATIVE, ws)
    if hit is not None:
        return _relative(hit[0].captured["which"], hit[0].captured["unit"], today, zone)
    hit = first(MONTHS_WITH_YEAR, ws)
    if hit is not None:
        got = hit[0].captured
        if "ym" in got:
            window = _month_window(int(got["ym"][:4]), int(got["ym"][5:]), zone)
        else:
            window = _month_window(int(got["y"]), MONTHS[got["m"]], zone)
        said = ws[hit[0].start - 1] if hit[0].start > 0 else ""
        if said in ("since", "after"):  # "documents from May 2024" are of May
            start = window.end if said == "after" else window.start
            return Window(start, iso(_start(today, zone) + timedelta(days=1)), f"{said} {window.label[3:]}")
        if said in ("before", "until", "till", "by"):
            return Window("", window.start, f"before {window.label[3:]}")
        return window
    alone = month_alone(text, today)
    if alone is not None:
        year, month, word = alone
        window = _month_window(year, month, zone)
        if word in ("since", "from", "after"):
            start, said = (window.end, "after") if word == "after" else (window.start, "since")
            return Window(start, iso(_start(today, zone) + timedelta(days=1)), f"{said} {window.label[3:]}")
        if word in ("before", "until", "till", "by"):
            return Window("", window.start, f"before {window.label[3:]}")
        return window
    hit = first(YEAR_BOUNDS, ws)
    if hit is not None:
        word, year = hit[0].captured["w"], int(hit[0].captured["y"])
        if hit[1] == "to":
            return Window("", iso(_start(date(year, 1, 1), zone)), f"before {year}")
        first_day, said = (date(year + 1, 1, 1), "after") if word == "after" else (date(year, 1, 1), "since")
        return Window(
            iso(_start(first_day, zone)), iso(_start(today, zone) + timedelta(days=1)), f"{said} {year}"
        )
    hit = first(YEARS, ws)
    if hit is not None:
        year = int(hit[0].captured["y"])
        return Window(
            iso(_start(date(year, 1, 1), zone)), iso(_start(date(year + 1, 1, 1), zone)), f"in {year}"
        )
    return None


def _quarter_or_week(found: Found, what: str, zone: tzinfo) -> Window:
    got = found.captured
    if what == "week":  # an ISO week: Monday to Monday
        week, year = (
            (int(got["w"]), int(got["y"])) if "w" in got else (int(got["yw"][-2:]), int(got["yw"][:4]))
        )
        weeks = date(year, 12, 28).isocalendar()[1]
        monday = date.fromisocalendar(year, min(max(week, 1), weeks), 1)
        label = f"in week {monday.isocalendar()[1]} of {monday.isocalendar()[0]}"
        return Window(iso(_start(monday, zone)), iso(_start(monday + timedelta(days=7), zone)), label)
    if "yq" in got:
        q, year = int(got["yq"][-1]), int(got["yq"][:4])
    elif "o" in got:
        q, year = _ORDINAL[got["o"]], int(got["y"])
    else:
        q, year = int(got["q"][1]), int(got["y"])
    start = date(year, 3 * q - 2, 1)
    end = date(year + 1, 1, 1) if q == 4 else date(year, 3 * q + 1, 1)
    return Window(iso(_start(start, zone)), iso(_start(end, zone)), f"in Q{q} {year}")


def _relative(which: str, unit: str, today: date, zone: tzinfo) -> Window:
    tomorrow = _start(today, zone) + timedelta(days=1)
    if which == "past" or (unit == "week" and which == "last"):
        days = {"week": 7, "month": 30, "quarter": 91, "year": 365}[unit]
        return Window(iso(tomorrow - timedelta(days=days)), iso(tomorrow), f"in the last {days} days")
    if unit == "week":  # this week: since Monday
        monday = today - timedelta(days=today.weekday())
        return Window(iso(_start(monday, zone)), iso(tomorrow), "this week")
    if unit == "month":
        year, month = today.year, today.month
        if which in ("last", "previous"):
            year, month = (year - 1, 12) if month == 1 else (year, month - 1)
        return _month_window(year, month, zone)
    if unit == "quarter":
        q = (today.month - 1) // 3
        year = today.year
        if which in ("last", "previous"):
            year, q = (year - 1, 3) if q == 0 else (year, q - 1)
        start = date(year, 3 * q + 1, 1)
        end = date(year + 1, 1, 1) if q == 3 else date(year, 3 * q + 4, 1)
        return Window(iso(_start(start, zone)), iso(_start(end, zone)), f"in Q{q + 1} {year}")
    year = today.year - (1 if which in ("last", "previous") else 0)
    return Window(iso(_start(date(year, 1, 1), zone)), iso(_start(date(year + 1, 1, 1), zone)), f"in {year}")


def instant_in(text: str, zone: tzinfo | None = None, today: date | None = None) -> tuple[str, date] | None:
    """ "On/as of/at D" → the end of that day (UTC ISO, exclusive) and the day."""
    zone = zone or local_zone()
    days = days_in(text, today)
    if not days:
        return None
    day = days[0][1]
    return iso(_start(day, zone) + timedelta(days=1)), day
