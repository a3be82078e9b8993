"""Recorded plain/wiki text → Atlassian Document Format, as Jira Cloud's REST API v3 returns
descriptions, environments and comment bodies.

The conversion is made to round-trip through the loader's reader
(:func:`devkb.sources.jira.adf.adf_to_text`): blank-line separated blocks become paragraphs, line
breaks ``hardBreak`` nodes, bare URLs text with a ``link`` mark. Wiki markup (``h1.``, ``{code}``,
``[text|url]``) stays literal text — as it does on a Cloud site after a Server-to-Cloud migration of
old issues — so a sync through the Cloud emulator and one through the Data Center emulator index
the same text. Every document it writes validates against the ADF JSON schema (npm
``@atlaskit/adf-schema``; ``tests/unit/test_jira_adf.py``).
"""

from __future__ import annotations

import re
from typing import Any

_URL = re.compile(r"https?://[^\s<>\"'|\]\[{}]+[^\s<>\"'|\]\[{}.,;:!?)]")
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n\s*")


def text_to_adf(text: str) -> dict[str, Any]:
    """``text`` as an ADF ``doc`` (version 1)."""
    blocks = [b for b in _BLOCK_BREAK.split(text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")) if b]
    content: list[dict[str, Any]] = []
    for block in blocks:
        inline: list[dict[str, Any]] = []
        for i, line in enumerate(block.split("\n")):
            if i:
                inline.append({"type": "hardBreak"})
            inline.extend(_linkified(line))
        content.append({"type": "paragraph", "content": inline} if inline else {"type": "paragraph"})
    return {"type": "doc", "version": 1, "content": content}


def _linkified(line: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    at = 0
    for m in _URL.finditer(line):
        if m.start() > at:
            out.append({"type": "text", "text": line[at : m.start()]})
        url = m.group(0)
        out.append({"type": "text", "text": url, "marks": [{"type": "link", "attrs": {"href": url}}]})
        at = m.end()
    if at < len(line):
        out.append({"type": "text", "text": line[at:]})
    return out
