"""The subset of CQL (Confluence Query Language) the Confluence emulator understands.

Supported::

    clause := space (= | != ) value | space [not] in (values)      key, case-insensitive
            | type  (= | !=) page|blogpost | type [not] in (...)
            | id | ancestor | parent  (= | !=) value | ... [not] in (...)
            | title (= | !=) "exact title"
            | label (= | !=) value | label [not] in (...)
            | lastmodified (= | != | > | >= | < | <=) date        (alias lastModified)
    query  := clauses joined by AND / OR with parentheses  [ORDER BY field [ASC|DESC], ...]

Sort fields: ``lastmodified``, ``title``, ``id`` (default order without ``ORDER BY``: id ASC).
Dates are ``"yyyy-MM-dd HH:mm"``, ``"yyyy/MM/dd HH:mm"``, ``"yyyy-MM-dd"``, ``"yyyy/MM/dd"`` or
``now("-2d")``; ``lastmodified`` is the page's ``version.when`` truncated to the minute, and
literals are UTC (the emulated server's zone). ``~`` (text search) and other functions raise
:class:`CqlError`, rendered as Confluence's 400 error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from devkb_devtools.emulators.query_tokens import (
    COMPARISONS,
    QuerySyntaxError,
    Token,
    TokenStream,
    parse_date_literal,
    to_minute,
)
from devkb_devtools.emulators.timestamps import parse_timestamp

Page = dict[str, Any]
Predicate = Callable[[Page], bool]


def _everything(_item: object) -> bool:
    return True


class CqlError(ValueError):
    """The query is invalid or uses CQL the emulator does not support."""


def _labels(page: Page) -> list[str]:
    results = ((page.get("metadata") or {}).get("labels") or {}).get("results") or []
    return [str(label.get("name", "")).lower() for label in results]


_VALUE_FIELDS: dict[str, Callable[[Page], list[str]]] = {
    "space": lambda p: [str((p.get("space") or {}).get("key", "")).lower()],
    "type": lambda p: [str(p.get("type", "page")).lower()],
    "id": lambda p: [str(p["id"])],
    "ancestor": lambda p: [str(a["id"]) for a in p.get("ancestors") or []],
    "parent": lambda p: [str(p["ancestors"][-1]["id"])] if p.get("ancestors") else [],
    "title": lambda p: [str(p.get("title", "")).lower()],
    "label": _labels,
}
_ALIASES = {"space.key": "space", "content": "id", "lastmodified": "lastmodified"}
_SORT_FIELDS = {"lastmodified", "title", "id"}


def _last_modified(page: Page) -> str | None:
    return (page.get("version") or {}).get("when")


@dataclass
class CqlQuery:
    """A compiled query: a predicate over pages plus sort clauses."""

    predicate: Predicate
    order_by: list[tuple[str, bool]]

    def sort(self, pages: Sequence[Page]) -> list[Page]:
        """``pages`` in the query's order; id ASC breaks ties."""
        ordered = sorted(pages, key=lambda p: int(p["id"]))
        for name, descending in reversed(self.order_by):
            ordered.sort(key=functools.partial(_sort_value_by, name), reverse=descending)
        return ordered


def _sort_value(page: Page, name: str) -> Any:
    if name == "title":
        return str(page.get("title", "")).lower()
    if name == "id":
        return int(page["id"])
    when = _last_modified(page)
    return parse_timestamp(when).timestamp() if when else 0.0


