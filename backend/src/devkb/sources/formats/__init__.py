"""Documents in the formats people keep → text with headings, for the files, web and upload
sources. Each format is read by a maintained library, never by a parser of our own:

    .pdf                  pypdf (page by page; each page a ``## Page N`` section, so citations
                          carry the page)
    .docx                 python-docx (heading styles → ``#``, lists, tables as ``| a | b |``)
    .html .htm            trafilatura (main content only: navigation, headers and footers dropped;
                          headings, lists, tables and code kept as Markdown)
    .md .rst .txt, code   UTF-8 text as it is (code is split by the code-aware splitter later)

``convert`` raises ``Unreadable`` with a reason a person can act on (encrypted PDF, corrupt
file, binary content under a text name, empty file, over the size limit); callers report it per
file and go on.
"""

from __future__ import annotations

from devkb.sources.formats.convert import (
    BINARY_FORMATS,
    Converted,
    Unreadable,
    convert_bytes,
    format_of,
)

__all__ = ["BINARY_FORMATS", "Converted", "Unreadable", "convert_bytes", "format_of"]
