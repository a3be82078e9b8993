"""The web source's URL rules: canonical form, scope, links, sitemaps (``sources/web/urls.py``)."""

from __future__ import annotations

import pytest

from devkb.sources.web.urls import Scope, absolute_links, canonical, page_links, sitemap_locations


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Docs.Example.com:80/a/b.html?x=1#frag", "http://docs.example.com/a/b.html?x=1"),
        ("https://docs.example.com:443", "https://docs.example.com/"),
        ("http://127.0.0.1:8000/x/#top", "http://127.0.0.1:8000/x/"),
    ],
)
def test_canonical(url: str, expected: str) -> None:
    assert canonical(url) == expected


def test_scope_by_host_path_globs_and_suffix() -> None:
    scope = Scope(hosts={"docs.example.com"}, include=["guide/**"], exclude=["guide/old/**"])
    assert scope.allows("https://docs.example.com/guide/install.html")
    assert not scope.allows("https://docs.example.com/guide/old/install.html")
    assert not scope.allows("https://docs.example.com/blog/post.html")  # not included
    assert not scope.allows("https://other.example.com/guide/install.html")  # another host
    assert not scope.allows("https://docs.example.com/guide/logo.png")  # not a page
    assert not scope.allows("ftp://docs.example.com/guide/x.html")


def test_links_are_absolute_canonical_and_once_each() -> None:
    hrefs = ["../b.html#x", "../b.html", "#top", "mailto:a@b.c", "javascript:void(0)", "https://x.org/"]
    assert absolute_links("http://h/a/c.html", hrefs) == ["http://h/b.html", "https://x.org/"]
    found, canon = page_links(
        '<html><head><link rel="Canonical" href="/p"></head><body><a href="q">q</a></body></html>'
    )
    assert (found, canon) == (["q"], "/p")


def test_sitemaps_and_sitemap_indexes() -> None:
    urlset = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc> http://h/a </loc></url><url><loc>http://h/b</loc></url></urlset>"
    )
    assert sitemap_locations(urlset) == (["http://h/a", "http://h/b"], [])
    index = b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://h/s1.xml</loc></sitemap></sitemapindex>'
    assert sitemap_locations(index) == ([], ["http://h/s1.xml"])
    assert sitemap_locations(b"<not xml") == ([], [])
