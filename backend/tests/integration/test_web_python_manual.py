"""The web source on a real documentation site: the Python 3.11 HTML manual as Debian's
``python3-doc`` package ships it (``/usr/share/doc/python3.11/html``, ~530 pages, PSF License),
served by ``http.server`` on 127.0.0.1 and crawled completely from its start page.

- Completeness: the pages indexed are exactly the pages reachable under the crawl's rules,
  computed by an independent walk of the files on disk (the standard library's ``HTMLParser``,
  not the crawler's lxml), less the reachable links that answer 404 (reported, per page).
- A re-crawl of the unchanged site answers with 304s and embeds 0 chunks.
- Questions written from the manual's pages are answered (no LLM: devkb's extractive answer) with
  the page they were written from cited first.

``make test`` installs ``python3-doc`` (scripts/test.sh); without it the test skips saying so.
"""

from __future__ import annotations

import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from devkb.config.sources_file import SourceConfig
from devkb.sources.registry import build_loader
from devkb.sources.web import WebLoader
from devkb_devtools.testkit import build_indexer
from tests.hashing_embedder import HashingEmbedder
from tests.integration.web_site import serve_directory

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

CANDIDATES = [Path("/usr/share/doc/python3.11/html"), Path("/usr/share/doc/python3/html")]
MANUAL = next((p for p in CANDIDATES if (p / "index.html").is_file()), None)
EXCLUDE = ["_sources/**", "_static/**", "_images/**", "_downloads/**"]
NOT_PAGES = (".png", ".jpg", ".gif", ".svg", ".css", ".js", ".zip", ".bz2", ".gz", ".txt", ".ico", ".epub")

# (question, the page it was written from)
QUESTIONS = [
    ("How do I generate a secure random URL-safe text token?", "library/secrets.html"),
    ("How do I create an executable zip archive from a directory of Python code?", "library/zipapp.html"),
    ("How can I make a shallow copy or a deep copy of a compound object?", "library/copy.html"),
    ("How do I insert an item into a sorted list and keep it sorted with bisection?", "library/bisect.html"),
    ("How do I compare two sequences of lines and produce a unified diff?", "library/difflib.html"),
    ("How do I create a temporary directory that is removed automatically?", "library/tempfile.html"),
    ("How do I compute a SHA-256 message digest with a secure hash algorithm?", "library/hashlib.html"),
    ("How can I read and write tab separated values with a csv dialect?", "library/csv.html"),
    ("How do I memoize a function with a least recently used cache?", "library/functools.html"),
    (
        "How do I parse a URL into its scheme, network location and path components?",
        "library/urllib.parse.html",
    ),
]

pytestmark.append(
    pytest.mark.skipif(
        MANUAL is None,
        reason="the Python HTML manual is not installed: `apt-get install python3-doc` (scripts/test.sh does)",
    )
)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def reachable_pages(root: Path) -> tuple[set[str], set[str]]:
    """(HTML pages reachable from index.html under the rules, reachable links with no file):
    paths relative to ``root``."""
    pages, missing, todo = set(), set(), ["index.html"]
    while todo:
        rel = todo.pop()
        if rel in pages or rel in missing:
            continue
        file = root / rel
        if not file.is_file():
            missing.add(rel)
            continue
        pages.add(rel)
        parser = _Links()
        parser.feed(file.read_text(encoding="utf-8", errors="replace"))
        for href in parser.hrefs:
            parts = urlsplit(urljoin(f"http://site/{rel}", href))
            if parts.netloc != "site" or parts.path.lower().endswith(NOT_PAGES):
                continue
            path = parts.path.lstrip("/") or "index.html"
            if any(path.startswith(p.removesuffix("**")) for p in EXCLUDE):
                continue
            todo.append(path)
    return pages, missing


def test_the_python_manual_is_crawled_completely_recrawled_for_free_and_answers_cite_its_pages(
    tmp_path: Path,
) -> None:
    assert MANUAL is not None
    expected, missing = reachable_pages(MANUAL)
    assert len(expected) >= 300
    with serve_directory(MANUAL) as base:
        loader = build_loader(
            SourceConfig.model_validate(
                {
                    "name": "python-manual",
                    "type": "web",
                    "start_urls": [f"{base}/index.html"],
                    "exclude": EXCLUDE,
                    "max_pages": 2000,
                    "requests_per_second": 1000,
                    "concurrency": 4,
                }
            )
        )
        assert isinstance(loader, WebLoader)
        idx = build_indexer(tmp_path, HashingEmbedder(), [loader])
        try:
            started = time.monotonic()
            first = idx.runs.run("python-manual")
            first_s = time.monotonic() - started
            indexed = {
                d.removeprefix(f"web:python-manual:{base}/")
                for d in idx.store.document_ids(source="python-manual")
            }
            assert indexed == expected
            assert sorted(first.errors) == sorted(f"{base}/{m}: HTTP 404" for m in missing)

            started = time.monotonic()
            second = idx.runs.run("python-manual")
            second_s = time.monotonic() - started
            assert (second.documents_indexed, second.chunks_embedded, second.documents_deleted) == (0, 0, 0)

            ask = idx.container.ask()
            cited = []
            for question, page in QUESTIONS:
                answer = ask.ask(question)
                top = answer.sources[0].url.removeprefix(f"{base}/") if answer.sources else None
                cited.append((question, page, top))
            wrong = [(q, p, t) for q, p, t in cited if t != p]
            print(
                f"\npython manual: {len(expected)} pages reachable, {len(indexed)} indexed, "
                f"{len(missing)} reachable links answer 404 ({sorted(missing)}); first crawl "
                f"{first_s:.0f} s, {first.chunks_embedded} chunks embedded; re-crawl {second_s:.1f} s, "
                f"{second.chunks_embedded} chunks embedded; {len(QUESTIONS) - len(wrong)}/{len(QUESTIONS)} "
                f"questions cite their page first; wrong: {wrong}"
            )
            assert not wrong
        finally:
            idx.close()
