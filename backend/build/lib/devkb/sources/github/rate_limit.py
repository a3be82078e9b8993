"""GitHub rate limits and transient faults.

- Primary limit: every response carries ``X-RateLimit-Remaining``/``X-RateLimit-Reset``. When
  the remaining budget is 0, ``RateLimitGuard.wait()`` sleeps until the reset before the next
  call; should a request still hit the limit (403 "API rate limit exceeded"), PyGithub's
  ``GithubRetry`` waits until ``X-RateLimit-Reset`` and retries.
- Secondary limits: 403 or 429 with ``Retry-After`` are retried after that many seconds.
- 5xx, 429 and connection errors are retried with exponential backoff.

Every wait is reported through ``on_retry`` so a sync run counts and shows it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from github import Github, GithubRetry

from devkb.sources.http_retry import TRANSIENT_STATUS, RetryReporting

log = logging.getLogger(__name__)


class ReportingGithubRetry(RetryReporting, GithubRetry):
    """``GithubRetry`` (primary and secondary rate limits) that also retries 429 and 5xx and
    reports each retry."""

    max_retry_after = 300.0
    fault_label = "GitHub transient fault"


def make_retry(
    retries: int, backoff: float, on_retry: Callable[[str], None] | None, max_rate_limit_wait: float
) -> ReportingGithubRetry:
    retry = ReportingGithubRetry(
        total=retries,
        connect=retries,
        read=retries,
        status=retries,
        other=retries,
        backoff_factor=backoff,
        backoff_max=30,
        status_forcelist=list(TRANSIENT_STATUS),
        respect_retry_after_header=True,
        raise_on_status=True,
        secondary_rate_wait=5,
        max_rate_limit_wait=max_rate_limit_wait,
    )
    retry.on_retry = on_retry
    return retry


class RateLimitGuard:
    """Sleeps until the primary limit resets when the last response said none is left."""

    def __init__(
        self,
        gh: Github,
        max_wait: float,
        on_retry: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.gh = gh
        self.max_wait = max_wait
        self.on_retry = on_retry
        self.sleep = sleep

    def wait(self) -> float:
        requester = self.gh.requester
        remaining, _limit = requester.rate_limiting
        reset = requester.rate_limiting_resettime
        if remaining != 0 or not reset:
            return 0.0
        delay = min(max(reset - time.time() + 1.0, 0.0), self.max_wait)
        if delay > 0:
            msg = f"GitHub rate limit used up; waiting {delay:.0f}s for the reset"
            log.warning(msg)
            if self.on_retry:
                self.on_retry(msg)
            self.sleep(delay)
        requester.rate_limiting = (-1, -1)  # unknown until the next response says
        return delay
