"""Inbound Meridian webhooks: signature verification (PAY-11, PAY-10) and event ordering (PAY-17).

Meridian signs ``<timestamp>.<raw body>`` with HMAC-SHA256 and sends the header
``Meridian-Signature: t=<unix seconds>,v1=<hex digest>``. Design: wiki page "Webhook Delivery Design".
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
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
    # PAY-10: sign the bytes exactly as received. Re-serialising the parsed JSON escaped
    # non-ASCII characters ("Zürich" became "Z\u00fcrich") and the HMAC never matched.
    signed = str(timestamp).encode() + b"." + raw_body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, candidate) for candidate in signatures):
        raise SignatureError("no matching v1 signature")
    return json.loads(raw_body)


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
