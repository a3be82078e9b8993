"""``WebLoader``: a documentation site, crawled breadth first from its start URLs and sitemaps.

Scope: the start URLs' hosts (and ``hosts``), the path ``include``/``exclude`` globs,
``max_depth`` links from a start page, at most ``max_pages`` pages. Politeness in ``fetch.py``.

Each page: its main content (trafilatura; navigation, headers and footers dropped) with its
headings; its URL is the ``<link rel=canonical>`` when that is in scope, else the URL after
redirects; a second URL for the same page or the same text is a duplicate and skipped. Links of
the main content to other pages in scope become ``web-link`` REFERENCES (hidden until the target
is indexed); Jira keys, Confluence and GitHub URLs in the text or the links become REFERENCES
through the reference rules (``reference_text["links"]``).

Incremental: the cursor keeps, per URL fetched, its ``ETag``, ``Last-Modified``, the links it
had and its text hash; a re-crawl asks conditionally, and a 304 page yields nothing (its links
are followed from the cursor), so an unchanged site re-crawls without converting or embedding.
Pages that fail (404, a redirect loop, robots.txt, no main content) are reported with their
reason on every crawl and left out of ``list_ids``; a crawl that reaches no page at all fails
instead of deleting the site.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from devkb.errors import SourceError
from devkb.sources.base import LoadBatch, SourceDocument
from devkb.sources.formats import Unreadable, convert_bytes, format_of
from devkb.sources.formats.convert import decode_html
from devkb.sources.formats.sandbox import convert_html_page
from devkb.sources.web.fetch import Fetched, FetchError, PoliteClient
from devkb.sources.web.urls import (
    LinksUnreadable,
    PageLinks,
    Scope,
    absolute_links,
    canonical,
    host_port,
    page_links,
    sitemap_locations,
)
from devkb.store.models import Reference, SourceType

BATCH_SIZE = 50
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
DOCUMENT_TYPES = {"pdf": "application/pdf", "docx": "application/vnd.openxmlformats"}


@dataclass
class WebLoaderConfig:
    name: str
    start_urls: list[str]
    sitemaps: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    max_pages: int = 1000
    max_depth: int = 20
    concurrency: int = 4
    requests_per_second: float = 10.0
    user_agent: str = "devkb-crawler/0.1"
    respect_robots: bool = True
    max_bytes: int = 25_000_000
    page_seconds: float = 120.0
    acl: list[list[str]] = field(default_factory=lambda: [["everyone"]])


def doc_id(source: str, url: str) -> str:
    return f"web:{source}:{url}"


@dataclass
class _Visit:
    """What fetching one URL gave."""

    links: list[str] = field(default_factory=list)  # in scope, to crawl
    entry: dict[str, Any] | None = None  # cursor entry when the page counts as indexed
    document: SourceDocument | None = None  # when it changed
    problem: str | None = None
    frameset: bool = False  # a frame container, not a page


class WebLoader:
    type = SourceType.WEB

    def __init__(self, config: WebLoaderConfig) -> None:
        self.config = config
        self.name = config.name
        self.scope = Scope(
            hosts={host_port(u) for u in [*config.start_urls, *config.sitemaps]}
            | {h.lower() for h in config.hosts},
            include=list(config.include),
            exclude=list(config.exclude),
        )
        self._on_problem: Callable[[str], None] | None = None
        self._seen: set[str] | None = None
        self.last_crawl: dict[str, int] = {}
        self.duplicates: dict[str, str] = {}  # URL fetched → the indexed page it repeated (last crawl)

    def set_problem_hook(self, on_problem: Callable[[str], None] | None) -> None:
        self._on_problem = on_problem

    def describe(self) -> dict[str, Any]:
        return {
            "start_urls": self.config.start_urls,
            "sitemaps": self.config.sitemaps,
            "include": self.config.include,
            "exclude": self.config.exclude,
            "max_pages": self.config.max_pages,
        }

    def list_ids(self) -> set[str]:
        if self._seen is None:  # not crawled by this loader yet
            for _ in self.load(None):
                pass
        return set(self._seen or ())

    # -- the crawl -------------------------------------------------------------------------
    def load(self, since: str | None) -> Iterator[LoadBatch]:
        old: dict[str, dict[str, Any]] = json.loads(since).get("pages", {}) if since else {}
        cfg = self.config
        client = PoliteClient(
            cfg.user_agent,
            cfg.concurrency,
            cfg.requests_per_second,
            cfg.respect_robots,
            cfg.max_bytes,
            page_seconds=cfg.page_seconds,
        )
        pages: dict[str, dict[str, Any]] = {}  # URL fetched → cursor entry
        indexed_urls: set[str] = set()  # canonical page URLs
        texts: dict[str, str] = {}  # text hash → the page that has it
        duplicates: dict[str, str] = {}  # URL fetched → the indexed page it repeats
        batch: list[SourceDocument] = []
        problems = visited = framesets = not_pages = too_deep = 0
        try:
            seeds = [canonical(u) for u in cfg.start_urls] + self._sitemap_pages(client)
            queued = set(seeds)
            frontier = [(u, 0) for u in dict.fromkeys(seeds) if self.scope.allows(u)]
            with ThreadPoolExecutor(
                max_workers=cfg.concurrency, thread_name_prefix=f"crawl-{self.name}"
            ) as pool:
                while frontier and len(indexed_urls) < cfg.max_pages:
                    level, frontier = frontier, []
                    step = cfg.concurrency * 4
                    for start in range(0, len(level), step):
                        if len(indexed_urls) >= cfg.max_pages:
                            frontier = level[start:] + frontier  # found, never fetched
                            break
                        part = level[start : start + step]
                        visits = pool.map(lambda item: self._visit(client, item[0], old.get(item[0])), part)
                        for (url, depth), visit in zip(part, visits, strict=True):
                            visited += 1
                            framesets += visit.frameset
                            if visit.problem:
                                problems += 1
                                if self._on_problem:
                                    self._on_problem(f"{url}: {visit.problem}")
                            elif visit.entry is None and not visit.frameset:
                                not_pages += 1
                            if visit.entry is not None and len(indexed_urls) < cfg.max_pages:
                                page, text_hash = visit.entry["page"], visit.entry["hash"]
                                if page in indexed_urls or text_hash in texts:
                                    duplicates[url] = page if page in indexed_urls else texts[text_hash]
                                    continue  # the same page under a second URL
                                indexed_urls.add(page)
                                texts[text_hash] = page
                                pages[url] = visit.entry
                                if visit.document is not None:
                                    batch.append(visit.document)
                            for link in visit.links:
                                if link in queued:
                                    continue
                                if depth >= cfg.max_depth:
                                    too_deep += 1
                                    continue
                                queued.add(link)
                                frontier.append((link, depth + 1))
                        if len(batch) >= BATCH_SIZE:
                            yield LoadBatch(batch, json.dumps({"pages": {**old, **pages}}))
                            batch = []
            if not indexed_urls and problems:
                raise SourceError(
                    f"{self.name}: no page could be crawled ({problems} failed); nothing deleted"
                )
            self._seen = {doc_id(self.name, p) for p in indexed_urls}
            self.last_crawl = {
                "pages": len(indexed_urls),
                "problems": problems,
                "requests": client.requests,
                "links_found": len(queued),
                "fetched": visited,
                "framesets": framesets,
                "not_pages": not_pages,
                "duplicates": len(duplicates),
                "not_fetched": len(frontier),
                "too_deep": too_deep,
            }
            self.duplicates = duplicates
            shortfall = self._shortfall(
                len(indexed_urls), len(queued), visited, not_pages, len(frontier), too_deep
            )
            if shortfall and self._on_problem:
                self._on_problem(shortfall)
            yield LoadBatch(batch, json.dumps({"pages": pages}))
        finally:
            client.close()

    def _shortfall(
        self, indexed: int, found: int, fetched: int, not_pages: int, not_fetched: int, too_deep: int
    ) -> str | None:
        """One line for the run's errors when the crawl indexed fewer pages than the links it found
        for a reason no page's own error tells: a limit stopped it, or most of what it fetched was
        not an HTML page (each failed page is reported on its own)."""
        cfg = self.config
        why = []
        if not_fetched:
            why.append(f"{not_fetched} links found were not fetched (max_pages {cfg.max_pages} reached)")
        if too_deep:
            why.append(f"{too_deep} links lie deeper than max_depth {cfg.max_depth}")
        if fetched and not_pages * 2 > fetched:
            why.append(f"{not_pages} of the {fetched} URLs fetched were not HTML pages")
        if not why:
            return None
        return f"crawl of {self.name}: {indexed} pages indexed of {found} in-scope links found; " + "; ".join(
            why
        )

    def _sitemap_pages(self, client: PoliteClient) -> list[str]:
        out: list[str] = []
        todo, done = list(self.config.sitemaps), set[str]()
        while todo and len(done) < 100:
            url = todo.pop(0)
            if url in done:
                continue
            done.add(url)
            try:
                fetched = client.get(url)
            except FetchError as e:
                raise SourceError(f"{self.name}: sitemap {url}: {e}") from e
            if fetched.status != 200:
                raise SourceError(f"{self.name}: sitemap {url} answered HTTP {fetched.status}")
            pages, nested = sitemap_locations(fetched.body)
            out.extend(canonical(p) for p in pages)
            todo.extend(nested)
        return out

    def _visit(self, client: PoliteClient, url: str, before: dict[str, Any] | None) -> _Visit:
        if not client.allowed(url):
            return _Visit(problem="disallowed by robots.txt")
        try:
            fetched = client.get(url, *((before.get("etag"), before.get("lm")) if before else (None, None)))
        except FetchError as e:
            return _Visit(problem=str(e))
        if fetched.status == 304 and before:
            return _Visit(links=list(before.get("links", [])), entry=before)
        if fetched.status != 200:
            return _Visit(problem=f"HTTP {fetched.status}")
        final = canonical(fetched.url)
        if final != url and not self.scope.allows(final):
            return _Visit(problem=f"redirected out of the crawl's scope to {final}")
        if fetched.content_type in HTML_TYPES or (not fetched.content_type and format_of(final) == "html"):
            return self._html(fetched, final)
        fmt = format_of(urlsplit(final).path)
        if fmt in DOCUMENT_TYPES and fetched.content_type.startswith(DOCUMENT_TYPES[fmt]):
            try:
                converted = convert_bytes(urlsplit(final).path, fetched.body, self.config.max_bytes)
            except Unreadable as e:
                return _Visit(problem=e.reason)
            return self._page(fetched, final, converted.title, converted.text, [], [], converted.metadata)
        return _Visit()  # not a page (an image, a stylesheet served without a telling suffix)

    def _html(self, fetched: Fetched, final: str) -> _Visit:
        try:
            html = decode_html(fetched.body, fetched.charset)
        except Unreadable as e:
            return _Visit(problem=e.reason)
        links_problem: str | None = None
        try:
            found = page_links(html)
        except LinksUnreadable as e:
            # its content may still convert; its links are lost, and the crawl says so
            found, links_problem = PageLinks([], None, None, False), str(e)
        base = next(iter(absolute_links(final, [found.base] if found.base else [])), final)
        crawl = [u for u in absolute_links(base, found.hrefs) if self.scope.allows(u)]
        if found.frameset:  # a frame container: its frames are the pages
            return _Visit(links=crawl, frameset=True)
        page = final
        if found.canonical:
            canon_urls = absolute_links(base, [found.canonical])
            if canon_urls and self.scope.allows(canon_urls[0]):
                page = canon_urls[0]
        try:
            # in the conversion worker (memory, time), as UTF-8: decoded here by its declared encoding
            converted = convert_html_page(html.encode(), "utf-8")
        except Unreadable as e:
            return _Visit(links=crawl, problem=_join(links_problem, e.reason))
        links = absolute_links(base, converted.links)
        visit = self._page(fetched, page, converted.title, converted.text, links, crawl, {})
        visit.problem = links_problem
        return visit

    def _page(
        self,
        fetched: Fetched,
        page: str,
        title: str,
        text: str,
        links: list[str],
        crawl: list[str],
        extra: dict[str, Any],
    ) -> _Visit:
        me = doc_id(self.name, page)
        references = [
            Reference(me, doc_id(self.name, link), "web-link", link, me)
            for link in links
            if link != page and self.scope.allows(link)
        ]
        parts = urlsplit(page)
        document = SourceDocument(
            id=me,
            type=SourceType.WEB,
            kind="web-page",
            title=title or parts.path or page,
            url=page,
            updated_at=_http_date(fetched.last_modified),
            content=text,
            metadata={"host": host_port(page), "path": parts.path, "acl": self.config.acl, **extra},
            references=references,
            reference_text={"content": text, "links": "\n".join(links)},
        )
        entry = {
            "page": page,
            "etag": fetched.etag,
            "lm": fetched.last_modified,
            "links": crawl,
            # title and text: DocBook part pages differ only in their title (their text is the same
            # release line and an emptied table of contents), and are different pages
            "hash": hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()[:32],
        }
        return _Visit(links=crawl, entry=entry, document=document)


def _join(*problems: str | None) -> str:
    return "; ".join(p for p in problems if p)


def _http_date(value: str | None) -> str:
    if not value:
        return ""
    try:
        return parsedate_to_datetime(value).astimezone(UTC).isoformat(timespec="seconds")
    except (TypeError, ValueError):
        return ""
