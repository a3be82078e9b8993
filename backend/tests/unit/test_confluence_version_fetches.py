"""A page's older versions are requested side by side (``attach_versions`` with the loader's pool):
the same versions in the same order as one at a time, the first failure raised, never more
requests in flight than the pool has threads."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from devkb.sources.base import HistoryPolicy, SourceDocument
from devkb.sources.confluence.history import VERSION_FETCHES, attach_versions
from devkb.store.models import SourceType


class _Server:
    """Older versions of one page, each answered after a short wait; counts requests in flight."""

    def __init__(self, missing: frozenset[int] = frozenset(), failing: int | None = None) -> None:
        self.missing, self.failing = set(missing), failing
        self.lock = threading.Lock()
        self.in_flight = self.most = 0
        self.asked: list[int] = []

    def fetch(self, page_id: str, number: int) -> dict[str, Any] | None:
        with self.lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            self.asked.append(number)
        try:
            time.sleep(0.02)
            if number == self.failing:
                raise ConnectionError(f"version {number} failed")
            if number in self.missing:
                return None
            return _page(page_id, number)
        finally:
            with self.lock:
                self.in_flight -= 1


def _page(page_id: str, number: int) -> dict[str, Any]:
    return {
        "id": page_id,
        "version": {"number": number, "when": f"2026-01-{number:02d}T10:00:00Z", "message": f"edit {number}"},
        "body": {"storage": {"value": f"<p>text of version {number}</p>"}},
    }


def _doc() -> SourceDocument:
    return SourceDocument(
        id="confluence:42",
        type=SourceType.CONFLUENCE,
        kind="page",
        title="T",
        url="u",
        updated_at="",
        content="",
    )


def _versions(server: _Server, pool: ThreadPoolExecutor | None, **kw: Any) -> list[tuple[int, str, str]]:
    doc = _doc()
    attach_versions(doc, _page("42", 12), HistoryPolicy(), server.fetch, pool=pool, **kw)
    return [(v.seq, v.body, v.message) for v in doc.versions]


def test_side_by_side_gives_what_one_at_a_time_gives() -> None:
    alone = _Server(missing=frozenset({5}))
    expected = _versions(alone, None)
    assert alone.most == 1 and [seq for seq, _, _ in expected] == [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12]
    together = _Server(missing=frozenset({5}))
    with ThreadPoolExecutor(VERSION_FETCHES) as pool:
        assert _versions(together, pool) == expected
    assert 1 < together.most <= VERSION_FETCHES
    assert sorted(together.asked) == list(range(1, 12))


def test_numbers_the_listing_lacks_are_not_requested() -> None:
    server = _Server()
    said = {n: f"said {n}" for n in (2, 3, 7, 12)}
    with ThreadPoolExecutor(VERSION_FETCHES) as pool:
        got = _versions(server, pool, messages=lambda _page_id: said)
    assert sorted(server.asked) == [2, 3, 7]
    assert [(seq, message) for seq, _, message in got] == [
        (2, "said 2"),
        (3, "said 3"),
        (7, "said 7"),
        (12, "said 12"),
    ]


def test_a_failed_request_fails_the_page() -> None:
    with ThreadPoolExecutor(VERSION_FETCHES) as pool, pytest.raises(ConnectionError, match="version 6"):
        _versions(_Server(failing=6), pool)
