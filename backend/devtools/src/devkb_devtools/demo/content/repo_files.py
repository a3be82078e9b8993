"""Files of the acme/payments-service repository, as templates with ``#@flag`` markers.

Each commit in ``repo_history.py`` selects a version of a file by its set of flags; the final tree is
the version with every flag of the latest commit that touched the file. See ``common.render``.
"""

from __future__ import annotations

README = r"""# payments-service

Payment orchestration for Acme: takes payment requests from the web checkout and merchant
integrations, talks to the Meridian PSP, records every money movement in a double-entry ledger and
delivers payment events to merchants.

Owned by the Payments Platform team (Jira project PAY, wiki space "Payments Engineering").

## Layout

| path | what |
| --- | --- |
| `src/payments/psp_client.py` | HTTP client for the Meridian PSP |
| `src/payments/retry.py` | retry with exponential backoff and jitter |
#@if idem
| `src/payments/idempotency.py` | idempotency keys for `POST /v1/payments` |
#@endif
#@if webhooks
| `src/payments/webhooks.py` | inbound Meridian webhooks: signatures and ordering |
#@endif
| `src/payments/ledger.py` | double-entry ledger and settlement reconciliation |
#@if redaction
| `src/payments/redaction.py` | masking of card data before logging |
#@endif
| `docs/` | design notes that live next to the code |

## Development

```bash
python -m venv .venv && . .venv/bin/activate
pip install -e '.[dev]'
pytest
```

The service never sees raw card numbers in production: the checkout tokenizes cards with Meridian's
hosted fields. Do not paste card numbers into tests, issues or logs; use the Meridian test tokens
(`tok_visa_4242`, `tok_mc_declined`).

## Further reading

- Architecture: [docs/architecture.md](docs/architecture.md) and the wiki page
  https://wiki.example.com/display/PAY/Payments+Architecture+Overview
#@if retrydoc
- Retry policy: [docs/retry-policy.md](docs/retry-policy.md)
#@else
- Retries: [docs/retries.md](docs/retries.md)
#@endif
#@if idem
- Idempotency keys: [docs/idempotency.md](docs/idempotency.md)
#@endif
- On call: https://wiki.example.com/display/PAY/Payments+On-Call+Handbook
"""

PYPROJECT = r"""[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "payments-service"
dynamic = ["version"]
description = "Payment orchestration between merchants, the ledger and the Meridian PSP"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
dev = ["pytest>=8"]

[tool.setuptools.dynamic]
version = { attr = "payments.__version__" }

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]

[tool.ruff]
line-length = 110
src = ["src", "tests"]

[tool.ruff.lint]
select = ["E", "F", "I", "B"]
"""

INIT = r'''"""payments-service: payment orchestration between merchants, the ledger and the Meridian PSP."""

__version__ = "2026.1.0"  #@!v2026_6
__version__ = "2026.6.0"  #@v2026_6
'''

ARCHITECTURE = r"""# Architecture

This is the short version that lives next to the code (PAY-4). The full picture, with the data
flows and the team's decisions, is on the wiki page "Payments Architecture Overview":
https://wiki.example.com/display/PAY/Payments+Architecture+Overview

## Request path

1. The web checkout (Jira project WEB) tokenizes the card with Meridian's hosted fields and calls
   `POST /v1/payments` with the token, the amount and an `Idempotency-Key` header.
2. `payments.idempotency` reserves the key; a repeated request gets the stored response back.
3. `payments.psp_client.MeridianClient` creates the charge at Meridian. Transient failures are
   retried by `payments.retry` under the rules in `docs/retry-policy.md`.
4. `payments.ledger` records the capture as a balanced entry.
5. Meridian confirms asynchronously by webhook; `payments.webhooks` verifies the signature and
   applies events in order.

## Components

| component | module | owner |
| --- | --- | --- |
| PSP client | `psp_client.py`, `retry.py` | Daniel Okafor |
| Idempotency | `idempotency.py` | Marcus Chen |
| Ledger | `ledger.py` | Marcus Chen |
| Webhooks | `webhooks.py` | Marcus Chen |
| Redaction | `redaction.py` | Aisha Khan |

## Storage

Postgres 16: `payments`, `ledger_entries`, `ledger_postings`, `idempotency_keys`,
`webhook_events`. Redis is used only for rate limiting.
#@if deprecation

## API versions

`/v1` is deprecated (PAY-21): every `/v1` response carries `Deprecation: @1790812800` and
`Sunset: Thu, 01 Jul 2027 00:00:00 GMT`. `/v2` takes amounts as integer minor units (PAY-20).
See the wiki page "Public API Versioning".
#@endif
"""

