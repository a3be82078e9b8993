"""Access control of the API, in process (ASGI) on the indexed demo workspace: the optional API
key, admin actions (always the key, else loopback and same-site only), CORS, and that no
configured secret ever shows in a response, a stored error or a log record."""

from __future__ import annotations

import logging
import time

import pytest
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from tests.demo_workspace import make_container, write_sources_file

pytestmark = pytest.mark.integration

KEY = "devkb-test-api-key-5f1c2a9e"
PROTECTED = [
    ("POST", "/ask", {"question": "How do we retry failed webhooks?"}),
    ("POST", "/ask/stream", {"question": "How do we retry failed webhooks?"}),
    ("GET", "/chat/history", None),
    ("POST", "/chat/clear", None),
    ("GET", "/graph", None),
    ("GET", "/graph/search?q=PAY", None),
    ("GET", "/documents?project=PAY", None),
    ("GET", "/documents/jira:PAY-12", None),
    ("GET", "/documents/jira:PAY-12/neighbors", None),
    ("GET", "/stats", None),
    ("GET", "/sources", None),
    ("GET", "/sources/jira/runs/nope", None),
]


@pytest.fixture
def make_client(demo_workspace, embedder, tmp_path):
    """``make_client(client_host, sources_file=None, **settings)`` → a started TestClient whose
    requests come from ``client_host``; each gets its own copy of the indexed data."""
    opened: list[TestClient] = []

    def make(client_host: str = "127.0.0.1", sources_file=None, **settings) -> TestClient:
        data = demo_workspace.copy_data(tmp_path / f"data{len(opened)}")
        container = make_container(data, sources_file or demo_workspace.sources_file, embedder, **settings)
        client = TestClient(
            create_app(container, start_background=False),
            client=(client_host, 40000),
            raise_server_exceptions=False,
        )
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


def call(client: TestClient, method: str, path: str, body=None, **headers):
    return client.request(method, path, json=body, headers=headers)


def test_without_a_key_configured_reads_are_open(make_client):
    client = make_client("192.0.2.10")  # a remote client
    for method, path, body in PROTECTED:
        r = call(client, method, path, body)
        assert r.status_code in (200, 404), (path, r.status_code, r.text)


def test_a_configured_key_is_required_everywhere_but_health_and_the_web_app(make_client):
    client = make_client("192.0.2.10", api_key=KEY)
    for method, path, body in PROTECTED:
        for headers in (
            {},
            {"X-API-Key": "wrong"},
            {"X-API-Key": KEY[:-1]},
            {"X-API-Key": KEY + "x"},
            {"X-API-Key": ""},
            {"Authorization": f"Bearer {KEY}"},
        ):
            r = call(client, method, path, body, **headers)
            assert r.status_code == 401, (path, headers, r.status_code)
            assert r.json() == {"detail": "missing or invalid API key: send it in the X-API-Key header"}
            assert r.headers["www-authenticate"] == "ApiKey"
        ok = call(client, method, path, body, **{"X-API-Key": KEY})
        assert ok.status_code in (200, 404), (path, ok.text)
    assert client.get("/health").status_code == 200
    assert client.get("/").status_code == 200 and "<html" in client.get("/").text.lower()
    assert client.get("/openapi.json").status_code == 200


