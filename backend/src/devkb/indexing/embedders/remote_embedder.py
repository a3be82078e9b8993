"""Embedders served by another process — Ollama (nomic-embed-text) through Haystack's document
embedder, OpenAI or any OpenAI-compatible server (a GPU service) through the ``openai`` client.
The dimension is learnt from the first vector the service returns (``dimension`` probes it once).

The OpenAI-compatible embedder asks for base64 vectors and decodes them with numpy: Haystack's
``OpenAIDocumentEmbedder`` asks for JSON floats, and the client then builds every float of every
vector through its model layer — on a simulated GPU serving 2,500 chunks/s that parsing took two
thirds of the client's CPU and capped indexing at ~700 chunks/s on two cores. A server that
ignores ``encoding_format`` and sends floats is read as well."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Sequence
from typing import Any

import httpx
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


class OpenAICompatibleEmbedder(HaystackDocumentEmbedder):
    """``POST {base_url}/embeddings`` with the ``openai`` client (its retries, timeouts and auth),
    ``batch_size`` texts per request, vectors as base64 float32."""

    def __init__(
        self, api_key: str, model: str, base_url: str | None, concurrency: int = 1, batch_size: int = 32
    ) -> None:
        from openai import OpenAI

        super().__init__(f"openai/{model}", None, concurrency)
        self._model = model
        self._batch_size = batch_size
        self._client = OpenAI(api_key=api_key, base_url=base_url)

    def warm_up(self) -> None:
        self._warm = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self._batch_size]))
            for i in range(0, len(texts), self._batch_size)
        ]
        vectors = np.concatenate(parts) if len(parts) > 1 else parts[0]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        out: np.ndarray = vectors / np.where(norms == 0, 1, norms)
        return out

    def _request(self, texts: list[str]) -> np.ndarray:
        # the client's documented way to post a body as it is (its retries, timeouts and auth):
        # ``embeddings.create`` first walks every input text through its type-driven parameter
        # transform, ~30 % of the client's CPU per request of 32 texts (docs/deployment.md)
        raw = self._client.post(
            "/embeddings",
            cast_to=httpx.Response,
            body={"model": self._model, "input": texts, "encoding_format": "base64"},
        )
        try:
            items = sorted(json.loads(raw.content)["data"], key=lambda d: int(d.get("index", 0)))
            rows = [
                np.frombuffer(base64.b64decode(e), dtype="<f4")
                if isinstance(e := item["embedding"], str)
                else np.asarray(e, dtype=np.float32)
                for item in items
            ]
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{self.model_name}: unexpected embeddings response: {e}") from e
        if len(rows) != len(texts):
            raise ValueError(f"{self.model_name}: {len(rows)} vectors for {len(texts)} texts")
        return np.stack(rows).astype(np.float32, copy=False)


def openai_embedder(
    api_key: Any, model: str, base_url: str | None = None, concurrency: int = 1, batch_size: int = 32
) -> HaystackDocumentEmbedder:
    return OpenAICompatibleEmbedder(api_key.get_secret_value(), model, base_url, concurrency, batch_size)
