"""Documents in the formats people keep → text with headings, for the files, web and upload
sources. Each format is read by a maintained library, never by a parser of our own:

    .pdf                  pypdf (page by page; each page a ``## Page N`` section, so citations
                          carry the page)
    .docx                 python-docx (heading styles → ``#``, lists, tables as ``| a | b |``)
    .html .htm            trafilatura (main content only: navigation, headers and footers dropped;
                          headings, lists, tables and code kept as Markdown)
    .md .rst .txt, code   UTF-8 text as it is (code is split by the code-aware splitter later)

PDF, DOCX and HTML are parsed in a small pool of worker processes, each with an address-space
limit and a time-out per file (``sandbox.py``), after checks that hold before parsing: the size,
the type the bytes really are, and for DOCX (a zip) every entry decompressed with a cap
(``archive.py``); pages and characters of text are bounded while parsing (``limits.py``).

``convert`` raises ``Unreadable`` with a reason a person can act on (encrypted PDF, corrupt
file, binary content under a text name, empty file, over a size limit, a compression bomb);
callers report it per file and go on.
"""

from __future__ import annotations

from devkb.sources.formats.convert import (
    BINARY_FORMATS,
    Converted,
    format_of,
)
from devkb.sources.formats.limits import ConversionLimits
from devkb.sources.formats.sandbox import convert_bytes
from devkb.sources.formats.unreadable import Unreadable

__all__ = ["BINARY_FORMATS", "ConversionLimits", "Converted", "Unreadable", "convert_bytes", "format_of"]
