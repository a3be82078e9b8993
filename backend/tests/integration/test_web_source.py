"""``type: web`` against real HTTP servers on 127.0.0.1: a small site with one route per failure
shape (redirect loop, 404, robots.txt disallow, a page without main content, a page that changes
between crawls, a duplicate under a canonical URL), and the Python 3.11 HTML manual as Debian's
``python3-doc`` ships it, crawled completely."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from devkb.config.sources_file import SourceConfig
from devkb.indexing.references.context import LinkContext
from devkb.sources.registry import build_loader
from devkb.sources.web import WebLoader
from devkb.store.models import SourceType
from devkb_devtools.testkit import build_indexer
from tests.hashing_embedder import HashingEmbedder
from tests.integration.web_site import Route, RouteSite

pytestmark = [pytest.mark.integration]

NAV = '<nav class="menu"><a href="/">Home</a> · <a href="/guide/install.html">Install</a> · <a href="/guide/config.html">Configure</a></nav>'
HEADER = "<header><p>Acme Payments documentation — version 2.4 — site navigation</p></header>"
FOOTER = "<footer><p>© Acme Payments. All rights reserved. Privacy · Terms · Contact</p></footer>"


def page(title: str, body: str, head: str = "") -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{HEADER}{NAV}"
        f"<main><article><h1>{title}</h1>{body}</article></main>{FOOTER}</body></html>"
    )


PROSE = (
    "<p>The payments service settles card transactions in batches every night and keeps a ledger "
    "of every settlement so that finance can reconcile the bank statements each morning.</p>"
)


class Site:
    def __init__(self) -> None:
        self.changing_version = 1
        self.routes: dict[str, Callable[[], Route]] = {
            "/robots.txt": lambda: (
                200,
                {"Content-Type": "text/plain"},
                "User-agent: *\nDisallow: /private/\n",
            ),
            "/": lambda: (
                200,
                {},
                page(
                    "Acme Payments handbook",
                    PROSE
                    + "<p>Each merchant account has a settlement currency, a payout schedule and a reserve; the "
                    "handbook explains how the service computes them, how operators change them and which "
                    "reports show them to finance and to support.</p><p>Operators run the service on two "
                    'nodes behind a load balancer: start with <a href="/guide/install.html">installing the '
                    'service</a>, then set the <a href="/guide/config.html#limits">configuration limits</a>.</p>'
                    '<h2>Guides</h2><ul><li><a href="/guide/install-copy.html">Installing (old address)</a></li>'
                    '<li><a href="/loop">The loop</a></li><li><a href="/missing.html">Missing page</a></li>'
                    '<li><a href="/private/salaries.html">Private</a></li><li><a href="/empty.html">Empty</a></li>'
                    '<li><a href="/changing.html">Release notes</a></li>'
                    '<li><a href="https://elsewhere.example.org/other">Another site</a></li></ul>',
                ),
            ),
            "/guide/install.html": lambda: (
                200,
                {},
                page(
                    "Installing the service",
                    PROSE + "<h2>Requirements</h2><p>Install PostgreSQL 15 and Python 3.11 before the "
                    "service; the schema migration is tracked in PAY-7 and the installer lives in "
                    '<a href="https://github.com/acme/payments-service/blob/main/install.sh">install.sh</a>.</p>'
                    '<p>Then read <a href="config.html">the configuration guide</a> and the '
                    '<a href="https://wiki.acme.example/display/PAY/Settlement+runbook">settlement runbook</a>.</p>',
                ),
            ),
            "/guide/install-copy.html": lambda: (
                200,
                {},
                page(
                    "Installing the service",
                    PROSE + "<p>Old address of the installation guide, kept for old bookmarks.</p>",
                    head='<link rel="canonical" href="/guide/install.html">',
                ),
            ),
            "/guide/config.html": lambda: (
                200,
                {},
                page(
                    "Configuration",
                    PROSE + '<h2 id="limits">Limits</h2><p>The settlement batch holds at most 5000 '
                    "transactions; larger batches are split by the scheduler before they are sent.</p>"
                    '<p>Back to <a href="install.html">installing</a>.</p>',
                ),
            ),
            "/loop": lambda: (302, {"Location": "/loop2"}, ""),
            "/loop2": lambda: (302, {"Location": "/loop"}, ""),
            "/private/salaries.html": lambda: (200, {}, page("Salaries", PROSE)),
            "/empty.html": lambda: (
                200,
                {},
                f"<html><head><title>Empty</title></head><body>{HEADER}{NAV}{FOOTER}</body></html>",
            ),
            "/changing.html": lambda: (
                200,
                {},
                page(
                    "Release notes",
                    PROSE + f"<h2>Version 2.{self.changing_version}</h2><p>Release {self.changing_version} "
                    f"changes the settlement cut-off to {17 + self.changing_version}:00 UTC for every merchant.</p>",
                ),
            ),
        }


@pytest.fixture
def site():  # type: ignore[no-untyped-def]
    s = Site()
    server = RouteSite(s.routes)
    yield s, server
    server.close()


def _indexer(tmp_path: Path, cfg: dict, context: LinkContext | None = None):  # type: ignore[no-untyped-def]
    loader = build_loader(SourceConfig.model_validate({"name": "handbook", "type": "web", **cfg}))
    assert isinstance(loader, WebLoader)
    return build_indexer(tmp_path, HashingEmbedder(), [loader], link_context=context), loader


def test_failure_shapes_duplicates_references_and_a_recrawl(tmp_path: Path, site) -> None:  # type: ignore[no-untyped-def]
    s, server = site
    base = server.url
    context = LinkContext(
        project_keys={"PAY"},
        github_repos={"acme/payments-service"},
        confluence_hosts={"wiki.acme.example"},
        confluence_urls={"/display/PAY/Settlement runbook": "confluence:page:42"},
    )
    idx, loader = _indexer(
        tmp_path,
        {"start_urls": [f"{base}/"], "requests_per_second": 200, "user_agent": "devkb-test-crawler/1.0"},
        context,
    )
    try:
        first = idx.runs.run("handbook")
        assert first.state == "succeeded"
        ids = idx.store.document_ids(source="handbook")
        expected = {
            f"web:handbook:{base}{p}"
            for p in ("/", "/guide/install.html", "/guide/config.html", "/changing.html")
        }
        assert ids == expected  # install-copy is the same page (canonical), the rest fail
        reasons = dict(e.split(": ", 1) for e in first.errors)
        assert reasons == {
            f"{base}/loop": "redirect loop (more than 10 redirects)",
            f"{base}/missing.html": "HTTP 404",
            f"{base}/private/salaries.html": "disallowed by robots.txt",
            f"{base}/empty.html": "no main content (only navigation, headers or footers)",
        }
        assert "/private/salaries.html" not in [p for p, _ in server.requests]  # never fetched
        assert {ua for _, ua in server.requests} == {"devkb-test-crawler/1.0"}
        assert not any("elsewhere" in p for p, _ in server.requests)

        install = idx.store.get_document(f"web:handbook:{base}/guide/install.html")
        assert install is not None and install.document.type == SourceType.WEB
        text = "\n".join(c.content for c in install.chunks)
        assert "Install PostgreSQL 15" in text
        assert (
            "All rights reserved" not in text and "site navigation" not in text
        )  # header, footer, nav dropped
        assert "## Requirements" in text  # headings kept
        edges = {(r.from_id, r.to_id, r.kind) for r in idx.store.all_references()}
        me = f"web:handbook:{base}/guide/install.html"
        assert (me, f"web:handbook:{base}/guide/config.html", "web-link") in edges
        assert (f"web:handbook:{base}/guide/config.html", me, "web-link") in edges
        assert (me, "jira:PAY-7", "jira-key-in-web-page") in edges
        assert (me, "github:acme/payments-service:file:install.sh", "web-mentions-doc-url") in edges
        assert (me, "confluence:page:42", "web-mentions-confluence-url") in edges
        # links of the main content are edges (the list of links under "Guides" is navigation to
        # trafilatura: crawled, not an edge)
        home = f"web:handbook:{base}/"
        assert {b for a, b, k in edges if a == home and k == "web-link"} == {
            f"web:handbook:{base}/guide/install.html",
            f"web:handbook:{base}/guide/config.html",
        }

        # nothing changed: conditional requests, 304s, nothing converted or embedded
        server.requests.clear()
        second = idx.runs.run("handbook")
        assert (second.documents_indexed, second.chunks_embedded, second.documents_deleted) == (0, 0, 0)
        assert len(second.errors) == 4  # the failures are said again
        assert idx.store.document_ids(source="handbook") == expected

        # one page changes between crawls: only it is re-indexed
        s.changing_version = 2
        third = idx.runs.run("handbook")
        assert third.documents_indexed == 1
        changed = idx.store.get_document(f"web:handbook:{base}/changing.html")
        assert changed is not None
        assert "cut-off to 19:00 UTC" in "\n".join(c.content for c in changed.chunks)
        assert third.chunks_embedded == len(changed.chunks)

        # a page that disappears (404) is deleted
        del s.routes["/guide/config.html"]
        fourth = idx.runs.run("handbook")
        assert fourth.documents_deleted == 1
        assert f"web:handbook:{base}/guide/config.html" not in idx.store.document_ids(source="handbook")
    finally:
        idx.close()


def test_scope_depth_max_pages_and_sitemap(tmp_path: Path, site) -> None:  # type: ignore[no-untyped-def]
    s, server = site
    base = server.url
    s.routes["/sitemap.xml"] = lambda: (
        200,
        {"Content-Type": "application/xml"},
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{base}/guide/config.html</loc></url><url><loc>{base}/changing.html</loc></url></urlset>",
    )
    idx, _ = _indexer(
        tmp_path, {"sitemaps": [f"{base}/sitemap.xml"], "max_depth": 0, "requests_per_second": 200}
    )
    try:
        idx.runs.run("handbook")
        assert idx.store.document_ids(source="handbook") == {
            f"web:handbook:{base}/guide/config.html",
            f"web:handbook:{base}/changing.html",
        }
    finally:
        idx.close()
    idx, _ = _indexer(
        tmp_path / "b", {"start_urls": [f"{base}/"], "exclude": ["guide/**"], "requests_per_second": 200}
    )
    try:
        idx.runs.run("handbook")
        assert idx.store.document_ids(source="handbook") == {
            f"web:handbook:{base}/",
            f"web:handbook:{base}/changing.html",
        }
    finally:
        idx.close()
    idx, _ = _indexer(
        tmp_path / "c", {"start_urls": [f"{base}/"], "max_pages": 2, "requests_per_second": 200}
    )
    try:
        idx.runs.run("handbook")
        assert len(idx.store.document_ids(source="handbook")) == 2
    finally:
        idx.close()


def test_rate_limit_spaces_requests(tmp_path: Path, site) -> None:  # type: ignore[no-untyped-def]
    _, server = site
    idx, _ = _indexer(
        tmp_path, {"start_urls": [f"{server.url}/"], "requests_per_second": 20, "concurrency": 4}
    )
    try:
        started = time.monotonic()
        idx.runs.run("handbook")
        elapsed = time.monotonic() - started
        # robots.txt + 10 page requests at most 20 per second: at least (11 - 1) / 20 s
        assert len(server.requests) >= 11 and elapsed >= (len(server.requests) - 1) / 20
    finally:
        idx.close()


def test_a_robots_txt_that_fails_disallows_the_host_and_the_crawl_fails_deleting_nothing(
    tmp_path: Path, site
) -> None:  # type: ignore[no-untyped-def]
    s, server = site
    idx, _ = _indexer(tmp_path, {"start_urls": [f"{server.url}/"], "requests_per_second": 200})
    try:
        idx.runs.run("handbook")
        indexed = idx.store.document_ids(source="handbook")
        assert len(indexed) == 4
        s.routes["/robots.txt"] = lambda: (503, {"Content-Type": "text/plain"}, "down for maintenance")
        with pytest.raises(Exception, match="no page could be crawled"):
            idx.runs.run("handbook")
        assert idx.store.document_ids(source="handbook") == indexed  # RFC 9309: 5xx = disallow all
        assert [p for p, _ in server.requests].count("/") == 1  # the home page was not fetched again
    finally:
        idx.close()


def _xhtml(title: str, body: str, head: str = "") -> bytes:
    """A page as DocBook and libxml2's XSLT sites write them: an XML declaration before ``<html>``,
    in ISO-8859-1."""
    return (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 '
        'Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        f'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title>{head}</head><body>'
        f"<h1>{title}</h1>{body}</body></html>"
    ).encode("iso-8859-1")


def test_an_xhtml_manual_with_base_href_and_frames_is_crawled_and_what_it_cannot_read_is_reported(
    tmp_path: Path,
) -> None:
    """The field report: an XHTML manual (XML declaration, served as application/xhtml+xml)
    crawled to its start page only, "1 indexed, 0 errors". Now every chapter is indexed, in its
    declared encoding; chapters linked from a frameset and under a ``<base href>`` are found; a
    page whose links cannot be read and a crawl stopped by ``max_pages`` are reported."""
    xhtml = {"Content-Type": "application/xhtml+xml"}
    chapters = 30
    toc = "".join(f'<li><a href="ch{n:02d}.html">Chapter {n}</a></li>' for n in range(1, chapters + 1))
    routes: dict[str, Callable[[], Route]] = {
        "/robots.txt": lambda: (404, {}, ""),
        "/manual/index.html": lambda: (
            200,
            xhtml,
            _xhtml("The café manual", PROSE + f"<ul>{toc}</ul>" + '<p><a href="/api/index.html">API</a></p>'),
        ),
        # Javadoc: a frameset whose frames are the pages; <base href> moves relative links
        "/api/index.html": lambda: (
            200,
            {},
            '<html><head><title>API</title><base href="/api/v2/"></head><frameset cols="20%,80%">'
            '<frame src="classes.html"><frame src="overview.html"></frameset></html>',
        ),
        "/api/v2/classes.html": lambda: (
            200,
            xhtml,
            _xhtml("All classes", PROSE + '<a href="broken.html">x</a>'),
        ),
        "/api/v2/overview.html": lambda: (
            200,
            xhtml,
            _xhtml("Overview", PROSE + "<p>The API, version two.</p>"),
        ),
        "/api/v2/broken.html": lambda: (200, {}, "<!-- generated by a tool that crashed -->"),
    }
    for n in range(1, chapters + 1):
        routes[f"/manual/ch{n:02d}.html"] = functools.partial(
            lambda n: (
                200,
                xhtml,
                _xhtml(
                    f"Chapter {n}",
                    f"<p>Chapter {n} of the café manual explains settlement step {n} in detail, with the "
                    f"ledger entries it writes and the reconciliation report that finance reads at {n}:00.</p>",
                ),
            ),
            n,
        )
    server = RouteSite(routes)
    try:
        base = server.url
        idx, loader = _indexer(
            tmp_path, {"start_urls": [f"{base}/manual/index.html"], "requests_per_second": 500}
        )
        try:
            run = idx.runs.run("handbook")
            ids = idx.store.document_ids(source="handbook")
            assert len(ids) == 1 + chapters + 2  # the start page, the chapters, the frames' two pages
            assert f"web:handbook:{base}/api/index.html" not in ids  # a frameset is no page
            assert f"web:handbook:{base}/api/v2/overview.html" in ids
            found = idx.store.get_document(f"web:handbook:{base}/manual/ch07.html")
            assert found is not None and "café manual" in " ".join(c.content for c in found.chunks)
            assert run.errors == [
                f"{base}/api/v2/broken.html: the page's links cannot be read: ParserError: "
                "Document is empty; no main content (only navigation, headers or footers)"
            ]
            assert run.state == "succeeded" and run.skipped == 1
        finally:
            idx.close()
        idx, loader = _indexer(
            tmp_path / "b",
            {"start_urls": [f"{base}/manual/index.html"], "max_pages": 5, "requests_per_second": 500},
        )
        try:
            run = idx.runs.run("handbook")
            assert len(idx.store.document_ids(source="handbook")) == 5
            assert any(
                e.startswith("crawl of handbook: 5 pages indexed of 32 in-scope links found")
                and "max_pages 5 reached" in e
                for e in run.errors
            ), run.errors
        finally:
            idx.close()
    finally:
        server.close()