class _Parser:
    def __init__(self, text: str, now: datetime) -> None:
        try:
            self.stream = TokenStream(text)
        except QuerySyntaxError as e:
            raise CqlError(f"Could not parse cql : {text} ({e})") from e
        self.text = text
        self.now = now

    def error(self, detail: str) -> CqlError:
        return CqlError(f"Could not parse cql : {self.text} ({detail})")

    def parse(self) -> CqlQuery:
        s = self.stream
        if s.peek().kind == "eof":
            raise self.error("the query is empty")
        predicate: Predicate = _everything
        if not s.at_word("order"):
            predicate = self.or_expression()
        order_by = self.order_by() if s.at_word("order") else []
        if s.peek().kind != "eof":
            raise self.error(f"unexpected '{s.peek().text}'")
        return CqlQuery(predicate, order_by)

    def or_expression(self) -> Predicate:
        parts = [self.and_expression()]
        while self.stream.at_word("or"):
            self.stream.next()
            parts.append(self.and_expression())
        return parts[0] if len(parts) == 1 else (lambda page: any(p(page) for p in parts))

    def and_expression(self) -> Predicate:
        parts = [self.term()]
        while self.stream.at_word("and"):
            self.stream.next()
            parts.append(self.term())
        return parts[0] if len(parts) == 1 else (lambda page: all(p(page) for p in parts))

    def term(self) -> Predicate:
        s = self.stream
        if s.at_punct("("):
            s.next()
            inner = self.or_expression()
            if not s.next().is_punct(")"):
                raise self.error("expecting ')'")
            return inner
        return self.clause()

    def clause(self) -> Predicate:
        s = self.stream
        token = s.next()
        if token.kind != "word":
            raise self.error(f"expecting a field, got '{token.text}'")
        name = _ALIASES.get(token.text.lower(), token.text.lower())
        if name == "lastmodified":
            op = s.next()
            if op.kind != "op" or op.text not in COMPARISONS:
                raise self.error(f"unsupported operator '{op.text}' for lastmodified")
            moment = self.date_value()
            compare = COMPARISONS[op.text]

            def by_date(page: Page) -> bool:
                value = to_minute(_last_modified(page))
                return value is not None and compare(value, moment)

            return by_date
        if name not in _VALUE_FIELDS:
            raise self.error(f"the emulator does not support the field '{token.text}'")
        extract = _VALUE_FIELDS[name]
        if s.at_word("in", "not"):
            negate = s.next().is_word("not")
            if negate and not s.next().is_word("in"):
                raise self.error("expecting 'in'")
            wanted = {v.lower() for v in self.value_list()}
            return lambda page: bool(wanted.intersection(extract(page))) != negate
        op = s.next()
        if op.kind != "op" or op.text not in ("=", "!="):
            raise self.error(f"the emulator does not support the operator '{op.text}' for '{token.text}'")
        wanted_value = self.value().lower()
        negate = op.text == "!="
        return lambda page: (wanted_value in extract(page)) != negate

    def value(self) -> str:
        token = self.stream.next()
        if token.kind not in ("word", "string"):
            raise self.error(f"expecting a value, got '{token.text}'")
        if self.stream.at_punct("("):
            raise self.error(f"the emulator does not support the function '{token.text}()'")
        return token.value

    def value_list(self) -> list[str]:
        s = self.stream
        if not s.next().is_punct("("):
            raise self.error("expecting '('")
        values = [self.value()]
        while s.at_punct(","):
            s.next()
            values.append(self.value())
        if not s.next().is_punct(")"):
            raise self.error("expecting ')'")
        return values

    def date_value(self) -> datetime:
        s = self.stream
        token: Token = s.next()
        if token.is_word("now") and s.at_punct("("):
            s.next()
            offset = s.next() if s.peek().kind == "string" else None
            if not s.next().is_punct(")"):
                raise self.error("expecting ')' after now(")
            moment = parse_date_literal(offset.value if offset else "0m", self.now, allow_relative=True)
        elif token.kind in ("word", "string"):
            moment = parse_date_literal(token.value, self.now, allow_relative=False)
        else:
            moment = None
        if moment is None:
            raise self.error(f"invalid date '{token.text}'")
        return moment

    def order_by(self) -> list[tuple[str, bool]]:
        s = self.stream
        s.next()
        if not s.next().is_word("by"):
            raise self.error("expecting 'by'")
        clauses = []
        while True:
            token = s.next()
            name = token.text.lower()
            if token.kind != "word" or name not in _SORT_FIELDS:
                raise self.error(f"the emulator cannot order by '{token.text}'")
            descending = s.at_word("asc", "desc") and s.next().is_word("desc")
            clauses.append((name, descending))
            if not s.at_punct(","):
                return clauses
            s.next()


def compile_cql(text: str | None, *, now: datetime | None = None) -> CqlQuery:
    """Compile ``text`` into a :class:`CqlQuery`."""
    return _Parser(text or "", now or datetime.now(UTC)).parse()


def _sort_value_by(name: str, item: dict[str, Any]) -> Any:
    return _sort_value(item, name)
