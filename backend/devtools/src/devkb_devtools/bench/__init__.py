"""``make bench``: devkb's benchmarks, as figures anyone can reproduce.

One module per benchmark — ``ingest``, ``embedding``, ``resync``, ``query``, ``scale`` — each
returning a JSON-able result with its goals; ``harness`` runs them and writes
``artifacts/bench/*.json``; ``report`` renders ``docs/benchmarks.md`` from those files.
Every figure is a median with min/max over repeated runs; every ratio is measured within one
run. Timings are never asserted in tests (``tests/integration/test_bench_quick.py`` checks the
structure of a quick run only).
"""