RETRY_DOC = r"""# Retries  #@!policy
# Retry policy for calls to Meridian  #@policy

#@if policy
Moved here from `docs/retries.md` (PAY-9). The wiki page "PSP Retry Policy" is the
authoritative version; this file is the summary engineers read next to the code.
#@else
How the PSP client retries failed calls to Meridian.
#@endif

## What is retried

| condition | retried? | why |
| --- | --- | --- |
| connection error, read timeout on GET | yes | safe to repeat |
| read timeout on POST | yes | TODO: is this safe? |  #@!idem
| read timeout on POST with `Idempotency-Key` | yes | Meridian deduplicates by key |  #@idem
| read timeout on POST without a key | **no** | may have created a charge (PAY-8, PAY-13) |  #@idem
#@if after
| HTTP 429, 502, 503, 504 | yes | transient; `Retry-After` honoured |
| any other 4xx | no | our request is wrong |
#@else
| HTTP 5xx | yes | maintenance windows |
| any 4xx | yes | the helper retries everything |
#@endif

## Backoff

#@if after
Full jitter: wait `uniform(0, min(max_delay, base_delay * 2 ** (attempt - 1)))` seconds,
`base_delay = 0.2`, `max_delay = 5`, at most 4 attempts.
Each `RetryPolicy` has its own RNG (PAY-25).  #@rng
#@else
Three attempts, one second apart (`src/payments/legacy_retry.py`).
#@endif
#@if policy

## Not yet

Retry budgets and a circuit breaker are planned in PAY-28 and PAY-29.
#@endif
"""

IDEMPOTENCY_DOC = r"""# Idempotency keys

Implements PAY-12. Design discussion: wiki page "Idempotency Keys Design".

- Clients send `Idempotency-Key: <uuid4>` on `POST /v1/payments` and `POST /v1/refunds`.
- Keys are scoped per merchant: `(merchant_id, key)` is the primary key.
- The request body is fingerprinted (SHA-256 of canonical JSON). Same key, same body: the stored
  response is returned. Same key, different body: `409 Conflict`.
- While the first request is in flight a repeat gets `409` with `Retry-After: 1`.
- Records expire after 24 hours.  #@!ttl72
- Records expire after 72 hours (PAY-15; was 24 hours, shorter than the 48 hour window in which
  merchants and Meridian retry).  #@ttl72
- The key is forwarded to Meridian so that our own retries cannot double-charge.

## Table

```sql
CREATE TABLE idempotency_keys (
    merchant_id  text        NOT NULL,
    key          text        NOT NULL,
    fingerprint  char(64)    NOT NULL,
    status       smallint,
    response     jsonb,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (merchant_id, key)
);
```
"""

WEBHOOKS_DOC = r"""# Webhooks

## Inbound: Meridian to us

- Signature header: `Meridian-Signature: t=<unix seconds>,v1=<hex>`; HMAC-SHA256 over
  `<t>.<raw body>` with the endpoint secret (PAY-11). Always use the raw bytes (PAY-10).
- Reject timestamps more than 5 minutes away from our clock.
- Events can arrive late and out of order. Each carries a per-payment `sequence`; an event with a
  sequence at or below the last applied one is acknowledged and ignored (PAY-17).

## Outbound: us to merchants

Delivery of our own payment events to merchants is being built in PAY-16; see the wiki page
"Webhook Delivery Design".
"""

CHANGELOG = r"""# Changelog

#@if unreleased
## Unreleased

- `/v1` responses carry `Deprecation` and `Sunset` headers (PAY-21).
- Reconciliation subtracts every partial refund, not only the last one (PAY-6).
- Idempotency keys are kept for 72 hours (PAY-15).
- Card numbers are masked before PSP requests are logged (PAY-18).
- Out-of-order Meridian webhooks no longer overwrite newer payment states (PAY-17).

#@endif
## 2026.6.0 (2026-06-10)

- Idempotency keys for `POST /v1/payments`, forwarded to Meridian (PAY-12).
- POST requests are never retried without an idempotency key (PAY-8), the fix for the double
  charges of 2026-04-14 (PAY-13).
- Retry jitter drawn from a per-policy RNG (PAY-25).
- Legacy retry helper removed.

## 2026.3.0 (2026-03-25)

- Meridian webhook signatures verified (PAY-11), over the raw body (PAY-10).
- Retries with exponential backoff on 429/502/503/504, honouring `Retry-After` (PAY-7).

## 2026.1.0 (2026-01-21)

- Double-entry ledger for captures and refunds (PAY-5).
"""

