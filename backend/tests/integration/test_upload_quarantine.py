"""A stored upload that cannot be converted — a compression bomb stored before the limits existed —
never blocks a start or a sync: the first run quarantines it with its reason, later runs and
restarts never convert it again, ordinary uploads go on, and deleting it ends the quarantine."""

from __future__ import annotations

from pathlib import Path

import pytest
from dependency_injector import providers
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.config.settings import Settings
from devkb.container import Container, prepare_store, shutdown
from devkb.sources.formats import sandbox
from devkb.sources.uploads import UploadStore
from tests import hostile
from tests.hashing_embedder import HashingEmbedder

pytestmark = [pytest.mark.integration]


def _container(tmp_path: Path) -> Container:
    (tmp_path / "empty").mkdir(exist_ok=True)
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  - name: shared\n    type: files\n    path: {tmp_path / 'empty'}\n")
    c = Container()
    c.settings.override(
        providers.Object(
            Settings(
                _env_file=None,
                data_dir=tmp_path / "data",
                sources_file=sources,
                llm_provider="none",
                scheduler_enabled=False,
            )
        )
    )
    c.embedder.override(providers.Object(HashingEmbedder()))
    prepare_store(c)
    return c


def test_a_stored_bomb_is_quarantined_once_and_never_converted_again(tmp_path: Path) -> None:
    store = UploadStore(tmp_path / "data" / "uploads")
    bomb = store.save(*hostile.docx_paragraph_bomb(), uploader="bob@acme.example")  # as stored before
    laughs = store.save(*hostile.docx_billion_laughs(), uploader="carol@acme.example")

    c = _container(tmp_path)
    with TestClient(create_app(c, start_background=False), raise_server_exceptions=False) as client:
        run = c.runs().run("uploads")
        assert run.documents_indexed == 0
        assert any("quarantined: too large after decompression" in e for e in run.errors), run.errors
        quarantined = store.quarantined()
        assert set(quarantined) == {bomb.id, laughs.id}
        assert "entity" in quarantined[laughs.id]
        r = client.post("/uploads", files={"file": ("note.md", b"# Ledger\n\nRun the ledger check.\n")})
        assert r.status_code == 201, r.text
        assert client.get(f"/documents/{r.json()['document_id']}").status_code == 200
    shutdown(c)

    pool = sandbox.conversion_pool()
    converted_before = pool.converted
    c = _container(tmp_path)  # a restart: nothing quarantined is read again
    with TestClient(create_app(c, start_background=False), raise_server_exceptions=False):
        run = c.runs().run("uploads")
        assert run.errors == [] and run.documents_indexed == 0
        assert sandbox.conversion_pool().converted == converted_before
        assert c.runs().loaders["uploads"].describe()["quarantined"] == 2
        assert store.delete(bomb.id)
        assert set(store.quarantined()) == {laughs.id}
        assert not list(store.root.glob(f"{bomb.id}*"))
    shutdown(c)
