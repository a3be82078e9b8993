"""The subset of JQL (Jira Query Language) the Jira emulator understands.

Supported::

    clause   := field (= | != | > | >= | < | <=) value
              | field [not] in (value, ...)
              | field is [not] (empty | null)
    query    := [clauses combined with AND / OR and parentheses] [ORDER BY field [ASC|DESC], ...]

Fields: ``project`` (key, name or id), ``key``/``issuekey``/``id``, ``status``, ``issuetype``/
``type``, ``priority``, ``resolution``, ``assignee``, ``reporter``, ``component``,
``fixVersion``, ``affectedVersion``, ``labels``, ``level`` (the security level, name or id); dates ``updated``, ``created``,
``resolved``/``resolutiondate``. Value comparisons are case-insensitive. ``ORDER BY`` accepts the
date fields, ``key``/``issuekey``, ``id``, ``project``, ``summary``; the direction defaults to
ASC and ``key ASC`` is always the final tie-breaker (and the whole order without ``ORDER BY``).

Dates: ``"yyyy-MM-dd HH:mm"``, ``"yyyy/MM/dd HH:mm"``, ``"yyyy-MM-dd"``, ``"yyyy/MM/dd"`` or a
relative period such as ``-15m``, ``-2d``, ``"-1w 2d"``. Like Jira, comparisons are at minute
precision: the issue's timestamp is truncated to the minute. Literals are read in the calling
user's time zone (``tz``; the emulator's ``/myself`` says which), as a real server does.

Anything else (text search ``~``, functions, ``NOT``, ``was``/``changed``) raises
:class:`JqlError`, which the emulator turns into Jira's 400 error shape. Unknown projects and
issue keys raise too (Jira's ``validateQuery=strict``, the default) or become warnings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
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

Issue = dict[str, Any]
Predicate = Callable[[Issue], bool]


def _everything(_item: object) -> bool:
    return True


class JqlError(ValueError):
    """The query is invalid or uses JQL the emulator does not support."""


def _names(*values: Any) -> list[str]:
    return [str(v).lower() for v in values if v not in (None, "")]


def _named(obj: Any, *keys: str) -> list[str]:
    return _names(*(obj.get(k) for k in keys)) if isinstance(obj, dict) else []


def _each_named(items: Any) -> list[str]:
    return [n for item in items or [] for n in _named(item, "name")]


_VALUE_FIELDS: dict[str, Callable[[Issue], list[str]]] = {
    "project": lambda i: _named(i["fields"].get("project"), "key", "name", "id"),
    "key": lambda i: _names(i["key"]),
    "id": lambda i: _names(i["id"]),
    "status": lambda i: _named(i["fields"].get("status"), "name"),
    "issuetype": lambda i: _named(i["fields"].get("issuetype"), "name"),
    "priority": lambda i: _named(i["fields"].get("priority"), "name"),
    "resolution": lambda i: _named(i["fields"].get("resolution"), "name"),
    "assignee": lambda i: _named(i["fields"].get("assignee"), "name", "displayName"),
    "reporter": lambda i: _named(i["fields"].get("reporter"), "name", "displayName"),
    "component": lambda i: _each_named(i["fields"].get("components")),
    "fixversion": lambda i: _each_named(i["fields"].get("fixVersions")),
    "affectedversion": lambda i: _each_named(i["fields"].get("versions")),
    "labels": lambda i: _names(*(i["fields"].get("labels") or [])),
    "level": lambda i: _named(i["fields"].get("security"), "name", "id"),
}
_DATE_FIELDS = {
    "updated": "updated",
    "created": "created",
    "resolved": "resolutiondate",
    "resolutiondate": "resolutiondate",
}
_ALIASES = {"issuekey": "key", "type": "issuetype", "components": "component", "fixversions": "fixversion"}
_SORT_FIELDS = {"key", "id", "project", "summary", *_DATE_FIELDS}


@dataclass
class JqlQuery:
    """A compiled query: a predicate over issues, sort clauses and validation warnings."""

    predicate: Predicate
    order_by: list[tuple[str, bool]]
    warnings: list[str] = field(default_factory=list)

    def sort(self, issues: Sequence[Issue]) -> list[Issue]:
        """``issues`` in the query's order (stable, ``key ASC`` as the last tie-breaker)."""
        ordered = sorted(issues, key=lambda i: _key_order(i["key"]))
        for name, descending in reversed(self.order_by):
            ordered.sort(key=functools.partial(_sort_value_by, name), reverse=descending)
        return ordered


