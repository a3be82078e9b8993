"""Protocol-neutral request/response types and a tiny regex router for the emulators.

The emulator apps (Jira, Confluence, GitHub) are plain objects that turn a :class:`Request`
into a :class:`Response`; :mod:`devkb_devtools.emulators.server` owns sockets, threads and fault
injection. Keeping the apps free of I/O makes them easy to read and to test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode


@dataclass(frozen=True)
class Request:
    """One HTTP request as seen by an emulator app.

    ``base_url`` is the public root of the emulator that received the request (no trailing
    slash); apps use it to build absolute URLs that point back at themselves.
    """

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    base_url: str

    @classmethod
    def build(cls, method: str, target: str, headers: dict[str, str], body: bytes, base_url: str) -> Request:
        """Split a request target (``/path?query``) into a percent-decoded path and query."""
        raw_path, _, query_string = target.partition("?")
        query = parse_qs(query_string, keep_blank_values=True)
        headers = {k.lower(): v for k, v in headers.items()}
        return cls(method.upper(), unquote(raw_path) or "/", query, headers, body, base_url)

    def param(self, name: str, default: str | None = None) -> str | None:
        """First value of query parameter ``name``."""
        values = self.query.get(name)
        return values[0] if values else default

    def int_param(self, name: str, default: int) -> int:
        """Query parameter ``name`` as int; raises :class:`HttpError` 400 when not a number."""
        raw = self.param(name)
        if raw is None or raw == "":
            return default
        try:
            return int(raw)
        except ValueError as e:
            raise HttpError(400, f"Parameter '{name}' must be an integer, got {raw!r}") from e

    def json(self) -> Any:
        """Request body decoded as JSON (``{}`` when empty)."""
        if not self.body:
            return {}
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise HttpError(400, "Request body is not valid JSON") from e

    def url_with(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        """Absolute URL on this emulator for ``path`` with the given query parameters."""
        query = urlencode({k: v for k, v in (params or {}).items() if v is not None}, doseq=True)
        return f"{self.base_url}{path}" + (f"?{query}" if query else "")


@dataclass
class Response:
    """An HTTP response: status, headers (ordered, repeatable) and body bytes."""

    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    # the value ``json_response`` encoded as ``body``: read back without decoding while the body
    # is still those bytes (a step that completes a response's shape reads every JSON body)
    encoded: tuple[bytes, Any] | None = field(default=None, repr=False, compare=False)
    # the body already has its vendor's published shape (completed before it was encoded once)
    shaped: bool = field(default=False, repr=False, compare=False)

    def json_value(self) -> Any:
        """The body's JSON value."""
        if self.encoded is not None and self.encoded[0] is self.body:
            return self.encoded[1]
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        """Value of the first header called ``name`` (case-insensitive)."""
        lowered = name.lower()
        return next((v for k, v in self.headers if k.lower() == lowered), None)

    def set_header(self, name: str, value: str) -> None:
        """Replace every header called ``name`` with one value."""
        lowered = name.lower()
        self.headers = [(k, v) for k, v in self.headers if k.lower() != lowered]
        self.headers.append((name, value))


def json_response(data: Any, status: int = 200, headers: Iterable[tuple[str, str]] = ()) -> Response:
    """A JSON response (UTF-8, compact separators)."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(
        status, body, [("Content-Type", "application/json;charset=UTF-8"), *headers], (body, data)
    )


class HttpError(Exception):
    """Raised by route handlers; the app renders it in its service's error shape."""

    def __init__(self, status: int, message: str, headers: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = list(headers)


Handler = Callable[..., Response]


@dataclass(frozen=True)
class Route:
    """A method plus a full-match path regex whose named groups become handler kwargs."""

    method: str
    pattern: re.Pattern[str]
    handler: Handler


class Router:
    """Ordered list of routes; the first whose method and pattern match wins."""

    def __init__(self) -> None:
        self._routes: list[Route] = []

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        """Register ``handler`` for ``method`` and the path regex ``pattern`` (full match)."""
        self._routes.append(Route(method.upper(), re.compile(pattern), handler))

    def dispatch(self, request: Request) -> Response:
        """Call the matching handler; 404 for unknown paths, 405 for a known path and other method."""
        path_known = False
        for route in self._routes:
            match = route.pattern.fullmatch(request.path)
            if match is None:
                continue
            path_known = True
            if route.method == request.method or (route.method == "GET" and request.method == "HEAD"):
                return route.handler(request, **match.groupdict())
        if path_known:
            raise HttpError(405, f"Method {request.method} is not allowed for {request.path}")
        raise HttpError(404, "Not Found")
