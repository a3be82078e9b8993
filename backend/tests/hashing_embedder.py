"""The test kit's feature-hashing embedder (``devkb.testkit.hashing_embedder``)."""

from devkb.testkit.hashing_embedder import HashingEmbedder

__all__ = ["HashingEmbedder"]
