"""Confluence's REST API as the loader and the permission sync both read it: the deployment (Cloud
under ``/wiki`` or Data Center), atlassian-python-api's client, every call wrapped in the
source's retries, and the listings both halves page through (spaces, CQL searches, a Cloud
space's pages, read restrictions, users). ``loader.py`` and ``permissions.py`` import this module
and never each other's internals."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from atlassian import Confluence
from pydantic import SecretStr

from devkb.sources.confluence.cloud_api import CloudPages
from devkb.sources.http_retry import atlassian_client
from devkb.sources.retry import call_with_retry

log = logging.getLogger(__name__)
RESTRICTION_EXPAND = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"


def id_order(page_id: str) -> tuple[int, str]:
    """Page ids in numeric order (Confluence ids are numbers)."""
    return (int(page_id), page_id) if page_id.isdigit() else (0, page_id)


@dataclass
class ConfluenceLoaderConfig:
    name: str
    url: str
    user: str | None = None
    token: SecretStr | None = None
    spaces: list[str] = field(default_factory=list)  # empty = every space the user can see
    browse_url: str | None = None  # base URL for citations (defaults to the page's _links.base, then url)
    url_aliases: dict[str, str] = field(default_factory=dict)  # URL or site path → page title
    page_size: int = 50
    deployment: str = "auto"  # auto (a /wiki site or *.atlassian.net is Cloud) | cloud | datacenter
    retries: int = 6
    backoff: float = 0.5
    timeout: float = 30.0
    people: dict[str, str] = field(default_factory=dict)  # account id / user name → e-mail


class ConfluenceClient:
    """One Confluence source's connection: ``config``'s site and credentials, its retry hook."""

    def __init__(self, config: ConfluenceLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self._on_retry = on_retry
        self._client: Confluence | None = None
        self._users: dict[tuple[str, str], dict[str, Any]] = {}  # (param, value) → user, for e-mails

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self._on_retry = on_retry
        self._client = None

    @property
    def api(self) -> Confluence:
        if self._client is None:
            self._client = atlassian_client(Confluence, self.config, self._on_retry)
        return self._client

    @property
    def cloud(self) -> bool:
        """Confluence Cloud (the REST API v2 under ``/wiki``) or Data Center / Server (v1)."""
        if self.config.deployment != "auto":
            return self.config.deployment == "cloud"
        parts = urlsplit(self.config.url)
        return parts.path.rstrip("/").endswith("/wiki") or (parts.hostname or "").endswith(".atlassian.net")

    @property
    def cloud_api(self) -> CloudPages:
        """The REST API v2 calls (cloud_api.py), through :meth:`get`."""
        return CloudPages(self.get, self.config.url)

    def call(self, what: str, fn: Callable[[], Any]) -> Any:
        """``fn()`` with the source's retries (``sources/retry.py``), reported to the retry hook."""
        return call_with_retry(what, fn, on_retry=self._on_retry)

    def get(self, path: str, params: dict[str, Any]) -> Any:
        """``GET path`` (relative to the site) with ``params``, as the JSON Confluence sent."""
        return self.call(f"Confluence {path}", functools.partial(self.api.get, path, params=params))

    def spaces(self) -> list[str]:
        """The configured space keys, else every space the user can see."""
        if self.config.spaces:
            return list(self.config.spaces)
        if self.cloud:
            return [
                str(s["key"]) for s in self.cloud_api.listing("api/v2/spaces", {"limit": 250}) if s.get("key")
            ]
        keys: list[str] = []
        start = 0
        while True:
            page = self.call(
                "Confluence spaces", functools.partial(self.api.get_all_spaces, start=start, limit=100)
            )
            results = (page.get("results") if isinstance(page, dict) else page) or []
            keys += [s["key"] for s in results if s.get("key")]
            if len(results) < 100:
                return keys
            start += len(results)

    def search(self, cql: str, expand: str | None) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        """Every page of a CQL search (Data Center), with the total when the API gives one."""
        start = 0
        while True:
            kwargs: dict[str, Any] = {"start": start, "limit": self.config.page_size}
            if expand:
                kwargs["expand"] = expand
            page = self.call(
                f"Confluence search at {start}",
                functools.partial(self.api.search_content, cql, **kwargs),
            )
            results = (page or {}).get("results") or []
            if not results:
                return
            yield results, (page or {}).get("totalSize")
            start += len(results)
            if not ((page or {}).get("_links") or {}).get("next") and len(results) < self.config.page_size:
                return

    def cloud_space(self, key: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]] | None:
        """The space and its current pages (id → v2 page without body)."""
        api = self.cloud_api
        space = api.space(key)
        if space is None:
            log.warning("%s: Confluence space %s not found", self.name, key)
            return None
        return space, {str(p["id"]): p for p in api.pages(str(space["id"]), body=False)}

    def raw_restrictions(self, space: str) -> dict[str, dict[str, Any]]:
        """Page id → its ``read`` restriction object (Data Center: CQL with the expansion)."""
        out: dict[str, dict[str, Any]] = {}
        for results, _ in self.search(f'space = "{space}" and type in (page, blogpost)', RESTRICTION_EXPAND):
            for p in results:
                raw = (p.get("restrictions") or {}).get("read")
                if isinstance(raw, dict):
                    out[str(p["id"])] = raw
        return out

    def user(self, param: str, value: str) -> dict[str, Any]:
        """A user by ``accountId`` (Cloud) or ``key`` (Data Center), read once per source."""
        if (param, value) not in self._users:
            found = self.get("rest/api/user", {param: value})
            self._users[(param, value)] = found if isinstance(found, dict) else {}
        return self._users[(param, value)]