LEGACY_RETRY = r'''"""Minimal retry helper used by the first Meridian client."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def retry_n_times(fn: Callable[[], T], times: int = 3, delay: float = 1.0) -> T:
    """Call ``fn`` up to ``times`` times, sleeping ``delay`` seconds between attempts."""
    last: Exception | None = None
    for _ in range(times):
        try:
            return fn()
        except Exception as err:  # noqa: BLE001
            last = err
            time.sleep(delay)
    assert last is not None
    raise last
'''

RETRY = r'''"""Retry with exponential backoff and full jitter for calls to the Meridian PSP.

The rules are written down in docs/retry-policy.md and on the wiki page "PSP Retry Policy":

- retry connection errors and HTTP 502, 503 and 504 only (PAY-7);  #@!after
- retry connection errors and HTTP 429, 502, 503 and 504 only (PAY-7);  #@after
- honour ``Retry-After``, but never wait longer than ``max_delay``;  #@after
- never repeat a non-idempotent request without an ``Idempotency-Key`` (PAY-8);  #@idem
- draw jitter from the policy's own RNG, never the shared module-level one (PAY-25).  #@rng
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable  #@!idem
from collections.abc import Callable, Mapping  #@idem
from dataclasses import dataclass  #@!rng
from dataclasses import dataclass, field  #@rng
from typing import TypeVar

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({502, 503, 504})  #@!after
RETRYABLE_STATUS = frozenset({429, 502, 503, 504})  #@after
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})  #@idem


class RetryableError(Exception):
    """A call failed in a way that may succeed when repeated (connection error, 5xx, 429)."""

    def __init__(self, message: str, status: int | None = None) -> None:  #@!after
    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None) -> None:  #@after
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after  #@after


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
#@if rng
    # PAY-25: one RNG per policy. All workers seeded the shared module RNG with the deploy
    # timestamp, drew the same jitter and hit Meridian at the same instant after an outage.
    rng: random.Random = field(default_factory=random.Random)
#@endif

    def backoff(self, attempt: int) -> float:  #@!after
    def backoff(self, attempt: int, retry_after: float | None = None) -> float:  #@after
        """Seconds to wait before retry number ``attempt`` (1-based)."""
#@if after
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
#@endif
        cap = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return random.uniform(0.0, cap)  #@!rng
        return self.rng.uniform(0.0, cap)  #@rng
#@if idem

    def may_retry(self, method: str, headers: Mapping[str, str]) -> bool:
        """Whether a failed request may be sent again.

        PAY-8: a POST that timed out may already have created a charge at Meridian. Sending it
        again is only safe when Meridian can deduplicate it by its Idempotency-Key; without one,
        this is how customers were charged twice on 2026-04-14 (PAY-13).
        """
        if method.upper() in IDEMPOTENT_METHODS:
            return True
        return any(name.lower() == "idempotency-key" for name in headers)
#@endif


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    method: str = "GET",  #@idem
    headers: Mapping[str, str] | None = None,  #@idem
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``fn`` until it succeeds, raises a non-retryable error or the policy gives up."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except RetryableError as err:
            if attempt >= policy.max_attempts:  #@!idem
            if attempt >= policy.max_attempts or not policy.may_retry(method, headers or {}):  #@idem
                raise RetriesExhausted(attempt, err) from err
            sleep(policy.backoff(attempt))  #@!after
            sleep(policy.backoff(attempt, err.retry_after))  #@after
'''

