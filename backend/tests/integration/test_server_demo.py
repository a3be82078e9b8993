"""``devkb serve --index`` on the demo workspace, as `make run` starts it, over real HTTP."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.support import RunningServer

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with RunningServer(tmp_path_factory.mktemp("serve")) as s:
        yield s


def test_ask_returns_an_answer_citing_demo_documents(server):
    r = httpx.post(
        server.base_url + "/ask", json={"question": "Why were customers charged twice in April?"}, timeout=60
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["answer"] and body["sources"]
    ids = [s["document_id"] for s in body["sources"]]
    assert any(i.startswith("jira:PAY-") for i in ids)
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", body["answer"])}
    assert cited and cited <= set(range(1, len(ids) + 1))
    assert body["mode"] == "extractive"
    for s in body["sources"]:
        assert (
            s["url"].startswith("https://") and s["title"] and s["type"] in {"JIRA", "CONFLUENCE", "GITHUB"}
        )


def test_source_filter_is_respected(server):
    r = httpx.post(
        server.base_url + "/ask", json={"question": "idempotency keys", "sources": ["JIRA"]}, timeout=60
    )
    assert r.status_code == 200
    assert {s["type"] for s in r.json()["sources"]} == {"JIRA"}


def test_bad_input_gets_clear_errors(server):
    u = server.base_url
    for body in (
        {"question": ""},
        {"question": "   \n"},
        {},
        {"question": "x", "sources": ["jira", "slack"]},
        {"question": "x" * 2001},
    ):
        r = httpx.post(u + "/ask", json=body, timeout=30)
        assert r.status_code == 422, (body, r.text)
        assert isinstance(r.json()["detail"], str) and r.json()["detail"]
    assert "slack" in httpx.post(u + "/ask", json={"question": "x", "sources": ["slack"]}).json()["detail"]
    r = httpx.post(u + "/ask", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert httpx.get(u + "/documents/jira:NOPE-1").status_code == 404
    assert httpx.get(u + "/graph", params={"limit": 10**9}).status_code == 422


def test_graph_documents_stats_health(server):
    u = server.base_url
    stats = httpx.get(u + "/stats").json()
    assert stats["documents"] >= 40 and stats["chunks"] >= stats["documents"] and stats["references"] > 0
    graph = httpx.get(u + "/graph", params={"limit": 25}).json()
    assert 0 < len(graph["nodes"]) <= 25
    ids = {n["id"] for n in graph["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in graph["edges"])
    doc = httpx.get(u + "/documents/jira:PAY-12").json()
    assert doc["document"]["metadata"]["key"] == "PAY-12" and doc["chunks"]
    neighbours = httpx.get(u + "/documents/jira:PAY-12/neighbors").json()
    assert neighbours and all(n["direction"] in ("in", "out") for n in neighbours)
    health = httpx.get(u + "/health").json()
    assert health["store"]["ok"] and health["embedder"]["ok"]
    assert httpx.get(u + "/openapi.json").status_code == 200
