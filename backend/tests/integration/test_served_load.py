"""A real ``devkb serve`` on loopback with the demo workspace and every secret configured: the
short load test (concurrent sessions, isolation, bounded memory, session cap), and the server's
own log output scanned for the secrets after a failed and a successful sync.

The long load run (50 sessions x 60 s) is ``make bench`` (``python -m devkb_devtools.bench.load_test``)."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from devkb_devtools.bench.load_test import report, run_load
from tests.demo_workspace import write_sources_file
from tests.support import RunningServer

pytestmark = pytest.mark.integration

SECRETS = {
    "DEVKB_API_KEY": "devkb-served-apikey-41c9e7d2",
    "DEVKB_NEO4J_PASSWORD": "devkb-served-neo4j-pw-8a1f",
    "DEVKB_OPENAI_API_KEY": "sk-devkb-served-openai-b73c",
    "DEVKB_TEST_JIRA_TOKEN": "devkb-served-jira-token-19aa",
    "DEVKB_TEST_GITHUB_TOKEN": "ghp_devkbServedGithubToken77",
    "DEVKB_TEST_WIKI_TOKEN": "devkb-served-wiki-token-c0de",
}
KEY = {"X-API-Key": SECRETS["DEVKB_API_KEY"]}
MAX_SESSIONS = 40  # small, so the churn of the load test exercises the cap


@pytest.fixture(scope="module")
def server(demo_workspace, tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    sources = write_sources_file(
        root / "sources.yaml",
        demo_workspace.suite,
        {"jira": "DEVKB_TEST_JIRA_TOKEN", "code": "DEVKB_TEST_GITHUB_TOKEN", "wiki": "DEVKB_TEST_WIKI_TOKEN"},
    )
    env = {
        **SECRETS,
        "DEVKB_SOURCES_FILE": str(sources),
        "DEVKB_MAX_SESSIONS": str(MAX_SESSIONS),
        "DEVKB_EMBEDDER": "local",  # the model the session's data was indexed with
        "PYTHONFAULTHANDLER": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    with RunningServer(demo_workspace.copy_data(root / "data"), env=env, index=False) as s:
        yield s


def test_concurrent_sessions_stay_isolated_error_free_and_bounded(server):
    result = asyncio.run(
        run_load(
            server.base_url,
            sessions=10,
            seconds=10,
            api_key=SECRETS["DEVKB_API_KEY"],
            pid=server.proc.pid,
            forbidden=tuple(SECRETS.values()),
        )
    )
    print(report(result))
    if result.errors:
        print(server.log_path.read_text(errors="replace")[-60000:])
    assert result.errors == 0 and result.leaks == 0 and result.secret_leaks == 0, result.problems
    assert result.asks >= 10 and result.history_reads >= 10
    assert result.churn_requests > MAX_SESSIONS  # more sessions were opened than the cap allows ...
    assert result.oldest_churn_session_evicted  # ... so the oldest idle one was dropped, the active ones kept
    assert result.rss_peak_bytes <= result.rss_limit_bytes, report(result)
    assert httpx.get(server.base_url + "/health", timeout=10).json()["status"] == "ok"


def wait_for_run(url: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = httpx.get(url, headers=KEY, timeout=10).json()
        if run["state"] in ("succeeded", "failed"):
            return run
        time.sleep(0.2)
    raise AssertionError(f"{url} did not finish")


def test_no_secret_in_the_server_log_or_responses(server, demo_workspace):
    """The Jira emulator rejects the token and echoes it in its error message; the sync fails and
    is logged. Then a sync that uses the GitHub token succeeds. Nothing the server printed or
    answered may contain a secret."""
    u = server.base_url
    bodies = []
    faults = demo_workspace.suite.faults
    faults.server_error(
        401, times=20, service="jira", message=f"token {SECRETS['DEVKB_TEST_JIRA_TOKEN']} rejected"
    )
    try:
        started = httpx.post(u + "/sources/jira/sync", headers=KEY, timeout=30).json()
        failed = wait_for_run(u + started["status_url"])
    finally:
        faults.clear_faults()
    assert failed["state"] == "failed"
    started = httpx.post(u + "/sources/code/sync", headers=KEY, timeout=30).json()
    assert wait_for_run(u + started["status_url"])["state"] == "succeeded"
    for path in (
        "/sources",
        "/health",
        "/stats",
        "/openapi.json",
        "/docs",
        "/graph?limit=5",
        "/chat/history",
    ):
        bodies.append(httpx.get(u + path, headers=KEY, timeout=30).text)
    bodies.append(httpx.get(u + "/stats", headers={"X-API-Key": "wrong"}, timeout=30).text)
    bodies.append(httpx.post(u + "/ask", headers=KEY, json={"question": "x" * 3000}, timeout=30).text)
    log = server.log()
    full_log = server.log_path.read_text(errors="replace")
    assert "sync of jira failed" in full_log and "*****" in full_log  # the failure was logged, masked
    for name, secret in SECRETS.items():
        assert secret not in full_log, f"{name} is in the server log:\n{log}"
        for body in bodies:
            assert secret not in body, f"{name} is in a response"
