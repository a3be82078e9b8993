"""Uploads as people expect them (issue 61, item 4), on the real app and container with accounts
(bob and carol members): an upload acknowledged "indexed" is found by the very next question, by
every path (``/ask``, graph search, the document, MCP ``search``), also after questions that built
the retrieval snapshot and for several uploads in a row; the same file name uploaded again by the
same person is version 2 of the same document with its diff; another person's file of the same
name is a document of their own, private to them."""

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
from tests.hashing_embedder import HashingEmbedder

pytestmark = [pytest.mark.integration]

BOB, CAROL = "bob@acme.example", "carol@acme.example"
PASSWORD = "a-long-password-1"
SHARED = b"# Ledger writer\n\nRun the ledger check before restarting the ledger writer.\n"


def _app(tmp_path: Path, **settings: Any) -> tuple[Container, dict[str, TestClient]]:
    (tmp_path / "shared").mkdir(parents=True, exist_ok=True)
    (tmp_path / "shared" / "ledger.md").write_bytes(SHARED)
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  - name: shared\n    type: files\n    path: {tmp_path / 'shared'}\n")
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
    assert c.runs().run("shared").state == "succeeded"
    clients = {}
    for email, name in ((BOB, "Bob"), (CAROL, "Carol")):
        c.accounts().create_user(email, name, "member", PASSWORD)
        client = TestClient(create_app(c, start_background=False), raise_server_exceptions=False)
        client.__enter__()
        assert client.post("/auth/login", json={"email": email, "password": PASSWORD}).status_code == 200
        clients[email] = client
    return c, clients


@pytest.fixture
def app(tmp_path: Path):  # type: ignore[no-untyped-def]
    c, clients = _app(tmp_path)
    yield c, clients
    for client in clients.values():
        client.__exit__(None, None, None)
    shutdown(c)


def _upload(client: TestClient, name: str, data: bytes) -> dict[str, Any]:
    r = client.post("/uploads", files={"file": (name, data)})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def _cited(client: TestClient, question: str) -> list[str]:
    r = client.post("/ask", json={"question": question})
    assert r.status_code == 200, r.text
    return [s["document_id"] for s in r.json()["sources"]]


FACTS = [  # a word no other document has, and who does it
    ("quokka", "Grace Lee"),
    ("narwhal", "Ivo Petrov"),
    ("axolotl", "Mina Okafor"),
    ("pangolin", "Tariq Haddad"),
]


@pytest.mark.parametrize("mode", ["snapshot", "candidates"])
def test_every_upload_is_found_by_the_next_question_by_every_path(tmp_path: Path, mode: str) -> None:
    """``snapshot``: the in-memory retrieval snapshot (built by a first question, refreshed every
    30 s on its own); ``candidates``: the store's own full-text and vector indexes (a store above
    ``related_search_max_documents``)."""
    c, clients = _app(tmp_path, **({"related_search_max_documents": 0} if mode == "candidates" else {}))
    bob, carol = clients[BOB], clients[CAROL]
    try:
        _upload(bob, "bobs-notes.md", b"# Bob's notes\n\nThe ledger writer restarts at night.\n")
        for client in (bob, carol):  # questions and reads that build the snapshot and each catalog
            assert _cited(client, "How do we restart the ledger writer?")[0] == "files:shared:ledger.md"
            assert client.get("/graph/search", params={"q": "Ledger"}).json()["nodes"]
        for i, (word, person) in enumerate(FACTS):  # bob, carol, bob, carol: each reads a part
            mine, other = (bob, carol) if i % 2 == 0 else (carol, bob)
            title = f"The {word} rotation"
            up = _upload(
                mine, f"{word}.md", f"# {title}\n\nThe {word} key is rotated by {person}.\n".encode()
            )
            # asked at once, with nothing in between: every path finds it
            assert up["document_id"] in _cited(mine, f"Who rotates the {word} key?")[:3], word
            found = mine.get("/graph/search", params={"q": title}).json()["nodes"]
            assert [n["id"] for n in found] == [up["document_id"]], found
            assert mine.get(f"/documents/{up['document_id']}").status_code == 200
            # the other one asks too: it is the uploader's alone
            assert up["document_id"] not in _cited(other, f"Who rotates the {word} key?")
        gone = bob.get("/uploads").json()[0]
        assert bob.delete(f"/uploads/{gone['id']}").status_code == 204
        assert gone["document_id"] not in _cited(bob, "Who rotates the quokka key?")  # and gone at once
    finally:
        for client in clients.values():
            client.__exit__(None, None, None)
        shutdown(c)


