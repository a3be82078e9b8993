"""Wiring for tests, benchmarks and evaluation: the product's parts built by its own container,
with overrides for what a test stands in (loaders, the embedder, a fixed link context) — never a
pipeline wired by hand, so what is tested is what ships."""

from devkb_devtools.testkit.indexer import Indexer, build_indexer

__all__ = ["Indexer", "build_indexer"]
