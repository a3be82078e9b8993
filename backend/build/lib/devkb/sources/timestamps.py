"""ISO-8601 timestamps from the Confluence and GitHub APIs as UTC, to the second — the one form
devkb stores and compares (Jira's own shape, with a ``-0400`` offset, is parsed in jira/convert.py)."""

from __future__ import annotations

from datetime import UTC, datetime


def to_utc_iso(value: str | None) -> str:
    """``"2016-10-26T16:31:23.194+02:00"`` → ``"2016-10-26T14:31:23+00:00"``; naive times are UTC;
    empty or missing → ``""``."""
    if not value:
        return ""
    t = datetime.fromisoformat(value)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.astimezone(UTC).isoformat(timespec="seconds")
