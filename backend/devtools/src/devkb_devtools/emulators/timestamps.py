"""Timestamp parsing and the three wire formats the emulated services use.

- Jira:       ``2016-10-26T16:31:23.194-0400`` (milliseconds, numeric offset without colon)
- Confluence: ``2022-02-25T00:19:32.000Z``
- GitHub:     ``2024-12-04T23:46:58Z``

All arithmetic is done on timezone-aware :class:`datetime` values; naive values are taken as UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

_OFFSET_WITHOUT_COLON = re.compile(r"([+-]\d{2})(\d{2})$")


def parse_timestamp(value: str) -> datetime:
    """Parse any of the three wire formats (or plain ISO 8601) into an aware datetime."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    text = _OFFSET_WITHOUT_COLON.sub(r"\1:\2", text)
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def as_utc(moment: datetime | None) -> datetime:
    """``moment`` in UTC; the current time when None; naive values are taken as UTC."""
    if moment is None:
        return datetime.now(UTC)
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def format_jira(moment: datetime | None = None) -> str:
    """Jira REST format, in UTC: ``2016-10-26T20:31:23.194+0000``."""
    utc = as_utc(moment)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}+0000"


def format_confluence(moment: datetime | None = None) -> str:
    """Confluence REST format: ``2022-02-25T00:19:32.000Z``."""
    utc = as_utc(moment)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def format_github(moment: datetime | None = None) -> str:
    """GitHub REST format: ``2024-12-04T23:46:58Z``."""
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")
