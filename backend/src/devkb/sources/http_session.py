"""A ``requests`` session that reads the environment's proxy and CA-bundle settings once per host.

``requests.Session`` (with ``trust_env``, its default) reads them on every request: the proxy
variables through ``urllib``'s ``getproxies``, which decodes every environment variable twice,
and ``NO_PROXY`` matched against the request's host. For a loader that makes thousands of small
requests to one host (a commit, a page version, a pull request's comments each), that was about a
sixth of the GitHub loader's CPU on a first index of the Fluid corpus (measured 2026-11-30:
2.9–3.2 → 2.2–2.8 s of client CPU for its 2,400 requests).

:class:`SettledSession` asks the environment the same questions the same way
(``requests.utils.get_environ_proxies``, ``REQUESTS_CA_BUNDLE`` then ``CURL_CA_BUNDLE``) and merges
the answers exactly as ``Session.merge_environment_settings`` does, remembering them per scheme,
host and ``no_proxy`` for the session's life. What it gives up: a proxy variable changed while a
sync runs applies to the loaders' next sessions (every sync builds its clients anew on a retry
hook), not to the requests of the one running. Redirects and ``.netrc`` are left to ``requests``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

import requests
from requests.sessions import merge_setting
from requests.utils import get_environ_proxies

if TYPE_CHECKING:
    from requests.sessions import _Settings

_merge = cast(Callable[[Any, Any], Any], merge_setting)  # untyped in requests' stubs


class SettledSession(requests.Session):
    def __init__(self) -> None:
        super().__init__()
        self._environment: dict[tuple[str, str, str | None], tuple[dict[str, str], str | None]] = {}

    def _from_environment(self, url: str, no_proxy: str | None) -> tuple[dict[str, str], str | None]:
        """(the environment's proxies for ``url``'s host, its CA bundle), read once per host."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc, no_proxy)
        found = self._environment.get(key)
        if found is None:
            bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
            found = (dict(get_environ_proxies(url, no_proxy=no_proxy)), bundle)
            self._environment[key] = found
        return found

    def merge_environment_settings(
        self, url: Any, proxies: Any, stream: Any, verify: Any, cert: Any
    ) -> _Settings:
        """``requests.Session.merge_environment_settings`` (2.34), the environment read once per host."""
        if self.trust_env:
            no_proxy = proxies.get("no_proxy") if proxies is not None else None
            env_proxies, bundle = self._from_environment(url, no_proxy)
            if proxies is not None:
                for k, v in env_proxies.items():
                    proxies.setdefault(k, v)
            if verify is True or verify is None:
                verify = bundle or verify
        return {
            "proxies": _merge(proxies, self.proxies),
            "stream": _merge(stream, self.stream),
            "verify": _merge(verify, self.verify),
            "cert": _merge(cert, self.cert),
        }


def settled(session: requests.Session) -> SettledSession:
    """A :class:`SettledSession` with ``session``'s adapters, auth, headers and settings (for a
    library that builds its own plain session)."""
    out = SettledSession()
    for name in ("adapters", "auth", "headers", "cookies", "proxies", "verify", "cert", "stream"):
        setattr(out, name, getattr(session, name))
    out.hooks, out.params, out.max_redirects, out.trust_env = (
        session.hooks,
        session.params,
        session.max_redirects,
        session.trust_env,
    )
    return out
