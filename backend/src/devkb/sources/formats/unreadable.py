"""``Unreadable``: a file that cannot be converted, with a reason a person can act on."""

from __future__ import annotations

from devkb.errors import DevkbError


class Unreadable(DevkbError):
    """A file that cannot be converted; ``reason`` says why (permanent: retried only once the
    file changes)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
