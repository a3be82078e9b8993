"""Remove issue links and every textual trace of them from a Jira issue.

Used by the ``strip_links`` switch to evaluate retrieval without explicit links: the issue loses
``issuelinks``, and its summary, description, environment and comment bodies lose each mention
of a linked issue's key, including Jira browse URLs of it on any host
(``https://fluidproject.atlassian.net/browse/FLUID-3318#icft=FLUID-3318``). Markdown link
syntax around a removed URL is dissolved: ``<url>`` disappears, ``[text](url)`` keeps ``text``
(which then loses the key if it is one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

_URL_CHARS = r"[^\s<>()\[\]\"']"
TEXT_FIELDS = ("summary", "description", "environment")


@lru_cache(maxsize=4096)
def _patterns(
    keys: frozenset[str],
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    alternatives = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
    # The URL may go on with a query or fragment (``#icft=KEY``) but not into trailing punctuation.
    tail = rf"(?:[#?]{_URL_CHARS}*?)?(?=[.,;:!]?(?:\s|$|[<>()\[\]\"']))"
    url = rf"https?://{_URL_CHARS}*?/browse/(?:{alternatives})(?![0-9]){tail}"
    return (
        re.compile(rf"<{url}>", re.IGNORECASE),
        re.compile(rf"\[([^\]]*)\]\({url}\)", re.IGNORECASE),
        re.compile(url, re.IGNORECASE),
        re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![0-9])", re.IGNORECASE),
    )


def strip_mentions(text: str | None, keys: Iterable[str]) -> str | None:
    """``text`` without mentions of any of ``keys`` (issue keys and their browse URLs)."""
    key_set = frozenset(keys)
    if not text or not key_set:
        return text
    autolink, markdown_link, bare_url, bare_key = _patterns(key_set)
    text = autolink.sub("", text)
    text = markdown_link.sub(lambda m: m.group(1), text)
    text = bare_url.sub("", text)
    return bare_key.sub("", text)


def strip_issue_links(issue: dict[str, Any], linked_keys: Iterable[str]) -> dict[str, Any]:
    """A copy of ``issue`` without ``issuelinks`` and without mentions of ``linked_keys``."""
    keys = frozenset(linked_keys)
    fields = dict(issue.get("fields") or {})
    if "issuelinks" in fields:
        fields["issuelinks"] = []
    for name in TEXT_FIELDS:
        if isinstance(fields.get(name), str):
            fields[name] = strip_mentions(fields[name], keys)
    thread = fields.get("comment")
    if isinstance(thread, dict) and thread.get("comments"):
        comments = [{**c, "body": strip_mentions(c.get("body"), keys)} for c in thread["comments"]]
        fields["comment"] = {**thread, "comments": comments}
    return {**issue, "fields": fields}