PSP_CLIENT = r'''"""HTTP client for the Meridian PSP (``https://api.meridian-psp.example/v2``).

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

from payments.legacy_retry import retry_n_times  #@!retry
from payments.redaction import redact  #@mask
from payments.retry import RetryableError, RetryPolicy, call_with_retry, is_retryable_status  #@retry

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
#@if after


def _retry_after(resp: Response) -> float | None:
    value = resp.headers.get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date; fall back to our own backoff
        return None
#@endif


class MeridianClient:
    def __init__(
        self,
        api_key: str,
        transport: Transport | None = None,
        base_url: str = DEFAULT_BASE_URL,
        policy: RetryPolicy | None = None,  #@retry
        timeout: float = 10.0,
    ) -> None:
        self._api_key = api_key
        self._transport = transport or UrllibTransport()
        self._base_url = base_url.rstrip("/")
        self._policy = policy or RetryPolicy()  #@retry
        self._timeout = timeout

#@if idemkey
    def create_charge(self, amount: int, currency: str, token: str, idempotency_key: str) -> dict[str, Any]:
        """Create and capture a charge. The key is forwarded so Meridian deduplicates our retries."""
        body = {"amount": amount, "currency": currency, "source": token, "capture": True}
        return self._request("POST", "/charges", body, {"Idempotency-Key": idempotency_key})

    def refund(self, charge_id: str, amount: int, idempotency_key: str) -> dict[str, Any]:
        body = {"charge": charge_id, "amount": amount}
        return self._request("POST", "/refunds", body, {"Idempotency-Key": idempotency_key})
#@else
    def create_charge(self, amount: int, currency: str, token: str) -> dict[str, Any]:
        """Create and capture a charge."""
        body = {"amount": amount, "currency": currency, "source": token, "capture": True}
        return self._request("POST", "/charges", body)

    def refund(self, charge_id: str, amount: int) -> dict[str, Any]:
        return self._request("POST", "/refunds", {"charge": charge_id, "amount": amount})
#@endif

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
        log.debug("meridian %s %s %s", method, path, body)  #@!mask
        # PAY-18: never log card data, even at debug level.  #@mask
        log.debug("meridian %s %s %s", method, path, redact(body))  #@mask

        def attempt() -> dict[str, Any]:
#@if retry
            try:
                resp = self._transport(method, self._base_url + path, headers, payload, self._timeout)
            except OSError as err:  # timeouts and connection errors; URLError is an OSError
                raise RetryableError(f"{method} {path}: {err}") from err
            if is_retryable_status(resp.status):
                raise RetryableError(f"{method} {path}: HTTP {resp.status}", status=resp.status)  #@!after
                raise RetryableError(  #@after
                    f"{method} {path}: HTTP {resp.status}", status=resp.status, retry_after=_retry_after(resp)  #@after
                )  #@after
#@else
            resp = self._transport(method, self._base_url + path, headers, payload, self._timeout)
#@endif
            if resp.status >= 400:
                raise PSPError(f"{method} {path}: HTTP {resp.status} {resp.body.get('error')}", resp.status)
            return resp.body

#@if idem
        return call_with_retry(attempt, self._policy, method=method, headers=headers)
#@else
        return call_with_retry(attempt, self._policy)  #@retry
        return retry_n_times(attempt, times=3)  #@!retry
#@endif
'''

REDACTION = r'''"""Masking of card data before anything is logged (PAY-18, PCI DSS 4.0 requirement 3.4).

See the wiki page "PCI Compliance Notes" for the rules this implements.
"""

from __future__ import annotations

import re
from typing import Any

_CANDIDATE = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
SENSITIVE_KEYS = frozenset({"number", "card_number", "pan", "cvc", "cvv", "api_key", "authorization"})


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def mask_pan(text: str) -> str:
    """Replace every Luhn-valid card number in ``text`` by asterisks and its last four digits."""

    def _mask(match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group(0))
        if not luhn_valid(digits):
            return match.group(0)
        return "*" * (len(digits) - 4) + digits[-4:]

    return _CANDIDATE.sub(_mask, text)


def redact(value: Any) -> Any:
    """A copy of ``value`` with sensitive keys replaced and card numbers masked in strings."""
    if isinstance(value, dict):
        return {k: "[REDACTED]" if str(k).lower() in SENSITIVE_KEYS else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return mask_pan(value)
    return value
'''

IDEMPOTENCY = r'''"""Idempotency keys for ``POST /v1/payments`` and ``POST /v1/refunds`` (PAY-12).

A client sends ``Idempotency-Key: <uuid4>``. The first request with a key is processed and its
response stored; a repeat with the same body gets the stored response back, a repeat with a
different body is rejected with 409 Conflict.  #@conflict
response stored; a repeat gets the stored response back.  #@!conflict
Records expire after ``DEFAULT_TTL``: 72 hours since PAY-15 (it was 24 hours, shorter than the  #@ttl72
48 hours during which merchants and Meridian retry).  #@ttl72
Records expire after ``DEFAULT_TTL`` (24 hours).  #@!ttl72

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

DEFAULT_TTL = 24 * 3600.0  #@!ttl72
DEFAULT_TTL = 72 * 3600.0  #@ttl72

Processor = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
#@if conflict


class IdempotencyConflict(Exception):
    """The key was used before with a different request body (HTTP 409)."""
#@endif


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
            if record.fingerprint != fp:  #@conflict
                raise IdempotencyConflict(key)  #@conflict
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
'''

