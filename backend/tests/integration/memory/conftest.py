"""A devkb app with accounts on a small workspace (one files source, uploads), for the memory
tests: alice is an admin, bob and carol are members."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.container import Container, prepare_store, shutdown
from tests.demo_workspace import make_container

PEOPLE = {
    "alice@acme.example": ("Alice", "admin"),
    "bob@acme.example": ("Bob", "member"),
    "carol@acme.example": ("Carol", "member"),
}
PASSWORD = "correct horse battery staple"
HANDBOOK = """# Release handbook

The release train is described in PAY-12. Releases are cut from main.
"""


def workspace(root: Path) -> tuple[Path, Path]:
    """(data dir, sources file) of a workspace with one files source holding the handbook."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    sources = root / "sources.yaml"
    sources.write_text(f"sources:\n  - name: handbook\n    type: files\n    path: {docs}\n", encoding="utf-8")
    return root / "data", sources


def memory_container(root: Path, embedder: Any, accounts: bool = True, **settings: Any) -> Container:
    data, sources = workspace(root)
    c = make_container(data, sources, embedder, **settings)
    prepare_store(c)
    assert c.runs().run("handbook").state == "succeeded"
    if accounts:
        for email, (name, role) in PEOPLE.items():
            c.accounts().create_user(email, name, role, PASSWORD)
        c.access_policy().forget()
    return c


def client_for(c: Container) -> TestClient:
    client = TestClient(create_app(c, start_background=False), raise_server_exceptions=False)
    client.__enter__()
    return client


def sign_in(client: TestClient, email: str) -> TestClient:
    client.cookies.clear()
    r = client.post("/auth/login", json={"email": email, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return client


@pytest.fixture(scope="module")
def memory_world(
    tmp_path_factory: pytest.TempPathFactory, embedder: Any
) -> Iterator[tuple[Container, TestClient, Path]]:
    root = tmp_path_factory.mktemp("memory-world")
    c = memory_container(root, embedder)
    client = client_for(c)
    try:
        yield c, client, root
    finally:
        client.__exit__(None, None, None)
        shutdown(c)
