"""Loopback HTTP servers for the web source's tests: a directory served as it is (Python's
``http.server``, which answers ``If-Modified-Since`` with 304), and a small site of routes for
the failure shapes (ETag, redirects, robots.txt, 404)."""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` serving ``root``; requests are counted in ``server.hits``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


Route = tuple[int, dict[str, str], str | bytes]  # status, headers, body (text is sent as UTF-8)


class RouteSite:
    """Routes path → callable returning (status, headers, body); HTML bodies get an ETag and
    answer 304 to a matching If-None-Match. ``requests`` lists the paths asked, in order."""

    def __init__(self, routes: dict[str, Callable[[], Route]]) -> None:
        self.routes = routes
        self.requests: list[tuple[str, str]] = []  # (path, user agent)
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                site.requests.append((self.path, self.headers.get("User-Agent", "")))
                route = site.routes.get(self.path.split("?")[0])
                status, headers, body = route() if route else (404, {}, "<html><body>Not found</body></html>")
                data = body.encode() if isinstance(body, str) else body
                if status == 200:
                    etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
                    headers = {"ETag": etag, **headers}
                    if self.headers.get("If-None-Match") == etag:
                        self.send_response(304)
                        self.send_header("ETag", etag)
                        self.end_headers()
                        return
                self.send_response(status)
                headers.setdefault("Content-Type", "text/html; charset=utf-8")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