def test_admin_actions_need_the_key_or_a_same_site_loopback_client(make_client, demo_workspace):
    remote = make_client("192.0.2.10")
    r = remote.post("/sources/jira/sync")
    assert r.status_code == 403
    assert "non-loopback" in r.json()["detail"] and "DEVKB_API_KEY" in r.json()["detail"]

    local = make_client("127.0.0.1")
    cross = local.post("/sources/jira/sync", headers={"Origin": "https://evil.example"})
    assert cross.status_code == 403 and "cross-site" in cross.json()["detail"]
    cross = local.post("/sources/jira/sync", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    same = local.post("/sources/jira/sync", headers={"Origin": "http://testserver"})
    assert same.status_code == 202, same.text
    wait_for_run(local, same.json()["status_url"])

    ipv6 = make_client("::1")
    assert ipv6.post("/sources/nope/sync").status_code == 404  # allowed through, then unknown

    keyed = make_client("127.0.0.1", api_key=KEY)  # a key is configured: loopback is not enough
    assert keyed.post("/sources/jira/sync").status_code == 401
    r = keyed.post("/sources/jira/sync", headers={"X-API-Key": KEY})
    assert r.status_code == 202
    wait_for_run(keyed, r.json()["status_url"], {"X-API-Key": KEY})
    remote_keyed = make_client("192.0.2.10", api_key=KEY)
    assert remote_keyed.post("/sources/nope/sync", headers={"X-API-Key": KEY}).status_code == 404


def wait_for_run(client: TestClient, url: str, headers=None, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = client.get(url, headers=headers or {}).json()
        if run["state"] in ("succeeded", "failed"):
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {url} did not finish")


def test_cors_is_off_by_default_and_limited_to_configured_origins(make_client):
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-api-key",
    }
    default = make_client()
    r = default.options("/ask", headers={"Origin": "https://app.example", **preflight})
    assert "access-control-allow-origin" not in r.headers
    assert (
        "access-control-allow-origin"
        not in default.get("/stats", headers={"Origin": "https://app.example"}).headers
    )

    client = make_client(cors_origins=["https://app.example"])
    ok = client.options("/ask", headers={"Origin": "https://app.example", **preflight})
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == "https://app.example"
    assert "x-api-key" in ok.headers["access-control-allow-headers"].lower()
    bad = client.options("/ask", headers={"Origin": "https://evil.example", **preflight})
    assert bad.status_code == 400 and "access-control-allow-origin" not in bad.headers
    assert (
        "access-control-allow-origin"
        not in client.get("/stats", headers={"Origin": "https://evil.example"}).headers
    )


def test_openapi_documents_the_key_and_the_error_responses(make_client):
    doc = make_client(api_key=KEY).get("/openapi.json").json()
    scheme = doc["components"]["securitySchemes"]["ApiKey"]
    assert scheme == {**scheme, "type": "apiKey", "in": "header", "name": "X-API-Key"}
    ops = {op["operationId"]: op for item in doc["paths"].values() for op in item.values()}
    assert "security" not in ops["health"]
    for name in (
        "ask",
        "askStream",
        "chatHistory",
        "getGraph",
        "getDocument",
        "getStats",
        "listSources",
        "syncSource",
    ):
        assert ops[name]["security"] == [{"ApiKey": []}], name
        assert ops[name]["responses"]["401"]["content"]["application/json"]["schema"]["$ref"].endswith(
            "/ErrorResponse"
        )
    assert "403" in ops["syncSource"]["responses"]
    for op in ops.values():
        if "422" in op["responses"]:
            assert op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith(
                "/ErrorResponse"
            )
    assert "HTTPValidationError" not in doc["components"]["schemas"]


# -- secrets ------------------------------------------------------------------------------------

SECRETS = {
    "api_key": "devkb-secret-apikey-9b7d41",
    "neo4j_password": "devkb-secret-neo4j-c3e8a0",
    "openai_api_key": "sk-devkb-secret-openai-77aa10",
    "jira_token": "devkb-secret-jira-token-1f0e",
    "github_token": "ghp_devkbSecretGithubToken42",
    "confluence_token": "devkb-secret-wiki-token-5d2c",
}


def test_no_secret_in_any_response_stored_error_or_log(
    make_client, demo_workspace, tmp_path, monkeypatch, caplog
):
    """Every secret is configured; the Jira emulator even echoes the Jira token back in its error
    messages (as a misbehaving proxy might). Nothing we send or log may contain any of them."""
    monkeypatch.setenv("DEVKB_TEST_JIRA_TOKEN", SECRETS["jira_token"])
    monkeypatch.setenv("DEVKB_TEST_GITHUB_TOKEN", SECRETS["github_token"])
    monkeypatch.setenv("DEVKB_TEST_WIKI_TOKEN", SECRETS["confluence_token"])
    sources = write_sources_file(
        tmp_path / "sources.yaml",
        demo_workspace.suite,
        {"jira": "DEVKB_TEST_JIRA_TOKEN", "code": "DEVKB_TEST_GITHUB_TOKEN", "wiki": "DEVKB_TEST_WIKI_TOKEN"},
    )
    caplog.set_level(logging.DEBUG)
    client = make_client(
        "127.0.0.1", sources_file=sources, **{k: v for k, v in SECRETS.items() if "token" not in k}
    )
    key = {"X-API-Key": SECRETS["api_key"]}
    bodies: list[str] = []

    def record(r):
        bodies.append(r.text)
        bodies.append(" ".join(f"{k}: {v}" for k, v in r.headers.items()))
        return r

    faults = demo_workspace.suite.faults
    try:
        faults.server_error(401, times=20, service="jira", message=f"token {SECRETS['jira_token']} rejected")
        run = record(client.post("/sources/jira/sync", headers=key)).json()
        failed = wait_for_run(client, run["status_url"], key)
        assert failed["state"] == "failed" and failed["errors"]
        record(client.get(run["status_url"], headers=key))
    finally:
        faults.clear_faults()
    listed = record(client.get("/sources", headers=key)).json()
    jira = next(s for s in listed if s["name"] == "jira")
    assert jira["status"] == "failed" and "*****" in jira["last_error"]  # the echoed token, masked
    state = client.app.state.container.store().get_sync_state("jira")
    assert SECRETS["jira_token"] not in state.last_error  # masked before it was stored

    for method, path, body in PROTECTED:
        record(call(client, method, path, body, **key))
        record(call(client, method, path, body, **{"X-API-Key": SECRETS["api_key"][:-2] + "zz"}))
    for path in ("/health", "/openapi.json", "/docs", "/redoc", "/"):
        record(client.get(path))
    record(client.post("/ask", json={"question": f"what is {SECRETS['openai_api_key']}?"}, headers=key))
    record(client.post("/ask", json={"question": ""}, headers=key))

    logs = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    assert "sync of jira failed" in logs  # the failure was logged, with the token masked
    for name, secret in SECRETS.items():
        for text in bodies:
            assert secret not in text, f"{name} leaked in a response: {text[:300]}"
        assert secret not in logs, f"{name} leaked in the logs"


def test_find_documents_by_fields_one_model_for_every_face(make_client):
    """GET /documents takes the document filters of GraphQuery and MCP find: fields ANDed, keys
    comma-separated, unknown parameters and bad dates refused with a message."""
    client = make_client()
    found = client.get("/documents", params={"project": "PAY", "issue_type": "Bug"})
    assert found.status_code == 200, found.text
    docs = found.json()
    assert docs and all(
        d["metadata"]["project"] == "PAY" and d["metadata"]["issue_type"] == "Bug" for d in docs
    )
    keys = client.get("/documents", params={"key": "PAY-12, pay-7"}).json()
    assert {d["id"] for d in keys} == {"jira:PAY-12", "jira:PAY-7"}
    assert client.get("/documents", params={"project": "PAY", "source": "github"}).json() == []
    unknown = client.get("/documents", params={"project": "PAY", "content": "x"})
    assert unknown.status_code == 422 and "content" in unknown.text
    bad_date = client.get("/documents", params={"project": "PAY", "updated_from": "yesterday"})
    assert bad_date.status_code == 422 and "2014-05-20" in bad_date.text
    newest = client.get("/documents", params={"limit": 3})
    assert newest.status_code == 200 and len(newest.json()) == 3
    dates = [d["updated_at"] for d in newest.json()]
    assert dates == sorted(dates, reverse=True)
