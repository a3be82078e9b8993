"""Key checks shared by the REST API and the MCP server: the configured API key, compared in
constant time, and whether a client is on loopback (where admin actions need no key when none is
configured). The HTTP dependencies that use them are in ``api/security.py`` and ``mcp/auth.py``."""

from __future__ import annotations

import hmac
import ipaddress

from devkb.config.settings import Settings


def key_matches(given: str | None, settings: Settings) -> bool:
    if settings.api_key is None or given is None:
        return False
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"),
        settings.api_key.get_secret_value().encode("utf-8", "surrogatepass"),
    )


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return host == "localhost"
