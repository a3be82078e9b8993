"""``PoliteClient``: the crawler's HTTP, polite to the site.

- a user agent of its own; robots.txt per host (``urllib.robotparser``), its ``Crawl-delay``
  honoured; a robots.txt that answers 4xx allows everything, one that fails with 5xx or no
  answer disallows the host (RFC 9309, 2.3.1);
- at most ``concurrency`` requests at once and at most ``requests_per_second`` started;
- conditional requests (``If-None-Match``/``If-Modified-Since``) from what the last crawl saw;
- redirects followed up to 10 (a loop is an error of that page);
- each page bounded while it streams: a ``Content-Length`` over ``max_bytes`` is refused before
  the body is read, and the body is counted as it arrives, decompressed by the crawler itself
  (only ``gzip`` and ``deflate`` are asked for, inflated at most ``max_bytes`` at a time: a
  response that inflates without end stops at the limit, whatever its headers say); a page gets
  ``page_seconds`` in all (a server that drips a byte at a time is cut off).
"""

from __future__ import annotations

import threading
import time
import urllib.robotparser
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from devkb.sources.web.urls import host_port

MAX_REDIRECTS = 10
ACCEPT_ENCODING = "gzip, deflate"  # what ``_Inflater`` decodes with a cap (not br or zstd)


@dataclass
class Fetched:
    url: str  # after redirects
    status: int
    content_type: str
    body: bytes
    charset: str | None
    etag: str | None
    last_modified: str | None


class FetchError(Exception):
    """A page that could not be fetched (its reason is reported; the crawl goes on)."""


class _Inflater:
    """A ``Content-Encoding`` decoded with a cap on what it yields (``zlib``: gzip, zlib-wrapped
    or raw deflate), never more than ``limit`` bytes from any one input."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        if encoding in ("", "identity"):
            self._z = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj(zlib.MAX_WBITS)
        else:
            raise FetchError(f"unsupported Content-Encoding {encoding!r} (asked for {ACCEPT_ENCODING})")
        self._first = True

    def feed(self, data: bytes, limit: int) -> Iterator[bytes]:
        if self._z is None:
            yield data
            return
        if self._first and self.encoding == "deflate" and data and (data[0] & 0x0F) != 8:
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)  # "deflate" sent raw, as many servers do
        self._first = False
        try:
            out = self._z.decompress(data, limit + 1)
            yield out
            while self._z.unconsumed_tail:
                out = self._z.decompress(self._z.unconsumed_tail, limit + 1)
                yield out
        except zlib.error as e:
            raise FetchError(f"corrupt {self.encoding} body: {e}") from e


class RateLimiter:
    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self._next = 0.0
        self._lock = threading.Lock()

    def slow_down(self, seconds: float) -> None:
        with self._lock:
            self.interval = max(self.interval, seconds)

    def wait(self) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


class PoliteClient:
    def __init__(
        self,
        user_agent: str,
        concurrency: int,
        requests_per_second: float,
        respect_robots: bool = True,
        max_bytes: int = 25_000_000,
        timeout: float = 30.0,
        page_seconds: float = 120.0,
    ) -> None:
        self.user_agent = user_agent
        self.respect_robots = respect_robots
        self.max_bytes = max_bytes
        self.page_seconds = page_seconds
        self.limiter = RateLimiter(requests_per_second)
        self._slots = threading.BoundedSemaphore(concurrency)
        self._robots: dict[str, urllib.robotparser.RobotFileParser] = {}
        self._robots_lock = threading.Lock()
        self.requests = 0
        self.client = httpx.Client(
            headers={"User-Agent": user_agent, "Accept-Encoding": ACCEPT_ENCODING},
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            timeout=httpx.Timeout(timeout, read=min(timeout, page_seconds)),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            event_hooks={"request": [self._before_request]},  # each redirect hop too
        )

    def _before_request(self, _request: httpx.Request) -> None:
        self.limiter.wait()
        with self._robots_lock:
            self.requests += 1

    def close(self) -> None:
        self.client.close()

    def _body(self, response: httpx.Response, deadline: float) -> bytes:
        """The body, decoded, refused as soon as it is over ``max_bytes`` or past ``deadline``."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise FetchError(
                f"over the size limit of {self.max_bytes / 1e6:.1f} MB (Content-Length {int(declared) / 1e6:.1f} MB)"
            )
        encodings = [
            e.strip().lower() for e in response.headers.get("content-encoding", "").split(",") if e.strip()
        ]
        if len(encodings) > 1:
            raise FetchError(f"unsupported Content-Encoding {', '.join(encodings)} (more than one)")
        inflater = _Inflater(encodings[0] if encodings else "")
        chunks: list[bytes] = []
        size = 0
        for raw in response.iter_raw():  # as it arrives (a chunk size would wait to fill it)
            for chunk in inflater.feed(raw, self.max_bytes - size):
                size += len(chunk)
                if size > self.max_bytes:
                    raise FetchError(f"over the size limit of {self.max_bytes / 1e6:.1f} MB")
                chunks.append(chunk)
            if time.monotonic() > deadline:
                raise FetchError(f"took longer than {self.page_seconds:g} s to download (page_seconds)")
        return b"".join(chunks)

    # -- robots.txt ------------------------------------------------------------------------
    def allowed(self, url: str) -> bool:
        if not self.respect_robots:
            return True
        parts = urlsplit(url)
        key = f"{parts.scheme}://{host_port(url)}"
        with self._robots_lock:
            parser = self._robots.get(key)
        if parser is None:
            parser = self._read_robots(key)
            with self._robots_lock:
                self._robots[key] = parser
        return parser.can_fetch(self.user_agent, url)

    def _read_robots(self, origin: str) -> urllib.robotparser.RobotFileParser:
        parser = urllib.robotparser.RobotFileParser(f"{origin}/robots.txt")
        try:
            response = self._get(f"{origin}/robots.txt", {})
        except FetchError:
            parser.parse(["User-agent: *", "Disallow: /"])
            return parser
        if response.status >= 500:
            parser.parse(["User-agent: *", "Disallow: /"])
        elif response.status >= 400:
            parser.parse([])
        else:
            parser.parse(response.body.decode("utf-8", "replace").splitlines())
            delay = parser.crawl_delay(self.user_agent)
            if delay:
                self.limiter.slow_down(float(delay))
        return parser

    # -- pages -----------------------------------------------------------------------------
    def get(self, url: str, etag: str | None = None, last_modified: str | None = None) -> Fetched:
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        return self._get(url, headers)

    def _get(self, url: str, headers: dict[str, str]) -> Fetched:
        with self._slots:
            try:
                with self.client.stream("GET", url, headers=headers) as response:
                    body = b""
                    if response.status_code == 200:
                        body = self._body(response, time.monotonic() + self.page_seconds)
                    return Fetched(
                        url=str(response.url),
                        status=response.status_code,
                        content_type=response.headers.get("content-type", "").split(";")[0].strip().lower(),
                        body=body,
                        charset=response.charset_encoding,
                        etag=response.headers.get("etag"),
                        last_modified=response.headers.get("last-modified"),
                    )
            except httpx.TooManyRedirects as e:
                raise FetchError(f"redirect loop (more than {MAX_REDIRECTS} redirects)") from e
            except httpx.HTTPError as e:
                raise FetchError(f"{type(e).__name__}: {e}") from e
