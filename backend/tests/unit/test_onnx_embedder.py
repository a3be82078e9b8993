"""The ONNX Runtime embedder: exported once per session from the bundled weights into a tmp dir."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.embedders.local_minilm import MODEL_NAME, LocalMiniLMEmbedder
from devkb.indexing.embedders.onnx_export import ensure_export, export_dir_for, source_hash
from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder

SENTENCES = [
    "The uploader fails when the file name contains a space.",
    "Reorganize the preferences framework panels so they can be reused.",
    "x",
    "",
    "Inline edit: pressing Escape should cancel the edit and restore the original value. " * 12,
    "Update the build to Grunt 1.0 and drop the old lint configuration.",
]


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    ensure_export(directory)
    return directory


@pytest.fixture(scope="session")
def int8(cache_dir):
    embedder = OnnxMiniLMEmbedder(cache_dir=cache_dir)
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="session")
def fp32(cache_dir):
    embedder = OnnxMiniLMEmbedder(cache_dir=cache_dir, precision="fp32")
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="session")
def torch_vectors():
    return LocalMiniLMEmbedder().embed(SENTENCES)


def test_implements_protocol_and_names(int8, fp32):
    assert isinstance(int8, TextEmbedder) and isinstance(fp32, TextEmbedder)
    assert fp32.model_name == MODEL_NAME  # same vectors as torch: no re-embed when switching
    assert int8.model_name != MODEL_NAME and int8.model_name.startswith(MODEL_NAME)
    assert int8.dimension == fp32.dimension == 384
    assert int8.check() is None


def test_shapes_dtype_and_normalised(int8):
    vectors = int8.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input(int8):
    empty = int8.embed([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def test_order_preserved_with_mixed_lengths_and_batches(cache_dir, fp32):
    small_batches = OnnxMiniLMEmbedder(cache_dir=cache_dir, precision="fp32", batch_size=2)
    texts = SENTENCES[::-1] + SENTENCES[:3]
    batched = small_batches.embed(texts)
    one_by_one = np.vstack([fp32.embed([t]) for t in texts])
    # rows come back in input order, and padding inside a batch does not change a vector
    np.testing.assert_allclose(batched, one_by_one, atol=1e-4)
    np.testing.assert_allclose(batched[-3:], batched[len(SENTENCES) - 3 : len(SENTENCES)][::-1], atol=1e-5)


def test_int8_order_preserved(cache_dir, int8):
    small_batches = OnnxMiniLMEmbedder(cache_dir=cache_dir, batch_size=2)
    texts = SENTENCES[::-1] + SENTENCES[:3]
    batched = small_batches.embed(texts)
    one_by_one = np.vstack([int8.embed([t]) for t in texts])
    # int8 activations are quantised with one scale per batch tensor, so a vector depends a little
    # on its batch mates: equal up to quantisation noise, and each row still is its own text
    assert _cos(batched, one_by_one).min() > 0.97
    similarity = batched @ one_by_one.T
    for i, text in enumerate(texts):
        same = [j for j, t in enumerate(texts) if t == text]
        assert similarity[i].argmax() in same


def test_truncates_long_text_like_torch(int8):
    long_text = "word " * 2000
    longer = long_text + "completely different tail " * 200
    a, b = int8.embed([long_text, longer])
    assert float(a @ b) > 0.9999  # both cut at 256 tokens


def test_fp32_matches_torch(fp32, torch_vectors):
    cosine = _cos(fp32.embed(SENTENCES), torch_vectors)
    assert cosine.min() > 0.9999


def test_int8_agrees_with_torch(int8, torch_vectors):
    cosine = _cos(int8.embed(SENTENCES), torch_vectors)
    real = [i for i, t in enumerate(SENTENCES) if len(t) > 20]  # "" and "x" are ~0.98: 2-3 tokens only
    assert cosine[real].min() > 0.98, cosine
    assert cosine.mean() > 0.985, cosine


def test_export_is_cached_and_keyed_by_source_hash(cache_dir, tmp_path):
    key = source_hash()
    directory = export_dir_for(cache_dir, key)
    assert ensure_export(cache_dir) == directory  # no rebuild: already complete
    assert len(key) == 64 and directory.name == key[:16]


def test_stale_export_is_rebuilt_and_removed(tmp_path, monkeypatch):
    """A change of source weights (or recipe) changes the key: new export dir, old one deleted."""
    from devkb.indexing.embedders import onnx_export

    built: list[Path] = []

    def fake_export(out_dir, model_dir=None, key=None):  # the real one is covered by the fixtures
        for name in (onnx_export.FP32_FILE, onnx_export.INT8_FILE, onnx_export.TOKENIZER_FILE):
            (out_dir / name).write_text("")
        (out_dir / onnx_export.MANIFEST_FILE).write_text(json.dumps({"key": key}))
        built.append(out_dir)

    monkeypatch.setattr(onnx_export, "export", fake_export)
    first = ensure_export(tmp_path)
    assert ensure_export(tmp_path) == first and len(built) == 1
    monkeypatch.setattr(onnx_export, "RECIPE", onnx_export.RECIPE + "-changed")  # as if new weights
    second = ensure_export(tmp_path)
    assert second != first and len(built) == 2
    assert second.is_dir() and not first.exists()
    assert sorted(p.name for p in second.parent.iterdir() if p.is_dir()) == [second.name]


def test_check_reports_unusable_cache_dir(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    message = OnnxMiniLMEmbedder(cache_dir=blocker / "models").check()
    assert message is not None and "ONNX" in message


def test_parallel_workers_give_the_single_worker_vectors(cache_dir):
    """Micro-batches spread over several worker threads land in their own rows: the same vectors
    as one thread running the same micro-batches in order (fp32: no batch-dependent quantisation)."""
    texts = [f"{i}: " + SENTENCES[i % len(SENTENCES)] * (1 + i % 4) for i in range(41)]
    one = OnnxMiniLMEmbedder(cache_dir=cache_dir, precision="fp32", batch_size=3, workers=1)
    many = OnnxMiniLMEmbedder(cache_dir=cache_dir, precision="fp32", batch_size=3, workers=3)
    try:
        np.testing.assert_allclose(many.embed(texts), one.embed(texts), atol=1e-5)
        assert many._pool is not None and one._pool is None
    finally:
        many.close()


def test_a_failing_run_raises_in_the_caller(cache_dir):
    embedder = OnnxMiniLMEmbedder(cache_dir=cache_dir, batch_size=1, workers=2)
    embedder.warm_up()

    class Broken:
        def run(self, *args, **kwargs):
            raise RuntimeError("session died")

    embedder._session = Broken()  # type: ignore[assignment]
    with pytest.raises(RuntimeError, match="session died"):
        embedder.embed(SENTENCES)
    embedder.close()


def test_workers_run_one_session_at_the_same_time(cache_dir):
    """One copy of the weights for every worker: the workers call the one session's ``run``
    concurrently (ONNX Runtime allows it) rather than each holding a session of its own."""
    embedder = OnnxMiniLMEmbedder(cache_dir=cache_dir, batch_size=1, workers=2)
    embedder.warm_up()
    real = embedder._session
    assert real is not None
    lock, in_flight, most, threads = threading.Lock(), [0], [0], set()

    class Watched:
        def run(self, *args, **kwargs):
            with lock:
                in_flight[0] += 1
                most[0] = max(most[0], in_flight[0])
                threads.add(threading.get_ident())
            try:
                time.sleep(0.02)  # long enough for the other worker to arrive
                return real.run(*args, **kwargs)
            finally:
                with lock:
                    in_flight[0] -= 1

    embedder._session = Watched()  # type: ignore[assignment]
    try:
        vectors = embedder.embed(SENTENCES * 2)
    finally:
        embedder.close()
    assert most[0] == 2 and len(threads) == 2
    assert vectors.shape == (len(SENTENCES) * 2, embedder.dimension)


def test_rejects_nonsense_sizes(cache_dir):
    with pytest.raises(ValueError):
        OnnxMiniLMEmbedder(cache_dir=cache_dir, batch_size=0)
    with pytest.raises(ValueError):
        OnnxMiniLMEmbedder(cache_dir=cache_dir, workers=0)


def test_without_the_weights_the_shipped_export_is_used(cache_dir, monkeypatch):
    import devkb.indexing.embedders.onnx_export as onnx_export

    monkeypatch.setattr(onnx_export, "has_bundled_model", lambda: False)  # a runtime without the torch extra
    assert ensure_export(cache_dir) == export_dir_for(cache_dir, source_hash())


def test_without_export_and_without_torch_the_error_names_the_command(tmp_path, monkeypatch):
    import devkb.indexing.embedders.onnx_export as onnx_export

    monkeypatch.setattr(onnx_export, "has_bundled_model", lambda: False)
    with pytest.raises(onnx_export.ModelNotExported, match="onnx_export --out"):
        ensure_export(tmp_path)
    monkeypatch.setattr(onnx_export, "has_bundled_model", lambda: True)
    monkeypatch.setattr(onnx_export, "can_export", lambda: False)  # weights, but no torch
    with pytest.raises(onnx_export.ModelNotExported, match="torch is not installed"):
        ensure_export(tmp_path)
    assert not (tmp_path / onnx_export.EXPORT_SUBDIR).exists()
