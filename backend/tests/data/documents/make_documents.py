"""Regenerates the PDF and DOCX test documents from real licensed text (see README.md).

    pip install reportlab python-docx pypdf trafilatura
    python make_documents.py /usr/share/doc/python3.11/html     # Debian's python3-doc

Text: two pages of the Python 3.11 documentation (PSF License), extracted with trafilatura.
"""

from __future__ import annotations

import sys
from pathlib import Path

import docx
import trafilatura
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

HERE = Path(__file__).parent


def sections(html: str) -> list[tuple[int, str]]:
    """(heading level or 0, text) blocks of a page's main content."""
    text = trafilatura.extract(html, output_format="markdown", include_comments=False) or ""
    out: list[tuple[int, str]] = []
    for block in text.replace("¶", "").split("\n\n"):
        block = block.strip()
        if not block or block.startswith("```"):
            continue
        level = len(block) - len(block.lstrip("#"))
        out.append((level, block.lstrip("# ").replace("`", "").replace("\\", "")))
    return out


def make_pdf(blocks: list[tuple[int, str]], title: str, path: Path) -> None:
    styles = getSampleStyleSheet()
    story = []
    for i, (level, text) in enumerate(blocks):
        if level and i > 0 and level <= 2:
            story.append(PageBreak())  # each top section on its own page: page numbers matter
        style = styles[f"Heading{min(level, 3)}"] if level else styles["BodyText"]
        story.append(Paragraph(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), style))
    SimpleDocTemplate(str(path), pagesize=A4, title=title, author="Python Software Foundation").build(story)


def make_docx(blocks: list[tuple[int, str]], title: str, path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = title
    document.add_heading(title, level=0)
    for level, text in blocks[1:]:
        if level:
            document.add_heading(text, level=min(level - 1, 3) or 1)
        else:
            document.add_paragraph(text)
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate(
        [("Function", "Returns"), ("token_hex(nbytes)", "a random text string, in hexadecimal")]
    ):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.save(str(path))


def main(html_root: Path) -> None:
    zipapp = sections((html_root / "library/zipapp.html").read_text(encoding="utf-8"))
    make_pdf(zipapp, "zipapp — Manage executable Python zip archives", HERE / "zipapp.pdf")
    secrets = sections((html_root / "library/secrets.html").read_text(encoding="utf-8"))
    make_docx(secrets, "secrets — Generate secure random numbers for managing secrets", HERE / "secrets.docx")
    # failure shapes
    writer = PdfWriter(clone_from=PdfReader(HERE / "zipapp.pdf"))
    writer.encrypt(user_password="s3cret", owner_password="owner", algorithm="AES-128")
    with open(HERE / "broken/encrypted.pdf", "wb") as f:
        writer.write(f)
    data = (HERE / "zipapp.pdf").read_bytes()
    (HERE / "broken/corrupt.pdf").write_bytes(data[:9] + bytes(b ^ 0x5A for b in data[9:2000]))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
