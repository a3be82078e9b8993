"""``SettledSession``: the environment's proxy and CA-bundle settings merged exactly as
``requests.Session`` merges them, read once per host; the loaders' sessions are settled ones."""

from __future__ import annotations

import itertools

import pytest
import requests
from github import Github

from devkb.sources import http_session
from devkb.sources.github.client import settle_connections
from devkb.sources.http_retry import retrying_session
from devkb.sources.http_session import SettledSession, settled

ENVIRONMENTS = [
    {},
    {"HTTP_PROXY": "http://proxy.example:3128", "HTTPS_PROXY": "http://tls-proxy.example:3129"},
    {"https_proxy": "http://tls-proxy.example:3129", "NO_PROXY": "jira.example.com,.internal"},
    {"ALL_PROXY": "socks5://proxy.example:1080", "no_proxy": "*"},
    {"HTTPS_PROXY": "http://proxy.example:3128", "NO_PROXY": "127.0.0.1"},
    {"REQUESTS_CA_BUNDLE": "/etc/ssl/company.pem"},
    {"CURL_CA_BUNDLE": "/etc/ssl/curl.pem", "HTTP_PROXY": "http://proxy.example:3128"},
]
URLS = [
    "https://jira.example.com/rest/api/2/search?jql=x",
    "https://wiki.internal/rest/api/content/1",
    "http://127.0.0.1:8083/repos/o/r/commits/abc",
    "https://api.github.com/repos/o/r",
]
VERIFY = [True, None, False, "/etc/ssl/mine.pem"]
REQUEST_PROXIES = [{}, {"no_proxy": "api.github.com"}, {"https": "http://mine.example:8080"}]


def _clear_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
    ):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_the_merged_settings_are_requests_own(monkeypatch: pytest.MonkeyPatch, environment) -> None:
    _clear_proxy_environment(monkeypatch)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    for session_verify in (True, False):
        plain, settled_session = requests.Session(), SettledSession()
        plain.verify = settled_session.verify = session_verify
        plain.proxies = {"http": "http://session.example:1"}
        settled_session.proxies = dict(plain.proxies)
        for url, verify, proxies in itertools.product(URLS, VERIFY, REQUEST_PROXIES):
            expected = plain.merge_environment_settings(url, dict(proxies), None, verify, None)
            got = settled_session.merge_environment_settings(url, dict(proxies), None, verify, None)
            assert got == expected, (url, verify, proxies)


def test_the_environment_is_read_once_per_host(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_proxy_environment(monkeypatch)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    calls: list[str] = []
    real = http_session.get_environ_proxies

    def counted(url: str, no_proxy: str | None = None) -> dict[str, str]:
        calls.append(url)
        return real(url, no_proxy=no_proxy)

    monkeypatch.setattr(http_session, "get_environ_proxies", counted)
    session = SettledSession()
    for n in range(5):
        merged = session.merge_environment_settings(f"https://a.example/p/{n}", {}, None, True, None)
        assert merged["proxies"]["https"] == "http://proxy.example:3128"
    session.merge_environment_settings("https://b.example/x", {}, None, True, None)
    session.merge_environment_settings("https://b.example:8443/x", {}, None, True, None)
    assert calls == ["https://a.example/p/0", "https://b.example/x", "https://b.example:8443/x"]
    session.trust_env = False  # as requests: nothing from the environment
    assert session.merge_environment_settings("https://c.example/", {}, None, True, None)["proxies"] == {}
    assert len(calls) == 3


def test_settled_keeps_what_the_library_configured() -> None:
    plain = requests.Session()
    adapter = requests.adapters.HTTPAdapter(max_retries=3)
    plain.mount("https://", adapter)
    plain.auth = ("u", "p")
    plain.headers["X-Test"] = "1"
    plain.verify = "/etc/ssl/x.pem"
    out = settled(plain)
    assert isinstance(out, SettledSession)
    assert out.get_adapter("https://h.example/") is adapter
    assert (out.auth, out.headers["X-Test"], out.verify) == (("u", "p"), "1", "/etc/ssl/x.pem")


def test_the_loaders_sessions_are_settled() -> None:
    assert isinstance(retrying_session(), SettledSession)  # Jira and Confluence clients
    for url in ("https://api.github.com", "http://127.0.0.1:8083"):
        gh = Github(base_url=url)
        settle_connections(gh)
        # PyGithub's requester builds its connection (and session) from this class on first use;
        # a release that renames the attribute fails here rather than quietly reading the
        # environment on every request again
        connection_class = gh.requester._Requester__connectionClass
        connection = connection_class("h.example", None, timeout=5)
        assert isinstance(connection.session, SettledSession)
        assert connection.session.auth is not None  # PyGithub's no-op auth: no .netrc look-ups