WEBHOOKS = r'''#@if order
"""Inbound Meridian webhooks: signature verification (PAY-11, PAY-10) and event ordering (PAY-17).
#@else
"""Inbound Meridian webhooks: signature verification (PAY-11, PAY-10).
#@endif

Meridian signs ``<timestamp>.<raw body>`` with HMAC-SHA256 and sends the header
``Meridian-Signature: t=<unix seconds>,v1=<hex digest>``. Design: wiki page "Webhook Delivery Design".
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass  #@order
from typing import Any

TOLERANCE_SECONDS = 300


class SignatureError(Exception):
    """The webhook is not from Meridian, was altered, or is too old (respond 400)."""


def sign(raw_body: bytes, secret: str, timestamp: int) -> str:
    """The ``Meridian-Signature`` header Meridian would send; used by tests and the sandbox."""
    digest = hmac.new(secret.encode(), str(timestamp).encode() + b"." + raw_body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def parse_signature_header(header: str) -> tuple[int, list[str]]:
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        if name == "t" and value.isdigit():
            timestamp = int(value)
        elif name == "v1":
            signatures.append(value)
    if timestamp is None or not signatures:
        raise SignatureError("malformed Meridian-Signature header")
    return timestamp, signatures


def verify_signature(raw_body: bytes, header: str, secret: str, now: float | None = None) -> dict[str, Any]:
    """Check the signature and return the parsed event."""
    timestamp, signatures = parse_signature_header(header)
    now = time.time() if now is None else now
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        raise SignatureError("timestamp outside tolerance")
#@if raw
    # PAY-10: sign the bytes exactly as received. Re-serialising the parsed JSON escaped
    # non-ASCII characters ("Zürich" became "Z\u00fcrich") and the HMAC never matched.
    signed = str(timestamp).encode() + b"." + raw_body
#@else
    event = json.loads(raw_body)
    signed = f"{timestamp}.{json.dumps(event, separators=(',', ':'))}".encode()
#@endif
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, candidate) for candidate in signatures):
        raise SignatureError("no matching v1 signature")
    return json.loads(raw_body)
#@if order


@dataclass(frozen=True)
class PaymentState:
    status: str
    sequence: int


def apply_event(state: PaymentState | None, event: dict[str, Any]) -> PaymentState:
    """The payment's state after ``event``.

    PAY-17: Meridian does not guarantee delivery order, and retries a delivery for up to 48 hours.
    Each event carries a per-payment ``sequence``; anything at or below the last applied sequence
    is stale and ignored, so a late ``payment.captured`` cannot overwrite ``payment.refunded``.
    """
    sequence = int(event["sequence"])
    if state is not None and sequence <= state.sequence:
        return state
    return PaymentState(status=event["type"].removeprefix("payment."), sequence=sequence)
#@endif
'''

LEDGER = r'''"""Double-entry ledger for captures and refunds (PAY-5) and reconciliation with Meridian (PAY-6).

Every money movement is an entry of postings whose debits equal its credits. Amounts are integers in
minor units. Design: wiki page "Payments Ledger Design".
"""

from __future__ import annotations

from dataclasses import dataclass

PSP_RECEIVABLE = "assets:psp_receivable"
MERCHANT_PAYABLE = "liabilities:merchant_payable"
FEE_REVENUE = "revenue:fees"


class UnbalancedEntry(ValueError):
    """Debits and credits of an entry differ."""


@dataclass(frozen=True)
class Posting:
    account: str
    debit: int = 0
    credit: int = 0


@dataclass(frozen=True)
class Entry:
    payment_id: str
    kind: str  # "capture" or "refund"
    currency: str
    amount: int
    postings: tuple[Posting, ...]
    note: str = ""


class Ledger:
    def __init__(self) -> None:
        self._entries: list[Entry] = []

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    def post(self, entry: Entry) -> None:
        debits = sum(p.debit for p in entry.postings)
        credits = sum(p.credit for p in entry.postings)
        if debits != credits:
            raise UnbalancedEntry(f"{entry.payment_id}: debits {debits} != credits {credits}")
        self._entries.append(entry)

    def record_capture(self, payment_id: str, amount: int, currency: str, fee: int = 0) -> Entry:
        entry = Entry(
            payment_id,
            "capture",
            currency,
            amount,
            (
                Posting(PSP_RECEIVABLE, debit=amount),
                Posting(MERCHANT_PAYABLE, credit=amount - fee),
                Posting(FEE_REVENUE, credit=fee),
            ),
        )
        self.post(entry)
        return entry

    def record_refund(self, payment_id: str, amount: int, currency: str, note: str = "") -> Entry:
        """Record a (possibly partial) refund. ``note`` is free text from the merchant: store it,
        never interpret it."""
        entry = Entry(
            payment_id,
            "refund",
            currency,
            amount,
            (Posting(MERCHANT_PAYABLE, debit=amount), Posting(PSP_RECEIVABLE, credit=amount)),
            note,
        )
        self.post(entry)
        return entry

    def balance(self, account: str, currency: str) -> int:
        """Debits minus credits of ``account``."""
        return sum(
            p.debit - p.credit
            for e in self._entries
            if e.currency == currency
            for p in e.postings
            if p.account == account
        )

    def net_amount(self, payment_id: str) -> int:
        """Captured minus refunded, as Meridian should settle it."""
        captured = sum(e.amount for e in self._entries if e.payment_id == payment_id and e.kind == "capture")
        refunds = [e.amount for e in self._entries if e.payment_id == payment_id and e.kind == "refund"]
        return captured - sum(refunds)  #@partial
        return captured - (refunds[-1] if refunds else 0)  #@!partial


def reconcile(ledger: Ledger, settled: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Compare the ledger with Meridian's settlement report (payment id -> settled net amount).

    Returns ``{payment_id: (ledger_amount, settled_amount)}`` for every payment that differs.
    """
#@if partial
    # PAY-6: net_amount used to subtract only the latest refund, so every payment refunded in
    # more than one part was reported as a mismatch.
#@endif
    payment_ids = {e.payment_id for e in ledger.entries} | set(settled)
    mismatches: dict[str, tuple[int, int]] = {}
    for payment_id in sorted(payment_ids):
        ours = ledger.net_amount(payment_id)
        theirs = settled.get(payment_id, 0)
        if ours != theirs:
            mismatches[payment_id] = (ours, theirs)
    return mismatches
'''

