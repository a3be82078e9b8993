"""Idempotency keys for ``POST /v1/payments`` and ``POST /v1/refunds`` (PAY-12).

A client sends ``Idempotency-Key: <uuid4>``. The first request with a key is processed and its
response stored; a repeat with the same body gets the stored response back, a repeat with a
different body is rejected with 409 Conflict.
Records expire after ``DEFAULT_TTL``: 72 hours since PAY-15 (it was 24 hours, shorter than the
48 hours during which merchants and Meridian retry).

Design: wiki page "Idempotency Keys Design"; table layout in docs/idempotency.md.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_TTL = 72 * 3600.0

Processor = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


class IdempotencyConflict(Exception):
    """The key was used before with a different request body (HTTP 409)."""


class RequestInProgress(Exception):
    """A request with this key is still being processed (HTTP 409, ``Retry-After: 1``)."""


@dataclass
class StoredResponse:
    fingerprint: str
    status: int | None  # None while the first request is in flight
    body: dict[str, Any] | None
    expires_at: float


def fingerprint(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class IdempotencyStore:
    """In-memory reference implementation; production uses the ``idempotency_keys`` table."""

    def __init__(self, ttl: float = DEFAULT_TTL, clock: Callable[[], float] = time.time) -> None:
        self._ttl = ttl
        self._clock = clock
        self._records: dict[tuple[str, str], StoredResponse] = {}
        self._lock = threading.Lock()

    def begin(self, merchant_id: str, key: str, body: dict[str, Any]) -> StoredResponse | None:
        """Reserve ``key``; return the stored response of a completed repeat, None for a new request."""
        now = self._clock()
        fp = fingerprint(body)
        with self._lock:
            record = self._records.get((merchant_id, key))
            if record is not None and record.expires_at <= now:
                record = None
            if record is None:
                self._records[(merchant_id, key)] = StoredResponse(fp, None, None, now + self._ttl)
                return None
            if record.fingerprint != fp:
                raise IdempotencyConflict(key)
            if record.status is None:
                raise RequestInProgress(key)
            return record

    def complete(self, merchant_id: str, key: str, status: int, body: dict[str, Any]) -> None:
        with self._lock:
            record = self._records[(merchant_id, key)]
            record.status, record.body = status, body

    def release(self, merchant_id: str, key: str) -> None:
        """Forget a reservation whose request failed before reaching Meridian, so it can be retried."""
        with self._lock:
            self._records.pop((merchant_id, key), None)

    def purge_expired(self) -> int:
        now = self._clock()
        with self._lock:
            expired = [k for k, r in self._records.items() if r.expires_at <= now]
            for k in expired:
                del self._records[k]
        return len(expired)


def run_once(
    store: IdempotencyStore, merchant_id: str, key: str, body: dict[str, Any], process: Processor
) -> tuple[int, dict[str, Any]]:
    """Process ``body`` at most once per ``(merchant_id, key)`` and return ``(status, response)``."""
    stored = store.begin(merchant_id, key, body)
    if stored is not None:
        assert stored.status is not None and stored.body is not None
        return stored.status, stored.body
    try:
        status, response = process(body)
    except Exception:
        store.release(merchant_id, key)
        raise
    store.complete(merchant_id, key, status, response)
    return status, response
