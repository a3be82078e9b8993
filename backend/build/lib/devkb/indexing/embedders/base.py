"""The embedder interface used by indexing (chunks) and retrieval (queries)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class TextEmbedder(Protocol):
    @property
    def model_name(self) -> str:
        """Recorded in the store; a different one needs a re-embed."""
        ...

    @property
    def dimension(self) -> int: ...

    def warm_up(self) -> None:
        """Load the model (never at import time)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts) × dimension`` float32, L2-normalised rows."""
        ...

    def check(self) -> str | None:
        """``None`` when usable, else a message saying what is wrong."""
        ...
