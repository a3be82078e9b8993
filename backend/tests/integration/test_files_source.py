"""``type: files`` end to end: the shipped real documents (tests/data/documents, see its README)
through the files loader, the production pipeline and the store — every format, page numbers of
PDFs in chunk sections, incremental runs by mtime and hash, deletions, and one test per failure
shape (encrypted PDF, corrupt PDF, a 50 MB file, a binary with a .md name, an empty file)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from devkb.config.sources_file import SourceConfig
from devkb.indexing.references.context import LinkContext
from devkb.sources.files import FilesLoader
from devkb.sources.registry import build_loader
from devkb.store.models import SourceType
from devkb_devtools.testkit import build_indexer
from tests.hashing_embedder import HashingEmbedder

pytestmark = [pytest.mark.integration]

DOCUMENTS = Path(__file__).resolve().parents[1] / "data" / "documents"
READABLE = {
    "guide/secrets.html",
    "guide/zipapp.rst",
    "guide/appetite.txt",
    "code/secrets.py",
    "zipapp.pdf",
    "secrets.docx",
    "notes.md",
}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    shutil.copytree(DOCUMENTS, root, ignore=shutil.ignore_patterns("make_documents.py", "README.md"))
    return root


def _doc(idx, doc_id: str):  # type: ignore[no-untyped-def]
    found = idx.store.get_document(doc_id)
    assert found is not None, doc_id
    return found.document


def _chunks(idx, doc_id: str):  # type: ignore[no-untyped-def]
    found = idx.store.get_document(doc_id)
    assert found is not None, doc_id
    return found.chunks


def _setup(tmp_path: Path, root: Path, **extra: object):  # type: ignore[no-untyped-def]
    cfg = SourceConfig.model_validate({"name": "shared", "type": "files", "path": str(root), **extra})
    loader = build_loader(cfg)
    assert isinstance(loader, FilesLoader)
    context = LinkContext(project_keys={"PAY"})  # what a Jira source would report
    idx = build_indexer(tmp_path / "store", HashingEmbedder(), [loader], link_context=context)
    return idx, loader


def test_every_format_is_indexed_and_every_broken_file_is_reported_with_its_reason(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    with open(root / "broken" / "huge.md", "wb") as f:  # 50 MB, sparse: over the 25 MB default
        f.truncate(50 * 1024 * 1024)
    idx, _ = _setup(tmp_path, root)
    try:
        status = idx.runs.run("shared")
        assert status.state == "succeeded"
        ids = idx.store.document_ids(source="shared")
        assert ids == {f"files:shared:{p}" for p in READABLE}
        reasons = dict(e.split(": ", 1) for e in status.errors)
        assert reasons.keys() == {
            "broken/encrypted.pdf",
            "broken/corrupt.pdf",
            "broken/huge.md",
            "broken/diagram.md",
            "broken/empty.txt",
        }
        assert reasons["broken/encrypted.pdf"].startswith("encrypted PDF")
        assert reasons["broken/corrupt.pdf"].startswith("corrupt PDF")
        assert "over the size limit" in reasons["broken/huge.md"]
        assert reasons["broken/diagram.md"].startswith("wrong type: PNG data")
        assert reasons["broken/empty.txt"] == "empty file"
        assert status.skipped == 5

        pdf = _doc(idx, "files:shared:zipapp.pdf")
        assert pdf.type == SourceType.FILES
        assert pdf.title == "zipapp — Manage executable Python zip archives"
        assert pdf.metadata["pages"] == 7
        sections = {c.section for c in _chunks(idx, "files:shared:zipapp.pdf")}
        assert {f"Page {n}" for n in range(1, 8)} <= sections
        # "Creating Standalone Applications with zipapp" is a top section set on its own page
        page = next(
            c.section
            for c in _chunks(idx, "files:shared:zipapp.pdf")
            if "Making a Windows executable" in c.content
        )
        assert page.startswith("Page ") and page != "Page 1"

        docx = _doc(idx, "files:shared:secrets.docx")
        assert docx.title.startswith("secrets — Generate secure random numbers")
        docx_sections = {c.section for c in _chunks(idx, "files:shared:secrets.docx")}
        assert any("Random numbers" in s for s in docx_sections)
        assert any("| token_hex(nbytes) |" in c.content for c in _chunks(idx, "files:shared:secrets.docx"))

        html = _doc(idx, "files:shared:guide/secrets.html")
        assert html.title == "secrets — Generate secure random numbers for managing secrets"
        html_text = "\n".join(c.content for c in _chunks(idx, "files:shared:guide/secrets.html"))
        assert "token_urlsafe" in html_text
        assert "Quick search" not in html_text and "Navigation" not in html_text  # Sphinx's sidebar and nav

        code_sections = {c.section for c in _chunks(idx, "files:shared:code/secrets.py")}
        # split by the code-aware splitter: chunks start at functions, named after them
        assert len(code_sections) >= 2 and code_sections <= {
            "(module)",
            "randbelow",
            "token_bytes",
            "token_hex",
            "token_urlsafe",
        }, code_sections
        assert _doc(idx, "files:shared:notes.md").title == "Release notes"
        edges = {(r.from_id, r.to_id, r.kind) for r in idx.store.all_references()}
        assert ("files:shared:notes.md", "jira:PAY-12", "jira-key-in-doc") in edges
        # the acl every document of the source carries: every signed-in member
        assert pdf.metadata["acl"] == [["everyone"]]
    finally:
        idx.close()


def test_incremental_runs_follow_edits_touches_and_deletions(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    idx, _ = _setup(tmp_path, root, exclude=["broken/**"])
    try:
        first = idx.runs.run("shared")
        assert first.errors == [] and first.documents_indexed == len(READABLE)
        again = idx.runs.run("shared")
        assert (again.documents_indexed, again.chunks_embedded, again.done) == (0, 0, 0)

        st = (root / "zipapp.pdf").stat()  # touched: newer mtime, same bytes → not converted again
        os.utime(root / "zipapp.pdf", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        notes = root / "notes.md"
        notes.write_text(
            notes.read_text(encoding="utf-8") + "\nAdded after the first run.\n", encoding="utf-8"
        )
        (root / "guide" / "appetite.txt").unlink()
        third = idx.runs.run("shared")
        assert third.documents_indexed == 1 and third.documents_deleted == 1
        assert third.chunks_embedded == len(_chunks(idx, "files:shared:notes.md"))
        assert "files:shared:guide/appetite.txt" not in idx.store.document_ids(source="shared")
        assert "Added after the first run." in _chunks(idx, "files:shared:notes.md")[-1].content

        # a readable file that becomes unreadable is reported and its stale version deleted
        (root / "secrets.docx").write_bytes(b"")
        fourth = idx.runs.run("shared")
        assert fourth.errors == ["secrets.docx: empty file"] and fourth.documents_deleted == 1
        assert idx.runs.run("shared").errors == ["secrets.docx: empty file"]  # said on every run
    finally:
        idx.close()


def test_include_globs_and_a_missing_directory(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    idx, loader = _setup(tmp_path, root, include=["**/*.pdf", "**/*.docx"], exclude=["broken/**"])
    try:
        idx.runs.run("shared")
        assert idx.store.document_ids(source="shared") == {
            "files:shared:zipapp.pdf",
            "files:shared:secrets.docx",
        }
        shutil.rmtree(root)
        with pytest.raises(Exception, match="not a readable directory"):
            idx.runs.run("shared")
        assert len(idx.store.document_ids(source="shared")) == 2  # an unmounted share deletes nothing
    finally:
        idx.close()