def test_an_mcp_ingest_is_found_by_the_next_mcp_search(tmp_path: Path) -> None:
    c, clients = _app(tmp_path)
    bob = clients[BOB]

    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        r = bob.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            },
            headers={"Accept": "application/json, text/event-stream", "Host": "127.0.0.1:8000"},
        )
        assert r.status_code == 200, r.text
        line = next(ln for ln in r.text.splitlines() if ln.startswith("data:"))
        result = json.loads(line[5:])["result"]
        assert not result.get("isError"), result
        return json.loads(result["content"][0]["text"])  # type: ignore[no-any-return]

    try:
        assert call("search", {"query": "ledger writer restart"})["results"]  # the snapshot built
        for word, person in FACTS[:2]:
            done = call(
                "ingest", {"filename": f"{word}.md", "content": f"# {word}\n\nRotated by {person}.\n"}
            )
            hits = call("search", {"query": f"{word} rotated", "top_k": 3})["results"]
            assert done["document_id"] in [h["id"] for h in hits], (word, hits)
    finally:
        for client in clients.values():
            client.__exit__(None, None, None)
        shutdown(c)


RUNBOOK_V1 = b"# Sandbox key runbook\n\nThe sandbox key is rotated every 30 days by Grace Lee.\n"
RUNBOOK_V2 = b"# Sandbox key runbook\n\nThe sandbox key is rotated every 14 days by Ivo Petrov.\n"


def test_the_same_name_again_is_version_2_with_a_diff_and_another_persons_stays_apart(app) -> None:  # type: ignore[no-untyped-def]
    c, clients = app
    bob, carol = clients[BOB], clients[CAROL]
    first = _upload(bob, "sandbox-key.md", RUNBOOK_V1)
    assert (first["version"], first["versions"]) == (1, 1)
    second = _upload(bob, "sandbox-key.md", RUNBOOK_V2)
    assert second["document_id"] == first["document_id"] and second["id"] == first["id"]
    assert (second["version"], second["versions"]) == (2, 2)
    again = _upload(bob, "sandbox-key.md", RUNBOOK_V2)  # the same bytes: no new version
    assert (again["version"], again["versions"]) == (2, 2)

    listed = bob.get("/uploads").json()
    assert [(u["id"], u["version"], u["versions"], u["bytes"]) for u in listed] == [
        (first["id"], 2, 2, len(RUNBOOK_V2))
    ]
    doc = first["document_id"]
    history = bob.get(f"/documents/{doc}/history").json()["versions"]
    assert [(v["kind"], v["seq"], v["author"]) for v in history] == [("page", 1, BOB), ("page", 2, BOB)]
    assert history[0]["valid_until"] == history[1]["valid_from"]
    older = bob.get(f"/documents/{doc}/versions/1").json()
    assert older["current_seq"] == 2 and "30 days by Grace Lee" in older["body"]
    assert "-The sandbox key is rotated every 30 days by Grace Lee." in older["diff_to_current"]
    assert "+The sandbox key is rotated every 14 days by Ivo Petrov." in older["diff_to_current"]
    # the document's text is the latest version's; "Open in Upload" serves it, older ones on request
    assert "Ivo Petrov" in " ".join(ch["content"] for ch in bob.get(f"/documents/{doc}").json()["chunks"])
    assert bob.get(f"/uploads/{first['id']}").content == RUNBOOK_V2
    assert bob.get(f"/uploads/{first['id']}", params={"version": 1}).content == RUNBOOK_V1
    assert bob.get(f"/uploads/{first['id']}", params={"version": 3}).status_code == 404
    answer = bob.post("/ask", json={"question": "How often is the sandbox key rotated?"}).json()
    assert answer["sources"][0]["document_id"] == doc and "14 days" in answer["answer"], answer

    # carol's file of the same name is hers: another document, version 1, private both ways
    hers = _upload(carol, "sandbox-key.md", RUNBOOK_V1)
    assert hers["document_id"] != doc and hers["version"] == 1
    assert [u["document_id"] for u in carol.get("/uploads").json()] == [hers["document_id"]]
    assert [u["document_id"] for u in bob.get("/uploads").json()] == [doc]
    for client, other in ((carol, doc), (bob, hers["document_id"])):
        assert client.get(f"/documents/{other}").status_code == 404
        assert client.get(f"/documents/{other}/history").status_code == 404
        assert client.get(f"/documents/{other}/versions/1").status_code == 404
        assert (
            client.get(f"/uploads/{other.removeprefix('upload:')}", params={"version": 1}).status_code == 404
        )
    changes = carol.get("/changes", params={"start": "2000-01-01", "end": "2999-12-31"}).json()
    assert {ch["document"]["id"] for ch in changes} == {hers["document_id"]}

    # Delete takes every version of bob's document out; carol's stays
    assert bob.delete(f"/uploads/{first['id']}").status_code == 204
    assert bob.get(f"/documents/{doc}").status_code == 404 and bob.get("/uploads").json() == []
    assert not [p for p in (tmp_path_of(c) / "uploads").glob("*.json") if BOB in p.read_text()]
    assert carol.get(f"/documents/{hers['document_id']}").status_code == 200


def tmp_path_of(c: Container) -> Path:
    return Path(c.settings().data_dir)
