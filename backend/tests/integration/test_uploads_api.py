"""``POST /uploads``, ``GET /uploads`` and the MCP ``ingest`` tool on the real app and container
(no accounts: the operator uploads): indexing before the answer, the size and type limits and
unreadable files as clear 4xx, and a restart that loses nothing acknowledged."""

from __future__ import annotations

from pathlib import Path

import pytest
from dependency_injector import providers
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.config.settings import Settings
from devkb.container import Container, prepare_store, shutdown
from devkb.sources.uploads import UploadStore
from tests.hashing_embedder import HashingEmbedder

pytestmark = [pytest.mark.integration]

DOCUMENTS = Path(__file__).resolve().parents[1] / "data" / "documents"


def _container(tmp_path: Path, **settings: object) -> Container:
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
                **settings,
            )
        )
    )
    c.embedder.override(providers.Object(HashingEmbedder()))
    prepare_store(c)
    return c


def _client(c: Container) -> TestClient:
    return TestClient(create_app(c, start_background=False), raise_server_exceptions=False)


def test_an_upload_is_indexed_when_acknowledged_and_survives_a_restart(tmp_path: Path) -> None:
    c = _container(tmp_path)
    with _client(c) as client:
        r = client.post("/uploads", files={"file": ("zipapp.pdf", (DOCUMENTS / "zipapp.pdf").read_bytes())})
        assert r.status_code == 201, r.text
        up = r.json()
        assert (
            up["title"] == "zipapp — Manage executable Python zip archives" and up["uploader"] == "operator"
        )
        doc = client.get(f"/documents/{up['document_id']}").json()
        assert doc["document"]["type"] == "UPLOAD" and doc["document"]["metadata"]["pages"] == 7
        assert any(ch["section"] == "Page 3" for ch in doc["chunks"])  # page numbers for citations
        assert [u["id"] for u in client.get("/uploads").json()] == [up["id"]]
        assert {s["name"]: s["type"] for s in client.get("/sources").json()} == {
            "shared": "files",
            "uploads": "uploads",
        }
        answer = client.post(
            "/ask", json={"question": "How do I make a Python zip application executable on Windows?"}
        )
        assert answer.json()["sources"][0]["document_id"] == up["document_id"]
        # "Open in Upload" (the citation's url) leads to the file, also from a browser's navigation
        url = answer.json()["sources"][0]["url"]
        assert url == f"/uploads/{up['id']}"
        opened = client.get(url, headers={"Accept": "text/html,application/xhtml+xml"})
        assert opened.status_code == 200 and opened.headers["content-type"] == "application/pdf"
        assert opened.content == (DOCUMENTS / "zipapp.pdf").read_bytes()
        assert opened.headers["content-disposition"] == "inline; filename*=UTF-8''zipapp.pdf"
        page = client.post(
            "/uploads", files={"file": ("secrets.html", (DOCUMENTS / "guide" / "secrets.html").read_bytes())}
        )
        shown = client.get(f"/uploads/{page.json()['id']}")
        # an uploaded page is shown as text, never run as a page of this origin
        assert shown.headers["content-type"] == "text/plain; charset=utf-8"
        assert shown.headers["content-security-policy"].startswith("sandbox")
        missing = client.get("/uploads/" + "0" * 24, headers={"Accept": "text/html"})
        assert missing.status_code == 404 and "no upload" in missing.json()["detail"]
    shutdown(c)

    # a crash: a half-received file in .incoming, and an upload stored but never indexed
    store = UploadStore(tmp_path / "data" / "uploads")
    (store.root / ".incoming").mkdir(exist_ok=True)
    (store.root / ".incoming" / "partial").write_bytes(b"%PDF-1.4 half of a fi")
    stored = store.save("notes.md", (DOCUMENTS / "notes.md").read_bytes(), "operator")

    c = _container(tmp_path)  # the restart
    with _client(c) as client:
        assert client.get(f"/documents/{up['document_id']}").status_code == 200  # nothing acknowledged lost
        run = c.runs().run("uploads")  # the next sync (or the next upload) indexes what was stored
        assert run.documents_indexed == 1 and run.errors == []
        assert client.get(f"/documents/upload:{stored.id}").status_code == 200
        assert store.clear_incoming() == 1
    shutdown(c)


@pytest.mark.parametrize(
    ("name", "data", "status", "detail"),
    [
        ("tool.exe", b"MZ\x90\x00", 415, ".exe is not accepted"),
        ("diagram.png", b"\x89PNG\r\n", 415, ".png is not accepted"),
        ("encrypted.pdf", (DOCUMENTS / "broken" / "encrypted.pdf").read_bytes(), 422, "encrypted PDF"),
        ("corrupt.pdf", (DOCUMENTS / "broken" / "corrupt.pdf").read_bytes(), 422, "corrupt PDF"),
        ("diagram.md", (DOCUMENTS / "broken" / "diagram.md").read_bytes(), 422, "wrong type: PNG"),
        ("empty.txt", b"", 422, "empty file"),
        ("big.txt", b"x" * 3_000_000, 413, "over the upload limit of 2.0 MB"),
    ],
)
def test_limits_and_unreadable_files_are_clear_4xx_and_store_nothing(
    tmp_path: Path, name: str, data: bytes, status: int, detail: str
) -> None:
    c = _container(tmp_path, upload_max_bytes=2_000_000)
    with _client(c) as client:
        r = client.post("/uploads", files={"file": (name, data)})
        assert r.status_code == status, r.text
        assert detail in r.json()["detail"]
        assert client.get("/uploads").json() == []
        assert not list((tmp_path / "data" / "uploads").glob("*.json"))
    shutdown(c)


def test_the_mcp_ingest_tool(tmp_path: Path) -> None:
    c = _container(tmp_path)
    with _client(c) as client:

        def call(arguments: dict[str, str]) -> dict:  # type: ignore[type-arg]
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
            import json

            return json.loads(line[5:])["result"]  # type: ignore[no-any-return]

        ok = call(
            {
                "filename": "runbook.md",
                "content": "# Restarting the ledger\n\nStop the writer, then run the ledger check.\n",
            }
        )
        assert not ok.get("isError"), ok
        assert "upload:" in ok["content"][0]["text"]
        bad = call({"filename": "runbook.exe", "content": "x"})
        assert bad["isError"] and ".exe is not accepted" in bad["content"][0]["text"]
        assert [u["title"] for u in client.get("/uploads").json()] == ["Restarting the ledger"]
    shutdown(c)
