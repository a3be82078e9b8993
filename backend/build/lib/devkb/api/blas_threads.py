"""One BLAS thread per request thread in the server.

numpy's OpenBLAS runs each matrix product on a pool of threads (one per core). The server
already runs requests in parallel on a thread pool, and with several request threads calling
into BLAS at once those pools thrash: ``RelatedSearch`` with 8 concurrent searches on the
2-core machine served 47 searches/s (p95 383 ms) with the library default and 241/s (p95 60 ms)
with one BLAS thread — single-client latency was unchanged (4.9 vs 5.2 ms). The server's
parallelism is its request threads and ONNX Runtime's sessions, so BLAS runs single-threaded
there (``DEVKB_BLAS_THREADS``; 0 keeps the library default).
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def limit_blas_threads(threads: int) -> None:
    """Cap BLAS threads for the whole process (a no-op for 0 or without threadpoolctl)."""
    if threads <= 0:
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; kept optional for slim installs
        log.warning("threadpoolctl is not installed: BLAS keeps its default thread count")
        return
    threadpool_limits(limits=threads, user_api="blas")
