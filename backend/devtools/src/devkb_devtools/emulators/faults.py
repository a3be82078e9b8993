"""Fault switches and the request log shared by the Jira, Confluence and GitHub emulators.

A :class:`FaultSwitches` object is handed to every emulator of a suite. Tests flip switches in
process (``faults.server_error(503, times=2)``) or over HTTP on any emulator::

    POST /_emulator/faults   {"kind": "status", "status": 429, "retry_after": 2, "times": 3,
                              "path_prefix": "/rest/api/2/search", "service": "jira"}
    POST /_emulator/faults   {"strip_links": true}
    POST /_emulator/faults   {"github_rate_limit": {"reset_after": 2}}
    POST /_emulator/reset    clears faults, switches, rate-limit state and the request log
    GET  /_emulator/faults   current state;  GET /_emulator/requests   the request log

Fault kinds (each affects the next ``times`` matching responses, first injected first):

- ``status``       an error response (``status``; ``Retry-After: retry_after`` when given)
- ``delay``        the normal response, ``delay`` seconds late
- ``reset``        the connection is closed with a TCP RST instead of a response
- ``truncate``     the first half of the normal body, with a matching Content-Length (bad JSON)
- ``incomplete``   Content-Length of the full body but only half of it, then the socket closes
- ``invalid_json`` ``200`` with a JSON content type and an HTML body
- ``invalid_utf8`` the normal body with bytes that are not UTF-8 inside its first string value
  (as real exports carry them)

A fault without ``service`` (``jira``, ``confluence``, ``github``) or ``path_prefix`` hits
whichever emulator of the suite answers the next request. Any fault may also carry ``delay``,
applied before it fires.

Switches: ``strip_links`` (Jira serves no ``issuelinks`` and no mention of a linked issue's key
in the texts of either end) and the GitHub primary rate limit (:class:`GitHubRateLimit`).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

FAULT_KINDS = frozenset(
    {"status", "delay", "reset", "truncate", "incomplete", "invalid_json", "invalid_utf8"}
)
SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
_fault_ids = itertools.count(1)


@dataclass
class Fault:
    """One injected fault; ``times`` counts down as matching responses are affected."""

    kind: str
    times: int = 1
    status: int | None = None
    retry_after: float | None = None
    delay: float = 0.0
    message: str | None = None
    path_prefix: str | None = None
    service: str | None = None
    id: int = field(default_factory=lambda: next(_fault_ids))

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {sorted(FAULT_KINDS)}")
        if self.kind == "status" and not (self.status and 400 <= self.status <= 599):
            raise ValueError("a 'status' fault needs an HTTP error status (400-599)")
        if self.times < 1:
            raise ValueError("times must be >= 1")

    def matches(self, service: str, path: str) -> bool:
        """Whether this fault applies to a request for ``path`` on ``service``."""
        if self.service is not None and self.service != service:
            return False
        return self.path_prefix is None or path.startswith(self.path_prefix)


@dataclass(frozen=True)
class RequestRecord:
    """One request an emulator received (control requests to ``/_emulator`` are not logged)."""

    service: str
    method: str
    path: str
    query: str
    status: int | None
    fault: str | None
    at: float


class RequestLog:
    """Thread-safe log of :class:`RequestRecord` for assertions on request counts.

    Keeps the newest ``max_records`` records so a long-running demo server stays bounded.
    """

    def __init__(self, max_records: int = 100_000) -> None:
        self._lock = threading.Lock()
        self._records: deque[RequestRecord] = deque(maxlen=max_records)

    def add(self, record: RequestRecord) -> None:
        with self._lock:
            self._records.append(record)

    def records(
        self, *, service: str | None = None, path_prefix: str | None = None, method: str | None = None
    ) -> list[RequestRecord]:
        """Records matching every given filter, oldest first."""
        with self._lock:
            snapshot = list(self._records)
        return [
            r
            for r in snapshot
            if (service is None or r.service == service)
            and (path_prefix is None or r.path.startswith(path_prefix))
            and (method is None or r.method == method.upper())
        ]

    def count(
        self, *, service: str | None = None, path_prefix: str | None = None, method: str | None = None
    ) -> int:
        """Number of records matching every given filter."""
        return len(self.records(service=service, path_prefix=path_prefix, method=method))

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


class GitHubRateLimit:
    """GitHub's primary rate limit: ``limit`` requests per hour window, plus an exhaustion switch."""

    def __init__(self, limit: int = 5000, window_seconds: float = 3600.0) -> None:
        self._lock = threading.Lock()
        self.limit = limit
        self.window_seconds = window_seconds
        self._used = 0
        self._window_reset = time.time() + window_seconds

    def exhaust(self, reset_after: float = 2.0) -> None:
        """Use up the limit now; it resets ``reset_after`` seconds from now."""
        with self._lock:
            self._used = self.limit
            self._window_reset = time.time() + reset_after

    def consume(self, count: bool = True) -> tuple[bool, int, int]:
        """Account one request: ``(allowed, remaining, reset_epoch_seconds)``.

        ``count=False`` reports without consuming (``/rate_limit`` is free on GitHub).
        """
        with self._lock:
            now = time.time()
            if now >= self._window_reset:
                self._used = 0
                self._window_reset = now + self.window_seconds
            allowed = self._used < self.limit
            if allowed and count:
                self._used += 1
            return allowed, self.limit - self._used, math.ceil(self._window_reset)

    @property
    def used(self) -> int:
        with self._lock:
            return self._used


