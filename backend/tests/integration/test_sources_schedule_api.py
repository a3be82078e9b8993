"""The scheduler inside the server: the app's lifespan starts it, ``GET /sources`` shows each
source's next run, and the scheduled job syncs all three demo sources."""

from __future__ import annotations

import pytest
from dependency_injector import providers
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.container import Container

pytestmark = [pytest.mark.integration]


def test_sources_report_next_runs_and_the_scheduled_job_syncs(tmp_path, monkeypatch, embedder):
    monkeypatch.setenv("DEVKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DEVKB_SCHEDULER_ENABLED", "true")
    monkeypatch.setenv("DEVKB_LLM_PROVIDER", "none")
    monkeypatch.delenv("DEVKB_SOURCES_FILE", raising=False)
    monkeypatch.delenv("DEVKB_JIRA_URL", raising=False)
    monkeypatch.delenv("DEVKB_API_KEY", raising=False)
    container = Container()
    container.embedder.override(providers.Object(embedder))
    with TestClient(create_app(container)) as client:
        scheduler = container.scheduler()
        assert scheduler.running
        listed = {s["name"]: s for s in client.get("/sources").json()}
        assert set(listed) == {"wiki", "code", "jira", "uploads"}  # uploads: on upload, no schedule
        assert listed["uploads"]["schedule"] is None and listed["uploads"]["next_run"] is None
        sources = {n: s for n, s in listed.items() if n != "uploads"}
        assert all(s["next_run"] and s["schedule"] == "30m" for s in sources.values())
        assert all(s["status"] == "never-synced" for s in sources.values())

        assert scheduler.run_now() == {
            "wiki": "succeeded",
            "code": "succeeded",
            "jira": "succeeded",
            "uploads": "succeeded",
        }
        after = {s["name"]: s for s in client.get("/sources").json() if s["name"] != "uploads"}
        assert all(s["status"] == "idle" and s["last_success"] for s in after.values())
        assert after["code"]["counts"]["documents"] == len(container.runs().loaders["code"].list_ids())
    assert not scheduler.running
