"""``ConfluenceLoader``: CQL search per space, incremental by ``lastmodified``, deletion sync by id list.

    space = "ILDH" and type in (page, blogpost) and lastmodified >= "2024-05-01 10:00" order by lastmodified asc

The cursor is JSON ``{"<space>": "<last version.when, UTC ISO>"}`` so several spaces resume
independently after a crash. Page→page links are resolved through a page index (ids by title,
by URL path and by configured alias), listed once per load.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from atlassian import Confluence

from devkb.errors import ConfigurationError, PermanentSourceError
from devkb.sources.base import HistoryPolicy, LoadBatch, ramp_up
from devkb.sources.confluence.client import (
    RESTRICTION_EXPAND,
    ConfluenceClient,
    ConfluenceLoaderConfig,
    id_order,
)
from devkb.sources.confluence.cloud_api import CloudPages, as_v1_page
from devkb.sources.confluence.convert import (
    page_doc_id,
    page_to_document,
    page_url_paths,
    read_restriction,
    restriction_gate,
)
from devkb.sources.confluence.history import VERSION_FETCHES, attach_versions
from devkb.sources.confluence.permissions import ConfluencePermissions
from devkb.sources.confluence.storage_format import PageLink
from devkb.sources.url_keys import host_of, url_key
from devkb.store.models import SourceType

log = logging.getLogger(__name__)
PAGE_EXPAND = (
    "body.storage,version,ancestors,space,metadata.labels,children.comment.body.storage,children.comment.version,"
    + RESTRICTION_EXPAND
)


VERIFY_PASSES = 3  # listings after a space's pages; each fetches what changed meanwhile
# page id → (its own read restriction as stored in metadata, the gate it adds to its descendants)
Restricted = dict[str, tuple[dict[str, list[str]], list[str]]]


def _parse_time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


@dataclass
class PageIndex:
    """Where links can point: ids by (space, title) and by URL key."""

    by_title: dict[tuple[str, str], str] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)


class ConfluenceLoader:
    type = SourceType.CONFLUENCE

    def __init__(self, config: ConfluenceLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self.confluence = ConfluenceClient(config, on_retry)
        for s in config.spaces:
            if not s or any(c in s for c in "\"'\\ "):
                raise ConfigurationError(f"source {config.name}: invalid Confluence space key {s!r}")
        self._hosts = {host_of(u) for u in (config.url, config.browse_url) if u}
        if config.deployment not in ("auto", "cloud", "datacenter"):
            raise ConfigurationError(f"source {config.name}: deployment must be auto, cloud or datacenter")
        # alias key → title; relative aliases are paths on the Confluence server itself
        self._aliases = {url_key(k): v for k, v in config.url_aliases.items()}
        self._history = HistoryPolicy()

    def set_history(self, policy: HistoryPolicy) -> None:
        self._history = policy

    def _version_at(self, page_id: str, number: int) -> dict[str, Any] | None:
        """A page at an older version, v1-shaped; None when the server no longer has it."""
        if self.cloud:
            api = self.cloud_api
            try:
                raw = api.page_at(page_id, number)
            except PermanentSourceError:
                return None
            version = raw.get("version") or {}
            return {
                "version": {
                    "number": version.get("number"),
                    "when": version.get("createdAt"),
                    "by": {"displayName": api.author(str(version.get("authorId") or ""))},
                    "message": version.get("message") or "",
                },
                "body": raw.get("body") or {},
            }
        try:
            found = self.confluence.call(
                f"Confluence page {page_id} version {number}",
                functools.partial(
                    self.client.get,
                    f"rest/api/content/{page_id}",
                    params={"status": "historical", "version": number, "expand": "body.storage,version"},
                ),
            )
        except PermanentSourceError:
            return None
        return found if isinstance(found, dict) else None

    def _cloud_messages(self, page_id: str) -> dict[int, str]:
        return {
            int(v["number"]): str(v.get("message") or "")
            for v in self.cloud_api.versions(page_id)
            if v.get("number") is not None
        }

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self.confluence.set_retry_hook(on_retry)

    @property
    def client(self) -> Confluence:
        return self.confluence.api

    @property
    def cloud(self) -> bool:
        """Confluence Cloud (the REST API v2 under ``/wiki``) or Data Center / Server (v1)."""
        return self.confluence.cloud

    @property
    def cloud_api(self) -> CloudPages:
        return self.confluence.cloud_api

    def describe(self) -> dict[str, Any]:
        return {
            "url": self.config.url,
            "spaces": self.config.spaces,
            "aliases": len(self.config.url_aliases),
            "deployment": "cloud" if self.cloud else "datacenter",
        }

    def link_hints(self) -> dict[str, Any]:
        """Hosts under which Confluence's own paths (``/display/…``, ``/x/…``) are recognised."""
        return {
            "confluence_urls": sorted({u.rstrip("/") for u in (self.config.url, self.config.browse_url) if u})
        }

    @staticmethod
    def _cql_time(iso: str) -> str:
        t = datetime.fromisoformat(iso).astimezone(UTC) - timedelta(minutes=1)
        return t.strftime("%Y-%m-%d %H:%M")

    # -- page index (link resolution) -----------------------------------------------------
    def page_index(self) -> PageIndex:
        if self.cloud:
            return self._cloud_page_index()
        index = PageIndex()
        for space in self.confluence.spaces():
            for results, _ in self.confluence.search(
                f'space = "{space}" and type in (page, blogpost)', "space"
            ):
                for p in results:
                    pid = str(p["id"])
                    skey = (p.get("space") or {}).get("key") or space
                    index.by_title[(skey, p.get("title") or "")] = pid
                    for key in page_url_paths(p):
                        index.by_key.setdefault(key, pid)
        titles = {title: pid for (_, title), pid in index.by_title.items()}
        for key, title in self._aliases.items():
            if title in titles:
                index.by_key.setdefault(key, titles[title])
        return index

    def _resolver(self) -> Callable[[PageLink, str], str | None]:
        index: PageIndex | None = None

        def resolve(link: PageLink, space: str) -> str | None:
            nonlocal index
            if link.content_id:
                return link.content_id
            if index is None:
                index = self.page_index()
            if link.title:
                return index.by_title.get((link.space_key or space, link.title))
            if not link.href or link.href.startswith("#"):
                return None
            key = url_key(link.href)
            if key.startswith("/") or host_of(link.href) in self._hosts:
                path = key if key.startswith("/") else key[key.index("/") :]
                if path.startswith("/wiki/"):  # a Cloud site's paths are under /wiki
                    path = path[len("/wiki") :]
                return index.by_key.get(path)
            return index.by_key.get(key)

        return resolve

    def _aliases_for(self, title: str) -> list[str]:
        return [k for k, t in self._aliases.items() if t == title]

    # -- loading --------------------------------------------------------------------------
    @staticmethod
    def _parse_cursor(since: str | None, spaces: list[str]) -> dict[str, str]:
        if not since:
            return {}
        try:
            value = json.loads(since)
        except ValueError:
            value = since
        if isinstance(value, dict):
            return {k: str(v) for k, v in value.items()}
        return {s: str(value) for s in spaces}  # one time for every space

    # -- Cloud ----------------------------------------------------------------------------
    def _cloud_page_index(self) -> PageIndex:
        index = PageIndex()
        for key in self.confluence.spaces():
            found = self.confluence.cloud_space(key)
            if found is None:
                continue
            space, pages = found
            for p in pages.values():
                v1 = as_v1_page(p, space, pages, [], "", self.config.url)
                index.by_title[(key, v1["title"])] = v1["id"]
                for url_path in page_url_paths(v1):
                    index.by_key.setdefault(url_path, v1["id"])
        titles = {title: pid for (_, title), pid in index.by_title.items()}
        for alias, title in self._aliases.items():
            if title in titles:
                index.by_key.setdefault(alias, titles[title])
        return index

    def _load_cloud(self, since: str | None) -> Iterator[LoadBatch]:
        """Per space: pages newest first until the cursor (less a minute), indexed oldest first;
        then the same verification listing as on Data Center."""
        api = self.cloud_api
        spaces = self.confluence.spaces()
        cursor = self._parse_cursor(since, spaces)
        resolve = self._resolver()
        for key in spaces:
            found = self.confluence.cloud_space(key)
            if found is None:
                continue
            space, index = found
            cut = datetime.fromisoformat(cursor[key]) - timedelta(minutes=1) if cursor.get(key) else None
            changed: list[dict[str, Any]] = []
            for kind in ("pages", "blogposts"):  # each newest first: stop at the first one older than the cut
                for p in api.pages(str(space["id"]), body=True, kinds=(kind,)):
                    when = _parse_time((p.get("version") or {}).get("createdAt"))
                    if cut is not None and when is not None and when < cut:
                        break
                    changed.append(p)
            changed.sort(key=lambda p: str((p.get("version") or {}).get("createdAt") or ""), reverse=True)
            changed.reverse()
            seen: dict[str, Any] = {}
            restricted: Restricted = {}
            for pid in index:
                raw = api.read_restriction(pid)
                shown = read_restriction(raw)
                if shown is not None:
                    restricted[pid] = (shown, restriction_gate(raw, self.name) or [])
            for i in range(0, len(changed), self.config.page_size):
                page = changed[i : i + self.config.page_size]
                # each page costs requests of its own: the space's first ones reach the pipeline soon
                for chunk in ramp_up(page) if i == 0 else [page]:
                    yield self._cloud_batch(
                        key, space, index, list(chunk), cursor, seen, resolve, len(changed), restricted
                    )
            for _ in range(VERIFY_PASSES):
                now = self.confluence.cloud_space(key)
                if now is None:
                    break
                listed = {
                    i: (p.get("version") or {}).get("number")
                    for i, p in now[1].items()
                    if cut is None
                    or i in seen
                    or (_parse_time((p.get("version") or {}).get("createdAt")) or cut) >= cut
                }
                missed = sorted((i for i, v in listed.items() if i not in seen or seen[i] != v), key=id_order)
                if not missed:
                    break
                log.info(
                    "%s: %d pages of %s changed while paging; fetching them", self.name, len(missed), key
                )
                kinds = {i: str(p.get("_kind", "pages")) for i, p in now[1].items()}
                pages = [api.page(i, kinds.get(i, "pages")) for i in missed]
                yield self._cloud_batch(key, space, index, pages, cursor, seen, resolve, None, restricted)

    def _cloud_batch(
        self,
        key: str,
        space: dict[str, Any],
        index: dict[str, dict[str, Any]],
        pages: list[dict[str, Any]],
        cursor: dict[str, str],
        seen: dict[str, Any],
        resolve: Callable[[PageLink, str], str | None],
        total: int | None,
        restricted: Restricted | None = None,
    ) -> LoadBatch:
        api = self.cloud_api
        v1 = [
            as_v1_page(
                p,
                space,
                index,
                api.labels(p),
                api.author(str((p.get("version") or {}).get("authorId") or "")),
                self.config.url,
                api.comments(p),
                api.read_restriction(str(p["id"])),
            )
            for p in pages
        ]
        return self._batch(key, v1, cursor, seen, resolve, total, restricted)

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        if self.cloud:
            yield from self._load_cloud(since)
            return
        yield from self._load_datacenter(since)

    def _restricted_pages(self, space: str) -> Restricted:
        """Page id → its own read restriction and gate, for the space's restricted pages (their
        descendants inherit them)."""
        out: Restricted = {}
        for pid, raw in self.confluence.raw_restrictions(space).items():
            found = read_restriction(raw)
            if found:
                out[pid] = (found, restriction_gate(raw, self.name) or [])
        return out

    def _load_datacenter(self, since: str | None) -> Iterator[LoadBatch]:
        """Per space, pages of ``order by lastmodified``, then a check that no page slipped between
        pages: offset paging over a live result set skips a page when one served earlier is edited
        (it moves to the end and every later page shifts back one place). After the last page the
        same query is listed with versions only, and whatever was not seen in that version is
        fetched by id (at most ``VERIFY_PASSES`` listings), before the space's cursor is final."""
        spaces = self.confluence.spaces()
        cursor = self._parse_cursor(since, spaces)
        resolve = self._resolver()
        for space in spaces:
            cql = f'space = "{space}" and type in (page, blogpost)'
            if cursor.get(space):
                cql += f' and lastmodified >= "{self._cql_time(cursor[space])}"'
            cql += " order by lastmodified asc"
            seen: dict[str, Any] = {}  # page id → version number indexed
            restricted = self._restricted_pages(space)
            for n, (results, total) in enumerate(self.confluence.search(cql, PAGE_EXPAND)):
                # a page's older versions cost requests and conversion of their own: the space's
                # first pages reach the pipeline (and the embedder) while the rest load
                for part in ramp_up(results) if n == 0 else [results]:
                    yield self._batch(space, list(part), cursor, seen, resolve, total, restricted)
            for _ in range(VERIFY_PASSES):
                listed = {
                    str(p["id"]): (p.get("version") or {}).get("number")
                    for results, _ in self.confluence.search(cql, "version")
                    for p in results
                }
                missed = sorted((i for i, v in listed.items() if i not in seen or seen[i] != v), key=id_order)
                if not missed:
                    break
                log.info(
                    "%s: %d pages of %s changed while paging; fetching them", self.name, len(missed), space
                )
                for i in range(0, len(missed), 50):
                    ids = ", ".join(missed[i : i + 50])
                    for results, _ in self.confluence.search(f"id in ({ids})", PAGE_EXPAND):
                        yield self._batch(space, results, cursor, seen, resolve, None, restricted)

    def _batch(
        self,
        space: str,
        results: list[dict[str, Any]],
        cursor: dict[str, str],
        seen: dict[str, Any],
        resolve: Callable[[PageLink, str], str | None],
        total: int | None,
        restricted: Restricted | None = None,
    ) -> LoadBatch:
        docs = []
        # older versions requested side by side; the pool's threads end with the batch
        with ThreadPoolExecutor(VERSION_FETCHES, thread_name_prefix="devkb-confluence-versions") as pool:
            for p in results:
                base = self.config.browse_url or (p.get("_links") or {}).get("base") or self.config.url
                applying = [
                    (str(a["id"]), (restricted or {})[str(a["id"])])
                    for a in p.get("ancestors") or []
                    if a.get("id") and str(a["id"]) in (restricted or {})
                ]
                doc = page_to_document(
                    p,
                    base,
                    resolve,
                    self._aliases_for(p.get("title") or ""),
                    [(aid, shown) for aid, (shown, _gate) in applying],
                    source=self.name,
                    inherited_gates=[gate for _aid, (_shown, gate) in applying],
                )
                attach_versions(
                    doc,
                    p,
                    self._history,
                    self._version_at,
                    self._cloud_messages if self.cloud else None,
                    pool,
                )
                docs.append(doc)
                seen[str(p["id"])] = (p.get("version") or {}).get("number")
                if doc.updated_at and doc.updated_at > cursor.get(space, ""):
                    cursor[space] = doc.updated_at
        return LoadBatch(documents=docs, cursor=json.dumps(cursor, sort_keys=True), total=total)

    def list_ids(self) -> set[str]:
        ids: set[str] = set()
        if self.cloud:
            for key in self.confluence.spaces():
                found = self.confluence.cloud_space(key)
                ids.update(page_doc_id(i) for i in (found[1] if found else {}))
            return ids
        for space in self.confluence.spaces():
            for results, _ in self.confluence.search(f'space = "{space}" and type in (page, blogpost)', None):
                ids.update(page_doc_id(p["id"]) for p in results)
        return ids

    # -- permission sync: sources/confluence/permissions.py ------------------------------------------
    def fetch_permissions(self) -> list[tuple[str, str]]:
        """``(principal, email)`` pairs: who holds what this source's documents' gates name."""
        return ConfluencePermissions(self.confluence).fetch_permissions()
