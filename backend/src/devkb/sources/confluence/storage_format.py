"""Confluence storage format (XHTML with ``ac:``/``ri:`` elements) → readable markdown-like text.

Headings become ``#`` lines (so the splitter can cut on them), lists keep ``-`` / ``1.`` markers
with indentation, tables become ``| a | b |`` rows, ``code`` macros and ``<pre>`` become fenced
code blocks, other macros keep their body text, links keep their text. The parser is the
standard library's ``HTMLParser``: storage bodies are not always well-formed XML (entities such as
``&nbsp;``, undeclared prefixes), and it never fails on them.

While converting, every link target is collected (``hrefs`` and ``ac:link``/``ri:page`` targets)
so the loader can turn page→page links into REFERENCES.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

_BLOCK = {
    "p",
    "div",
    "section",
    "article",
    "aside",
    "nav",
    "header",
    "footer",
    "figure",
    "figcaption",
    "blockquote",
    "dl",
    "dt",
    "dd",
    "hr",
    "ac:layout",
    "ac:layout-section",
    "ac:layout-cell",
}
_SKIP = {"script", "style", "head", "title"}
_HEADING = {f"h{i}": i for i in range(1, 7)}
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


@dataclass(frozen=True)
class PageLink:
    """A link from a page: ``href`` for ``<a>``, or ``title``/``space_key`` for ``ri:page``."""

    href: str | None = None
    title: str | None = None
    space_key: str | None = None
    content_id: str | None = None


@dataclass
class Converted:
    text: str
    links: list[PageLink] = field(default_factory=list)


class _StorageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []  # finished blocks
        self.line: list[str] = []  # inline text of the current block
        self.lists: list[list[Any]] = []  # stack of [ordered, counter]
        self.links: list[PageLink] = []
        self.skip = 0
        self.pre = 0
        self.code_macro: dict[str, str] | None = (
            None  # {"language": .., "body": ..} while inside a code macro
        )
        self.macros: list[dict[str, Any]] = []  # open macros: {"name": .., "params": {..}}
        self.param: str | None = None  # name of the ac:parameter being read
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.table_rows: list[tuple[list[str], bool]] = []
        self.row_is_header = False
        self.link_body: list[str] | None = None  # text of an ac:link (plain-text-link-body or title)
        self.link_target: PageLink | None = None
        self.quote = 0
        self.item_open = False  # the current list item has not printed its marker yet

    # -- output helpers --------------------------------------------------------------------
    def _text(self, s: str) -> None:
        if self.cell is not None:
            self.cell.append(s)
        else:
            self.line.append(s)

    def _flush(self) -> None:
        text = _SPACES.sub(" ", "".join(self.line)).strip()
        self.line = []
        if not text:
            return
        if self.lists:
            depth = len(self.lists) - 1
            kind = self.lists[-1]
            marker = f"{kind[1]}." if kind[0] else "-"
            if not self.item_open:
                marker = " "  # continuation of an item
            text = "  " * depth + f"{marker} {text}"
            self.item_open = False
        if self.quote:
            text = "> " + text
        self.out.append(text)

    def _block(self, text: str) -> None:
        self._flush()
        self.out.append(text)

    # -- parser callbacks --------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in _SKIP:
            self.skip += 1
            return
        if self.skip:
            return
        if tag == "ac:structured-macro":
            self.macros.append({"name": a.get("ac:name") or "", "params": {}})
            if a.get("ac:name") in ("code", "noformat"):
                self._flush()
                self.code_macro = {"language": "", "body": ""}
        elif tag == "ac:parameter":
            self.param = a.get("ac:name")
        elif tag == "ac:rich-text-body" and self.macros and self.macros[-1]["params"].get("title"):
            self._block(self.macros[-1]["params"].pop("title").strip())  # panel, info, expand … titles
        elif tag in _HEADING:
            self._flush()
            self.line.append("#" * _HEADING[tag] + " ")
        elif tag in ("ul", "ol"):
            self._flush()
            self.lists.append([tag == "ol", 0])
        elif tag == "li":
            self._flush()
            if self.lists:
                self.lists[-1][1] += 1
            self.item_open = True
        elif tag == "br":
            if self.cell is not None:
                self.cell.append(" ")
            else:
                self._flush()
        elif tag == "pre":
            self._flush()
            self.pre += 1
            self.line.append("```\n")
        elif tag == "table":
            self._flush()
            self.table_rows = []
        elif tag == "tr":
            self.row = []
            self.row_is_header = False
        elif tag in ("td", "th"):
            self.cell = []
            self.row_is_header = self.row_is_header or tag == "th"
        elif tag == "a":
            href = a.get("href")
            if href:
                self.links.append(PageLink(href=href))
        elif tag == "ac:link":
            self.link_body = []
            self.link_target = None
        elif tag == "ri:page":
            target = PageLink(
                title=a.get("ri:content-title") or None,
                space_key=a.get("ri:space-key") or None,
                content_id=a.get("ri:content-id") or None,
            )
            self.links.append(target)
            self.link_target = target
        elif tag == "ac:image":
            alt = a.get("ac:alt") or a.get("ac:title")
            if alt:
                self._text(f"[image: {alt}]")
        elif tag == "blockquote":
            self._flush()
            self.quote += 1
        elif tag in _BLOCK:
            self._flush()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "ri:page", "ac:image", "hr", "ri:url", "ri:attachment", "ri:user"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag == "ac:structured-macro":
            macro: dict[str, Any] = self.macros.pop() if self.macros else {"name": "", "params": {}}
            if self.code_macro is not None:
                body = self.code_macro["body"].strip("\n")
                self._block(f"```{self.code_macro['language']}\n{body}\n```")
                self.code_macro = None
            elif macro["name"] == "jira" and macro["params"].get("key"):
                self._text(f" {macro['params']['key'].strip()} ")  # the Jira issue macro shows the issue key
            elif macro["params"].get("title"):
                self._block(macro["params"]["title"].strip())
        elif tag == "ac:parameter":
            self.param = None
        elif tag in _HEADING:
            self._flush()
        elif tag in ("ul", "ol"):
            self._flush()
            if self.lists:
                self.lists.pop()
        elif tag == "li":
            self._flush()
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self.out.append("".join(self.line).rstrip("\n") + "\n```")
            self.line = []
        elif tag in ("td", "th") and self.cell is not None:
            if self.row is not None:
                self.row.append(_SPACES.sub(" ", "".join(self.cell)).strip().replace("|", "\\|"))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.table_rows.append((self.row, self.row_is_header))
            self.row = None
        elif tag == "table":
            self._flush()
            lines = []
            for i, (cells, header) in enumerate(self.table_rows):
                lines.append("| " + " | ".join(cells) + " |")
                if header and i == 0:
                    lines.append("|" + "|".join(" --- " for _ in cells) + "|")
            if lines:
                self.out.append("\n".join(lines))
            self.table_rows = []
        elif tag == "ac:link":
            text = "".join(self.link_body or []).strip()
            if not text and self.link_target is not None:
                text = self.link_target.title or ""
            self.link_body = None
            if text:
                self._text(text)
        elif tag == "blockquote":
            self._flush()
            self.quote = max(0, self.quote - 1)
        elif tag in _BLOCK:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.param is not None and self.macros:
            params = self.macros[-1]["params"]
            params[self.param] = params.get(self.param, "") + data
            if self.code_macro is not None and self.param == "language":
                self.code_macro["language"] = data.strip()
            return
        if self.code_macro is not None:
            return
        if self.link_body is not None:
            self.link_body.append(data)
            return
        if self.pre:
            self.line.append(data)
            return
        self._text(data.replace("\n", " "))

    def unknown_decl(self, data: str) -> None:
        # <![CDATA[...]]>: bodies of code macros and of ac:plain-text-link-body
        if not data.startswith("CDATA["):
            return
        body = data[len("CDATA[") :]
        if self.code_macro is not None:
            self.code_macro["body"] += body
        elif self.link_body is not None:
            self.link_body.append(body)
        elif self.pre:
            self.line.append(body)
        else:
            self._text(body)

    def close(self) -> None:
        super().close()
        self._flush()


def storage_to_text(xhtml: str) -> Converted:
    """Convert a storage-format body; returns the text and the links it contains.

    A page's versions often share a body (an edit of the title or labels only; 406 distinct
    bodies in the 721 versions of the Fluid space), and a page's current body is converted for
    the document and again for its newest version: the last bodies' results are remembered."""
    text, links = _converted(xhtml or "")
    return Converted(text=text, links=list(links))


@functools.lru_cache(maxsize=256)
def _converted(xhtml: str) -> tuple[str, tuple[PageLink, ...]]:
    parser = _StorageParser()
    parser.feed(xhtml)
    parser.close()
    blocks = [b for b in parser.out if b.strip()]
    # list items and table rows stay on consecutive lines; other blocks are paragraphs
    text: list[str] = []
    for b in blocks:
        tight = text and _is_list_line(b) and _is_list_line(text[-1])
        text.append(("\n" if tight else "\n\n") + b if text else b)
    return "".join(text).strip(), tuple(parser.links)


_LIST_LINE = re.compile(r"^\s*(?:[-*]|\d+\.)?\s")


def _is_list_line(line: str) -> bool:
    last = line.rsplit("\n", 1)[-1]
    return bool(_LIST_LINE.match(last)) and not last.startswith("#")
