"""The web source's URL rules: canonical form, scope, links, sitemaps (``sources/web/urls.py``)."""

from __future__ import annotations

import codecs

import pytest

from devkb.sources.formats import Unreadable
from devkb.sources.formats.convert import decode_html
from devkb.sources.web.urls import (
    LinksUnreadable,
    Scope,
    absolute_links,
    canonical,
    page_links,
    sitemap_locations,
)


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
    found = page_links(
        '<html><head><link rel="Canonical" href="/p"></head><body><a href="q">q</a></body></html>'
    )
    assert (found.hrefs, found.canonical, found.base, found.frameset) == (["q"], "/p", None, False)


def test_base_href_frames_image_maps_and_framesets() -> None:
    found = page_links(
        '<html><head><base href="http://h/docs/api/"></head><frameset cols="20%,80%">'
        '<frame src="overview-frame.html"><frame src="overview-summary.html"></frameset>'
        '<noframes><a href="overview-summary.html">no frames</a></noframes></html>'
    )
    assert found.base == "http://h/docs/api/" and found.frameset
    assert absolute_links(found.base, found.hrefs) == [
        "http://h/docs/api/overview-frame.html",
        "http://h/docs/api/overview-summary.html",
    ]
    found = page_links(
        '<html><body><map><area href="a.html"></map><iframe src="b.html"></iframe></body></html>'
    )
    assert found.hrefs == ["a.html", "b.html"] and not found.frameset


def test_a_page_whose_links_cannot_be_read_says_so() -> None:
    for html in ("", "<!-- only a comment -->", '<?xml version="1.0" encoding="utf-8"?><html/>'):
        with pytest.raises(LinksUnreadable, match="links cannot be read"):
            page_links(html)


def test_xhtml_with_an_xml_declaration_is_decoded_by_what_it_declares() -> None:
    xhtml = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 '
        'Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Daniel Veillard \u2014 caf\u00e9</p>'
        '<a href="FAQ.html">FAQ</a></body></html>'
    )
    text = decode_html(xhtml.replace("\u2014", "-").encode("iso-8859-1"))
    assert not text.startswith("<?xml") and "café" in text
    assert page_links(text).hrefs == ["FAQ.html"]
    assert "café" in decode_html('<meta charset="windows-1252"><p>caf\u00e9</p>'.encode("cp1252"))
    assert "café" in decode_html(
        '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><p>café</p>'.encode(
            "latin-1"
        )
    )
    assert "café" in decode_html("<p>café</p>".encode("latin-1"), declared="iso-8859-1")  # the HTTP charset
    assert "café" in decode_html(codecs.BOM_UTF8 + "<p>café</p>".encode())
    assert "café" in decode_html("<p>café</p>".encode())  # nothing declared: UTF-8
    assert "café" in decode_html("<p>café</p>".encode("cp1252"))  # not UTF-8: windows-1252
    with pytest.raises(Unreadable, match="NUL"):
        decode_html(b"<p>\x00\x01</p>")


def test_sitemaps_and_sitemap_indexes() -> None:
    urlset = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc> http://h/a </loc></url><url><loc>http://h/b</loc></url></urlset>"
    )
    assert sitemap_locations(urlset) == (["http://h/a", "http://h/b"], [])
    index = b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://h/s1.xml</loc></sitemap></sitemapindex>'
    assert sitemap_locations(index) == ([], ["http://h/s1.xml"])
    assert sitemap_locations(b"<not xml") == ([], [])
