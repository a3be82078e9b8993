"""The memory leak matrix: private, team and derived memories × every surface that can show one —
the API (``/memories``, its search, history, ``/documents``, neighbours, ``/graph`` and its
search, ``/ask``, ``/stats``), MCP (``recall``, ``search``, ``find``, ``get_document`` over
``/mcp`` with each person's token) and the CLI (``devkb memory list|search --as``, a process of
its own on the same data). The oracle is who wrote what with which scope, not devkb: a private
memory is its owner's alone (an admin included), a team memory everyone's, a memory derived from
bob's upload (private to him) is readable by bob and the admin only. A response leaks when it
holds a hidden memory's id or its secret word."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.memory.conftest import PEOPLE, sign_in

pytestmark = pytest.mark.integration

ALICE, BOB, CAROL = "alice@acme.example", "bob@acme.example", "carol@acme.example"
# (author, text with its secret word, scope, derived from bob's upload?)
MEMORIES = {
    "bob-private": (BOB, "The zebralocker code for the build cabinet is 4411", "private", False),
    "carol-private": (CAROL, "The quetzalgarage door opens with code 9902", "private", False),
    "alice-private": (ALICE, "The flamingoreview of my team is due on Friday", "private", False),
    "alice-team": (ALICE, "The tangerinehallway venue hosts the team offsite", "team", False),
    "bob-team-proposed": (BOB, "The kiwisprintathon hackathon starts on 3 May", "team", False),
    "bob-derived": (BOB, "The walrusbudget for the ledger migration is 12k euros", "team", True),
}
# questions that name no secret word: the answer must not quote a hidden memory
PARAPHRASES = {
    "bob-private": "What opens the build cabinet?",
    "carol-private": "How does the garage door open?",
    "alice-private": "When is the review of my team due?",
    "alice-team": "Where is the team offsite?",
    "bob-team-proposed": "When does the hackathon start?",
    "bob-derived": "What is the budget for the ledger migration?",
}
VISIBLE = {
    ALICE: {"alice-private", "alice-team", "bob-team-proposed", "bob-derived"},
    BOB: {"bob-private", "alice-team", "bob-team-proposed", "bob-derived"},
    CAROL: {"carol-private", "alice-team", "bob-team-proposed"},
}


def secret(name: str) -> str:
    return next(w for w in MEMORIES[name][1].split() if w.islower() and len(w) > 10)


def mcp(client: Any, token: str, name: str, arguments: dict[str, Any]) -> Any:
    return client.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        },
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Host": "127.0.0.1:8000",
        },
    )


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DEVKB_DATA_DIR": str(root / "data"),
        "DEVKB_SOURCES_FILE": str(root / "sources.yaml"),
        "DEVKB_EMBEDDER": "local",  # the embedder the in-process app writes with
        "DEVKB_LLM_PROVIDER": "none",
        "DEVKB_SCHEDULER_ENABLED": "false",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "devkb", "memory", *args], env=env, capture_output=True, text=True, timeout=300
    )


class Leaks:
    def __init__(self, email: str, ids: dict[str, str]) -> None:
        hidden = set(MEMORIES) - VISIBLE[email]
        self.email = email
        self.needles = {ids[n]: n for n in hidden} | {secret(n): n for n in hidden}
        self.found: list[str] = []
        self.checked = 0

    def scan(self, what: str, text: str, asked: str = "", echo: str = "") -> None:
        """``asked``: the id the request named (a 404's message repeats it); ``echo``: the
        question or query sent, which the response repeats."""
        self.checked += 1
        low, sent = text.lower(), echo.lower()
        for needle, name in self.needles.items():
            if needle != asked and needle.lower() not in sent and needle.lower() in low:
                self.found.append(f"{self.email}: {what} shows {name} ({needle})")


@pytest.fixture(scope="module")
def leak_world(memory_world: Any) -> tuple[Any, Any, Path, dict[str, str]]:
    c, client, root = memory_world
    ids: dict[str, str] = {}
    sign_in(client, BOB)
    r = client.post(
        "/uploads", files={"file": ("ledger-notes.md", b"# Ledger notes\n\nThe migration plan.\n")}
    )
    assert r.status_code == 201, r.text
    upload = r.json()["document_id"]
    for name, (author, text, scope, derived) in MEMORIES.items():
        sign_in(client, author)
        body: dict[str, Any] = {"text": text, "scope": scope}
        if derived:
            body["derived_from"] = [upload]
        r = client.post("/memories", json=body)
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]
    return c, client, root, ids


@pytest.mark.parametrize("email", sorted(PEOPLE))
def test_memory_leak_matrix(leak_world: Any, email: str) -> None:
    _, client, root, ids = leak_world
    sc = Leaks(email, ids)
    visible = {ids[n] for n in VISIBLE[email]}
    sign_in(client, email)

    # the API: every memory readable exactly when the oracle says so, and 404 alike otherwise
    for mid in ids.values():
        for path in (f"/memories/{mid}", f"/memories/{mid}/history", f"/documents/{mid}"):
            r = client.get(path)
            assert r.status_code == (200 if mid in visible else 404), (email, path, r.text)
            sc.scan(f"GET {path}", r.text, asked=mid)
    listed = client.get("/memories", params={"limit": 1000})
    sc.scan("GET /memories", listed.text)
    assert {m["id"] for m in listed.json()} & set(ids.values()) == visible
    for name in MEMORIES:
        for path, params in (
            ("/memories/search", {"q": MEMORIES[name][1]}),
            ("/graph/search", {"q": secret(name)}),
            ("/documents", {"source": "memory", "limit": 500}),
        ):
            sc.scan(
                f"GET {path} {params}", client.get(path, params=params).text, echo=str(params.get("q", ""))
            )
        question = MEMORIES[name][1] + "?"
        sc.scan(f"ask {name}", client.post("/ask", json={"question": question}).text, echo=MEMORIES[name][1])
        sc.scan(f"ask {PARAPHRASES[name]}", client.post("/ask", json={"question": PARAPHRASES[name]}).text)
        sc.scan(
            f"recall {PARAPHRASES[name]}",
            client.get("/memories/search", params={"q": PARAPHRASES[name]}).text,
        )
    sc.scan("GET /graph", client.get("/graph", params={"limit": 2000}).text)
    for mid in ids.values():
        sc.scan(f"graph around {mid}", client.get("/graph", params={"around": mid}).text, asked=mid)
    sc.scan("GET /stats", client.get("/stats").text if email != ALICE else "")  # an admin sees counts

    # MCP with the person's own token
    token = client.post("/auth/tokens", json={"name": "memory-leaks"}).json()["token"]
    for name in MEMORIES:
        for tool, args in (
            ("recall", {"query": MEMORIES[name][1]}),
            ("search", {"query": MEMORIES[name][1], "sources": ["memory"]}),
            ("get_document", {"document_id": ids[name]}),
            ("find", {"title": secret(name)}),
        ):
            r = mcp(client, token, tool, args)
            assert r.status_code == 200, r.text
            echo = str(args.get("query") or args.get("title") or "")
            sc.scan(
                f"mcp {tool} {name}", r.text, asked=ids[name] if tool == "get_document" else "", echo=echo
            )
    recalled = mcp(client, token, "recall", {"query": MEMORIES["alice-team"][1]}).text
    assert ids["alice-team"] in recalled  # a team memory reaches everyone (no matrix of empty answers)

    # the CLI, a process of its own, as the person
    listed_cli = cli(root, "list", "--as", email, "--json")
    assert listed_cli.returncode == 0, listed_cli.stderr
    assert {m["id"] for m in json.loads(listed_cli.stdout)} & set(ids.values()) == visible
    sc.scan("cli list", listed_cli.stdout)
    found = cli(
        root, "search", "secret codes budgets venues reviews", "--as", email, "--json", "--limit", "50"
    )
    assert found.returncode == 0, found.stderr
    sc.scan("cli search", found.stdout)

    print(f"\n{email}: {sc.checked} responses checked, {len(sc.found)} leaks")
    assert sc.found == [], "\n".join(sc.found)


def test_cli_bad_input_exits_2(leak_world: Any) -> None:
    _, _, root, ids = leak_world
    assert cli(root, "add", "   ").returncode == 2
    assert cli(root, "list", "--status", "maybe").returncode == 2
    assert cli(root, "search", "x", "--as-of", "yesterday").returncode == 2
    assert cli(root, "forget", "memory:00000000-0000-4000-8000-000000000000").returncode == 2
    refused = cli(root, "forget", ids["carol-private"], "--as", BOB)
    assert refused.returncode == 2 and "no memory" in refused.stderr  # another's private memory: not there
