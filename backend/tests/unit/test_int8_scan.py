"""The 8-bit dense scan: its hand-written ONNX model, exact integer products, the error bound, and
``CorpusSnapshot.top_dense`` choosing the same documents as the float32 scan."""

from __future__ import annotations

import numpy as np
import pytest

from devkb.agent.retrieval import int8_scan, snapshot
from devkb.agent.retrieval.lexical import Tokenizer
from devkb.agent.retrieval.snapshot import CorpusSnapshot, DocEntry
from devkb.store.models import Chunk, Document, SourceType

DIM = 48


def _unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_the_model_is_a_valid_onnx_matmul_integer():
    onnx = pytest.importorskip("onnx")  # setup-time dependency: checks the hand-written bytes
    codes = np.arange(-6, 6, dtype=np.int8).reshape(3, 4)
    model = onnx.load_from_string(int8_scan.matmul_integer_model(codes))
    onnx.checker.check_model(model, full_check=True)
    (node,) = model.graph.node
    assert (node.op_type, list(node.input), list(node.output)) == (
        "MatMulInteger",
        ["A", "B", "A_zero"],
        ["Y"],
    )
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    assert np.array_equal(weights["B"], codes) and weights["A_zero"] == int8_scan.A_ZERO
    assert model.ir_version == 8 and model.opset_import[0].version == 17


def test_products_are_exact_at_the_extremes_and_on_random_rows():
    rng = np.random.default_rng(3)
    vectors = np.concatenate(
        [_unit(rng, 300), np.full((1, DIM), 1.0, np.float32), np.zeros((1, DIM), np.float32)]
    )
    scan = int8_scan.build(vectors)
    assert scan is not None
    codes = np.clip(np.rint(vectors / scan.scale[:, None]), -63, 63).astype(np.int64)
    assert np.abs(codes).max() == int8_scan.B_LIMIT
    for a in (np.full(DIM, 255), np.full(DIM, 1), rng.integers(1, 256, DIM)):
        got = scan.products(a.astype(np.uint8)[None, :])
        assert np.array_equal(got, codes @ (a - int8_scan.A_ZERO))


def test_the_bound_holds_for_every_row():
    rng = np.random.default_rng(4)
    vectors = _unit(rng, 2000)
    vectors[::7] *= 0.5  # rows need not be unit length
    scan = int8_scan.build(vectors)
    assert scan is not None
    for query in _unit(rng, 20):
        estimate, q_error, q_norm = scan.scores(query)
        bound = q_error * scan.norm + q_norm * scan.residual + int8_scan.ROUNDING
        exact = vectors.astype(np.float64) @ query.astype(np.float64)
        assert np.all(np.abs(estimate - exact) <= bound)
        assert np.median(bound) < 0.05  # a bound that rescored everything would be useless


def _snapshot(rng: np.random.Generator, chunks_per_doc: list[int]) -> CorpusSnapshot:
    entries = []
    for i, n in enumerate(chunks_per_doc):
        doc = Document(id=f"jira:T-{i}", type=SourceType.JIRA, title=f"T-{i}", content_hash=str(i))
        chunks = tuple(
            Chunk(id=f"c{i}-{j}", document_id=doc.id, chunk_index=j, content="x") for j in range(n)
        )
        vectors = _unit(rng, n) if n else np.zeros((0, DIM), np.float32)
        entries.append(DocEntry(doc, chunks, vectors, ("x",), ("x",)))
    return CorpusSnapshot(entries, Tokenizer(), DIM)


def _exact_top(snap: CorpusSnapshot, docs: np.ndarray, query: np.ndarray, k: int) -> set[int]:
    best, _, _ = snap.similarities(docs, query)
    k = min(k, len(docs))
    return set(np.argpartition(-best, k - 1)[:k].tolist())


def test_top_dense_keeps_the_documents_the_float32_scan_keeps(monkeypatch):
    monkeypatch.setattr(snapshot, "INT8_SCAN_MIN_CHUNKS", 100)
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 6, 700).tolist()  # some documents without chunks
    snap = _snapshot(rng, counts)
    assert snap.int8_scan() is not None
    everything = np.arange(snap.n)
    most = np.sort(rng.choice(snap.n, size=int(snap.n * 0.8), replace=False))
    for query in _unit(rng, 25):
        for docs, k in ((everything, 50), (everything, 1), (most, 30), (most, 10_000)):
            got = snap.top_dense(docs, query, k)
            assert len(got) == min(k, len(docs))
            assert set(got.tolist()) == _exact_top(snap, docs, query, k)


def test_top_dense_scans_in_float32_below_the_threshold_or_without_the_scan(monkeypatch):
    rng = np.random.default_rng(6)
    snap = _snapshot(rng, [2] * 50)
    assert snap.int8_scan() is None  # 100 chunks: under INT8_SCAN_MIN_CHUNKS
    query = _unit(rng, 1)[0]
    docs = np.arange(snap.n)
    assert set(snap.top_dense(docs, query, 7).tolist()) == _exact_top(snap, docs, query, 7)
    monkeypatch.setattr(snapshot, "INT8_SCAN_MIN_CHUNKS", 10)
    monkeypatch.setattr(int8_scan, "_exact", lambda scan, codes: False)  # a machine where it differs
    fresh = _snapshot(rng, [2] * 50)
    assert fresh.int8_scan() is None
    assert set(fresh.top_dense(docs, query, 7).tolist()) == _exact_top(fresh, docs, query, 7)
