"""Tokens and date literals shared by the JQL (:mod:`.jql`) and CQL (:mod:`.cql`) subsets.

Both languages quote strings with ``"`` or ``'``, use the same comparison operators and accept
the date literals ``yyyy-MM-dd HH:mm``, ``yyyy/MM/dd HH:mm``, ``yyyy-MM-dd`` and ``yyyy/MM/dd``.
Dates compare at minute precision in UTC (the emulated server's time zone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from devkb_devtools.emulators.timestamps import parse_timestamp

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<op>!=|>=|<=|!~|=|>|<|~)
      | (?P<punct>[(),])
      | (?P<word>[^\s=!<>~(),"']+)
    )""",
    re.VERBOSE,
)
_RELATIVE = re.compile(r"^([-+]?)((?:\d+[wdhm]\s*)+)$", re.IGNORECASE)
_DATE_FORMATS = ("%Y-%m-%d %H:%M", "%Y/%m/%d %H:%M", "%Y-%m-%d", "%Y/%m/%d")
_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes"}


class QuerySyntaxError(ValueError):
    """The query text cannot be tokenized or parsed."""


@dataclass(frozen=True)
class Token:
    """``kind`` is one of ``string``, ``op``, ``punct``, ``word``, ``eof``."""

    kind: str
    text: str
    position: int

    @property
    def value(self) -> str:
        """The literal value: unquoted and unescaped for strings, the text otherwise."""
        if self.kind == "string":
            return re.sub(r"\\(.)", r"\1", self.text[1:-1])
        return self.text

    def is_word(self, *words: str) -> bool:
        """Whether this is an unquoted word equal (case-insensitively) to one of ``words``."""
        return self.kind == "word" and self.text.lower() in words

    def is_punct(self, char: str) -> bool:
        return self.kind == "punct" and self.text == char


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, ending with an ``eof`` token."""
    tokens: list[Token] = []
    stripped = text.rstrip()
    position = 0
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            raise QuerySyntaxError(f"unexpected character at position {position + 1}")
        kind = match.lastgroup or "word"
        tokens.append(Token(kind, match.group(kind), match.start(kind)))
        position = match.end()
    tokens.append(Token("eof", "", len(stripped)))
    return tokens


class TokenStream:
    """A cursor over tokens with the small helpers both parsers need."""

    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.index = 0

    def peek(self) -> Token:
        return self.tokens[self.index]

    def next(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def at_word(self, *words: str) -> bool:
        return self.peek().is_word(*words)

    def at_punct(self, char: str) -> bool:
        return self.peek().is_punct(char)


def parse_date_literal(
    literal: str, now: datetime, allow_relative: bool, tz: tzinfo = UTC
) -> datetime | None:
    """A date literal (read in ``tz``) as an aware UTC datetime at minute precision; None if not a date.

    With ``allow_relative`` a period like ``-15m``, ``-2d`` or ``-1w 2d`` counts from ``now``.
    """
    text = literal.strip()
    relative = _RELATIVE.match(text) if allow_relative else None
    if relative:
        delta = timedelta()
        for amount, unit in re.findall(r"(\d+)([wdhm])", relative.group(2).lower()):
            delta += timedelta(**{_UNITS[unit]: int(amount)})
        moment = now - delta if relative.group(1) == "-" else now + delta
        return moment.astimezone(UTC).replace(second=0, microsecond=0)
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=tz).astimezone(UTC)
        except ValueError:
            continue
    return None


def to_minute(raw: str | None) -> datetime | None:
    """A recorded timestamp in UTC truncated to the minute (None when empty)."""
    if not raw:
        return None
    return parse_timestamp(raw).astimezone(UTC).replace(second=0, microsecond=0)


COMPARISONS = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
}
