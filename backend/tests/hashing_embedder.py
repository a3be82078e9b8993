"""The test kit's feature-hashing embedder (``devkb_devtools.testkit.hashing_embedder``)."""

from devkb_devtools.testkit.hashing_embedder import HashingEmbedder

__all__ = ["HashingEmbedder"]
