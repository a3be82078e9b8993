"""Retrieval's adaptation to the graph through the API (docs/evaluation.md, Adaptation): an admin
sees what is in use and the time-split figure, starts an adaptation in the background and follows
its progress; the demo's graph is too small, so the shipped defaults stay; a member gets 403."""

from __future__ import annotations

import time

import pytest

from tests.accounts_app import accounts_client, signed_in

pytestmark = pytest.mark.integration
ADMIN, MEMBER = "alice@acme.example", "carol@acme.example"


def test_admin_starts_an_adaptation_and_reads_its_decision(demo_workspace, embedder, tmp_path):
    client = accounts_client(demo_workspace, embedder, tmp_path / "d")
    try:
        signed_in(client, MEMBER)
        refused = client.get("/admin/retrieval/adaptation")
        assert refused.status_code == 403 and "admins only" in refused.json()["detail"]
        client.post("/auth/logout")

        signed_in(client, ADMIN)
        before = client.get("/admin/retrieval/adaptation").json()
        assert before["enabled"] is True and before["decision"] is None and before["figures"] == []
        assert before["in_use_with_anchor"] is False and before["in_use_text_only"] is False
        started = client.post("/admin/retrieval/adaptation")
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 120
        report = started.json()
        while report["status"]["state"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
            report = client.get("/admin/retrieval/adaptation").json()
        assert report["status"]["state"] == "succeeded", report
        assert report["decision"] == "too_few_pairs" and "shipped defaults" in report["note"]
        assert report["in_use_with_anchor"] is False and report["in_use_text_only"] is False
        assert report["method_with_anchor"] == report["method_text_only"] == "defaults"
        # the time-split figure is there, the defaults beside an "adapted" that is the defaults
        assert {f["mode"] for f in report["figures"]} <= {"anchor", "text"}
        for f in report["figures"]:
            assert f["adapted_ndcg"] == f["defaults_ndcg"]
    finally:
        client.__exit__(None, None, None)