CIRCUIT_BREAKER = r'''"""A circuit breaker around the Meridian client (PAY-23).

After ``failure_threshold`` consecutive failures the breaker opens and calls fail fast for
``reset_timeout`` seconds; then one trial call is let through (half-open).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class CircuitOpen(Exception):
    """The breaker is open; the call was not attempted."""


class CircuitBreaker:
    def __init__(
        self, failure_threshold: int = 5, reset_timeout: float = 30.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.failure_threshold = failure_threshold
        self.reset_timeout = reset_timeout
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None

    @property
    def state(self) -> str:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.reset_timeout:
            return "half-open"
        return "open"

    def call(self, fn: Callable[[], T]) -> T:
        if self.state == "open":
            raise CircuitOpen("Meridian circuit open")
        try:
            result = fn()
        except Exception:
            self._failures += 1
            if self._failures >= self.failure_threshold or self.state == "half-open":
                self._opened_at = self._clock()
            raise
        self._failures = 0
        self._opened_at = None
        return result
'''

MONEY = r'''"""Amounts for API v2: integers in minor units with ISO 4217 exponents (PAY-20)."""

from __future__ import annotations

from decimal import Decimal

# ISO 4217 minor-unit exponents of the currencies we settle.
EXPONENTS = {"EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, "JPY": 0, "KWD": 3}


def to_minor(amount: Decimal | str, currency: str) -> int:
    """``Decimal("19.99"), "EUR"`` -> ``1999``. Raises on sub-minor precision."""
    exponent = EXPONENTS[currency]
    value = Decimal(amount) * (10**exponent)
    if value != value.to_integral_value():
        raise ValueError(f"{amount} {currency} has more than {exponent} decimal places")
    return int(value)


def from_minor(amount: int, currency: str) -> Decimal:
    """``1999, "EUR"`` -> ``Decimal("19.99")``."""
    return Decimal(amount).scaleb(-EXPONENTS[currency])
'''

TEST_RETRY = r"""#@if rng
import random

#@endif
import pytest

from payments.retry import RetriesExhausted, RetryableError, RetryPolicy, call_with_retry, is_retryable_status


def flaky(failures: int, error: RetryableError):
    calls = {"n": 0}

    def fn():
        calls["n"] += 1
        if calls["n"] <= failures:
            raise error
        return "ok"

    return fn, calls


def test_retries_503_until_success():
    fn, calls = flaky(2, RetryableError("HTTP 503", status=503))
    sleeps = []
    assert call_with_retry(fn, RetryPolicy(), sleep=sleeps.append) == "ok"
    assert calls["n"] == 3
    assert len(sleeps) == 2


def test_gives_up_after_max_attempts():
    fn, calls = flaky(10, RetryableError("HTTP 503", status=503))
    with pytest.raises(RetriesExhausted) as info:
        call_with_retry(fn, RetryPolicy(max_attempts=3), sleep=lambda s: None)
    assert info.value.attempts == 3
    assert calls["n"] == 3


def test_backoff_is_capped():
    policy = RetryPolicy(base_delay=1.0, max_delay=2.0)
    assert all(0.0 <= policy.backoff(attempt) <= 2.0 for attempt in range(1, 10))
#@if after


def test_retry_after_is_honoured_and_capped():
    policy = RetryPolicy(max_delay=5.0)
    assert policy.backoff(1, retry_after=3) == 3
    assert policy.backoff(1, retry_after=120) == 5.0


def test_429_is_retryable():
    assert is_retryable_status(429)
    assert not is_retryable_status(400)
#@endif
#@if idem


def test_post_without_idempotency_key_is_not_retried():
    # PAY-8 / PAY-13: the first attempt may have created the charge.
    fn, calls = flaky(1, RetryableError("read timeout"))
    with pytest.raises(RetriesExhausted):
        call_with_retry(fn, RetryPolicy(), method="POST", headers={}, sleep=lambda s: None)
    assert calls["n"] == 1


def test_post_with_idempotency_key_is_retried():
    fn, calls = flaky(1, RetryableError("read timeout"))
    headers = {"Idempotency-Key": "2f1c6a0e-5b7d-4f3e-9c61-0d3c1f1b7a11"}
    assert call_with_retry(fn, RetryPolicy(), method="POST", headers=headers, sleep=lambda s: None) == "ok"
    assert calls["n"] == 2
#@endif
#@if rng


def test_policies_do_not_share_jitter():
    # PAY-25: two workers seeded identically must still be independent from the module RNG.
    random.seed(1234)
    a = RetryPolicy(rng=random.Random(1)).backoff(3)
    b = RetryPolicy(rng=random.Random(2)).backoff(3)
    assert a != b
#@endif
"""

