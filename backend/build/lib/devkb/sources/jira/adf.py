"""Atlassian Document Format (the JSON Jira Cloud's REST API v3 returns for descriptions,
environments and comment bodies) → readable text, in the same shape as the Confluence storage
format conversion: headings as ``#``, lists with markers and indentation, tables as ``| a | b |``
rows, code blocks fenced, quotes with ``>``. Links, inline/block/embed cards and media links keep
their URLs (``text <url>``), mentions their display text (``@Name``), dates their ISO day — so the
reference rules still find keys and URLs in the text. Unknown nodes contribute their children's
text; nothing raises on odd input (ADF from real sites carries nodes no schema version lists).

Reference: https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

_BLOCKS = {
    "paragraph",
    "heading",
    "bulletList",
    "orderedList",
    "codeBlock",
    "blockquote",
    "rule",
    "table",
    "panel",
    "expand",
    "nestedExpand",
    "mediaSingle",
    "mediaGroup",
    "blockCard",
    "embedCard",
    "taskList",
    "decisionList",
    "layoutSection",
    "bodiedExtension",
}


def is_adf(value: Any) -> bool:
    """Whether ``value`` looks like an ADF document (``{"type": "doc", "content": [...]}``)."""
    return isinstance(value, dict) and value.get("type") == "doc" and isinstance(value.get("content"), list)


def adf_to_text(value: Any) -> str:
    """The readable text of an ADF document; a plain string passes through; None gives ``""``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return str(value)
    blocks = _blocks(value.get("content") or [], indent=0)
    return "\n\n".join(b for b in blocks if b.strip()).strip()


def _blocks(nodes: list[Any], indent: int) -> list[str]:
    out: list[str] = []
    inline: list[Any] = []
    for node in nodes:
        if not isinstance(node, dict):
            continue
        if node.get("type") in _BLOCKS or node.get("type") == "listItem":
            if inline:
                out.append(_inline(inline))
                inline = []
            out.append(_block(node, indent))
        else:
            inline.append(node)
    if inline:
        out.append(_inline(inline))
    return out


def _children(node: dict[str, Any]) -> list[Any]:
    content = node.get("content")
    return content if isinstance(content, list) else []


def _attrs(node: dict[str, Any]) -> dict[str, Any]:
    attrs = node.get("attrs")
    return attrs if isinstance(attrs, dict) else {}


def _block(node: dict[str, Any], indent: int) -> str:
    kind = node.get("type")
    attrs = _attrs(node)
    if kind == "paragraph":
        return _inline(_children(node))
    if kind == "heading":
        raw_level = attrs.get("level")
        level: int = raw_level if isinstance(raw_level, int) else 1
        return "#" * max(1, min(6, level)) + " " + _inline(_children(node))
    if kind in ("bulletList", "orderedList", "taskList", "decisionList"):
        return _list(node, indent)
    if kind == "codeBlock":
        language = attrs.get("language") or ""
        code = "".join(str(c.get("text", "")) for c in _children(node) if isinstance(c, dict))
        return f"```{language}\n{code}\n```"
    if kind == "blockquote":
        inner = "\n\n".join(_blocks(_children(node), indent))
        return "\n".join("> " + line if line else ">" for line in inner.splitlines())
    if kind == "rule":
        return "---"
    if kind == "table":
        return _table(node)
    if kind in ("panel", "layoutSection", "bodiedExtension", "mediaSingle", "mediaGroup"):
        return "\n\n".join(_blocks(_children(node), indent))
    if kind in ("expand", "nestedExpand"):
        title = attrs.get("title")
        inner = "\n\n".join(_blocks(_children(node), indent))
        return f"{title}\n\n{inner}" if title else inner
    if kind in ("blockCard", "embedCard"):
        return str(attrs.get("url") or "")
    if kind == "listItem":
        return _list({"type": "bulletList", "content": [node]}, indent)
    return "\n\n".join(_blocks(_children(node), indent))


def _list(node: dict[str, Any], indent: int) -> str:
    lines: list[str] = []
    ordered = node.get("type") == "orderedList"
    start = _attrs(node).get("order")
    number = start if isinstance(start, int) else 1
    for item in _children(node):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "taskItem":
            done = _attrs(item).get("state") == "DONE"
            marker = "- [x] " if done else "- [ ] "
        elif ordered:
            marker = f"{number}. "
            number += 1
        else:
            marker = "- "
        parts = _blocks(_children(item), indent + 1)
        first, rest = (parts[0], parts[1:]) if parts else ("", [])
        if item.get("type") in ("taskItem", "decisionItem"):
            first, rest = _inline(_children(item)), []
        lines.append("  " * indent + marker + first.strip())
        for extra in rest:
            for line in extra.splitlines():
                lines.append(line if line.startswith("  ") else "  " * (indent + 1) + line)
    return "\n".join(lines)


def _table(node: dict[str, Any]) -> str:
    rows: list[str] = []
    for row in _children(node):
        if not isinstance(row, dict):
            continue
        cells = [
            " ".join(" ".join(_blocks(_children(c), 0)).split())
            for c in _children(row)
            if isinstance(c, dict)
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _inline(nodes: list[Any]) -> str:
    out: list[str] = []
    for node in nodes:
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        attrs = _attrs(node)
        if kind == "text":
            text = str(node.get("text", ""))
            href = next(
                (
                    _attrs(m).get("href")
                    for m in node.get("marks") or []
                    if isinstance(m, dict) and m.get("type") == "link"
                ),
                None,
            )
            code = any(isinstance(m, dict) and m.get("type") == "code" for m in node.get("marks") or [])
            if code:
                text = f"`{text}`"
            out.append(f"{text} <{href}>" if href and href != text else text)
        elif kind == "hardBreak":
            out.append("\n")
        elif kind == "mention":
            name = str(attrs.get("text") or attrs.get("id") or "someone")
            out.append(name if name.startswith("@") else "@" + name)
        elif kind == "emoji":
            out.append(str(attrs.get("text") or attrs.get("shortName") or ""))
        elif kind == "inlineCard":
            out.append(str(attrs.get("url") or ""))
        elif kind == "date":
            out.append(_day(attrs.get("timestamp")))
        elif kind == "status":
            out.append(f"[{attrs.get('text', '')}]")
        elif kind in ("media", "mediaInline"):
            alt = attrs.get("alt") or attrs.get("url")
            if alt:
                out.append(f"[{alt}]")
        else:
            out.append(_inline(_children(node)))
    return "".join(out).strip(" ")


def _day(timestamp: Any) -> str:
    try:
        return datetime.fromtimestamp(int(str(timestamp)) / 1000, UTC).date().isoformat()
    except (TypeError, ValueError, OverflowError, OSError):
        return ""
