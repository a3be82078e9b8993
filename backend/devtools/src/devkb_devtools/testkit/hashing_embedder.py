"""A cheap but real text embedder for corpus-scale tests: feature hashing of word unigrams and
bigrams into 384 dimensions, L2-normalised (the classic "hashing trick").

It runs the indexing pipeline's embed step for real — every chunk gets a vector that the writer
stores and vector search can use — at ~50,000 chunks/s instead of MiniLM's ~23 chunks/s on two
cores, so the whole Fluid corpus (~23,000 chunks) indexes in a test. Tests that check what the
graph contains (documents, chunks, edges) use it; tests of retrieval quality use MiniLM."""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    model_name = "devkb-test/feature-hashing-384"
    dimension = 384

    def warm_up(self) -> None:
        pass

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            for feature in [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]:
                h = zlib.crc32(feature.encode())
                out[row, h % self.dimension] += 1.0 if (h >> 16) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        normalised: np.ndarray = out / norms
        return normalised

    def check(self) -> str | None:
        return None