TEST_IDEMPOTENCY = r"""import pytest

from payments.idempotency import (
    DEFAULT_TTL,
    IdempotencyConflict,  #@conflict
    IdempotencyStore,
    RequestInProgress,
    run_once,
)

BODY = {"amount": 1999, "currency": "EUR", "source": "tok_visa_4242"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0

    def __call__(self) -> float:
        return self.now


def charge(counter):
    def process(body):
        counter.append(body)
        return 201, {"id": f"pay_{len(counter)}", "amount": body["amount"]}

    return process


def test_repeat_returns_stored_response():
    store, calls = IdempotencyStore(), []
    first = run_once(store, "m_1", "k1", BODY, charge(calls))
    second = run_once(store, "m_1", "k1", BODY, charge(calls))
    assert first == second == (201, {"id": "pay_1", "amount": 1999})
    assert len(calls) == 1


def test_keys_are_scoped_per_merchant():
    store, calls = IdempotencyStore(), []
    run_once(store, "m_1", "k1", BODY, charge(calls))
    run_once(store, "m_2", "k1", BODY, charge(calls))
    assert len(calls) == 2


def test_in_flight_repeat_is_rejected():
    store = IdempotencyStore()
    assert store.begin("m_1", "k1", BODY) is None
    with pytest.raises(RequestInProgress):
        store.begin("m_1", "k1", BODY)


def test_failure_releases_the_key():
    store, calls = IdempotencyStore(), []

    def boom(body):
        raise ConnectionError("meridian unreachable")

    with pytest.raises(ConnectionError):
        run_once(store, "m_1", "k1", BODY, boom)
    run_once(store, "m_1", "k1", BODY, charge(calls))
    assert len(calls) == 1
#@if conflict


def test_same_key_different_body_conflicts():
    store = IdempotencyStore()
    run_once(store, "m_1", "k1", BODY, charge([]))
    with pytest.raises(IdempotencyConflict):
        store.begin("m_1", "k1", {**BODY, "amount": 2999})
#@endif


def test_keys_expire_after_ttl():
    clock, calls = Clock(), []
    store = IdempotencyStore(clock=clock)
    run_once(store, "m_1", "k1", BODY, charge(calls))
    clock.now += DEFAULT_TTL + 1
    run_once(store, "m_1", "k1", BODY, charge(calls))
    assert len(calls) == 2
#@if ttl72


def test_key_survives_the_48_hour_retry_window():
    # PAY-15: a merchant retried after 30 hours and was charged twice with the old 24h TTL.
    clock, calls = Clock(), []
    store = IdempotencyStore(clock=clock)
    run_once(store, "m_1", "k1", BODY, charge(calls))
    clock.now += 48 * 3600
    run_once(store, "m_1", "k1", BODY, charge(calls))
    assert len(calls) == 1
#@endif
"""

