"""Segmenters per document kind, handed to ``KindAwareSplitter``.

issue, page, pull, commit, gh-issue   headings (``#`` lines) — the splitter's default
file                                  by extension: Markdown/text on headings, Python on
                                      classes and functions (``ast``), other code on
                                      declarations (``code.split_code_lines``)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from haystack import Document as HsDocument

from devkb.indexing.splitting.code import split_code_lines, split_python
from devkb.indexing.splitting.sections import Section, split_markdown_sections

Segmenter = Callable[[HsDocument], list[Section]]

CODE_EXTENSIONS = frozenset(
    {
        ".js",
        ".mjs",
        ".cjs",
        ".jsx",
        ".ts",
        ".tsx",
        ".java",
        ".kt",
        ".kts",
        ".scala",
        ".cs",
        ".go",
        ".rb",
        ".rs",
        ".php",
        ".swift",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
    }
)


def segment_file(doc: HsDocument) -> list[Section]:
    """A repository file, split the way its language is structured."""
    meta = doc.meta.get("metadata") or {}
    suffix = PurePosixPath(str(meta.get("path") or doc.meta.get("title") or "")).suffix.lower()
    text = doc.content or ""
    if suffix in (".py", ".pyi"):
        return split_python(text)
    if suffix in CODE_EXTENSIONS:
        return split_code_lines(text)
    return split_markdown_sections(text)


def default_segmenters() -> dict[str, Segmenter]:
    """Kinds whose splitting differs from the default heading split."""
    return {"file": segment_file}