class FaultSwitches:
    """The fault queue, switches and request log shared by all emulators of a suite."""

    def __init__(self, github_rate_limit: int = 5000) -> None:
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._strip_links = False
        self._github_rate_limit = github_rate_limit
        self.github_rate = GitHubRateLimit(github_rate_limit)
        self.log = RequestLog()

    # ------------------------------------------------------------------ injection

    def inject(self, kind: str, *, times: int = 1, **options: Any) -> Fault:
        """Queue a fault (see the module docstring for kinds and options) and return it."""
        fault = Fault(kind, times, **options)
        with self._lock:
            self._faults.append(fault)
        return fault

    def rate_limit(self, times: int = 1, *, retry_after: float = 1, status: int = 429, **scope: Any) -> Fault:
        """The next ``times`` responses are ``status`` (429) with ``Retry-After: retry_after``."""
        return self.inject("status", times=times, status=status, retry_after=retry_after, **scope)

    def server_error(self, status: int = 500, times: int = 1, **scope: Any) -> Fault:
        """The next ``times`` responses are ``status`` (500, 502, 503 ...)."""
        return self.inject("status", times=times, status=status, **scope)

    def slow(self, delay: float, times: int = 1, **scope: Any) -> Fault:
        """The next ``times`` responses arrive ``delay`` seconds late."""
        return self.inject("delay", times=times, delay=delay, **scope)

    def connection_reset(self, times: int = 1, **scope: Any) -> Fault:
        """The next ``times`` requests get their connection reset instead of a response."""
        return self.inject("reset", times=times, **scope)

    def truncated_body(self, times: int = 1, **scope: Any) -> Fault:
        """The next ``times`` bodies are cut in half (consistent Content-Length, invalid JSON)."""
        return self.inject("truncate", times=times, **scope)

    def incomplete_body(self, times: int = 1, **scope: Any) -> Fault:
        """The next ``times`` responses promise the full body but send half and close."""
        return self.inject("incomplete", times=times, **scope)

    def invalid_json(self, times: int = 1, **scope: Any) -> Fault:
        """The next ``times`` responses are 200 with a JSON content type and an HTML body."""
        return self.inject("invalid_json", times=times, **scope)

    def github_secondary_rate_limit(
        self, times: int = 1, *, retry_after: float = 1, status: int = 403
    ) -> Fault:
        """GitHub's secondary rate limit: ``status`` (403 or 429) with ``Retry-After``."""
        return self.inject(
            "status",
            times=times,
            status=status,
            retry_after=retry_after,
            message=SECONDARY_RATE_LIMIT_MESSAGE,
            service="github",
        )

    def exhaust_github_rate_limit(self, reset_after: float = 2.0) -> None:
        """GitHub answers 403 "API rate limit exceeded" (Remaining 0) until ``reset_after`` s from now."""
        self.github_rate.exhaust(reset_after)

    @property
    def strip_links(self) -> bool:
        """Jira serves issues without links and without mentions of linked issue keys."""
        with self._lock:
            return self._strip_links

    @strip_links.setter
    def strip_links(self, value: bool) -> None:
        with self._lock:
            self._strip_links = bool(value)

    # ------------------------------------------------------------------ use by the server

    def take(self, service: str, path: str) -> Fault | None:
        """The first queued fault matching the request, consuming one of its ``times``."""
        with self._lock:
            for fault in self._faults:
                if fault.matches(service, path):
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def pending(self) -> list[Fault]:
        """Faults still queued."""
        with self._lock:
            return [Fault(**asdict(f)) for f in self._faults]

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def reset(self) -> None:
        """Clear faults, switches, GitHub rate-limit state and the request log."""
        with self._lock:
            self._faults.clear()
            self._strip_links = False
            self.github_rate = GitHubRateLimit(self._github_rate_limit)
        self.log.clear()

    # ------------------------------------------------------------------ HTTP control API

    def configure(self, spec: dict[str, Any] | Iterable[dict[str, Any]]) -> None:
        """Apply a ``POST /_emulator/faults`` body: a fault, a switch, or a list of them."""
        items = [spec] if isinstance(spec, dict) else list(spec)
        for item in items:
            if not isinstance(item, dict):
                raise TypeError("each fault specification must be a JSON object")
            item = dict(item)
            if "strip_links" in item:
                self.strip_links = bool(item.pop("strip_links"))
            if "github_rate_limit" in item:
                options = item.pop("github_rate_limit") or {}
                self.exhaust_github_rate_limit(float(options.get("reset_after", 2.0)))
            if "kind" in item:
                kind = item.pop("kind")
                self.inject(kind, **item)
            elif item:
                raise ValueError(f"unknown fault options: {sorted(item)}")

    def state(self) -> dict[str, Any]:
        """JSON-able view of the switches and pending faults."""
        return {
            "faults": [asdict(f) for f in self.pending()],
            "strip_links": self.strip_links,
            "github_rate_limit": {"limit": self.github_rate.limit, "used": self.github_rate.used},
            "requests": self.log.count(),
        }
