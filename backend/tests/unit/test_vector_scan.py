"""The vector index's scan: split over threads from ``PARALLEL_SCAN_ROWS`` rows, the same scores."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from devkb.store.sqlite import vector_index
from devkb.store.sqlite.vector_index import scan


@pytest.fixture
def matrix() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.standard_normal((1_001, 16), dtype=np.float32), rng.standard_normal(16).astype(np.float32)


def test_a_split_scan_gives_the_scores_of_one_product(monkeypatch, matrix):
    vectors, q = matrix
    rows = np.flatnonzero(np.arange(vectors.shape[0]) % 3 == 0)
    whole, picked = vectors @ q, vectors[rows] @ q
    names: set[str] = set()
    original = np.matmul

    def spying(*args, **kwargs):
        names.add(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(vector_index, "PARALLEL_SCAN_ROWS", 100)
    monkeypatch.setattr(vector_index, "SCAN_THREADS", 3)
    monkeypatch.setattr(vector_index.np, "matmul", spying)
    # the same products, in blocks (BLAS may sum a row in another order: equal to the last bits)
    np.testing.assert_allclose(scan(vectors, q), whole, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(scan(vectors, q, rows), picked, rtol=1e-6, atol=1e-5)
    assert names and all(n.startswith("devkb-vector-scan") for n in names)  # off the caller's thread


def test_a_small_scan_stays_on_the_callers_thread(monkeypatch, matrix):
    vectors, q = matrix
    monkeypatch.setattr(vector_index, "PARALLEL_SCAN_ROWS", 10_000)
    called: list[str] = []
    original = np.matmul
    monkeypatch.setattr(
        vector_index.np, "matmul", lambda *a, **k: called.append("split") or original(*a, **k)
    )
    np.testing.assert_array_equal(scan(vectors, q), vectors @ q)
    assert called == []
