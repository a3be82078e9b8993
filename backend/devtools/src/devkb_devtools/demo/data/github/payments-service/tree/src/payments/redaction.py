"""Masking of card data before anything is logged (PAY-18, PCI DSS 4.0 requirement 3.4).

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
