"""Embedders served by another process — Ollama (nomic-embed-text) or OpenAI — wrapped as
``TextEmbedder`` around Haystack's document embedders. The dimension is learnt from the first
vector the service returns (``dimension`` probes it once)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from haystack import Document as HsDocument

KNOWN_DIMENSIONS = {
    "nomic-embed-text": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class HaystackDocumentEmbedder:
    """Adapts a Haystack document embedder component (``run(documents=...)``) to ``TextEmbedder``."""

    def __init__(self, model_name: str, component: Any, concurrency: int = 1) -> None:
        self.model_name = model_name
        self._component = component
        self.concurrency = concurrency  # requests the indexer may send at once (ChunkEmbedder)
        self._dimension: int | None = KNOWN_DIMENSIONS.get(model_name.split("/", 1)[-1].split(":")[0])
        self._lock = threading.Lock()
        self._warm = False

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def warm_up(self) -> None:
        with self._lock:
            if not self._warm:
                if hasattr(self._component, "warm_up"):
                    self._component.warm_up()
                self._warm = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        self.warm_up()
        docs = self._component.run(documents=[HsDocument(content=t) for t in texts])["documents"]
        vectors = np.asarray([d.embedding for d in docs], dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def check(self) -> str | None:
        try:
            self.embed(["health check"])
            return None
        except Exception as e:  # reported by /health
            return f"{self.model_name} is not reachable: {type(e).__name__}: {str(e)[:200]}"


def ollama_embedder(url: str, model: str, concurrency: int = 1) -> HaystackDocumentEmbedder:
    from haystack_integrations.components.embedders.ollama import OllamaDocumentEmbedder

    return HaystackDocumentEmbedder(
        f"ollama/{model}", OllamaDocumentEmbedder(model=model, url=url, progress_bar=False), concurrency
    )


def openai_embedder(
    api_key: Any, model: str, base_url: str | None = None, concurrency: int = 1, batch_size: int = 32
) -> HaystackDocumentEmbedder:
    from haystack.components.embedders import OpenAIDocumentEmbedder
    from haystack.utils import Secret

    component = OpenAIDocumentEmbedder(
        api_key=Secret.from_token(api_key.get_secret_value()),
        model=model,
        api_base_url=base_url,
        progress_bar=False,
        raise_on_failure=True,
        batch_size=batch_size,
    )
    return HaystackDocumentEmbedder(f"openai/{model}", component, concurrency)
