"""``convert_bytes``: one file's bytes → ``Converted`` (title, Markdown-shaped text, metadata)."""

from __future__ import annotations

import io
import re
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from devkb.errors import DevkbError

BINARY_SNIFF_BYTES = 8192
BINARY_FORMATS = frozenset({"pdf", "docx"})
_HEADING_STYLE = re.compile(r"^Heading (\d)$")
_PILCROW = re.compile(r"[ \t]*[¶\uf0c1]+[ \t]*$", re.MULTILINE)  # Sphinx's heading anchors


class Unreadable(DevkbError):
    """A file that cannot be converted; ``reason`` says why (permanent: retried only once the
    file changes)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Converted:
    title: str
    text: str
    format: str
    metadata: dict[str, Any] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)  # hrefs of the main content, as written


# Page chrome removed before extraction, on top of trafilatura's own boilerplate detection (whose
# fallback extractors keep a page's navigation when the page has nothing else): the HTML5 and
# ARIA landmarks of navigation, the site header and the site footer — a header or footer inside
# the article or main content is kept (an article's title often sits in one).
_CHROME = [
    "//nav",
    "//*[@role='navigation' or @role='banner' or @role='contentinfo' or @role='search']",
    "//header[not(ancestor::article or ancestor::main)]",
    "//footer[not(ancestor::article or ancestor::main)]",
]
_MD_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]*)\)")


def format_of(name: str) -> str:
    """``pdf``, ``docx``, ``html``, ``markdown`` or ``text`` (code and everything else)."""
    suffix = PurePosixPath(name).suffix.lower()
    return {
        ".pdf": "pdf",
        ".docx": "docx",
        ".html": "html",
        ".htm": "html",
        ".xhtml": "html",
        ".md": "markdown",
        ".markdown": "markdown",
    }.get(suffix, "text")


def convert_bytes(name: str, data: bytes, max_bytes: int | None = None) -> Converted:
    """Convert ``data`` (the content of a file called ``name``); raises ``Unreadable``."""
    if max_bytes is not None and len(data) > max_bytes:
        raise Unreadable(too_large(len(data), max_bytes))
    if not data.strip():
        raise Unreadable("empty file")
    fmt = format_of(name)
    stem = PurePosixPath(name).stem
    if fmt == "pdf":
        return _pdf(data, stem)
    if fmt == "docx":
        return _docx(data, stem)
    text = decode_text(data)
    if fmt == "html":  # with the hrefs of its main content: references to Jira, GitHub, Confluence
        return html_to_markdown(text, stem, with_links=True)
    return Converted(title=_first_heading(text) if fmt == "markdown" else "", text=text, format=fmt)


def too_large(size: int, limit: int) -> str:
    return f"{size / 1e6:.1f} MB is over the size limit of {limit / 1e6:.1f} MB (max_file_bytes)"


def decode_text(data: bytes) -> str:
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise Unreadable("binary content (NUL bytes) in a text file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Unreadable(f"not UTF-8 text (invalid byte at offset {e.start})") from e
    if not text.strip():
        raise Unreadable("empty file")
    return text


def _first_heading(text: str) -> str:
    for line in text.splitlines()[:200]:
        if line.startswith("# "):
            return line[2:].strip()
    return ""


# trafilatura is not safe to call from several threads at once: it shares lxml objects between
# calls, and two crawl workers converting pages together aborted the process (the Python-manual
# crawl test). The crawl fetches in parallel and converts one page at a time.
_ONE_AT_A_TIME = threading.Lock()


def html_to_markdown(html: str, fallback_title: str = "", with_links: bool = False) -> Converted:
    """The page's main content as Markdown (trafilatura), and its title; ``with_links``: also the
    hrefs of the main content's links (as written: relative ones stay relative), their markup
    reduced to the link text."""
    import trafilatura

    try:
        with _ONE_AT_A_TIME:
            text = trafilatura.extract(
                html,
                output_format="markdown",
                include_tables=True,
                include_comments=False,
                include_links=with_links,
                favor_recall=True,
                prune_xpath=_CHROME,
            )
            meta = trafilatura.extract_metadata(html)
    except Exception as e:  # lxml/trafilatura raise many types on broken markup
        raise Unreadable(f"cannot parse HTML: {type(e).__name__}: {e}") from e
    if not text or not text.strip():
        raise Unreadable("no main content (only navigation, headers or footers)")
    links: list[str] = []
    if with_links:
        links = [m.group(2) for m in _MD_LINK.finditer(text) if m.group(2)]
        text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _PILCROW.sub("", text)
    title = _PILCROW.sub(
        "", (meta.title if meta and meta.title else "") or _first_heading(text) or fallback_title
    )
    return Converted(title=title.strip(), text=text.strip() + "\n", format="html", links=links)


def _pdf(data: bytes, stem: str) -> Converted:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:  # many PDFs are encrypted with an empty user password (permissions only)
                ok = reader.decrypt("")
            except (FileNotDecryptedError, NotImplementedError) as e:
                raise Unreadable(f"encrypted PDF: {e}") from e
            if not ok:
                raise Unreadable("encrypted PDF: a password is required to open it")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        info = reader.metadata
        title = str(info.title).strip() if info and info.title else ""
    except Unreadable:
        raise
    except FileNotDecryptedError as e:
        raise Unreadable(f"encrypted PDF: {e}") from e
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, OSError) as e:
        raise Unreadable(f"corrupt PDF: {type(e).__name__}: {e}") from e
    if not any(pages):
        raise Unreadable(f"no text in {len(pages)} PDF page(s) (a scan without a text layer?)")
    parts = [f"## Page {n}\n\n{text}" for n, text in enumerate(pages, start=1) if text]
    if not title:
        title = next((ln.strip() for p in pages for ln in p.splitlines() if ln.strip()), stem)[:200]
    return Converted(
        title=title, text="\n\n".join(parts) + "\n", format="pdf", metadata={"pages": len(pages)}
    )


def _docx(data: bytes, stem: str) -> Converted:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as e:
        raise Unreadable(f"not a valid DOCX file: {type(e).__name__}: {e}") from e
    lines: list[str] = []
    title = (document.core_properties.title or "").strip()
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = block.text.strip()
            if not text:
                continue
            style = block.style.name if block.style is not None else ""
            if style == "Title":
                title = title or text
                lines.append(f"# {text}")
            elif m := _HEADING_STYLE.match(style or ""):
                lines.append(f"{'#' * min(int(m.group(1)) + 1, 6)} {text}")
            elif "List" in (style or ""):
                lines.append(f"- {text}")
            else:
                lines.append(text)
        elif isinstance(block, Table):
            for row in block.rows:
                cells = [c.text.strip().replace("\n", " ") for c in row.cells]
                lines.append("| " + " | ".join(cells) + " |")
    if not lines:
        raise Unreadable("no text in the DOCX document")
    return Converted(title=title or stem, text="\n\n".join(lines) + "\n", format="docx")
