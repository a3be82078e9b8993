"""A ``requests`` session that retries transient faults with exponential backoff.

429 and 5xx are retried honouring ``Retry-After``; connection resets and read timeouts are
retried too. Every retry is reported through ``on_retry`` so a run can show it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from devkb.sources.http_session import SettledSession

T = TypeVar("T")

log = logging.getLogger(__name__)

TRANSIENT_STATUS = (429, 500, 502, 503, 504)


class RetryReporting:
    """Mixin for a urllib3 ``Retry``: logs each retry, calls an optional ``on_retry`` hook (kept
    across the copies urllib3 makes with ``new``) and caps ``Retry-After`` waits."""

    on_retry: Callable[[str], None] | None = None
    max_retry_after: float = 120.0
    fault_label: str = "transient fault"

    def new(self, **kw: Any) -> Any:
        retry = super().new(**kw)  # type: ignore[misc]
        retry.on_retry = self.on_retry
        return retry

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):  # type: ignore[no-untyped-def]
        reason = (
            f"HTTP {response.status}" if response is not None else type(error).__name__ if error else "retry"
        )
        new = super().increment(method, url, response, error, _pool, _stacktrace)  # type: ignore[misc]
        msg = f"{self.fault_label} ({reason}) on {method} {url}; retrying"
        log.warning(msg)
        if self.on_retry is not None:
            self.on_retry(msg)
        return new

    def get_retry_after(self, response):  # type: ignore[no-untyped-def]
        value = super().get_retry_after(response)  # type: ignore[misc]
        return None if value is None else min(value, self.max_retry_after)


class ReportingRetry(RetryReporting, Retry):
    """urllib3 ``Retry`` that logs each retry and calls an optional hook."""


def retrying_session(
    retries: int = 6,
    backoff_factor: float = 0.5,
    timeout: float = 30.0,
    on_retry: Callable[[str], None] | None = None,
    status_forcelist: tuple[int, ...] = TRANSIENT_STATUS,
) -> requests.Session:
    retry = ReportingRetry(
        total=retries,
        connect=retries,
        read=retries,
        status=retries,
        other=retries,
        backoff_factor=backoff_factor,
        backoff_max=30,
        status_forcelist=status_forcelist,
        allowed_methods=frozenset({"GET", "POST", "HEAD"}),
        respect_retry_after_header=True,
        raise_on_status=True,
    )
    retry.on_retry = on_retry
    session = SettledSession()  # the environment's proxy settings read once per host
    adapter = HTTPAdapter(max_retries=retry, pool_connections=4, pool_maxsize=8)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.request = _with_timeout(session.request, timeout)  # type: ignore[method-assign]
    return session


def _with_timeout(
    request: Callable[..., requests.Response], timeout: float
) -> Callable[..., requests.Response]:
    def call(method: str, url: str, **kwargs):  # type: ignore[no-untyped-def]
        kwargs.setdefault("timeout", timeout)
        return request(method, url, **kwargs)

    return call


def atlassian_client(
    client_class: type[T], config: Any, on_retry: Callable[[str], None] | None, **extra: Any
) -> T:
    """A Jira or Confluence client (atlassian-python-api) over a :func:`retrying_session`, with
    basic auth (``config.user`` + token) or a bearer token. ``config`` has ``url``, ``user``,
    ``token`` (a SecretStr or None), ``retries``, ``backoff`` and ``timeout``."""
    session = retrying_session(
        retries=config.retries, backoff_factor=config.backoff, timeout=config.timeout, on_retry=on_retry
    )
    token = config.token.get_secret_value() if config.token else None
    kwargs: dict[str, Any] = {"url": config.url, "cloud": False, "session": session, **extra}
    if config.user and token:
        kwargs.update(username=config.user, password=token)
    elif token:
        kwargs["token"] = token
    return client_class(**kwargs)
