"""Retry with exponential backoff and full jitter for calls to the Meridian PSP.

The rules are written down in docs/retry-policy.md and on the wiki page "PSP Retry Policy":

- retry connection errors and HTTP 429, 502, 503 and 504 only (PAY-7);
- honour ``Retry-After``, but never wait longer than ``max_delay``;
- never repeat a non-idempotent request without an ``Idempotency-Key`` (PAY-8);
- draw jitter from the policy's own RNG, never the shared module-level one (PAY-25).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({429, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


class RetryableError(Exception):
    """A call failed in a way that may succeed when repeated (connection error, 5xx, 429)."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class RetriesExhausted(Exception):
    """The policy gave up; ``last_error`` is the final ``RetryableError``."""

    def __init__(self, attempts: int, last_error: Exception) -> None:
        super().__init__(f"gave up after {attempts} attempt(s): {last_error}")
        self.attempts = attempts
        self.last_error = last_error


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS


@dataclass
class RetryPolicy:
    max_attempts: int = 4
    base_delay: float = 0.2
    max_delay: float = 5.0
    # PAY-25: one RNG per policy. All workers seeded the shared module RNG with the deploy
    # timestamp, drew the same jitter and hit Meridian at the same instant after an outage.
    rng: random.Random = field(default_factory=random.Random)

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        cap = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return self.rng.uniform(0.0, cap)

    def may_retry(self, method: str, headers: Mapping[str, str]) -> bool:
        """Whether a failed request may be sent again.

        PAY-8: a POST that timed out may already have created a charge at Meridian. Sending it
        again is only safe when Meridian can deduplicate it by its Idempotency-Key; without one,
        this is how customers were charged twice on 2026-04-14 (PAY-13).
        """
        if method.upper() in IDEMPOTENT_METHODS:
            return True
        return any(name.lower() == "idempotency-key" for name in headers)


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``fn`` until it succeeds, raises a non-retryable error or the policy gives up."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except RetryableError as err:
            if attempt >= policy.max_attempts or not policy.may_retry(method, headers or {}):
                raise RetriesExhausted(attempt, err) from err
            sleep(policy.backoff(attempt, err.retry_after))
