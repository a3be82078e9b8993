"""The web and files sources on real documentation sites made by different generators, as
Debian's HTML packages ship them (``scripts/test.sh`` installs them; a missing one skips saying
which package to install). Each site is served by ``http.server`` on 127.0.0.1 and crawled
completely from its start page, and read again as a ``files`` folder:

- web: the pages indexed are exactly the pages an independent walk of the files on disk finds
  (``site_walk``: the standard library's ``HTMLParser``, not the crawler's lxml), less the
  failures the run reports (each reachable link without a file is among them) and the
  duplicates the crawl names (a second URL of a page: ``dir/`` and ``dir/index.html``), whose
  files are checked to be the same page;
- files: every HTML file is indexed, less the ones the run reports as unreadable;
- a second run embeds 0 chunks (web: every page answers 304; files: nothing changed);
- a question written from one of the site's pages is answered (extractive, no LLM) with that
  page cited first.

The Sphinx site is the Python manual (``test_web_python_manual.py``).

Any other site on disk can be held to the same completeness check without changing this file:
``DEVKB_EXTRA_SITES=/usr/share/doc/postgresql-doc-15/html:/usr/share/doc/sqlite3`` (roots with an
``index.html``, ``:``-separated) runs :func:`test_another_site_on_disk_is_crawled_completely` on
each (``docs/sources.md`` lists the manuals checked so).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from devkb.config.sources_file import SourceConfig
from devkb.sources.registry import build_loader
from devkb.sources.web import WebLoader
from devkb.sources.web.urls import NOT_PAGES
from devkb_devtools.testkit import build_indexer
from tests.hashing_embedder import HashingEmbedder
from tests.integration.site_walk import visible_text, walk_site
from tests.integration.web_site import serve_directory

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@dataclass(frozen=True)
class Site:
    generator: str
    package: str  # the Debian package that ships it
    root: Path
    question: str  # written from `page`
    page: str


SITES = [
    Site(
        "DocBook XSL (HTML 4, chunked book)",
        "valgrind",
        Path("/usr/share/doc/valgrind/html"),
        "How do I use ms_print to display the heap snapshots that Massif recorded?",
        "ms-manual.html",
    ),
    Site(
        "libxml2/libxslt XSLT site (XHTML with an XML declaration, ISO-8859-1)",
        "libxslt1-dev",
        Path("/usr/share/doc/libxslt1-dev/html"),
        "Why does a string parameter passed with --param on the xsltproc command line end up empty?",
        "FAQ.html",
    ),
    Site(
        "MkDocs",
        "mkdocs-doc",
        Path("/usr/share/doc/mkdocs/html"),
        "How do I deploy my MkDocs documentation to GitHub Pages with gh-deploy?",
        "user-guide/deploying-your-docs.html",
    ),
    Site(
        "Javadoc (frameset, JDK 6 style)",
        "libatinject-jsr330-api-java-doc",
        Path("/usr/share/doc/libatinject-jsr330-api-java/api"),
        "What does the Singleton annotation do: does the injector instantiate the type only once?",
        "javax/inject/Singleton.html",
    ),
    Site(
        "Doxygen (XHTML)",
        "lmdb-doc",
        Path("/usr/share/doc/lmdb-doc/html"),
        "When must mdb_env_set_maxdbs be called to set the maximum number of named databases?",
        "starting.html",
    ),
    Site(
        "GNU Texinfo (makeinfo --html)",
        "libffi-dev",
        Path("/usr/share/doc/libffi-dev/html"),
        "How do I prepare a call interface object with ffi_prep_cif before making a call?",
        "The-Basics.html",
    ),
]


def _present(site: Site) -> bool:
    return (site.root / "index.html").is_file()


@pytest.mark.parametrize("site", SITES, ids=[s.package for s in SITES])
def test_a_real_site_is_crawled_completely_recrawled_for_free_and_cited(site: Site, tmp_path: Path) -> None:
    if not _present(site):
        pytest.skip(
            f"{site.generator} site not installed: `apt-get install {site.package}` (scripts/test.sh does)"
        )
    oracle = walk_site(site.root, not_pages=NOT_PAGES)
    assert len(oracle.pages) >= 15, oracle
    with serve_directory(site.root) as base:
        loader = build_loader(
            SourceConfig.model_validate(
                {
                    "name": "site",
                    "type": "web",
                    "start_urls": [f"{base}/index.html"],
                    "max_pages": 2000,
                    "requests_per_second": 1000,
                    "concurrency": 4,
                }
            )
        )
        assert isinstance(loader, WebLoader)
        idx = build_indexer(tmp_path / "web", HashingEmbedder(), [loader])
        try:
            started = time.monotonic()
            first = idx.runs.run("site")
            first_s = time.monotonic() - started
            assert first.state == "succeeded", first.errors
            prefix = f"web:site:{base}/"
            indexed = {d.removeprefix(prefix) for d in idx.store.document_ids(source="site")}
            failed = {
                e.split(": ", 1)[0].removeprefix(f"{base}/") for e in first.errors if e.startswith(base)
            }
            duplicates = {
                u.removeprefix(f"{base}/"): p.removeprefix(f"{base}/") for u, p in loader.duplicates.items()
            }
            # each duplicate reads the same as the page it repeats (the same file under a second URL,
            # or Javadoc's allclasses-frame / allclasses-noframe)
            for url, page in duplicates.items():
                assert visible_text(_file(site.root, url)) == visible_text(_file(site.root, page)), (
                    url,
                    page,
                )
            assert oracle.missing <= failed, "every reachable link without a file is reported"
            assert failed <= oracle.pages | oracle.missing | oracle.framesets
            assert indexed == oracle.pages - failed - set(duplicates)
            assert not any("links cannot be read" in e for e in first.errors), first.errors

            second = idx.runs.run("site")
            assert (second.documents_indexed, second.chunks_embedded, second.documents_deleted) == (0, 0, 0)

            answer = idx.container.ask().ask(site.question)
            top = answer.sources[0].url.removeprefix(f"{base}/") if answer.sources else None
            print(
                f"\n{site.generator} ({site.package}): {len(oracle.pages)} pages reachable, "
                f"{len(oracle.framesets)} framesets, {len(indexed)} indexed, {len(duplicates)} duplicate URLs, "
                f"{len(failed)} reported ({len(oracle.missing)} links answer 404); first crawl {first_s:.1f} s, "
                f"{first.chunks_embedded} chunks; re-crawl {second.chunks_embedded} chunks; "
                f"question cites {top!r} (written from {site.page!r})"
            )
            assert top == site.page, [s.url for s in answer.sources[:5]]
        finally:
            idx.close()


@pytest.mark.parametrize("site", SITES, ids=[s.package for s in SITES])
def test_a_real_site_as_a_files_folder(site: Site, tmp_path: Path) -> None:
    if not _present(site):
        pytest.skip(
            f"{site.generator} site not installed: `apt-get install {site.package}` (scripts/test.sh does)"
        )
    html = {str(p.relative_to(site.root)) for p in site.root.rglob("*.html") if p.is_file()}
    loader = build_loader(
        SourceConfig.model_validate(
            {"name": "folder", "type": "files", "path": str(site.root), "include": ["**/*.html", "*.html"]}
        )
    )
    idx = build_indexer(tmp_path / "files", HashingEmbedder(), [loader])
    try:
        first = idx.runs.run("folder")
        assert first.state == "succeeded", first.errors
        indexed = {d.removeprefix("files:folder:") for d in idx.store.document_ids(source="folder")}
        unreadable = {e.split(": ", 1)[0] for e in first.errors}
        assert not any("UTF-8" in e or "cannot parse" in e for e in first.errors), first.errors
        assert indexed == html - unreadable
        assert len(indexed) >= 15
        second = idx.runs.run("folder")
        assert (second.documents_indexed, second.chunks_embedded, second.documents_deleted) == (0, 0, 0)
        answer = idx.container.ask().ask(site.question)
        top = answer.sources[0].document_id.removeprefix("files:folder:") if answer.sources else None
        print(
            f"\n{site.generator} as files: {len(html)} HTML files, {len(indexed)} indexed, "
            f"{len(unreadable)} reported ({sorted(first.errors)[:3]}); question cites {top!r}"
        )
        assert top == site.page
    finally:
        idx.close()


def _file(root: Path, rel: str) -> Path:
    path = root / rel.partition("?")[0]
    return path / "index.html" if path.is_dir() or rel.endswith("/") else path


EXTRA_SITES = [Path(p) for p in os.environ.get("DEVKB_EXTRA_SITES", "").split(":") if p]


@pytest.mark.parametrize("root", EXTRA_SITES or [None], ids=[str(p) for p in EXTRA_SITES] or ["none"])
def test_another_site_on_disk_is_crawled_completely(root: Path | None, tmp_path: Path) -> None:
    """The completeness half of the check above on any site named in ``DEVKB_EXTRA_SITES``: pages
    indexed = pages an independent walk reaches, less the failures the run counts and the
    duplicate URLs it names; every reachable link without a file is counted as skipped."""
    if root is None:
        pytest.skip("DEVKB_EXTRA_SITES names no site")
    if not (root / "index.html").is_file():
        pytest.fail(f"{root}/index.html does not exist")
    oracle = walk_site(root, not_pages=NOT_PAGES)
    with serve_directory(root) as base:
        loader = build_loader(
            SourceConfig.model_validate(
                {
                    "name": "site",
                    "type": "web",
                    "start_urls": [f"{base}/index.html"],
                    "max_pages": 5000,
                    "requests_per_second": 1000,
                    "concurrency": 4,
                }
            )
        )
        assert isinstance(loader, WebLoader)
        idx = build_indexer(tmp_path / "web", HashingEmbedder(), [loader])
        try:
            run = idx.runs.run("site")
            assert run.state == "succeeded", run.errors
            prefix = f"web:site:{base}/"
            indexed = {d.removeprefix(prefix) for d in idx.store.document_ids(source="site")}
            # the run keeps the first 200 reasons and counts every skipped page
            failed = {e.split(": ", 1)[0].removeprefix(f"{base}/") for e in run.errors if e.startswith(base)}
            duplicates = {u.removeprefix(f"{base}/") for u in loader.duplicates}
            listings = {
                p for p in indexed - oracle.pages if p.endswith("/")
            }  # http.server's directory listings
            print(
                f"\n{root}: {len(oracle.pages)} pages reachable, {len(oracle.missing)} links answer 404, "
                f"{len(indexed)} indexed, {run.skipped} skipped, {len(duplicates)} duplicate URLs, "
                f"{len(listings)} directory listings"
            )
            assert run.skipped >= len(oracle.missing - listings)
            assert not any("links cannot be read" in e for e in run.errors), run.errors
            # every reachable page is indexed, named a duplicate, or counted as skipped with a reason
            lost = oracle.pages - indexed - duplicates
            if len(run.errors) < 200:
                assert lost <= failed, sorted(lost)[:10]
            else:
                assert len(lost) <= run.skipped, sorted(lost)[:10]
            # and nothing else is indexed but what http.server's directory listings lead to
            extra = indexed - oracle.pages
            assert all(any(p.startswith(d) for d in listings) for p in extra), sorted(extra)[:10]
        finally:
            idx.close()
