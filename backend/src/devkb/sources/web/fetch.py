"""``PoliteClient``: the crawler's HTTP, polite to the site.

- a user agent of its own; robots.txt per host (``urllib.robotparser``), its ``Crawl-delay``
  honoured; a robots.txt that answers 4xx allows everything, one that fails with 5xx or no
  answer disallows the host (RFC 9309, 2.3.1);
- at most ``concurrency`` requests at once and at most ``requests_per_second`` started;
- conditional requests (``If-None-Match``/``If-Modified-Since``) from what the last crawl saw;
- redirects followed up to 10 (a loop is an error of that page), bodies capped at
  ``max_bytes``.
"""

from __future__ import annotations

import threading
import time
import urllib.robotparser
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from devkb.sources.web.urls import host_port

MAX_REDIRECTS = 10


@dataclass
class Fetched:
    url: str  # after redirects
    status: int
    content_type: str
    body: bytes
    etag: str | None
    last_modified: str | None


class FetchError(Exception):
    """A page that could not be fetched (its reason is reported; the crawl goes on)."""


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
    ) -> None:
        self.user_agent = user_agent
        self.respect_robots = respect_robots
        self.max_bytes = max_bytes
        self.limiter = RateLimiter(requests_per_second)
        self._slots = threading.BoundedSemaphore(concurrency)
        self._robots: dict[str, urllib.robotparser.RobotFileParser] = {}
        self._robots_lock = threading.Lock()
        self.requests = 0
        self.client = httpx.Client(
            headers={"User-Agent": user_agent},
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            timeout=timeout,
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            event_hooks={"request": [self._before_request]},  # each redirect hop too
        )

    def _before_request(self, _request: httpx.Request) -> None:
        self.limiter.wait()
        with self._robots_lock:
            self.requests += 1

    def close(self) -> None:
        self.client.close()

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
                        chunks: list[bytes] = []
                        size = 0
                        for chunk in response.iter_bytes():
                            size += len(chunk)
                            if size > self.max_bytes:
                                raise FetchError(f"over the size limit of {self.max_bytes / 1e6:.1f} MB")
                            chunks.append(chunk)
                        body = b"".join(chunks)
                    return Fetched(
                        url=str(response.url),
                        status=response.status_code,
                        content_type=response.headers.get("content-type", "").split(";")[0].strip().lower(),
                        body=body,
                        etag=response.headers.get("etag"),
                        last_modified=response.headers.get("last-modified"),
                    )
            except httpx.TooManyRedirects as e:
                raise FetchError(f"redirect loop (more than {MAX_REDIRECTS} redirects)") from e
            except httpx.HTTPError as e:
                raise FetchError(f"{type(e).__name__}: {e}") from e
