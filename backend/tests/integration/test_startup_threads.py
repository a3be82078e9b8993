"""The server's start-up builds what its background threads and its requests share before the
first thread starts: dependency_injector's Resource and Singleton providers are not thread-safe,
and the accounts store initialised at once by the permission sync's thread and a request's
middleware crashed a server (one generator's `finally` closed the SQLite connection the other
thread was using)."""

from __future__ import annotations

import pytest
from dependency_injector import providers
from fastapi.testclient import TestClient

from devkb.access.permission_sync import PermissionSync
from devkb.api.app import create_app
from tests.demo_workspace import make_container

pytestmark = pytest.mark.integration


def test_shared_providers_are_built_before_the_permission_sync_thread_starts(
    demo_workspace, embedder, tmp_path, monkeypatch
):
    data = demo_workspace.copy_data(tmp_path / "data")
    container = make_container(data, demo_workspace.sources_file, embedder)
    container.background_start.override(providers.Object(lambda: None))  # no scheduled syncs here
    seen: dict[str, bool] = {}

    def start(self: PermissionSync) -> None:  # what the thread would find, at the moment it starts
        seen["accounts"] = container.accounts.initialized

    monkeypatch.setattr(PermissionSync, "start", start)
    with TestClient(create_app(container, start_background=True)) as client:
        assert client.get("/health").status_code == 200
    assert seen == {"accounts": True}
