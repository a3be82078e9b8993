"""Which repository files are indexed: include/exclude globs, a size cap, no binaries.

Globs follow gitignore-like rules on ``/``-separated paths: ``*`` and ``?`` stay inside one
segment, ``**/`` matches any number of directories (also none, so ``**/*.md`` matches
``README.md``), a trailing ``/**`` matches everything below.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

BINARY_SNIFF_BYTES = 8192


@lru_cache(maxsize=512)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    i, out = 0, []
    p = pattern.lstrip("/")
    while i < len(p):
        if p.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif p[i] == "*":
            out.append("[^/]*")
            i += 1
        elif p[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(p[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    return any(glob_to_regex(p).match(path) for p in patterns)


class PathFilter:
    def __init__(self, include: Iterable[str], exclude: Iterable[str] = (), max_bytes: int = 200_000) -> None:
        self.include = list(include)
        self.exclude = list(exclude)
        self.max_bytes = max_bytes

    def wanted(self, path: str, size: int | None = None) -> bool:
        """Whether ``path`` (of ``size`` bytes, when known) is indexed, before reading it."""
        if self.include and not matches_any(path, self.include):
            return False
        if matches_any(path, self.exclude):
            return False
        return size is None or size <= self.max_bytes

    @staticmethod
    def decode(data: bytes) -> str | None:
        """The text of a file, or ``None`` for a binary one (NUL bytes or not UTF-8)."""
        if b"\x00" in data[:BINARY_SNIFF_BYTES]:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None
