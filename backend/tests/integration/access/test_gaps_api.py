"""Knowledge gaps through the API (docs/knowledge-gaps.md): a question the demo's sources do not
answer and a thumbs-down become gaps in the store; ``GET /admin/gaps`` lists them by topic for an
admin and refuses a member with a clear 403."""

from __future__ import annotations

import json
import time

import pytest

from tests.accounts_app import accounts_client, signed_in

pytestmark = pytest.mark.integration
ADMIN, MEMBER = "alice@acme.example", "carol@acme.example"
UNANSWERABLE = [
    "How do we configure kubernetes autoscaling for the GPU cluster?",
    "What is the kubernetes autoscaling policy for GPU nodes?",
]


def test_not_found_questions_and_thumbs_down_are_listed_for_admins_only(demo_workspace, embedder, tmp_path):
    client = accounts_client(demo_workspace, embedder, tmp_path / "d", knowledge_gaps="questions")
    try:
        signed_in(client, MEMBER)
        for question in UNANSWERABLE:
            r = client.post("/ask", json={"question": question})
            assert r.status_code == 200 and r.json()["status"] == "not_found", r.json()
        assert client.post("/ask", json={"question": "What is WEB-3 about?"}).json()["status"] == "answered"
        vote = {
            "question": "Why was the cache warmer dropped?",
            "answer": "WEB-3 is about …",
            "rating": "down",
        }
        reason = {"comment": "It quotes the feature list, not the reason."}
        assert (
            client.post("/feedback", json={**vote, **reason, "document_ids": ["jira:WEB-3"]}).status_code
            == 201
        )
        up = {**vote, "rating": "up", "question": "What is WEB-3 about?"}
        assert client.post("/feedback", json=up).status_code == 201
        refused = client.get("/admin/gaps")
        assert refused.status_code == 403 and "admins only" in refused.json()["detail"]
        client.post("/auth/logout")

        signed_in(client, ADMIN)
        report = client.get("/admin/gaps").json()
        assert report["total"] == 3 and report["questions_kept"] is True
        first = report["topics"][0]
        assert first["count"] == 2 and first["kinds"] == {"not_found": 2}
        assert sorted(first["questions"]) == sorted(UNANSWERABLE)
        assert {"autoscal", "gpu"} <= set(first["terms"]) and "gpu" in first["label"]
        down = client.get("/admin/gaps", params={"kind": "thumbs_down"}).json()
        assert down["total"] == 1 and down["topics"][0]["documents"][0]["id"] == "jira:WEB-3"
        # the answers voted down, with the reasons people gave (an upvote is none of them)
        [voted] = report["voted_down"]
        assert (voted["reason"], voted["question"], voted["answer"]) == (
            "It quotes the feature list, not the reason.",
            "Why was the cache warmer dropped?",
            "WEB-3 is about …",
        )
        assert [d["id"] for d in voted["documents"]] == ["jira:WEB-3"]
        assert client.get("/admin/gaps", params={"kind": "not_found"}).json()["voted_down"] == []
        assert client.get("/admin/gaps", params={"kind": "nonsense"}).status_code == 422
        assert client.get("/admin/gaps", params={"days": 0}).status_code == 422
    finally:
        client.__exit__(None, None, None)


def test_by_default_only_key_terms_are_kept(demo_workspace, embedder, tmp_path):
    client = accounts_client(demo_workspace, embedder, tmp_path / "d")
    try:
        signed_in(client, ADMIN)
        assert client.post("/ask", json={"question": UNANSWERABLE[0]}).json()["status"] == "not_found"
        report = client.get("/admin/gaps").json()
        assert report["questions_kept"] is False and report["recording"] == "auto"
        assert report["total"] == 1 and report["topics"][0]["questions"] == []
        assert "GPU" not in str(report) and "gpu" in report["topics"][0]["terms"]
        # a vote's reason is shown; its question and answer only where questions are kept
        vote = {"question": "Why GPU?", "answer": "GPU …", "rating": "down", "comment": "wrong team"}
        assert client.post("/feedback", json=vote).status_code == 201
        [voted] = client.get("/admin/gaps").json()["voted_down"]
        assert (voted["reason"], voted["question"], voted["answer"]) == ("wrong team", "", "")
    finally:
        client.__exit__(None, None, None)


def test_the_cli_lists_gaps_by_topic_with_the_closest_documents(demo_workspace, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from devkb.cli.main import app
    from devkb.store.shared_state import Gap
    from devkb.store.sqlite.shared_state import SQLiteSharedState

    data = demo_workspace.copy_data(tmp_path / "d")
    monkeypatch.setenv("DEVKB_DATA_DIR", str(data))
    monkeypatch.setenv("DEVKB_SOURCES_FILE", str(demo_workspace.sources_file))
    monkeypatch.setenv("DEVKB_EMBEDDER", "local")  # the embedder the demo workspace was indexed with
    state = SQLiteSharedState(data / "graph.sqlite")
    now = time.time()
    state.record_gap(Gap("g1", "not_found", "", ("autoscal", "gpu"), 0.1, ("jira:WEB-3",), now))
    state.record_gap(Gap("g2", "thumbs_down", "", ("autoscal", "gpu", "node"), None, (), now - 1))
    state.close()
    run = CliRunner().invoke
    listed = run(app, ["gaps"])
    assert listed.exit_code == 0, listed.output
    assert "2 gaps in 1 topics (question text not kept" in listed.output
    assert "2× autoscal · gpu · node" in listed.output and "closest: " in listed.output
    as_json = json.loads(run(app, ["gaps", "--json", "--kind", "thumbs_down"]).output)
    assert as_json["total"] == 1 and as_json["topics"][0]["kinds"] == {"thumbs_down": 1}
    bad = run(app, ["gaps", "--kind", "bogus"])
    assert bad.exit_code == 2 and "unknown gap kind 'bogus'" in bad.output
