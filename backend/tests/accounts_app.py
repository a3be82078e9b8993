"""An in-process devkb app on a copy of the indexed demo workspace, with accounts: the demo's
people (``devkb_devtools.demo.people``) and the demo sources' permissions mirrored once."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb_devtools.demo.people import DEMO_USERS
from tests.demo_workspace import make_container

PASSWORDS = {u.email: u.password for u in DEMO_USERS}


def accounts_client(demo_workspace, embedder, data: Path, users: bool = True, **settings) -> TestClient:
    container = make_container(
        demo_workspace.copy_data(data), demo_workspace.sources_file, embedder, **settings
    )
    if users:
        accounts = container.accounts()
        for u in DEMO_USERS:
            accounts.create_user(u.email, u.name, u.role, u.password)
        statuses = container.permission_sync().run_once()
        assert all(s.state == "ok" for s in statuses.values()), statuses
    client = TestClient(create_app(container, start_background=False), raise_server_exceptions=False)
    client.__enter__()
    return client


def signed_in(client: TestClient, email: str) -> TestClient:
    """``client`` signed in as ``email`` (its cookie jar holds the session)."""
    r = client.post("/auth/login", json={"email": email, "password": PASSWORDS[email]})
    assert r.status_code == 200, r.text
    return client
