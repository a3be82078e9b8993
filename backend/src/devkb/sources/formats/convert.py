"""``convert_bytes``: one file's bytes → ``Converted`` (title, Markdown-shaped text, metadata)."""

from __future__ import annotations

import codecs
import io
import re
import threading
from dataclasses import asdict, dataclass, field
from pathlib import PurePosixPath
from typing import Any

from devkb.sources.formats.archive import check_ooxml
from devkb.sources.formats.limits import ConversionLimits
from devkb.sources.formats.unreadable import Unreadable

BINARY_SNIFF_BYTES = 8192
BINARY_FORMATS = frozenset({"pdf", "docx"})
SANDBOXED_FORMATS = frozenset({"pdf", "docx", "html"})  # parsers whose cost is not linear in the input
_HEADING_STYLE = re.compile(r"^Heading (\d)$")
_PILCROW = re.compile(r"[ \t]*[¶\uf0c1]+[ \t]*$", re.MULTILINE)  # Sphinx's heading anchors
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a compound document: a .doc, or an encrypted OOXML


@dataclass
class Converted:
    title: str
    text: str
    format: str
    metadata: dict[str, Any] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)  # hrefs of the main content, as written

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Converted:
        return cls(
            title=str(data["title"]),
            text=str(data["text"]),
            format=str(data["format"]),
            metadata=dict(data.get("metadata") or {}),
            links=[str(x) for x in data.get("links") or []],
        )


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


def precheck(name: str, data: bytes, max_bytes: int | None) -> str:
    """The checks before any parsing (size, empty); the format the name says."""
    if max_bytes is not None and len(data) > max_bytes:
        raise Unreadable(too_large(len(data), max_bytes))
    if not data.strip():
        raise Unreadable("empty file")
    return format_of(name)


def convert_in_process(name: str, data: bytes, limits: ConversionLimits) -> Converted:
    """The conversion itself, in this process, with the limits that hold while parsing (pages,
    archive sizes, characters of text); the worker process calls this."""
    fmt = precheck(name, data, None)
    stem = PurePosixPath(name).stem
    if fmt == "pdf":
        converted = _pdf(data, stem, limits)
    elif fmt == "docx":
        converted = _docx(data, stem, limits)
    elif fmt == "html":  # with the hrefs of its main content: references to Jira, GitHub, Confluence
        converted = html_to_markdown(decode_html(data, name=name), stem, with_links=True)
    else:
        text = decode_text(data, name)
        title = _first_heading(text) if fmt == "markdown" else ""
        converted = Converted(title=title, text=text, format=fmt)
    if len(converted.text) > limits.max_text_chars:
        raise Unreadable(_too_much_text(len(converted.text), limits))
    return converted


def html_page_in_process(data: bytes, limits: ConversionLimits, charset: str | None = None) -> Converted:
    """A web page as the crawler reads it: main content and links, decoded by ``decode_html``
    (``charset``: the one its response declared)."""
    try:
        text = decode_html(data, charset)
    except Unreadable:
        text = data.decode("utf-8", "replace")
    converted = html_to_markdown(text, with_links=True)
    if len(converted.text) > limits.max_text_chars:
        raise Unreadable(_too_much_text(len(converted.text), limits))
    return converted


def _too_much_text(chars: int, limits: ConversionLimits) -> str:
    return (
        f"more than {limits.max_text_chars:,} characters of text ({chars:,} or more; "
        "conversion_max_text_chars)"
    )


def sniffed(data: bytes) -> str | None:
    """What the bytes say they are (their signature), e.g. ``a PNG image (image/png)``."""
    import filetype

    kind = filetype.guess(data[:BINARY_SNIFF_BYTES])
    if kind is None:
        return None
    return f"{kind.extension.upper()} data ({kind.mime})"


def too_large(size: int, limit: int) -> str:
    return f"{size / 1e6:.1f} MB is over the size limit of {limit / 1e6:.1f} MB (max_file_bytes)"


