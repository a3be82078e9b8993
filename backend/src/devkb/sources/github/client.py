"""GitHub's REST API as the loader and the permission sync both read it: PyGithub's client (its
retries, rate-limit guard, connections that read the proxy settings once per host), every call
classified into transient and permanent failures, repositories read once, and the JSON PyGithub
received. ``loader.py`` and ``permissions.py`` import this module and never each other's
internals."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
from github import Auth, Github, GithubException
from github.Repository import Repository
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass
from pydantic import SecretStr

from devkb.errors import PermanentSourceError, TransientSourceError
from devkb.sources.github.rate_limit import RateLimitGuard, make_retry
from devkb.sources.http_session import settled

log = logging.getLogger(__name__)
T = TypeVar("T")


class _SettledHTTP(HTTPRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session = settled(self.session)


class _SettledHTTPS(HTTPSRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session = settled(self.session)


def settle_connections(gh: Github) -> None:
    """Make ``gh``'s connections read the environment's proxy settings once per host
    (``sources/http_session.py``): PyGithub builds a plain ``requests`` session per connection
    and lets a caller choose the connection class only for every client of the process at once
    (``Requester.injectConnectionClasses``, which also stops it from keeping connections), so the
    class is set on this client's requester. ``tests/unit/test_http_session.py`` fails if a
    PyGithub release renames it."""
    requester = gh.requester
    name = "_Requester__connectionClass"
    current = getattr(requester, name)
    if current is HTTPSRequestsConnectionClass:
        setattr(requester, name, _SettledHTTPS)
    elif current is HTTPRequestsConnectionClass:
        setattr(requester, name, _SettledHTTP)


@dataclass
class GitHubLoaderConfig:
    name: str
    repos: list[str]
    url: str = "https://api.github.com"
    token: SecretStr | None = None
    include: list[str] = field(default_factory=lambda: ["**/*"])
    exclude: list[str] = field(default_factory=list)
    max_file_bytes: int = 200_000
    include_issues: bool = True
    branches: list[str] = field(default_factory=list)  # beyond the default: their commits not on it
    doc_sites: list[dict[str, str]] = field(default_factory=list)
    html_url: str | None = None  # web host for citations and URL matching (default: derived from url)
    batch_size: int = 50
    retries: int = 6
    backoff: float = 0.5
    timeout: float = 30.0
    max_rate_limit_wait: float = 3600.0
    # Pause between requests (PyGithub's courtesy throttle against secondary rate limits);
    # None = PyGithub's 0.25 s for remote hosts, none for a server on loopback (emulators, proxies).
    request_interval: float | None = None
    people: dict[str, str] = field(default_factory=dict)  # login → e-mail (permission sync)


class GitHubClient:
    """One GitHub source's connection: ``config``'s API host and token, its retry hook."""

    def __init__(self, config: GitHubLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self._on_retry = on_retry
        self._gh: Github | None = None
        self._guard: RateLimitGuard | None = None
        self._repos: dict[str, Repository] = {}

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self._on_retry = on_retry
        self._gh = None
        self._repos = {}

    @property
    def gh(self) -> Github:
        if self._gh is None:
            token = self.config.token.get_secret_value() if self.config.token else None
            self._gh = Github(
                base_url=self.config.url.rstrip("/"),
                auth=Auth.Token(token) if token else None,
                timeout=int(self.config.timeout),
                per_page=100,
                seconds_between_requests=self.request_interval(),
                retry=make_retry(
                    self.config.retries, self.config.backoff, self._on_retry, self.config.max_rate_limit_wait
                ),
            )
            settle_connections(self._gh)
            self._guard = RateLimitGuard(self._gh, self.config.max_rate_limit_wait, self._on_retry)
        return self._gh

    def request_interval(self) -> float:
        if self.config.request_interval is not None:
            return self.config.request_interval
        host = urlsplit(self.config.url).hostname or ""
        return 0.0 if host in ("127.0.0.1", "localhost", "::1") else 0.25

    def call(self, what: str, fn: Callable[[], T], attempts: int = 4) -> T:
        """Run one request (or one whole listing) with the rate-limit guard; retry what
        ``GithubRetry`` could not (bodies cut short, garbage JSON) and classify failures."""
        for attempt in range(1, attempts + 1):
            _ = self.gh
            assert self._guard is not None
            self._guard.wait()
            try:
                return fn()
            except GithubException as e:
                permanent = (
                    400 <= (e.status or 0) < 500 and e.status != 429 and "rate limit" not in str(e).lower()
                )
                if permanent:
                    raise PermanentSourceError(f"{what} failed: HTTP {e.status}: {str(e)[:300]}") from e
                error: Exception = e
            except (requests.RequestException, ValueError, KeyError, TypeError, AttributeError) as e:
                error = e  # transport gave up, truncated or invalid JSON, or a payload of the wrong shape
            if attempt == attempts:
                raise TransientSourceError(
                    f"{what} failed: {type(error).__name__}: {str(error)[:300]}"
                ) from error
            delay = min(self.config.backoff * 2 ** (attempt - 1), 20.0)
            msg = f"{what}: {type(error).__name__}; retry {attempt}/{attempts - 1} in {delay:.1f}s"
            log.warning(msg)
            if self._on_retry:
                self._on_retry(msg)
            time.sleep(delay)
        raise AssertionError("unreachable")

    def repo(self, name: str) -> Repository:
        if name not in self._repos:
            repo = self.call(f"GitHub repository {name}", lambda: self.gh.get_repo(name))
            self._repos[name] = repo
        return self._repos[name]

    @staticmethod
    def raws(fetch: Callable[[], Iterable[Any]], required: str) -> list[dict[str, Any]]:
        """The raw payloads of what ``fetch`` lists (see :meth:`raw`)."""
        return [GitHubClient.raw(x, required) for x in fetch()]

    @staticmethod
    def raw(obj: Any, required: str) -> dict[str, Any]:
        """The JSON PyGithub received for ``obj`` (no completion request), checked for ``required``."""
        raw = obj._rawData
        if not isinstance(raw, dict) or required not in raw:
            raise ValueError(f"unexpected GitHub payload without {required!r}")
        return raw