def _key_order(key: str) -> tuple[str, int]:
    project, _, number = key.partition("-")
    return (project, int(number)) if number.isdigit() else (key, 0)


def _sort_value(issue: Issue, name: str) -> tuple[Any, ...]:
    if name == "key":
        return (0, _key_order(issue["key"]))
    if name == "id":
        return (0, int(issue["id"]))
    if name == "project":
        return (0, (issue["fields"].get("project") or {}).get("key", ""))
    if name == "summary":
        return (0, (issue["fields"].get("summary") or "").lower())
    raw = issue["fields"].get(_DATE_FIELDS[name])
    return (1, 0.0) if not raw else (0, parse_timestamp(raw).timestamp())  # empty values sort last


class _Parser:
    def __init__(
        self,
        text: str,
        project_exists: Callable[[str], bool],
        issue_exists: Callable[[str], bool],
        strict: bool,
        now: datetime,
        tz: tzinfo = UTC,
    ) -> None:
        self.tz = tz
        try:
            self.stream = TokenStream(text)
        except QuerySyntaxError as e:
            raise JqlError(f"Error in the JQL Query: {e}.") from e
        self.project_exists = project_exists
        self.issue_exists = issue_exists
        self.strict = strict
        self.now = now
        self.warnings: list[str] = []

    def parse(self) -> JqlQuery:
        s = self.stream
        predicate: Predicate = _everything
        if s.peek().kind != "eof" and not s.at_word("order"):
            predicate = self.or_expression()
        order_by = self.order_by() if s.at_word("order") else []
        if s.peek().kind != "eof":
            raise _syntax_error("Expecting AND, OR or ORDER BY", s.peek())
        return JqlQuery(predicate, order_by, self.warnings)

    def or_expression(self) -> Predicate:
        parts = [self.and_expression()]
        while self.stream.at_word("or"):
            self.stream.next()
            parts.append(self.and_expression())
        return parts[0] if len(parts) == 1 else (lambda issue: any(p(issue) for p in parts))

    def and_expression(self) -> Predicate:
        parts = [self.term()]
        while self.stream.at_word("and"):
            self.stream.next()
            parts.append(self.term())
        return parts[0] if len(parts) == 1 else (lambda issue: all(p(issue) for p in parts))

    def term(self) -> Predicate:
        s = self.stream
        if s.at_punct("("):
            s.next()
            inner = self.or_expression()
            self.expect_punct(")")
            return inner
        if s.at_word("not"):
            raise JqlError("The emulator does not support NOT in JQL; use != or 'not in'.")
        return self.clause()

    def clause(self) -> Predicate:
        s = self.stream
        token = s.next()
        if token.kind not in ("word", "string"):
            raise _syntax_error("Expecting a field name", token)
        name = token.value
        field_name = _ALIASES.get(name.lower(), name.lower())
        if field_name not in _VALUE_FIELDS and field_name not in _DATE_FIELDS:
            raise JqlError(f"Field '{name}' does not exist or you do not have permission to view it.")
        if s.at_word("is"):
            s.next()
            negate = s.at_word("not")
            if negate:
                s.next()
            if not s.at_word("empty", "null"):
                raise _syntax_error("Expecting EMPTY or NULL", s.peek())
            s.next()
            has_value = self._has_value(field_name)
            return has_value if negate else (lambda i: not has_value(i))
        if s.at_word("in", "not"):
            negate = s.next().is_word("not")
            if negate:
                if not s.at_word("in"):
                    raise _syntax_error("Expecting 'in'", s.peek())
                s.next()
            return self._membership(field_name, name, self.value_list(), negate)
        op = s.next()
        if op.kind != "op":
            raise _syntax_error("Expecting an operator", op)
        if op.text in ("~", "!~"):
            raise JqlError(f"The emulator does not support text search ('{op.text}') in JQL.")
        value = self.value()
        if field_name in _DATE_FIELDS:
            return self._date_compare(field_name, name, op.text, value)
        if op.text not in ("=", "!="):
            raise JqlError(f"The operator '{op.text}' is not supported by the '{name}' field.")
        return self._membership(field_name, name, [value], op.text == "!=")

    def value(self) -> Token:
        token = self.stream.next()
        if token.kind not in ("word", "string"):
            raise _syntax_error("Expecting a value", token)
        if self.stream.at_punct("("):
            raise JqlError(f"The emulator does not support JQL functions ('{token.text}()').")
        return token

    def value_list(self) -> list[Token]:
        self.expect_punct("(")
        values = [self.value()]
        while self.stream.at_punct(","):
            self.stream.next()
            values.append(self.value())
        self.expect_punct(")")
        return values

    def expect_punct(self, char: str) -> None:
        token = self.stream.next()
        if not token.is_punct(char):
            raise _syntax_error(f"Expecting '{char}'", token)

    def order_by(self) -> list[tuple[str, bool]]:
        s = self.stream
        s.next()
        if not s.at_word("by"):
            raise _syntax_error("Expecting 'by'", s.peek())
        s.next()
        clauses = []
        while True:
            token = s.next()
            name = _ALIASES.get(token.text.lower(), token.text.lower())
            if token.kind != "word" or name not in _SORT_FIELDS:
                raise JqlError(f"Not able to sort using field '{token.text}'.")
            descending = s.at_word("asc", "desc") and s.next().is_word("desc")
            clauses.append((name, descending))
            if not s.at_punct(","):
                return clauses
            s.next()

    def _has_value(self, field_name: str) -> Predicate:
        if field_name in _DATE_FIELDS:
            source = _DATE_FIELDS[field_name]
            return lambda i: bool(i["fields"].get(source))
        extract = _VALUE_FIELDS[field_name]
        return lambda i: bool(extract(i))

    def _membership(self, field_name: str, name: str, tokens: list[Token], negate: bool) -> Predicate:
        if field_name in _DATE_FIELDS:
            moments = {self._moment(name, t) for t in tokens}
            source = _DATE_FIELDS[field_name]
            return lambda i: (to_minute(i["fields"].get(source)) in moments) != negate
        wanted = set()
        for token in tokens:
            self._validate(field_name, name, token.value)
            wanted.add(token.value.lower())
        extract = _VALUE_FIELDS[field_name]
        return lambda i: bool(wanted.intersection(extract(i))) != negate

    def _validate(self, field_name: str, name: str, literal: str) -> None:
        problem = None
        if field_name == "project" and not self.project_exists(literal):
            problem = f"The value '{literal}' does not exist for the field '{name}'."
        elif field_name == "key" and not self.issue_exists(literal):
            problem = f"An issue with key '{literal}' does not exist for field '{name}'."
        if problem and self.strict:
            raise JqlError(problem)
        if problem:
            self.warnings.append(problem)

    def _date_compare(self, field_name: str, name: str, op: str, token: Token) -> Predicate:
        moment = self._moment(name, token)
        source = _DATE_FIELDS[field_name]
        compare = COMPARISONS[op]

        def predicate(issue: Issue) -> bool:
            value = to_minute(issue["fields"].get(source))
            return value is not None and compare(value, moment)

        return predicate

    def _moment(self, name: str, token: Token) -> datetime:
        moment = parse_date_literal(token.value, self.now, allow_relative=True, tz=self.tz)
        if moment is None:
            raise JqlError(
                f"Date value '{token.value}' for field '{name}' is invalid. Valid formats include: "
                "'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format "
                "e.g. '-5d', '4w 2d'."
            )
        return moment


def _syntax_error(expected: str, token: Token) -> JqlError:
    found = f"'{token.text}'" if token.kind != "eof" else "the end of the query"
    return JqlError(
        f"Error in the JQL Query: {expected} but got {found}. (line 1, character {token.position + 1})"
    )


def compile_jql(
    text: str | None,
    *,
    project_exists: Callable[[str], bool] = lambda _key: True,
    issue_exists: Callable[[str], bool] = lambda _key: True,
    strict: bool = True,
    now: datetime | None = None,
    tz: tzinfo = UTC,
) -> JqlQuery:
    """Compile ``text``; unknown projects/keys raise (``strict``) or become warnings. Date literals
    are read in ``tz``, the calling user's time zone (as Jira does)."""
    return _Parser(text or "", project_exists, issue_exists, strict, now or datetime.now(UTC), tz).parse()


def _sort_value_by(name: str, item: dict[str, Any]) -> Any:
    return _sort_value(item, name)
