"""devkb as an MCP server, driven by the official SDK's own client: over stdio (``devkb mcp`` as a
subprocess) and over streamable HTTP (``/mcp`` in a real ``devkb serve``) on the demo workspace.
Every tool is called and must return cited results (ids of real demo documents); bad arguments
come back as tool errors; without the API key the HTTP endpoint refuses."""

from __future__ import annotations

import json
import os
import sys
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from devkb_devtools.bench.server_process import DevkbServer

pytestmark = pytest.mark.integration

TOOLS = {
    "search",
    "ask",
    "get_document",
    "neighbors",
    "find",
    "what_changed",
    "history",
    "compare_versions",
    "list_sources",
    "sync_source",
    "ingest",
    "remember",
    "remember_conversation",
    "recall",
    "forget",
    "verify",
}
KEY = "mcp-test-key-0123456789"


def payload(result: CallToolResult) -> dict[str, Any]:
    assert not result.isError, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    data: dict[str, Any] = json.loads(text)
    return data


def error_text(result: CallToolResult) -> str:
    assert result.isError, result.content
    return " ".join(getattr(c, "text", "") for c in result.content)


async def exercise(session: ClientSession, demo_ids: set[str]) -> dict[str, Any]:
    """Every tool on the demo workspace; returns what the checks below look at."""
    await session.initialize()
    listed = await session.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    assert all(t.description and len(t.description) > 40 for t in listed.tools)

    found = payload(
        await session.call_tool("search", {"query": "retry failed webhook deliveries", "top_k": 5})
    )
    assert found["results"] and {r["id"] for r in found["results"]} <= demo_ids
    assert all(r["url"].startswith("https://") and r["snippet"] for r in found["results"])
    only_jira = payload(await session.call_tool("search", {"query": "webhooks", "sources": ["jira"]}))
    assert {r["type"] for r in only_jira["results"]} == {"JIRA"}
    in_pay = payload(await session.call_tool("search", {"query": "webhooks", "project": "pay"}))
    assert in_pay["results"] and all(r["id"].startswith("jira:PAY-") for r in in_pay["results"])

    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    answered = payload(
        await session.call_tool(
            "ask", {"question": "Why were customers charged twice in April?"}, progress_callback=on_progress
        )
    )
    assert answered["answer"] and answered["sources"]
    assert {s["id"] for s in answered["sources"]} <= demo_ids
    assert progress, "ask reports progress"

    doc = payload(await session.call_tool("get_document", {"document_id": "jira:PAY-12", "max_chars": 500}))
    assert doc["id"] == "jira:PAY-12" and doc["metadata"]["key"] == "PAY-12" and 0 < len(doc["text"]) <= 500
    near = payload(await session.call_tool("neighbors", {"document_id": "jira:PAY-7", "direction": "both"}))
    assert near["neighbors"] and {n["id"] for n in near["neighbors"]} <= demo_ids
    assert any(n["id"].startswith("github:") for n in near["neighbors"])  # the commits that fixed it
    assert all(n["relation"] and n["direction"] in ("outgoing", "incoming") for n in near["neighbors"])
    code_only = payload(
        await session.call_tool("neighbors", {"document_id": "jira:PAY-7", "sources": ["github"]})
    )
    assert code_only["neighbors"] and {n["type"] for n in code_only["neighbors"]} == {"GITHUB"}
    by_field = payload(await session.call_tool("find", {"project": "PAY", "status": "Closed", "limit": 5}))
    assert by_field["results"] and all(r["id"].startswith("jira:PAY-") for r in by_field["results"])
    pulls = payload(await session.call_tool("find", {"kind": "pull", "sources": ["github"]}))
    assert pulls["results"] and all(":pull:" in r["id"] for r in pulls["results"])
    assert {r["id"] for r in pulls["results"]} <= demo_ids
    changed = payload(await session.call_tool("what_changed", {"since": "2000-01-01", "limit": 5}))
    assert len(changed["documents"]) == 5 and {d["id"] for d in changed["documents"]} <= demo_ids
    dates = [d["updated_at"] for d in changed["documents"]]
    assert dates == sorted(dates, reverse=True)
    digest = payload(
        await session.call_tool(
            "what_changed", {"since": "2026-05-01", "until": "2026-05-10", "project": "PAY"}
        )
    )
    assert "4 issue field changes on 1 issue" in digest["digest"], digest["digest"]
    assert "jira:PAY-12" in {d["id"] for d in digest["cited"]}
    past = payload(await session.call_tool("history", {"document_id": "jira:PAY-12"}))
    assert [(v["field"], v["to"]) for v in past["versions"]][-3:] == [
        ("status", "Closed"),
        ("resolution", "Done"),
        ("Fix Version", "2026.6"),
    ]
    assert "no document" in error_text(await session.call_tool("history", {"document_id": "jira:NOPE-1"}))
    assert "versions" in error_text(
        await session.call_tool(
            "compare_versions", {"document_id": "confluence:page:2000004", "from_version": 1}
        )
    )
    sources = payload(await session.call_tool("list_sources", {}))
    assert {s["name"] for s in sources["sources"]} == {"wiki", "code", "jira", "uploads"}

    resource = await session.read_resource("devkb://document/jira:PAY-12")  # type: ignore[arg-type]
    assert "PAY-12" in resource.contents[0].text  # type: ignore[union-attr]
    pull = pulls["results"][0]
    encoded = "devkb://document/" + urllib.parse.quote(pull["id"], safe="")  # ids with "/"
    resource = await session.read_resource(encoded)  # type: ignore[arg-type]
    assert pull["title"] in resource.contents[0].text  # type: ignore[union-attr]

    # bad arguments: tool errors with a message, and the session goes on
    assert "no document" in error_text(
        await session.call_tool("get_document", {"document_id": "jira:NOPE-1"})
    )
    assert error_text(await session.call_tool("search", {"query": ""}))
    assert "at least one field" in error_text(await session.call_tool("find", {}))
    assert "date" in error_text(await session.call_tool("what_changed", {"since": "last tuesday"}))
    assert error_text(await session.call_tool("neighbors", {"document_id": "jira:PAY-7", "direction": "up"}))
    assert "edge kind" in error_text(
        await session.call_tool("neighbors", {"document_id": "jira:PAY-7", "kinds": ["no such kind!"]})
    )
    assert error_text(await session.call_tool("search", {"query": "x", "top_k": 500}))
    assert "no source" in error_text(await session.call_tool("sync_source", {"name": "slack"}))

    synced: list[tuple[float, str | None]] = []

    async def on_sync(value: float, total: float | None, message: str | None) -> None:
        synced.append((value, message))

    run = payload(await session.call_tool("sync_source", {"name": "wiki"}, progress_callback=on_sync))
    assert run["state"] == "succeeded" and synced
    return {"search": found, "ask": answered}


