"""HTTP client for the Meridian PSP (``https://api.meridian-psp.example/v2``).

The transport is injected so that tests and the sandbox can replace it; production uses
``UrllibTransport``. Amounts are integers in minor units.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from payments.redaction import redact
from payments.retry import RetryableError, RetryPolicy, call_with_retry, is_retryable_status

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.meridian-psp.example/v2"


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    body: dict[str, Any]


class Transport(Protocol):
    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, timeout: float
    ) -> Response: ...


class PSPError(Exception):
    """Meridian rejected the request."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class UrllibTransport:
    """Production transport on the standard library."""

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None, timeout: float
    ) -> Response:
        request = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
        try:
            with urllib.request.urlopen(request, timeout=timeout) as resp:
                return Response(resp.status, dict(resp.headers), json.loads(resp.read() or b"{}"))
        except urllib.error.HTTPError as err:
            return Response(err.code, dict(err.headers), json.loads(err.read() or b"{}"))


def _retry_after(resp: Response) -> float | None:
    value = resp.headers.get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date; fall back to our own backoff
        return None


class MeridianClient:
    def __init__(
        self,
        api_key: str,
        transport: Transport | None = None,
        base_url: str = DEFAULT_BASE_URL,
        policy: RetryPolicy | None = None,
        timeout: float = 10.0,
    ) -> None:
        self._api_key = api_key
        self._transport = transport or UrllibTransport()
        self._base_url = base_url.rstrip("/")
        self._policy = policy or RetryPolicy()
        self._timeout = timeout

    def create_charge(self, amount: int, currency: str, token: str, idempotency_key: str) -> dict[str, Any]:
        """Create and capture a charge. The key is forwarded so Meridian deduplicates our retries."""
        body = {"amount": amount, "currency": currency, "source": token, "capture": True}
        return self._request("POST", "/charges", body, {"Idempotency-Key": idempotency_key})

    def refund(self, charge_id: str, amount: int, idempotency_key: str) -> dict[str, Any]:
        body = {"charge": charge_id, "amount": amount}
        return self._request("POST", "/refunds", body, {"Idempotency-Key": idempotency_key})

    def get_charge(self, charge_id: str) -> dict[str, Any]:
        return self._request("GET", f"/charges/{charge_id}")

    def _request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Content-Type": "application/json",
            **(extra_headers or {}),
        }
        payload = json.dumps(body).encode() if body is not None else None
        # PAY-18: never log card data, even at debug level.
        log.debug("meridian %s %s %s", method, path, redact(body))

        def attempt() -> dict[str, Any]:
            try:
                resp = self._transport(method, self._base_url + path, headers, payload, self._timeout)
            except OSError as err:  # timeouts and connection errors; URLError is an OSError
                raise RetryableError(f"{method} {path}: {err}") from err
            if is_retryable_status(resp.status):
                raise RetryableError(
                    f"{method} {path}: HTTP {resp.status}", status=resp.status, retry_after=_retry_after(resp)
                )
            if resp.status >= 400:
                raise PSPError(f"{method} {path}: HTTP {resp.status} {resp.body.get('error')}", resp.status)
            return resp.body

        return call_with_retry(attempt, self._policy, method=method, headers=headers)
