"""The crawler against a loopback site that lies: a ``Content-Length`` far over the limit, a body
that never ends, gzip and deflate responses that inflate without end behind honest small
lengths, a server that drips a byte at a time, an encoding it did not ask for. Each page is
refused with its reason while it streams — the crawler's memory stays near the limit, not the
body's size — and the honest pages of the same site are indexed."""

from __future__ import annotations

import gzip
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from devkb.sources.web import WebLoader, WebLoaderConfig
from devkb.sources.web.fetch import FetchError, PoliteClient

pytestmark = [pytest.mark.integration]

LIMIT = 1_000_000
PAGE = (
    b"<html><head><title>Runbook</title></head><body><article><h1>Runbook</h1><p>Stop the writer, then run the ledger check. "
    * 3
    + b"</p></article></body></html>"
)


def _bomb(wbits: int, size: int = 128 * 1024 * 1024) -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, wbits)
    block = b"<p>" + b"a" * (1024 * 1024) + b"</p>"
    return b"".join(z.compress(block) for _ in range(size // len(block))) + z.flush()


GZIP_BOMB = _bomb(16 + zlib.MAX_WBITS)  # about 130 kB that inflates to 128 MiB
DEFLATE_BOMB = _bomb(-zlib.MAX_WBITS)


class Liar(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _head(self, headers: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()

    def do_GET(self) -> None:
        try:
            self._route()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _route(self) -> None:
        path = self.path
        if path == "/robots.txt":
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/ok":
            body = PAGE.replace(b"Runbook", b"Deploying").replace(b"Stop the writer", b"Drain the queue")
            self._head({"Content-Length": str(len(body))})
            self.wfile.write(body)
        elif path == "/":
            links = b'<a href="/ok">ok</a> <a href="/huge-length">1</a> <a href="/endless">2</a> <a href="/gzip">3</a>'
            body = PAGE.replace(b"</article>", links + b"</article>")
            self._head({"Content-Length": str(len(body))})
            self.wfile.write(body)
        elif path == "/huge-length":  # says 5 GB: never read
            self._head({"Content-Length": str(5_000_000_000)})
            self.wfile.write(PAGE)
        elif path == "/endless":  # no length, never ends
            self._head({"Connection": "close"})
            while True:
                self.wfile.write(b"<p>" + b"x" * 65536 + b"</p>")
        elif path == "/gzip":  # honest length of a gzip body that inflates to 128 MiB
            self._head({"Content-Encoding": "gzip", "Content-Length": str(len(GZIP_BOMB))})
            self.wfile.write(GZIP_BOMB)
        elif path == "/deflate":
            self._head({"Content-Encoding": "deflate", "Content-Length": str(len(DEFLATE_BOMB))})
            self.wfile.write(DEFLATE_BOMB)
        elif path == "/gzip-page":  # an ordinary compressed page
            body = gzip.compress(PAGE)
            self._head({"Content-Encoding": "gzip", "Content-Length": str(len(body))})
            self.wfile.write(body)
        elif path == "/drip":  # a byte at a time, forever
            self._head({"Connection": "close"})
            while True:
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        elif path == "/brotli":
            self._head({"Content-Encoding": "br", "Content-Length": "4"})
            self.wfile.write(b"\x0b\x00\x80\x03")


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Liar)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/huge-length", "over the size limit of 1.0 MB (Content-Length 5000.0 MB)"),
        ("/endless", "over the size limit of 1.0 MB"),
        ("/gzip", "over the size limit of 1.0 MB"),
        ("/deflate", "over the size limit of 1.0 MB"),
        ("/drip", "took longer than 1 s to download"),
        ("/brotli", "unsupported Content-Encoding 'br'"),
    ],
)
def test_each_lie_is_refused_while_streaming_with_little_memory(site: str, path: str, reason: str) -> None:
    client = PoliteClient("devkb-test", 2, 1000.0, respect_robots=False, max_bytes=LIMIT, page_seconds=1.0)
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(FetchError) as refused:
            client.get(site + path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        client.close()
    assert reason in str(refused.value)
    assert time.monotonic() - started < 5
    assert peak < 4 * LIMIT, peak  # the limit and a chunk or two, never the body


def test_an_honest_compressed_page_still_reads(site: str) -> None:
    client = PoliteClient("devkb-test", 2, 1000.0, respect_robots=False, max_bytes=LIMIT, page_seconds=5.0)
    try:
        assert client.get(site + "/gzip-page").body == PAGE
    finally:
        client.close()


def test_a_crawl_indexes_the_honest_pages_and_reports_the_liars(site: str) -> None:
    loader = WebLoader(
        WebLoaderConfig(
            name="liar", start_urls=[site + "/"], max_bytes=LIMIT, page_seconds=2.0, requests_per_second=100
        )
    )
    problems: list[str] = []
    loader.set_problem_hook(problems.append)
    docs = [d for batch in loader.load(None) for d in batch.documents]
    assert sorted(d.url for d in docs) == [site + "/", site + "/ok"]
    assert any("/huge-length" in p and "size limit" in p for p in problems), problems
    assert any("/endless" in p and "size limit" in p for p in problems), problems
    assert any("/gzip" in p and "size limit" in p for p in problems), problems
