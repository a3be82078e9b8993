"""What a turn's relative words of time meant on the day it was said: "I ran a charity race last
Saturday" said on 25 May 2023 meant Saturday 20 May 2023; "two weekends ago" said on 17 July
meant the weekend two before it; "ten years ago" meant 2013. ``meanings`` finds them in a text
(in order) and says each as people say the date ("20 May 2023", "the week before 9 June 2023",
"July 2023", "2013"), with the day itself when one day is meant — so that "when did …" is
answered with the day the speaker meant, not the day they spoke."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# a weekday as people write it: "Saturday", "Sat", "Tues", "Thurs"
_WEEKDAY = {
    **{name.lower(): i for i, name in enumerate(WEEKDAY_NAMES)},
    **{short: i for i, shorts in enumerate(
        (("mon",), ("tue", "tues"), ("wed",), ("thu", "thur", "thurs"), ("fri",), ("sat",), ("sun",))
    ) for short in shorts},
}  # fmt: skip
_COUNT = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "a couple of": 2,
}  # fmt: skip
_WD = "|".join(sorted(_WEEKDAY, key=len, reverse=True))
_N = r"\d{1,2}|a couple of|couple of|" + "|".join(k for k in _COUNT if " " not in k)
_PHRASE = re.compile(
    rf"\b(?:"
    rf"(?P<lastwd>(?:last|this past|past) (?P<wd1>{_WD}))"
    rf"|(?P<nextwd>(?:next|this coming|coming) (?P<wd2>{_WD}))"
    rf"|(?P<ago>(?P<n>{_N}) (?P<unit>days?|weeks?|weekends?|months?|years?) ago)"
    rf"|(?P<fixed>yesterday|last night|today|tonight|tomorrow|"
    rf"(?:last|this past|past) weekend|(?:last|this past|past) week|this week|next week|"
    rf"last month|this month|next month|last year|this year|next year)"
    rf")\b"
)


@dataclass(frozen=True)
class Meant:
    """A relative phrase of a text (``phrase`` as written, lower case, at ``start``) and what it
    meant: ``text`` as people say it, ``day`` when it meant one day."""

    phrase: str
    text: str
    start: int
    day: date | None = None


def human(d: date) -> str:
    return f"{d.day} {MONTH_NAMES[d.month - 1]} {d.year}"


def _month(year: int, month: int) -> str:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return f"{MONTH_NAMES[month - 1]} {year}"


def meanings(text: str, said_on: str) -> list[Meant]:
    """The relative phrases of ``text`` said on ``said_on`` (ISO day), in order, each with what
    it meant. Nothing when the day is not known."""
    try:
        day = date.fromisoformat(said_on[:10])
    except ValueError:
        return []
    low = " ".join(text.lower().replace("\u2019", "'").split())
    out = []
    for m in _PHRASE.finditer(low):
        meant = _meant(m, day)
        if meant is not None:
            out.append(Meant(m.group(0), meant[0], m.start(), meant[1]))
    return out


def _meant(m: re.Match[str], day: date) -> tuple[str, date | None] | None:
    shown = human(day)
    if m.group("lastwd"):
        wd = _WEEKDAY[m.group("wd1")]
        back = (day.weekday() - wd - 1) % 7 + 1  # the last such day before the day it was said
        meant = day - timedelta(days=back)
        return f"the {WEEKDAY_NAMES[wd]} before {shown}: {human(meant)}", meant
    if m.group("nextwd"):
        wd = _WEEKDAY[m.group("wd2")]
        ahead = (wd - day.weekday() - 1) % 7 + 1
        meant = day + timedelta(days=ahead)
        return f"the {WEEKDAY_NAMES[wd]} after {shown}: {human(meant)}", meant
    if m.group("ago"):
        raw, unit = m.group("n"), m.group("unit").rstrip("s")
        n = int(raw) if raw.isdigit() else _COUNT.get(raw.removesuffix(" of").strip(), 2)
        if unit == "day":
            meant = day - timedelta(days=n)
            return human(meant), meant
        if unit in ("week", "weekend"):  # "two weekends before 17 July 2023", as it was said
            return f"{raw} {unit}{'s' if n > 1 else ''} before {shown}", None
        if unit == "month":
            return _month(day.year, day.month - n), None
        return str(day.year - n), None
    return _FIXED[m.group("fixed").replace("this past", "last").replace("past ", "last ")](day)


_FIXED: dict[str, Callable[[date], tuple[str, date | None]]] = {
    "yesterday": lambda d: (human(d - timedelta(days=1)), d - timedelta(days=1)),
    "last night": lambda d: (human(d - timedelta(days=1)), d - timedelta(days=1)),
    "today": lambda d: (human(d), d),
    "tonight": lambda d: (human(d), d),
    "tomorrow": lambda d: (human(d + timedelta(days=1)), d + timedelta(days=1)),
    "last weekend": lambda d: (f"the weekend before {human(d)}", None),
    "last week": lambda d: (f"the week before {human(d)}", None),
    "this week": lambda d: (f"the week of {human(d)}", None),
    "next week": lambda d: (f"the week after {human(d)}", None),
    "last month": lambda d: (_month(d.year, d.month - 1), None),
    "this month": lambda d: (_month(d.year, d.month), None),
    "next month": lambda d: (_month(d.year, d.month + 1), None),
    "last year": lambda d: (str(d.year - 1), None),
    "this year": lambda d: (str(d.year), None),
    "next year": lambda d: (str(d.year + 1), None),
}
