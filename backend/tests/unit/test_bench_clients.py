"""The benchmarks' closed-loop HTTP client against a real HTTP/1.1 server on loopback: every
request is sent with its body and headers, answers other than 200 count as errors, and a server
that closes the connection (``Connection: close``) or refuses it does not stop the clients, and
each client goes on in the chat session its first answer named (``X-Session-ID``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from devkb_devtools.bench.clients import http_closed_loop
from devkb_devtools.bench.workspace import BenchError


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless the answer says otherwise
    seen: list[tuple[str, str, dict[str, str]]] = []
    sessions: list[str] = []  # the X-Session-ID each request came with ("" for none)
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            type(self).seen.append((self.path, self.headers.get("X-API-Key", ""), body))
            type(self).sessions.append(self.headers.get("X-Session-ID", ""))
            sid = self.headers.get("X-Session-ID") or f"s{len(self.seen)}"
        status = 503 if body.get("q") == "bad" else 200
        payload = json.dumps({"answer": "x" * 5000}).encode()  # several reads per answer
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("X-Session-ID", sid)
        if body.get("q") == "close":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    _Handler.seen, _Handler.sessions = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_counts_answers_and_errors_and_reconnects(server: str) -> None:
    bodies = [{"q": "ok"}, {"q": "bad"}, {"q": "close"}, {"q": "ok"}]
    run = http_closed_loop(server, "/ask", bodies, clients=3, seconds=0.5, headers={"X-API-Key": "k"})
    seen = _Handler.seen
    assert {path for path, _, _ in seen} == {"/ask"}
    assert {key for _, key, _ in seen} == {"k"}
    assert {b["q"] for _, _, b in seen} == {"ok", "bad", "close"}
    bad = sum(1 for _, _, b in seen if b["q"] == "bad")
    # every request the server answered was counted once: 200s as latencies, the 503s as errors
    # (a client may stop at the deadline with its last request answered but not yet read)
    assert bad - 3 <= run["errors"] <= bad
    assert len(seen) - 3 <= run["count"] + run["errors"] <= len(seen)
    assert run["count"] > 10 and run["throughput_per_s"] > 0 and run["p95_ms"] >= run["p50_ms"] > 0
    assert run["client_cpu_ms"] > 0  # the load generator reports its own CPU per answer
    # one conversation per client: after its first answer every request names that session
    named = [sid for sid in _Handler.sessions if sid]
    assert len(set(named)) <= 3 and len(named) >= len(seen) - 3 - 3


def test_no_server_is_an_error_not_a_hang() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(BenchError, match="no successful request"):
        http_closed_loop(f"http://127.0.0.1:{port}", "/ask", [{"q": "ok"}], clients=2, seconds=0.3)
