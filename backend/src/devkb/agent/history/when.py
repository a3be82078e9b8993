"""Time words and dates in a question → instants and windows (ISO-8601 UTC strings, the form
versions are stored in). "Today" is the server's local date; explicit dates are read in the
usual written forms (``2026-05-07``, ``7 May 2026``, ``May 7, 2026``, ``05/07/2026``, ``May 2026``)
with python-dateutil, in the server's zone."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from dateutil import parser as date_parser

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# a day: ISO, day-month-year, month-day-year, numeric with slashes
DAY = re.compile(
    rf"\b(\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}|"
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}/\d{{1,2}}/\d{{4}})\b",
    re.IGNORECASE,
)
MONTH = re.compile(rf"\b({_MONTH}\s+\d{{4}}|\d{{4}}-\d{{2}})(?!-\d)\b", re.IGNORECASE)
# a month or a day written without its year ("in March", "last March", "on March 3", "as of 3 March"):
# the latest one not after today. Only after a word that introduces a time, so "may" stays a verb.
_BEFORE_TIME = (
    r"(?:in|during|of|last|since|before|until|till|by|from|after|on|as\s+of|to|and|through|between)"
)
MONTH_ALONE = re.compile(rf"\b{_BEFORE_TIME}\s+({_MONTH})(?!\w)(?!\s*,?\s*\d)", re.IGNORECASE)
DAY_ALONE = re.compile(
    rf"\b{_BEFORE_TIME}\s+({_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH})(?!\w)"
    r"(?!\s*,?\s*\d)",
    re.IGNORECASE,
)
# "in 2023" (not a version: "in 2026.6", nor a day: "in 2023-05")
YEAR = re.compile(r"\b(?:in|during|of|for)\s+(?:the\s+year\s+)?((?:19|20)\d{2})\b(?![.\-/]\d)", re.IGNORECASE)
# "Q1 2011", "the first quarter of 2011", "in 2011 Q3"; ISO weeks: "2011-W05", "week 5 of 2011"
QUARTER = re.compile(
    r"\b(?:q([1-4])\s+(?:of\s+)?((?:19|20)\d{2})|((?:19|20)\d{2})\s*-?\s*q([1-4])|"
    r"(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\s+(?:of\s+)?((?:19|20)\d{2})|"
    r"(?:iso\s+)?week\s+(\d{1,2})\s+(?:of\s+)?((?:19|20)\d{2})|((?:19|20)\d{2})-?w(\d{2}))\b",
    re.IGNORECASE,
)
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
RELATIVE = re.compile(r"\b(last|this|past|previous)\s+(week|month|quarter|year)\b", re.IGNORECASE)
PAST_DAYS = re.compile(r"\b(?:last|past)\s+(\d{1,3})\s+days\b", re.IGNORECASE)
# "what changed yesterday?", "closed today", "since yesterday" — not "differ from today" or "as of
# today" (the present, not a day's window)
TODAY_OR_YESTERDAY = re.compile(
    r"(?<!\bfrom )(?<!\bthan )(?<!\bof )(?<!\bto )(?<!\buntil )(?<!\bwith )\b(today|yesterday)\b",
    re.IGNORECASE,
)


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


def parse_day(text: str) -> date | None:
    try:
        parsed: datetime = date_parser.parse(
            re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text), default=datetime(2000, 1, 1)
        )
    except (ValueError, OverflowError):
        return None
    return parsed.date()


def days_in(text: str, today: date | None = None) -> list[tuple[int, date]]:
    """Every explicit day written in ``text``, with its position; a day without its year ("on
    March 3") is the latest such day not after ``today``."""
    out = []
    for m in DAY.finditer(text):
        day = parse_day(m.group(1))
        if day is not None:
            out.append((m.start(), day))
    today = today or today_local()
    for m in DAY_ALONE.finditer(text):
        if any(pos <= m.start(1) < pos + len(m.group(0)) for pos, _ in out):
            continue
        day = parse_day(f"{m.group(1)} {today.year}")
        if day is not None:
            out.append((m.start(1), day if day <= today else _a_year_earlier(day)))
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
    m = MONTH_ALONE.search(text)
    if not m:
        return None
    parsed = parse_day(f"1 {m.group(1)} {today.year}")
    if parsed is None:
        return None
    year = today.year if parsed.month <= today.month else today.year - 1
    return year, parsed.month, m.group(0).split()[0].lower()


def _month_window(year: int, month: int, zone: tzinfo) -> Window:
    last = calendar.monthrange(year, month)[1]
    start = _start(date(year, month, 1), zone)
    end = _start(date(year, month, last), zone) + timedelta(days=1)
    return Window(iso(start), iso(end), "in " + start.strftime("%B %Y"), date(year, month, last))


def window_in(text: str, today: date, zone: tzinfo | None = None) -> Window | None:
    """The window a question names: "between D1 and D2", "since D", "before D", "on D", a month,
    a year, or last/this/past week, month, quarter, year (resolved against ``today``)."""
    zone = zone or local_zone()
    days = days_in(text, today)
    lower = text.lower()
    if len(days) >= 2:
        (_, a), (_, b) = days[0], days[1]
        a, b = min(a, b), max(a, b)
        return Window(iso(_start(a, zone)), iso(_start(b, zone) + timedelta(days=1)), f"between {a} and {b}")
    if len(days) == 1:
        pos, day = days[0]
        before = lower[max(0, pos - 12) : pos]
        if re.search(r"\b(since|after|from)\s+$", before):
            return Window(
                iso(_start(day, zone)), iso(_start(today, zone) + timedelta(days=1)), f"since {day}"
            )
        if re.search(r"\b(before|until|by)\s+$", before):
            return Window("", iso(_start(day, zone)), f"before {day}")
        return Window(iso(_start(day, zone)), iso(_start(day, zone) + timedelta(days=1)), f"on {day}")
    m = TODAY_OR_YESTERDAY.search(text)
    if m:
        day = today - timedelta(days=1) if m.group(1).lower() == "yesterday" else today
        if re.search(r"\bsince\s+$", lower[max(0, m.start() - 7) : m.start()]):
            return Window(
                iso(_start(day, zone)),
                iso(_start(today, zone) + timedelta(days=1)),
                f"since {m.group(1).lower()}",
            )
        return Window(iso(_start(day, zone)), iso(_start(day, zone) + timedelta(days=1)), m.group(1).lower())
    m = PAST_DAYS.search(text)
    if m:
        n = int(m.group(1))
        end = _start(today, zone) + timedelta(days=1)
        return Window(iso(end - timedelta(days=n)), iso(end), f"in the last {n} days")
    m = QUARTER.search(text)
    if m:
        return _quarter_or_week(m, zone)
    m = RELATIVE.search(text)
    if m:
        return _relative(m.group(1).lower(), m.group(2).lower(), today, zone)
    m = MONTH.search(text)
    if m:
        raw = m.group(1)
        if raw[:4].isdigit() and raw[4:5] == "-":
            return _month_window(int(raw[:4]), int(raw[5:]), zone)
        parsed = parse_day(raw)
        if parsed is not None:
            window = _month_window(parsed.year, parsed.month, zone)
            said = (lower[max(0, m.start() - 7) : m.start()].split() or [""])[-1]
            if said in ("since", "after"):  # "documents from May 2024" are of May
                start = window.end if said == "after" else window.start
                return Window(
                    start, iso(_start(today, zone) + timedelta(days=1)), f"{said} {window.label[3:]}"
                )
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
    m = YEAR.search(text)
    if m:
        year = int(m.group(1))
        return Window(
            iso(_start(date(year, 1, 1), zone)), iso(_start(date(year + 1, 1, 1), zone)), f"in {year}"
        )
    return None


def _quarter_or_week(m: re.Match[str], zone: tzinfo) -> Window:
    g = m.groups()
    if g[6] or g[9]:  # an ISO week: Monday to Monday
        week, year = (int(g[6]), int(g[7])) if g[6] else (int(g[9]), int(g[8]))
        weeks = date(year, 12, 28).isocalendar()[1]
        monday = date.fromisocalendar(year, min(max(week, 1), weeks), 1)
        label = f"in week {monday.isocalendar()[1]} of {monday.isocalendar()[0]}"
        return Window(iso(_start(monday, zone)), iso(_start(monday + timedelta(days=7), zone)), label)
    if g[0]:
        q, year = int(g[0]), int(g[1])
    elif g[3]:
        q, year = int(g[3]), int(g[2])
    else:
        q, year = _ORDINAL[g[4].lower()], int(g[5])
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