TEST_WEBHOOKS = r"""import json

import pytest

from payments.webhooks import SignatureError, sign, verify_signature  #@!order
from payments.webhooks import PaymentState, SignatureError, apply_event, sign, verify_signature  #@order

SECRET = "whsec_test_3f9a"
NOW = 1_780_000_000


def test_valid_signature_is_accepted():
    raw = json.dumps({"type": "payment.captured", "id": "evt_1"}, separators=(",", ":")).encode()
    event = verify_signature(raw, sign(raw, SECRET, NOW), SECRET, now=NOW)
    assert event["id"] == "evt_1"


def test_tampered_body_is_rejected():
    raw = b'{"type":"payment.captured","amount":1999}'
    header = sign(raw, SECRET, NOW)
    with pytest.raises(SignatureError):
        verify_signature(raw.replace(b"1999", b"9999"), header, SECRET, now=NOW)


def test_old_timestamp_is_rejected():
    raw = b'{"type":"payment.captured"}'
    with pytest.raises(SignatureError):
        verify_signature(raw, sign(raw, SECRET, NOW - 3600), SECRET, now=NOW)
#@if raw


def test_non_ascii_payload_verifies():
    # PAY-10: merchant "Café Zürich" never got a valid signature.
    raw = '{"type":"payment.captured","merchant":"Café Zürich"}'.encode()
    assert verify_signature(raw, sign(raw, SECRET, NOW), SECRET, now=NOW)["merchant"] == "Café Zürich"
#@endif
#@if order


def test_late_capture_does_not_overwrite_refund():
    # PAY-17
    state = apply_event(None, {"type": "payment.captured", "sequence": 2})
    state = apply_event(state, {"type": "payment.refunded", "sequence": 3})
    state = apply_event(state, {"type": "payment.captured", "sequence": 2})
    assert state == PaymentState(status="refunded", sequence=3)
#@endif
"""

TEST_LEDGER = r"""import pytest

from payments.ledger import (
    MERCHANT_PAYABLE,
    PSP_RECEIVABLE,
    Entry,
    Ledger,
    Posting,
    UnbalancedEntry,
    reconcile,
)


def test_capture_is_balanced():
    ledger = Ledger()
    ledger.record_capture("pay_1", 10_000, "EUR", fee=150)
    assert ledger.balance(PSP_RECEIVABLE, "EUR") == 10_000
    assert ledger.balance(MERCHANT_PAYABLE, "EUR") == -9_850


def test_unbalanced_entry_is_rejected():
    with pytest.raises(UnbalancedEntry):
        Ledger().post(Entry("pay_1", "capture", "EUR", 100, (Posting(PSP_RECEIVABLE, debit=100),)))


def test_reconcile_reports_mismatch():
    ledger = Ledger()
    ledger.record_capture("pay_1", 5_000, "EUR")
    assert reconcile(ledger, {"pay_1": 4_000}) == {"pay_1": (5_000, 4_000)}
#@if partial


def test_partial_refunds_reconcile():
    # PAY-6: two partial refunds used to look like a mismatch of the first refund's amount.
    ledger = Ledger()
    ledger.record_capture("pay_1", 10_000, "EUR")
    ledger.record_refund("pay_1", 2_500, "EUR")
    ledger.record_refund("pay_1", 1_500, "EUR")
    assert reconcile(ledger, {"pay_1": 6_000}) == {}
#@endif
"""

TEST_REDACTION = r"""from payments.redaction import mask_pan, redact


def test_card_numbers_are_masked():
    # Meridian's documented test card; never use a real one.
    assert mask_pan("card 4242 4242 4242 4242 declined") == "card ************4242 declined"


def test_non_card_numbers_are_kept():
    assert mask_pan("order 1234567890123") == "order 1234567890123"


def test_sensitive_keys_are_redacted():
    body = {"amount": 1999, "card": {"number": "4242424242424242", "cvc": "123"}}
    assert redact(body) == {"amount": 1999, "card": {"number": "[REDACTED]", "cvc": "[REDACTED]"}}
"""

# path -> template
TEMPLATES: dict[str, str] = {
    "README.md": README,
    "CHANGELOG.md": CHANGELOG,
    "pyproject.toml": PYPROJECT,
    "docs/architecture.md": ARCHITECTURE,
    "docs/retries.md": RETRY_DOC,  # renamed to docs/retry-policy.md in PAY-9
    "docs/retry-policy.md": RETRY_DOC,
    "docs/idempotency.md": IDEMPOTENCY_DOC,
    "docs/webhooks.md": WEBHOOKS_DOC,
    "src/payments/__init__.py": INIT,
    "src/payments/legacy_retry.py": LEGACY_RETRY,
    "src/payments/retry.py": RETRY,
    "src/payments/psp_client.py": PSP_CLIENT,
    "src/payments/redaction.py": REDACTION,
    "src/payments/idempotency.py": IDEMPOTENCY,
    "src/payments/webhooks.py": WEBHOOKS,
    "src/payments/ledger.py": LEDGER,
    "src/payments/circuit_breaker.py": CIRCUIT_BREAKER,
    "src/payments/money.py": MONEY,
    "tests/test_retry.py": TEST_RETRY,
    "tests/test_idempotency.py": TEST_IDEMPOTENCY,
    "tests/test_webhooks.py": TEST_WEBHOOKS,
    "tests/test_ledger.py": TEST_LEDGER,
    "tests/test_redaction.py": TEST_REDACTION,
}
