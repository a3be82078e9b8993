"""How close a sentence is to a question in meaning: the cosine of their embeddings by the product's
own embedder (the one retrieval uses), for the extractive answer's sentence choice.

The extractive answer scores a sentence by the words it shares with the question and by whether it
holds what the question asks (agent/focus.py). Words miss a sentence that says it otherwise ("card
numbers" / "PANs"), and a sentence of the first source that shares more words wins over the one of
the third that answers. :class:`SentenceMeaning` adds the meaning, for a bounded set of candidate
sentences (the best by words), so an answer costs at most one batch of short embeddings.

Sentences are those of stored documents, and the same documents come back question after question:
their vectors are remembered (the most recently used :data:`REMEMBERED`). Cosines are rounded to
three decimals, so a vector computed in another batch (a float's last bits) never changes a choice.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

REMEMBERED = 20_000  # sentence vectors kept (384 floats each: ~30 MB at most)
QUESTIONS_REMEMBERED = 64  # a question is scored several times (its gate, its answer)

Embed = Callable[[Sequence[str]], Any]  # texts → len(texts) × dimension, L2-normalised rows


class SentenceMeaning:
    """``similarities(question, sentences)``: cosine(question, sentence) for each sentence, from
    ``embed`` (the product's embedder's ``embed``)."""

    def __init__(self, embed: Embed, remembered: int = REMEMBERED) -> None:
        self.embed = embed
        self.remembered = remembered
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._questions: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def similarities(self, question: str, sentences: Sequence[str]) -> list[float]:
        if not sentences:
            return []
        q = self._question(question)
        missing = [s for s in dict.fromkeys(sentences) if not self._has(s)]
        if missing:
            rows = np.asarray(self.embed(missing), dtype=np.float32)
            with self._lock:
                for s, v in zip(missing, rows, strict=True):
                    self._vectors[s] = v
                while len(self._vectors) > self.remembered:
                    self._vectors.popitem(last=False)
        with self._lock:
            vectors = []
            for s in sentences:
                v = self._vectors.get(s)
                if v is None:  # pushed out by another question's sentences meanwhile
                    v = np.asarray(self.embed([s]), dtype=np.float32)[0]
                self._vectors[s] = v
                self._vectors.move_to_end(s)
                vectors.append(v)
        return [round(float(np.dot(q, v)), 3) for v in vectors]

    def _has(self, sentence: str) -> bool:
        with self._lock:
            return sentence in self._vectors

    def _question(self, question: str) -> np.ndarray:
        with self._lock:
            known = self._questions.get(question)
            if known is not None:
                self._questions.move_to_end(question)
                return known
        v: np.ndarray = np.asarray(self.embed([question]), dtype=np.float32)[0]
        with self._lock:
            self._questions[question] = v
            while len(self._questions) > QUESTIONS_REMEMBERED:
                self._questions.popitem(last=False)
        return v
