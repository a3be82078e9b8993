"""The server caps BLAS at one thread per product (api/blas_threads.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401 - loads OpenBLAS so threadpoolctl sees it
from threadpoolctl import threadpool_info, threadpool_limits

from devkb.api.blas_threads import limit_blas_threads


def blas_threads() -> set[int]:
    return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}


def test_limit_and_noop():
    original = blas_threads()
    try:
        limit_blas_threads(0)
        assert blas_threads() == original
        limit_blas_threads(1)
        assert blas_threads() == {1}
    finally:
        threadpool_limits(limits=max(original), user_api="blas")