def decode_text(data: bytes, name: str = "") -> str:
    suffix = PurePosixPath(name).suffix or "text"
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        what = sniffed(data)
        raise Unreadable(
            f"wrong type: {what}, not a {suffix} file"
            if what
            else "binary content (NUL bytes) in a text file"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        what = sniffed(data)
        if what:
            raise Unreadable(f"wrong type: {what}, not a {suffix} file") from e
        raise Unreadable(f"not UTF-8 text (invalid byte at offset {e.start})") from e
    if not text.strip():
        raise Unreadable("empty file")
    return text


# The encoding an HTML document declares in its first bytes: an XML declaration (XHTML, DocBook
# and Doxygen output) or a <meta charset> / <meta http-equiv="Content-Type" content="…charset=…">.
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
SNIFF_BYTES = 4096


def decode_html(data: bytes, declared: str | None = None, name: str = "page.html") -> str:
    """An HTML or XHTML document's bytes as text, in the order browsers use (WHATWG "encoding
    sniffing", simplified): a byte order mark, then ``declared`` (the HTTP ``charset``), then the
    XML declaration, then ``<meta charset>``, then UTF-8, then windows-1252 (which decodes any
    byte). The XML declaration is dropped from the text: lxml (and so trafilatura) refuses a
    ``str`` that still declares an encoding — the Python-manual crawl's "1 page indexed" on an
    XHTML site was that refusal."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES] and not data.startswith(
        (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
    ):
        decode_text(data, name)  # raises, naming what the bytes are
    candidates: list[str] = []
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            candidates.append(name)
    if declared:
        candidates.append(declared)
    head = data[:SNIFF_BYTES]
    for pattern in (_XML_ENCODING, _META_CHARSET):
        found = pattern.search(head)
        if found:
            candidates.append(found.group(1).decode("ascii"))
    text = None
    for name in [*candidates, "utf-8"]:
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            continue
        if codec in ("utf-16-le", "utf-16-be", "utf-16") and not name.startswith("utf-16"):
            continue  # a page that says "utf-16" in ASCII bytes is not UTF-16 (WHATWG: use UTF-8)
        try:
            # browsers read latin-1 and ASCII labels as windows-1252 (WHATWG Encoding)
            text = data.decode("cp1252" if codec in ("iso8859-1", "ascii") else codec)
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        text = data.decode("cp1252", "replace")
    text = _XML_DECLARATION.sub("", text.lstrip("\ufeff"), count=1)
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


def _pdf(data: bytes, stem: str, limits: ConversionLimits) -> Converted:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    if b"%PDF" not in data[:1024]:
        raise Unreadable(f"wrong type: not a PDF file ({sniffed(data) or 'no %PDF header'})")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:  # many PDFs are encrypted with an empty user password (permissions only)
                ok = reader.decrypt("")
            except (FileNotDecryptedError, NotImplementedError) as e:
                raise Unreadable(f"encrypted PDF: {e}") from e
            if not ok:
                raise Unreadable("encrypted PDF: a password is required to open it")
        declared = _declared_pages(reader)
        if declared > limits.max_pages:
            raise Unreadable(_too_many_pages(declared, limits))
        pages: list[str] = []
        chars = 0
        for page in reader.pages:  # the page tree walked once, each page's text as it comes
            if len(pages) >= limits.max_pages:
                raise Unreadable(_too_many_pages(len(pages) + 1, limits))
            text = (page.extract_text() or "").strip()
            chars += len(text)
            if chars > limits.max_text_chars:
                raise Unreadable(_too_much_text(chars, limits))
            pages.append(text)
        info = reader.metadata
        title = str(info.title).strip() if info and info.title else ""
    except (Unreadable, MemoryError):
        raise
    except FileNotDecryptedError as e:
        raise Unreadable(f"encrypted PDF: {e}") from e
    except RecursionError as e:
        raise Unreadable("corrupt PDF: its objects refer to each other in a loop (or nest too deeply)") from e
    except Exception as e:  # pypdf raises many types on broken files: each is this file's problem
        raise Unreadable(f"corrupt PDF: {type(e).__name__}: {e}") from e
    if not any(pages):
        raise Unreadable(f"no text in {len(pages)} PDF page(s) (a scan without a text layer?)")
    parts = [f"## Page {n}\n\n{text}" for n, text in enumerate(pages, start=1) if text]
    if not title:
        title = next((ln.strip() for p in pages for ln in p.splitlines() if ln.strip()), stem)[:200]
    return Converted(
        title=title, text="\n\n".join(parts) + "\n", format="pdf", metadata={"pages": len(pages)}
    )


def _declared_pages(reader: Any) -> int:
    """The page count the document's page tree declares (``/Count``), before walking it."""
    try:
        count = reader.trailer["/Root"]["/Pages"].get("/Count", 0)
        return int(count)
    except (KeyError, TypeError, ValueError, AttributeError):
        return 0


def _too_many_pages(pages: int, limits: ConversionLimits) -> str:
    return f"{pages:,} or more pages in the PDF (limit {limits.max_pages:,}, conversion_max_pages)"


def _docx(data: bytes, stem: str, limits: ConversionLimits) -> Converted:
    if data.startswith(_OLE):
        raise Unreadable(
            "encrypted or legacy Word file: an OLE compound document, not a DOCX (save it as .docx "
            "without a password)"
        )
    if not data.startswith(b"PK"):
        raise Unreadable(f"wrong type: not a DOCX file ({sniffed(data) or 'not a zip archive'})")
    check_ooxml(data, limits, "DOCX")
    try:
        return _docx_text(data, stem, limits)
    except (Unreadable, MemoryError):
        raise
    except RecursionError as e:
        raise Unreadable("cannot read the DOCX: its XML nests too deeply") from e
    except Exception as e:  # python-docx and lxml raise many types on broken packages
        reason = str(e)
        if "Excessive depth" in reason:
            reason = f"its XML nests too deeply ({reason})"
        raise Unreadable(f"not a valid DOCX file: {type(e).__name__}: {reason}") from e


def _docx_text(data: bytes, stem: str, limits: ConversionLimits) -> Converted:
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(io.BytesIO(data))
    lines: list[str] = []
    chars = 0
    title = (document.core_properties.title or "").strip()
    # Paragraph.style looks a paragraph's style up among all the styles each time (the default
    # one by scanning them all): 4 ms a paragraph, minutes for a long document. Once, here:
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    default_name = default.name if default is not None else ""
    names = {s.style_id: s.name for s in document.styles if s.type == WD_STYLE_TYPE.PARAGRAPH}
    for block in document.iter_inner_content():
        before = len(lines)
        if isinstance(block, Paragraph):
            text = block.text.strip()
            if not text:
                continue
            style_id = block._p.style
            style = names.get(style_id, default_name) if style_id else default_name
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
        chars += sum(len(line) for line in lines[before:])
        if chars > limits.max_text_chars:
            raise Unreadable(_too_much_text(chars, limits))
    if not lines:
        raise Unreadable("no text in the DOCX document")
    return Converted(title=title or stem, text="\n\n".join(lines) + "\n", format="docx")
