"""Point recorded API URLs (``self``, ``url``, ``*_url``) at the emulator that serves them.

Recorded records carry the origin of the service they were shaped for
(``http://jira.local``, ``http://confluence.local``, ``https://api.github.com``). Clients follow
these URLs (PyGithub completes lazy objects through ``url``; Jira clients follow ``self``), so the
emulator rewrites them to its own base URL when serving. Only values under URL-valued keys are
touched, never free text, and only when they start with a recorded origin; ``html_url`` values
point at ``https://github.com`` (not an API origin) and so stay as recorded, which keeps citations
stable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

URL_KEYS = frozenset({"self", "url", "href", "base", "next", "prev", "download_url"})


def is_url_key(key: str) -> bool:
    """Whether values under ``key`` are API URLs that may be rewritten."""
    return key in URL_KEYS or key.endswith("_url")


class UrlRewriter:
    """Replace recorded origins by emulator URLs in URL-valued fields of JSON-like data.

    ``origins`` maps a recorded origin (``"https://api.github.com"``) to its replacement
    (``"http://127.0.0.1:5123"``). The result is a new structure; the input is never modified,
    so callers may pass shared dataset records.
    """

    def __init__(self, origins: Mapping[str, str]) -> None:
        # Longest origin first so that a more specific origin wins over its prefix.
        self._origins = sorted(
            ((old.rstrip("/"), new.rstrip("/")) for old, new in origins.items() if old),
            key=lambda pair: -len(pair[0]),
        )

    def rewrite_url(self, value: str) -> str:
        """Rewrite one URL string if it starts with a recorded origin."""
        for old, new in self._origins:
            if value == old or value.startswith((old + "/", old + "?")):
                return new + value[len(old) :]
        return value

    def rewrite(self, data: Any) -> Any:
        """Deep-copy ``data`` rewriting URL-valued fields."""
        if isinstance(data, dict):
            out: dict[str, Any] = {}
            for key, value in data.items():
                if isinstance(value, str) and is_url_key(key):
                    out[key] = self.rewrite_url(value)
                elif isinstance(value, (dict, list)):
                    out[key] = self.rewrite(value)
                else:
                    out[key] = value
            return out
        if isinstance(data, list):
            return [self.rewrite(item) if isinstance(item, (dict, list)) else item for item in data]
        return data


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of ``url`` (None when ``url`` is empty or relative)."""
    if not url or "://" not in url:
        return None
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"
