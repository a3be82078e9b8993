"""Bad uploads get a clear 4xx with the reason — on the API, as an MCP tool error, and as exit 2
from ``devkb upload`` — and each person's quota (files and bytes a day, conversions at once) is
answered with 429 and ``Retry-After``; admins are exempt. On the real app and container with
accounts (bob a member, alice an admin)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.config.settings import Settings
from devkb.container import Container, prepare_store, shutdown
from devkb.indexing.upload_quota import DAY, QuotaLimits, UploadQuota
from devkb.sources.uploads import UploadError
from tests import hostile
from tests.hashing_embedder import HashingEmbedder

pytestmark = [pytest.mark.integration]

BOB, ALICE = "bob@acme.example", "alice@acme.example"
PASSWORD = "a-long-password-1"
NOTE = b"# Ledger\n\nRun the ledger check before restarting the writer.\n"


def _settings(tmp_path: Path, **settings: Any) -> Settings:
    (tmp_path / "empty").mkdir(parents=True, exist_ok=True)
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  - name: shared\n    type: files\n    path: {tmp_path / 'empty'}\n")
    return Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        sources_file=sources,
        llm_provider="none",
        scheduler_enabled=False,
        **settings,
    )


def _app(tmp_path: Path, **settings: Any) -> tuple[Container, dict[str, TestClient]]:
    c = Container()
    c.settings.override(providers.Object(_settings(tmp_path, **settings)))
    c.embedder.override(providers.Object(HashingEmbedder()))
    prepare_store(c)
    c.accounts().create_user(BOB, "Bob", "member", PASSWORD)
    c.accounts().create_user(ALICE, "Alice", "admin", PASSWORD)
    clients = {}
    for email in (BOB, ALICE):
        client = TestClient(create_app(c, start_background=False), raise_server_exceptions=False)
        client.__enter__()
        assert client.post("/auth/login", json={"email": email, "password": PASSWORD}).status_code == 200
        clients[email] = client
    return c, clients


def _close(c: Container, clients: dict[str, TestClient]) -> None:
    for client in clients.values():
        client.__exit__(None, None, None)
    shutdown(c)


@pytest.fixture
def app(tmp_path: Path):  # type: ignore[no-untyped-def]
    c, clients = _app(tmp_path, upload_quota_files_per_day=40)
    yield c, clients
    _close(c, clients)


BAD = [
    (("../../etc/passwd.md", NOTE), 422, "has path parts"),
    (("notes\\runbook.md", NOTE), 422, "has path parts"),
    (("x" * 297 + ".md", NOTE), 422, "is 300 characters long (at most 255)"),
    (("notes.md", b""), 422, "empty file"),
    (hostile.png_named_md(), 422, "wrong type: PNG data (image/png), not a .md file"),
    (("diagram.png", hostile.png_bytes()), 415, ".png is not accepted"),
    (hostile.docx_paragraph_bomb(), 422, "too large after decompression"),
    (hostile.docx_one_run_bomb(), 422, "too large after decompression"),
    (hostile.docx_external_entity(), 422, "defines a document type or entities"),
    (hostile.docx_billion_laughs(), 422, "defines a document type or entities"),
    (hostile.encrypted_office(), 422, "encrypted or legacy Word file"),
    (hostile.pdf_page_tree_loop(), 422, "corrupt PDF"),
    (hostile.pdf_huge_page_tree(), 422, "or more pages in the PDF"),
    (hostile.truncated_docx(), 422, "not a valid DOCX file"),
]


def test_every_bad_upload_is_a_clear_4xx_and_stores_nothing(app: Any) -> None:
    c, clients = app
    bob = clients[BOB]
    for (name, data), status, reason in BAD:
        r = bob.post("/uploads", files={"file": (name, data)})
        assert r.status_code == status, (name, r.text)
        assert reason in r.json()["detail"], (name, r.json())
    assert bob.get("/uploads").json() == []
    assert not list((c.settings().data_dir / "uploads").glob("*.json"))
    ok = bob.post("/uploads", files={"file": ("notes.md", NOTE)})
    assert ok.status_code == 201, ok.text


def _mcp(client: TestClient, arguments: dict[str, str]) -> dict[str, Any]:
    r = client.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "ingest", "arguments": arguments},
        },
        headers={"Accept": "application/json, text/event-stream", "Host": "127.0.0.1:8000"},
    )
    assert r.status_code == 200, r.text
    line = next(ln for ln in r.text.splitlines() if ln.startswith("data:"))
    result: dict[str, Any] = json.loads(line[5:])["result"]
    return result


def test_mcp_ingest_answers_bad_files_with_a_tool_error(app: Any) -> None:
    import base64

    _, clients = app
    bob = clients[BOB]
    for arguments, reason in [
        ({"filename": "a\x00b.md", "content": "# x"}, "contains a NUL byte"),
        ({"filename": "docs/runbook.md", "content": "# x"}, "has path parts"),
        (
            {
                "filename": "bomb.docx",
                "content_base64": base64.b64encode(hostile.docx_paragraph_bomb()[1]).decode(),
            },
            "too large after decompression",
        ),
        (
            {"filename": "notes.md", "content_base64": base64.b64encode(hostile.png_bytes()).decode()},
            "wrong type",
        ),
    ]:
        result = _mcp(bob, arguments)
        assert result.get("isError"), result
        assert reason in result["content"][0]["text"], result
    assert not _mcp(bob, {"filename": "runbook.md", "content": NOTE.decode()}).get("isError")


def test_a_member_over_the_daily_quota_gets_429_with_retry_after_and_an_admin_does_not(
    tmp_path: Path,
) -> None:
    c, clients = _app(tmp_path, upload_quota_files_per_day=2, upload_quota_bytes_per_day=10_000_000)
    try:
        bob, alice = clients[BOB], clients[ALICE]
        assert bob.post("/uploads", files={"file": ("a.md", NOTE)}).status_code == 201
        bad = bob.post("/uploads", files={"file": hostile.docx_billion_laughs()})
        assert bad.status_code == 422  # refused files count: each cost a conversion
        over = bob.post("/uploads", files={"file": ("c.md", NOTE)})
        assert over.status_code == 429, over.text
        assert "2 files a day per person" in over.json()["detail"]
        assert DAY - 60 < int(over.headers["Retry-After"]) <= DAY
        tool = _mcp(bob, {"filename": "d.md", "content": NOTE.decode()})
        assert tool.get("isError") and "upload quota reached" in tool["content"][0]["text"]
        for name in ("a.md", "b.md", "c.md"):  # the admin is exempt
            assert alice.post("/uploads", files={"file": (name, NOTE)}).status_code == 201
        assert {u["uploader"] for u in alice.get("/uploads").json()} == {BOB, ALICE}
        # the admins' view: the limits and each person's use in the last 24 hours
        view = alice.get("/admin/uploads/quotas")
        assert view.status_code == 200, view.text
        quotas = view.json()
        assert quotas["files_per_day"] == 2 and quotas["admins_bounded"] is False
        use = {p["person"]: p for p in quotas["people"]}
        assert use[BOB]["files"] == 2 and use[BOB]["bytes"] > 0 and use[BOB]["converting"] == 0
        assert bob.get("/admin/uploads/quotas").status_code == 403
    finally:
        _close(c, clients)
    c, clients = _app(tmp_path / "again", upload_quota_files_per_day=2, upload_quota_admins=True)
    try:
        for name in ("a.md", "b.md"):
            assert clients[ALICE].post("/uploads", files={"file": (name, NOTE)}).status_code == 201
        assert clients[ALICE].post("/uploads", files={"file": ("c.md", NOTE)}).status_code == 429
    finally:
        _close(c, clients)


def test_the_quota_window_bytes_concurrency_and_restart() -> None:
    now = [1_000_000.0]
    quota = UploadQuota(QuotaLimits(files_per_day=0, bytes_per_day=1000, concurrent=1), clock=lambda: now[0])
    with quota.converting(BOB, 600, admin=False):
        with pytest.raises(UploadError) as busy:
            with quota.converting(BOB, 10, admin=False):
                pass
        assert busy.value.status == 429 and busy.value.retry_after == 2
        with quota.converting(ALICE, 10, admin=True):  # exempt
            pass
    now[0] += 3600
    with quota.converting(BOB, 300, admin=False):
        pass
    with pytest.raises(UploadError) as full:
        quota.check(BOB, 200, admin=False)
    assert full.value.status == 429 and full.value.retry_after == DAY - 3600  # when the 600 expire
    with pytest.raises(UploadError) as never:
        quota.check(BOB, 2000, admin=False)
    assert never.value.status == 413
    now[0] += DAY - 3600
    quota.check(BOB, 600, admin=False)  # the first upload left the window


def test_devkb_upload_exits_2_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from devkb.cli.main import app

    settings = _settings(tmp_path)
    monkeypatch.setenv("DEVKB_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("DEVKB_SOURCES_FILE", str(settings.sources_file))
    monkeypatch.setenv("DEVKB_LLM_PROVIDER", "none")
    name, data = hostile.docx_external_entity()
    (tmp_path / name).write_bytes(data)
    (tmp_path / "notes.md").write_bytes(NOTE)
    run = CliRunner().invoke(app, ["upload", str(tmp_path / name)])
    assert run.exit_code == 2, run.output
    assert "defines a document type or entities" in run.output
    ok = CliRunner().invoke(app, ["upload", str(tmp_path / "notes.md")])
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("upload:") and "Ledger" in ok.output


def test_a_quarantined_upload_is_shown_to_its_uploader_and_admins_and_deletable(app: Any) -> None:
    from devkb.sources.uploads import UploadStore

    c, clients = app
    bob, alice = clients[BOB], clients[ALICE]
    store = UploadStore(c.settings().data_dir / "uploads")
    bomb = store.save(
        *hostile.reported_docx_500mib_paragraphs(), uploader=BOB
    )  # stored by an earlier release
    carols = store.save(*hostile.docx_billion_laughs(), uploader="carol@acme.example")
    r = bob.post("/uploads", files={"file": ("notes.md", NOTE)})  # the run quarantines both
    assert r.status_code == 201, r.text
    mine = {u["id"]: u for u in bob.get("/uploads").json()}
    assert set(mine) == {bomb.id, r.json()["id"]}  # not carol's
    assert "too large after decompression" in mine[bomb.id]["quarantined"]
    assert mine[r.json()["id"]]["quarantined"] is None
    seen = {u["id"]: u["quarantined"] for u in alice.get("/uploads").json()}
    assert carols.id in seen and "entity" in (seen[carols.id] or "")
    assert bob.delete(f"/uploads/{carols.id}").status_code == 404  # someone else's: missing
    assert bob.delete(f"/uploads/{bomb.id}").status_code == 204
    assert bob.delete(f"/uploads/{r.json()['id']}").status_code == 204
    assert bob.get(f"/documents/upload:{r.json()['id']}").status_code == 404  # gone from the index
    assert bob.get("/uploads").json() == []
    assert alice.delete(f"/uploads/{carols.id}").status_code == 204
    assert store.quarantined() == {} and store.records() == []
