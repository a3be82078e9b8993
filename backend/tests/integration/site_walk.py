"""An independent walk of a documentation site on disk, as ``http.server`` serves it: the oracle
the web source's crawls are checked against.

It reads the files with the standard library's ``HTMLParser`` (the crawler uses lxml), follows
``<a>``/``<area href>`` and ``<frame>``/``<iframe src>`` resolved against ``<base href>``, and
serves paths the way ``http.server`` does (a directory → its ``index.html``, the type from the
file's suffix, the query string ignored). Whatever it finds is classified:

- ``pages``: reachable HTML files (with the query string, as distinct URLs);
- ``framesets``: reachable HTML files made of a ``<frameset>`` (containers, not pages);
- ``missing``: reachable links with no file (the server answers 404).
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit, urlunsplit

from devkb.sources.github.paths import matches_any


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.base: str | None = None
        self.frameset = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("a", "area") and values.get("href"):
            self.links.append(str(values["href"]))
        elif tag in ("frame", "iframe") and values.get("src"):
            self.links.append(str(values["src"]))
        elif tag == "base" and values.get("href") and self.base is None:
            self.base = str(values["href"])
        elif tag == "frameset":
            self.frameset = True

    handle_startendtag = handle_starttag


@dataclass
class Walk:
    pages: set[str] = field(default_factory=set)  # "path" or "path?query", relative to the root
    framesets: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)


def walk_site(
    root: Path,
    start: str = "index.html",
    exclude: tuple[str, ...] = (),
    not_pages: frozenset[str] = frozenset(),
) -> Walk:
    walk = Walk()
    seen: set[str] = set()
    todo = [start]
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        path, _, query = rel.partition("?")
        file = root / path
        if path == "" or path.endswith("/") or file.is_dir():
            file = file / "index.html"
        if not file.is_file():
            walk.missing.add(rel)
            continue
        if mimetypes.guess_type(file.name)[0] != "text/html":
            continue  # served, but not a page
        reader = _Reader()
        reader.feed(file.read_bytes().decode("utf-8", "replace"))
        (walk.framesets if reader.frameset else walk.pages).add(rel)
        here = f"http://site/{rel}"
        base = urljoin(here, reader.base) if reader.base else here
        for href in reader.links:
            href = href.strip()
            if href.startswith(("#", "mailto:", "javascript:")):
                continue
            parts = urlsplit(urljoin(base, href))
            if parts.scheme != "http" or parts.netloc != "site":
                continue
            if PurePosixPath(parts.path).suffix.lower() in not_pages:
                continue
            target = parts.path.lstrip("/")
            if exclude and matches_any(target, list(exclude)):
                continue
            todo.append(urlunsplit(("", "", target, parts.query, "")))
    return walk


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.words += data.split()


def visible_text(file: Path) -> str:
    """The words of an HTML file outside its tags, scripts and styles (to check that two pages
    the crawler calls duplicates read the same)."""
    reader = _Text()
    reader.feed(file.read_bytes().decode("utf-8", "replace"))
    return " ".join(reader.words)
