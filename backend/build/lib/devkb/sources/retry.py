"""Retry a whole source call when the transport layer gave up or returned a broken body.

``http_retry`` handles status codes and resets inside one request; this loop handles what only
shows after the response is read (truncated or invalid JSON) and wraps errors into devkb's
transient/permanent split.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import TypeVar

import requests

from devkb.errors import PermanentSourceError, TransientSourceError

log = logging.getLogger(__name__)
T = TypeVar("T")


def classify(exc: BaseException) -> type[TransientSourceError] | type[PermanentSourceError]:
    if isinstance(
        exc,
        (
            json.JSONDecodeError,
            requests.exceptions.ConnectionError,
            requests.exceptions.Timeout,
            requests.exceptions.RetryError,
            requests.exceptions.ChunkedEncodingError,
            requests.exceptions.ContentDecodingError,
        ),
    ):
        return TransientSourceError
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None and (status == 429 or status >= 500):
        return TransientSourceError
    if isinstance(exc, ValueError) and "JSON" in str(exc):
        return TransientSourceError
    return PermanentSourceError


def call_with_retry(
    what: str,
    fn: Callable[[], T],
    attempts: int = 5,
    base_delay: float = 0.5,
    on_retry: Callable[[str], None] | None = None,
) -> T:
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except (TransientSourceError, PermanentSourceError):
            raise
        except Exception as e:  # classified and re-raised below
            kind = classify(e)
            if kind is PermanentSourceError or attempt == attempts:
                raise kind(f"{what} failed: {type(e).__name__}: {str(e)[:300]}") from e
            delay = min(base_delay * 2 ** (attempt - 1), 20.0)
            msg = f"{what}: {type(e).__name__}; retry {attempt}/{attempts - 1} in {delay:.1f}s"
            log.warning(msg)
            if on_retry:
                on_retry(msg)
            time.sleep(delay)
    raise AssertionError("unreachable")
