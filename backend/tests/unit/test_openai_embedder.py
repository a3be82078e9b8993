"""The OpenAI-compatible embedder (``DEVKB_EMBEDDER=openai``) against a scripted server on
loopback: what it sends, how it reads base64 and float vectors, and what the ``openai`` client's
retries and errors do through ``client.post``."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import openai
import pytest

from devkb.indexing.embedders.remote_embedder import OpenAICompatibleEmbedder

DIM = 8


def vector(text: str) -> np.ndarray:
    v = np.arange(1, DIM + 1, dtype=np.float32) * (len(text) + 1)
    v[len(text) % DIM] += 3.0
    return v


class Scripted:
    """Answers each POST with the next scripted reply (status, extra headers, body builder);
    the last one repeats. Records every request's path, headers and JSON body."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, dict[str, str], Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def next(self) -> tuple[int, dict[str, str], Any]:
        with self.lock:
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def base64_reply(request: dict[str, Any]) -> dict[str, Any]:
    data = [
        {"object": "embedding", "index": i, "embedding": base64.b64encode(vector(t).tobytes()).decode()}
        for i, t in enumerate(request["input"])
    ]
    return {"object": "list", "data": data[::-1], "model": request["model"]}  # any order: by index


def float_reply(request: dict[str, Any]) -> dict[str, Any]:
    data = [
        {"object": "embedding", "index": i, "embedding": [float(x) for x in vector(t)]}
        for i, t in enumerate(request["input"])
    ]
    return {"object": "list", "data": data, "model": request["model"]}


@pytest.fixture
def server() -> Iterator[tuple[Scripted, str]]:
    script = Scripted()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            script.requests.append(
                {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
            )
            status, headers, build = script.next()
            payload = json.dumps(build(body) if callable(build) else build).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield script, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def expected(texts: list[str]) -> np.ndarray:
    v = np.stack([vector(t) for t in texts])
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def test_sends_the_model_the_texts_and_the_key_and_reads_base64_vectors_in_index_order(
    server: tuple[Scripted, str],
) -> None:
    script, url = server
    script.replies = [(200, {}, base64_reply)]
    embedder = OpenAICompatibleEmbedder("sk-test", "gpu-minilm", url, batch_size=32)
    texts = [f"text {'x' * i}" for i in range(70)]
    got = embedder.embed(texts)
    assert got.dtype == np.float32 and got.shape == (70, DIM)
    assert np.allclose(got, expected(texts), atol=1e-6)
    assert [len(r["body"]["input"]) for r in script.requests] == [32, 32, 6]
    first = script.requests[0]
    assert first["path"] == "/v1/embeddings"
    assert first["body"] == {"model": "gpu-minilm", "input": texts[:32], "encoding_format": "base64"}
    assert first["headers"]["authorization"] == "Bearer sk-test"
    assert embedder.model_name == "openai/gpu-minilm"


def test_a_server_that_sends_floats_is_read_as_well(server: tuple[Scripted, str]) -> None:
    script, url = server
    script.replies = [(200, {}, float_reply)]
    embedder = OpenAICompatibleEmbedder("k", "m", url)
    assert np.allclose(embedder.embed(["a", "bb", "ccc"]), expected(["a", "bb", "ccc"]), atol=1e-6)
    assert embedder.dimension == DIM


def test_an_overloaded_server_is_retried_by_the_client(server: tuple[Scripted, str]) -> None:
    script, url = server
    busy = {"error": {"message": "overloaded", "type": "server_error"}}
    script.replies = [(503, {"retry-after-ms": "10"}, busy), (200, {}, base64_reply)]
    embedder = OpenAICompatibleEmbedder("k", "m", url)
    assert np.allclose(embedder.embed(["one", "two"]), expected(["one", "two"]), atol=1e-6)
    assert len(script.requests) == 2


def test_a_refused_request_raises_with_the_server_message(server: tuple[Scripted, str]) -> None:
    script, url = server
    script.replies = [(400, {}, {"error": {"message": "input too long", "type": "invalid_request_error"}})]
    embedder = OpenAICompatibleEmbedder("k", "m", url)
    with pytest.raises(openai.BadRequestError, match="input too long"):
        embedder.embed(["x" * 10])
    assert len(script.requests) == 1  # a 4xx is not retried
    assert embedder.check() is not None and "not reachable" in (embedder.check() or "")


@pytest.mark.parametrize(
    "reply",
    [
        {"object": "list", "data": [{"index": 0, "embedding": [1.0, 0.0]}]},  # one vector for two texts
        {"object": "list"},  # no data
        {"object": "list", "data": [{"index": 0, "embedding": "!!not base64"}, {"index": 1}]},
    ],
)
def test_a_malformed_answer_is_a_clear_error(server: tuple[Scripted, str], reply: dict[str, Any]) -> None:
    script, url = server
    script.replies = [(200, {}, reply)]
    embedder = OpenAICompatibleEmbedder("k", "m", url)
    with pytest.raises(ValueError, match="openai/m"):
        embedder.embed(["a", "b"])
