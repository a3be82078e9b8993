"""Normalised keys for URLs, shared by loaders (which record the URLs a document is reachable
under) and reference rules (which look up the URLs found in text).

    https://www.Handbook.example.org/Techniques/?x#top  →  handbook.example.org/Techniques
    /display/ILDH/Access+for+All                          →  /display/ILDH/Access for All

Host-qualified keys come from absolute URLs; host-relative keys (starting with ``/``) stand for
paths on the source's own server. Paths are percent- and plus-decoded, lose their trailing slash
(the root stays ``/``), query and fragment — except the ``pageId`` query of Confluence's
``viewpage.action``, which is the whole address.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote_plus, urlsplit

# A URL in free text: stops at whitespace, quotes, angle brackets and closing brackets/pipes
# that Markdown and Jira markup put around links.
URL_IN_TEXT = re.compile(r"https?://[^\s<>\"'`|\]\[(){}]+", re.IGNORECASE)
_TRAILING = ".,;:!?*_~"


def clean_url(url: str) -> str:
    """Strip punctuation that ends a sentence rather than the URL."""
    return url.rstrip(_TRAILING)


def host_of(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def path_key(path: str, query: str = "") -> str:
    """The host-relative part of a key."""
    p = unquote_plus(path or "") or "/"
    if not p.startswith("/"):
        p = "/" + p
    if len(p) > 1:
        p = p.rstrip("/") or "/"
    if p.endswith("/viewpage.action"):
        page_id = (parse_qs(query).get("pageId") or [""])[0]
        if page_id:
            return f"{p}?pageId={page_id}"
    return p


def url_key(url: str) -> str:
    """``host/path`` for an absolute URL, the path key for a host-relative one."""
    parts = urlsplit(url.strip())
    key = path_key(parts.path, parts.query)
    if not parts.netloc:
        return key
    return host_of(url) + key