def demo_ids(demo_workspace: Any) -> set[str]:
    from devkb.store.sqlite import SQLiteGraphStore

    store = SQLiteGraphStore(demo_workspace.data_dir / "graph.sqlite")
    try:
        return store.document_ids()
    finally:
        store.close()


def server_env(demo_workspace: Any, data: Any, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DEVKB_DATA_DIR": str(data),
        "DEVKB_SOURCES_FILE": str(demo_workspace.sources_file),
        "DEVKB_EMBEDDER": "local",  # the model the session's demo data was indexed with
        "DEVKB_LLM_PROVIDER": "none",
        "DEVKB_SCHEDULER_ENABLED": "false",
        "DEVKB_RELATED_SEARCH_MAX_DOCUMENTS": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **extra,
    }


def run_async(fn: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    return anyio.run(fn)


def test_mcp_over_stdio(demo_workspace, tmp_path):
    ids = demo_ids(demo_workspace)
    data = demo_workspace.copy_data(tmp_path / "data")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "devkb", "mcp"], env=server_env(demo_workspace, data)
    )

    async def go() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await exercise(session, ids)

    out = run_async(go)
    assert out["ask"]["mode"] == "extractive"


def test_mcp_over_http_with_the_api_key(demo_workspace, tmp_path):
    ids = demo_ids(demo_workspace)
    data = demo_workspace.copy_data(tmp_path / "data")
    env = server_env(demo_workspace, data, DEVKB_API_KEY=KEY)
    with DevkbServer(data, env=env) as server:
        url = server.base_url + "/mcp"
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        accept = {"accept": "application/json, text/event-stream"}
        refused = httpx.post(url, json=init, headers=accept, timeout=30)
        assert refused.status_code == 401 and "API key" in refused.json()["detail"]
        wrong = httpx.post(url, json=init, headers={**accept, "authorization": "Bearer nope"}, timeout=30)
        assert wrong.status_code == 401
        by_header = httpx.post(url, json=init, headers={**accept, "x-api-key": KEY}, timeout=30)
        assert by_header.status_code == 200 and '"serverInfo"' in by_header.text

        async def go() -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {KEY}"}
            async with (
                httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120, read=300)) as http,
                streamable_http_client(url, http_client=http) as (read, write, _),
                ClientSession(read, write) as session,
            ):
                return await exercise(session, ids)

        run_async(go)


