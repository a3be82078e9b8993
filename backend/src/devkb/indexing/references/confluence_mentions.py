"""Confluence pages mentioned in Jira issues, by URL or by title.

``jira-mentions-confluence-url`` — a URL that resolves to a page through its URL keys
(``url_paths`` metadata: ``/display/SPACE/Title``, ``/x/<id>``, ``viewpage.action?pageId=``
on a Confluence host, plus configured aliases such as the public site the space is published
to, with its redirects). Links into an old MediaWiki that the space replaced
(``…/index.php?title=Some_page`` or ``…/index.php/Some_page``) resolve on an alias host through
the site's redirect for that name (``/SomePage.html``) or else through the page title.

``jira-mentions-confluence-title`` — a page title of three or more words, matched
case-insensitively as whole words, where the mention starts with a capital letter
("… see Inclusive EPUB 3 for …"). Shorter titles ("Metadata", "Techniques") are too common in
prose to be evidence of a reference.

Only titles and URLs of pages already in the store are known: ``backfill.py`` re-extracts Jira
issues when new ones appear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qs, unquote_plus, urlsplit

import ahocorasick

from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.rule import ReferenceRule
from devkb.sources.base import SourceDocument
from devkb.sources.url_keys import URL_IN_TEXT, clean_url, host_of, path_key, url_key
from devkb.store.models import Reference, SourceType

MIN_TITLE_WORDS = 3
_WORD = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")
# The start of a word that may begin with a capital letter: words starting with a-z, a digit or
# "_" (most of the text) are skipped inside the regex engine; the rest are checked with isupper.
_WORD_START = re.compile(r"(?<!\w)[^\W\d_a-z]")


def _title_index(ctx: LinkContext) -> dict[str, list[tuple[str, str]]]:
    """First word (lower case) → [(title lower case, page id)] for titles long enough to match."""
    index: dict[str, list[tuple[str, str]]] = {}
    for title, page_id in ctx.confluence_titles.items():
        if len(title.split()) < MIN_TITLE_WORDS:
            continue
        first = _WORD.search(title)
        if first is None or first.start() != 0:
            continue  # titles starting with punctuation cannot start with a capital letter
        index.setdefault(first.group(0), []).append((title, page_id))
    return index


def _title_automaton(ctx: LinkContext) -> ahocorasick.Automaton | None:
    """Every title long enough to match (lower case) in one Aho-Corasick automaton, whose value
    is ``(order, title, page id)``: one pass over a text finds every title in it."""
    automaton = ahocorasick.Automaton()
    order = 0
    for entries in ctx.cached("confluence.titles", lambda: _title_index(ctx)).values():
        for title, page_id in entries:
            automaton.add_word(title, (order, title, page_id))
            order += 1
    if order == 0:
        return None
    automaton.make_automaton()
    return automaton


def _alias_hosts(ctx: LinkContext) -> set[str]:
    return {k.split("/", 1)[0] for k in ctx.confluence_urls if not k.startswith("/")}


def _lower_keys(ctx: LinkContext) -> dict[str, str]:
    return {k.lower(): v for k, v in ctx.confluence_urls.items()}


def _wiki_title(path: str, query: str) -> str | None:
    """The page name of a MediaWiki URL (``/index.php?title=X`` or ``/index.php/X``)."""
    if path.rstrip("/").endswith("/index.php"):
        titles = parse_qs(query).get("title")
        return titles[0] if titles else None
    marker = "/index.php/"
    if marker in path:
        return unquote_plus(path.split(marker, 1)[1]) or None
    return None


def resolve_url(ctx: LinkContext, url: str) -> str | None:
    """The page id a URL points at, or ``None``."""
    parts = urlsplit(url)
    host = host_of(url)
    if host in ctx.confluence_hosts:
        found = ctx.confluence_urls.get(path_key(parts.path, parts.query))
        if found:
            return found
    found = ctx.confluence_urls.get(url_key(url))
    if found or host not in ctx.cached("confluence.alias_hosts", lambda: _alias_hosts(ctx)):
        return found
    name = _wiki_title(parts.path, parts.query)
    if not name:
        return None
    words = [w for w in re.split(r"[_\s]+", name.split("#", 1)[0]) if w]
    if not words:
        return None
    redirect = f"{host}/{''.join(w[:1].upper() + w[1:] for w in words)}.html".lower()
    return ctx.cached("confluence.lower_keys", lambda: _lower_keys(ctx)).get(
        redirect
    ) or ctx.confluence_titles.get(" ".join(words).lower())


def _title_mentions(ctx: LinkContext, text: str) -> Iterable[tuple[str, str]]:
    """``(page id, the words as written)`` for each title the text names, in the order they
    appear: a title found where a word starts with a capital letter and ends with its word."""
    automaton = ctx.cached("confluence.title_automaton", lambda: _title_automaton(ctx))
    if automaton is None:
        return []
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer ("İ"): positions move
        return list(_title_mentions_by_word(ctx, text))
    found = []
    for last, (order, title, page_id) in automaton.iter(lowered):
        start = last + 1 - len(title)
        end = last + 1
        if (
            text[start].isupper()
            and (start == 0 or _WORD_CHAR.match(text, start - 1) is None)
            and not (end < len(text) and (text[end].isalnum() or text[end] == "_"))
        ):
            found.append((start, order, page_id, text[start:end]))
    found.sort()
    return [(page_id, mention) for _, _, page_id, mention in found]


def _title_mentions_by_word(ctx: LinkContext, text: str) -> Iterable[tuple[str, str]]:
    """The same, word by word (for the rare text whose lower case is longer than itself)."""
    index = ctx.cached("confluence.titles", lambda: _title_index(ctx))
    for m in _WORD_START.finditer(text):
        start = m.start()
        if not text[start].isupper():
            continue
        word = _WORD.match(text, start)
        candidates = index.get(word.group(0).lower()) if word else None
        for title, page_id in candidates or ():
            end = start + len(title)
            if text[start:end].lower() == title and not (
                end < len(text) and (text[end].isalnum() or text[end] == "_")
            ):
                yield page_id, text[start:end]


_URL_ONLY = {
    SourceType.FILES: "files",
    SourceType.WEB: "web",
    SourceType.UPLOAD: "upload",
    SourceType.MEMORY: "memory",
}


def confluence_mentions(doc: SourceDocument, ctx: LinkContext) -> Iterable[Reference]:
    if not (ctx.confluence_urls or ctx.confluence_titles):
        return []
    prefix = _URL_ONLY.get(doc.type)
    if prefix is not None:  # files, web pages, uploads: page URLs only (titles are Jira's habit)
        return _url_mentions(doc, ctx, f"{prefix}-mentions-confluence-url")
    out: dict[tuple[str, str], Reference] = {}
    for text in (doc.reference_text or {"content": doc.content}).values():
        if not text:
            continue
        for m in URL_IN_TEXT.finditer(text):
            url = clean_url(m.group(0))
            page = resolve_url(ctx, url)
            if page:
                out.setdefault(
                    (page, "url"), Reference(doc.id, page, "jira-mentions-confluence-url", url, doc.id)
                )
        for page, mention in _title_mentions(ctx, text):
            out.setdefault(
                (page, "title"), Reference(doc.id, page, "jira-mentions-confluence-title", mention, doc.id)
            )
    return list(out.values())


def _url_mentions(doc: SourceDocument, ctx: LinkContext, kind: str) -> list[Reference]:
    out: dict[str, Reference] = {}
    for text in (doc.reference_text or {"content": doc.content}).values():
        for m in URL_IN_TEXT.finditer(text or ""):
            url = clean_url(m.group(0))
            page = resolve_url(ctx, url)
            if page:
                out.setdefault(page, Reference(doc.id, page, kind, url, doc.id))
    return list(out.values())


RULE = ReferenceRule(
    name="confluence-mentions",
    applies_to=frozenset({SourceType.JIRA, *_URL_ONLY}),
    uses=frozenset({"confluence_titles", "confluence_urls", "confluence_hosts"}),
    fn=confluence_mentions,
)
