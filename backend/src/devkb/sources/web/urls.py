"""Which URLs a web source crawls: canonical form, scope (hosts, path globs), link extraction,
sitemaps.

    HTTP://Docs.Example.com:80/a/b.html?x=1#frag  →  http://docs.example.com/a/b.html?x=1

Path globs (``include``/``exclude``) match the path without its leading ``/``, with the same
rules as the GitHub and files sources (``**/`` any directories, ``*`` inside one segment).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urljoin, urlsplit, urlunsplit

from devkb.sources.github.paths import matches_any

# Links to these are never pages: not fetched at all.
NOT_PAGES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".css", ".js", ".mjs", ".map",
        ".zip", ".gz", ".tgz", ".bz2", ".xz", ".tar", ".whl", ".exe", ".dmg", ".woff", ".woff2",
        ".ttf", ".eot", ".mp4", ".mp3", ".webm", ".avi", ".epub",
    }
)  # fmt: skip
_DEFAULT_PORTS = {"http": 80, "https": 443}


def canonical(url: str) -> str:
    """Scheme and host lower-cased, default port, fragment and empty path dropped."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def host_port(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port
    return host if port is None or _DEFAULT_PORTS.get(parts.scheme.lower()) == port else f"{host}:{port}"


@dataclass
class Scope:
    hosts: set[str]  # host or host:port
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)

    def allows(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or host_port(url) not in self.hosts:
            return False
        if PurePosixPath(parts.path).suffix.lower() in NOT_PAGES:
            return False
        path = parts.path.lstrip("/")
        if self.include and not matches_any(path, self.include):
            return False
        return not matches_any(path, self.exclude)


def absolute_links(base: str, hrefs: Iterable[str]) -> list[str]:
    """Canonical absolute http(s) URLs of ``hrefs`` found on ``base``, in order, once each."""
    seen: dict[str, None] = {}
    for href in hrefs:
        href = href.strip()
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:", "data:")):
            continue
        url = urljoin(base, href)
        if urlsplit(url).scheme in ("http", "https"):
            seen.setdefault(canonical(url), None)
    return list(seen)


class LinksUnreadable(ValueError):
    """A page whose markup lxml cannot parse for links (reported: the crawl cannot go on from it)."""


@dataclass
class PageLinks:
    hrefs: list[str]  # every link to follow, as written: <a>/<area href>, <frame>/<iframe src>
    canonical: str | None  # <link rel=canonical href>
    base: str | None  # <base href>: what relative links resolve against
    frameset: bool  # a <frameset> page (Javadoc's index): only its frames are content


def page_links(html: str) -> PageLinks:
    """The links of a page (to crawl; navigation included), its ``<link rel=canonical>`` and
    ``<base href>``. ``html`` is text without an XML declaration (``decode_html``); raises
    ``LinksUnreadable`` when lxml cannot parse it."""
    import lxml.html  # type: ignore[import-untyped]
    from lxml.etree import LxmlError  # type: ignore[import-untyped]

    try:
        tree = lxml.html.document_fromstring(html)
    except (LxmlError, ValueError) as e:
        raise LinksUnreadable(f"the page's links cannot be read: {type(e).__name__}: {e}") from e
    hrefs = [str(h) for h in tree.xpath("//a/@href | //area/@href | //frame/@src | //iframe/@src")]
    canon = tree.xpath("//link[translate(@rel, 'CANONICAL', 'canonical')='canonical']/@href")
    base = tree.xpath("//base/@href")
    return PageLinks(
        hrefs=hrefs,
        canonical=str(canon[0]) if canon else None,
        base=str(base[0]).strip() or None if base else None,
        frameset=bool(tree.xpath("//frameset")),
    )


def sitemap_locations(xml: bytes) -> tuple[list[str], list[str]]:
    """(page URLs, nested sitemap URLs) of a sitemap or sitemap index."""
    from lxml import etree

    try:
        root = etree.fromstring(xml, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return [], []
    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

    def locations(tag: str) -> list[str]:
        return [
            str(loc.text).strip()
            for entry in root.iter(f"{ns}{tag}", tag)
            for loc in entry.iter(f"{ns}loc", "loc")
            if loc.text and loc.text.strip()
        ]

    return locations("url"), locations("sitemap")