def test_sync_source_needs_the_key_over_http_from_elsewhere(demo_workspace, tmp_path):
    """Without a configured key, admin tools follow the REST API: loopback callers only — and this
    test's client is on loopback, so the refusal is shown by ``may_administer`` directly."""
    from starlette.requests import Request

    from devkb.access.policy import AccessPolicy
    from devkb.config.settings import Settings
    from devkb.mcp.auth import may_administer

    policy = AccessPolicy()  # no accounts: the transport decides (key, loopback)

    def request(client: str, headers: dict[str, str] | None = None) -> Request:
        raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        return Request({"type": "http", "client": (client, 1234), "headers": raw, "path": "/mcp"})

    open_server = Settings(_env_file=None)
    assert may_administer(None, open_server, policy)  # stdio: the local user
    assert may_administer(request("127.0.0.1"), open_server, policy)
    assert not may_administer(request("10.1.2.3"), open_server, policy)
    keyed = Settings(_env_file=None, api_key=KEY)
    assert not may_administer(request("127.0.0.1"), keyed, policy)
    assert may_administer(request("10.1.2.3", {"X-API-Key": KEY}), keyed, policy)
    assert may_administer(request("10.1.2.3", {"Authorization": f"Bearer {KEY}"}), keyed, policy)


# -- a deployment with accounts: stdio serves the user ``--as`` names -------------------------------------
PAY_QUESTION = "What happened in the card data exposure incident postmortem?"


@pytest.fixture(scope="module")
def accounts_data(demo_workspace, embedder, tmp_path_factory):
    """A copy of the demo's data with the demo's people and the sources' permissions mirrored."""
    from tests.accounts_app import accounts_client

    data = tmp_path_factory.mktemp("mcp-accounts") / "data"
    client = accounts_client(demo_workspace, embedder, data)
    client.__exit__(None, None, None)
    return data


async def stdio_session(
    params: StdioServerParameters, work: Callable[[ClientSession], Awaitable[Any]]
) -> Any:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await work(session)


def stdio_as(demo_workspace: Any, data: Any, email: str | None) -> StdioServerParameters:
    args = ["-m", "devkb", "mcp"] + (["--as", email] if email else [])
    return StdioServerParameters(command=sys.executable, args=args, env=server_env(demo_workspace, data))


@pytest.mark.parametrize(
    ("email", "reads_pay"),
    [("dave@acme.example", True), ("bob@acme.example", True), ("carol@acme.example", False)],
)
def test_mcp_over_stdio_as_each_reader(demo_workspace, accounts_data, email, reads_pay):
    """``devkb mcp --as EMAIL``: search and ask cite PAY documents for a reader of PAY and none for
    one who may not read it; WEB (everybody's) is cited for both."""

    async def work(session: ClientSession) -> dict[str, Any]:
        pay = payload(await session.call_tool("search", {"query": "webhook retries", "project": "PAY"}))
        web = payload(await session.call_tool("search", {"query": "checkout", "sources": ["jira"]}))
        answered = payload(await session.call_tool("ask", {"question": "Why were customers charged twice?"}))
        doc = await session.call_tool("get_document", {"document_id": "jira:PAY-12"})
        return {"pay": pay, "web": web, "ask": answered, "doc": doc}

    out = run_async(lambda: stdio_session(stdio_as(demo_workspace, accounts_data, email), work))
    pay_ids = {r["id"] for r in out["pay"]["results"]}
    cited = {s["id"] for s in out["ask"]["sources"]}
    assert out["web"]["results"], "every reader finds WEB"
    assert {r["id"].split("-")[0] for r in out["web"]["results"]} >= ({"jira:WEB"})
    if reads_pay:
        assert pay_ids and all(i.startswith("jira:PAY-") for i in pay_ids)
        assert any(i.startswith("jira:PAY-") for i in cited), cited
        assert not out["doc"].isError
    else:
        assert pay_ids == set()
        assert not any(i.startswith("jira:PAY-") for i in cited), cited
        assert "no document" in error_text(out["doc"])  # as if it did not exist


def test_mcp_over_stdio_with_accounts_needs_as(demo_workspace, accounts_data):
    """Without ``--as`` on a deployment with accounts, ``devkb mcp`` refuses to start and says how
    to name the reader (docs/mcp.md: why not "everything for the local operator")."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "devkb", "mcp"],
        env=server_env(demo_workspace, accounts_data),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done
    assert "--as" in done.stderr and "--all" in done.stderr
    unknown = subprocess.run(
        [sys.executable, "-m", "devkb", "mcp", "--as", "nobody@acme.example"],
        env=server_env(demo_workspace, accounts_data),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert unknown.returncode == 2 and "no user" in unknown.stderr
