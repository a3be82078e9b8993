"""The sync's read-ahead of source batches: order, errors where they happened, early stops."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from devkb.indexing.sync import prefetched
from devkb.sources.base import LoadBatch


def _batches(n: int, fail_at: int | None = None, closed: list[bool] | None = None) -> Iterator[LoadBatch]:
    try:
        for i in range(n):
            if i == fail_at:
                raise RuntimeError(f"source failed at {i}")
            yield LoadBatch([], cursor=str(i))
    finally:
        if closed is not None:
            closed.append(True)


@pytest.mark.parametrize("depth", [0, 1, 2, 5])
def test_batches_come_in_order(depth: int) -> None:
    assert [b.cursor for b in prefetched(_batches(20), depth)] == [str(i) for i in range(20)]


def test_the_source_is_read_by_another_thread() -> None:
    seen: list[str] = []

    def source() -> Iterator[LoadBatch]:
        for i in range(3):
            seen.append(threading.current_thread().name)
            yield LoadBatch([], cursor=str(i))

    list(prefetched(source(), 2))
    assert seen and all(name == "devkb-sync-prefetch" for name in seen)


def test_an_error_comes_after_the_batches_before_it() -> None:
    got: list[str | None] = []
    with pytest.raises(RuntimeError, match="failed at 3"):
        for b in prefetched(_batches(10, fail_at=3), 2):
            got.append(b.cursor)
    assert got == ["0", "1", "2"]


def test_stopping_early_closes_the_source() -> None:
    closed: list[bool] = []
    it = prefetched(_batches(1000, closed=closed), 2)
    assert next(it).cursor == "0"
    it.close()  # the caller failed on its first batch
    assert closed == [True]
    assert not any(t.name == "devkb-sync-prefetch" for t in threading.enumerate())


def test_prepare_runs_on_each_batch_in_the_thread_and_a_failure_only_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    prepared: list[tuple[str | None, str]] = []

    def prepare(batch: LoadBatch) -> None:
        prepared.append((batch.cursor, threading.current_thread().name))
        if batch.cursor == "1":
            raise RuntimeError("embedder down")

    got = [b.cursor for b in prefetched(_batches(3), 2, prepare)]
    assert got == ["0", "1", "2"]
    assert prepared == [(str(i), "devkb-sync-prefetch") for i in range(3)]
    assert "read-ahead preparation failed: RuntimeError: embedder down" in caplog.text
