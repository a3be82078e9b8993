"""The pipeline benchmark's stand-ins: the simulated GPU embeddings server speaks the OpenAI
protocol to devkb's own openai embedder, and concurrent batches keep chunk order."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import numpy as np
import pytest
from haystack import Document as HsDocument

from devkb.indexing.components.chunk_embedder import ChunkEmbedder
from devkb.indexing.shared_document import Batch
from devkb_devtools.bench.pipeline_speed import (
    PassThroughEmbedder,
    SimulatedEmbeddingServer,
    dense_vector,
    remote_embedder,
)


class _NoStore:
    def chunk_embeddings(self, ids: list[str]) -> dict[str, list[float]]:
        return {}


def test_remote_embedder_through_the_simulated_server_matches_its_vectors() -> None:
    with SimulatedEmbeddingServer(rate=100_000) as server:
        embedder = remote_embedder(server, concurrency=4)
        assert getattr(embedder, "concurrency", 1) == 4
        texts = [f"chunk number {i} about the build" for i in range(70)]
        vectors = embedder.embed(texts)
        assert vectors.shape == (70, 384)
        expected = np.stack([dense_vector(t) for t in texts])
        assert np.allclose(vectors, expected, atol=1e-5)
        assert server.stats()["server_texts"] == 70

        chunker = ChunkEmbedder(embedder, _NoStore(), batch_size=8)  # type: ignore[arg-type]
        docs = [HsDocument(id=f"c{i}", content=t) for i, t in enumerate(texts)]
        out = chunker.run(docs)["chunks"]
        assert [d.id for d in out] == [d.id for d in docs]
        got = np.asarray([d.embedding for d in out], dtype=np.float32)
        assert np.allclose(got, expected, atol=1e-5)
        assert server.stats()["server_requests"] >= 1 + 9  # the first call, then ten batches of at most 8


def test_simulated_server_rejects_bad_input_and_unknown_paths() -> None:
    with SimulatedEmbeddingServer() as server:
        bad = urllib.request.Request(
            f"{server.base_url}/embeddings", data=json.dumps({"input": [1, 2]}).encode(), method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(bad, timeout=5)
        assert e.value.code == 400
        missing = urllib.request.Request(f"{server.base_url}/chat", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(missing, timeout=5)
        assert e.value.code == 404


def test_pass_through_is_deterministic_and_unit_length() -> None:
    e = PassThroughEmbedder()
    a, b = e.embed(["x", "y"]), e.embed(["x", "y"])
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)


class _CountingEmbedder(PassThroughEmbedder):
    concurrency = 2

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return super().embed(texts)


def test_chunks_embedded_ahead_are_not_embedded_again() -> None:
    inner = _CountingEmbedder()
    chunker = ChunkEmbedder(inner, _NoStore(), batch_size=4)  # type: ignore[arg-type]
    docs = [HsDocument(id=f"c{i}", content=f"text {i}") for i in range(10)]
    chunker.embed_ahead(docs[:7])  # sent, not waited for
    assert chunker.embedded == 7 and len(chunker._ahead) == 7
    out = chunker.run(docs)["chunks"]  # waits for those, embeds only the rest
    assert sorted(inner.texts[:7]) == sorted(f"text {i}" for i in range(7))
    assert inner.texts[7:] == [f"text {i}" for i in range(7, 10)]
    assert chunker.embedded == 10 and chunker.reused == 0
    assert [d.id for d in out] == [d.id for d in docs]
    assert np.array_equal(
        np.asarray([d.embedding for d in out]), PassThroughEmbedder().embed([d.content for d in docs])
    )
    assert not chunker._ahead  # taken, not kept


def test_the_token_window_is_part_of_the_model_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder

    full = OnnxMiniLMEmbedder(cache_dir=tmp_path)
    short = OnnxMiniLMEmbedder(cache_dir=tmp_path, max_seq_length=128)
    assert full.model_name == "sentence-transformers/all-MiniLM-L6-v2#onnx-int8"  # stores written before
    assert short.model_name == "sentence-transformers/all-MiniLM-L6-v2#onnx-int8#max128"
    with pytest.raises(ValueError, match="between 8 and 512"):
        OnnxMiniLMEmbedder(cache_dir=tmp_path, max_seq_length=1024)


class _FailingFirstEmbedder(_CountingEmbedder):
    """Fails its first request, as a remote embedder can."""

    def embed(self, texts):  # type: ignore[no-untyped-def]
        if not self.texts:
            self.texts.append("<failed>")
            raise ConnectionError("the embedding server closed the connection")
        return super().embed(texts)


def test_a_failed_request_sent_ahead_is_embedded_again_by_run() -> None:
    inner = _FailingFirstEmbedder()
    chunker = ChunkEmbedder(inner, _NoStore(), batch_size=8)  # type: ignore[arg-type]
    docs = [HsDocument(id=f"c{i}", content=f"text {i}") for i in range(4)]
    chunker.embed_ahead(docs)
    out = chunker.run(docs)["chunks"]
    assert inner.texts == ["<failed>", "text 0", "text 1", "text 2", "text 3"]
    assert chunker.embedded == 4
    assert np.array_equal(
        np.asarray([d.embedding for d in out]), PassThroughEmbedder().embed([d.content for d in docs])
    )


def test_two_sources_sending_ahead_count_and_clear_only_their_own() -> None:
    inner = _CountingEmbedder()
    chunker = ChunkEmbedder(inner, _NoStore(), batch_size=4)  # type: ignore[arg-type]
    pages = [HsDocument(id=f"p{i}", content=f"page {i}") for i in range(3)]
    issues = [HsDocument(id=f"i{i}", content=f"issue {i}") for i in range(5)]
    chunker.embed_ahead(pages, "wiki")
    chunker.embed_ahead(issues, "jira")
    chunker.clear_ahead("wiki")  # the wiki's sync ended; the Jira sync beside it keeps its requests
    assert sorted(chunker._ahead) == sorted(d.id for d in issues)
    chunker.run(Batch(issues), "jira")
    chunker.run(Batch(pages[:1]), "wiki")  # sent again: the ones sent ahead were dropped
    # a request dropped before it was sent is not counted; one already sent is (its texts were embedded)
    assert chunker.embedded_by["wiki"] == sum(t.startswith("page") for t in inner.texts)
    assert chunker.embedded_by["jira"] == 5 == sum(t.startswith("issue") for t in inner.texts)
    assert chunker.embedded == sum(chunker.embedded_by.values()) and not chunker._ahead


def test_request_cpu_reports_the_client_and_the_simulator() -> None:
    from devkb_devtools.bench.pipeline_speed import request_cpu

    # CPU time comes in clock ticks (10 ms): 5 requests of ~2 ms of client CPU could round to
    # nothing and fail the test now and then; 60 requests are well above a tick
    out = request_cpu(requests=60, batch=4)
    assert out["requests"] == 60 and out["batch"] == 4
    assert out["wall_ms"] > 0 and out["client_cpu_ms"] > 0 and out["simulator_cpu_ms"] >= 0
