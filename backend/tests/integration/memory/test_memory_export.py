"""A person's export of their memories (``GET /memories/export``, ``devkb memory export``) on the
real app: their own memories only — private and team ones they wrote, every version with validity
and sources — never another person's, through the API and the CLI (a process of its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.memory.conftest import sign_in

pytestmark = pytest.mark.integration


def create(client: Any, text: str, **body: Any) -> dict[str, Any]:
    r = client.post("/memories", json={"text": text, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DEVKB_DATA_DIR": str(root / "data"),
        "DEVKB_SOURCES_FILE": str(root / "sources.yaml"),
        "DEVKB_EMBEDDER": "local",
        "DEVKB_LLM_PROVIDER": "none",
        "DEVKB_SCHEDULER_ENABLED": "false",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "devkb", "memory", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_export_holds_every_version_of_ones_own_memories_and_nothing_else(memory_world: Any) -> None:
    _, client, root = memory_world
    sign_in(client, "carol@acme.example")
    handbook = client.get("/documents", params={"source": "files"}).json()[0]["id"]
    carols = create(client, "Carol's locker code is 4711")
    sign_in(client, "bob@acme.example")
    old = create(client, "My build cache lives in /tmp/bob-cache", valid_from="2026-01-01")
    new = client.patch(
        f"/memories/{old['id']}", json={"text": "My build cache lives in /var/cache/bob"}
    ).json()
    team = create(client, "The release train leaves every Tuesday", scope="team", about=[handbook])

    r = client.get("/memories/export")
    assert r.status_code == 200, r.text
    assert "attachment" in r.headers["content-disposition"]
    data = r.json()
    assert data["format"] == "devkb-memories/1" and data["owner"] == "bob@acme.example"
    by_id = {m["id"]: m for m in data["memories"]}
    assert {old["id"], new["id"], team["id"]} <= set(by_id)
    assert carols["id"] not in by_id and "4711" not in r.text
    assert {m["owner"] for m in data["memories"]} == {"bob@acme.example"}
    assert data["count"] == len(data["memories"])
    # every version, with its validity and what it is about
    assert by_id[old["id"]]["status"] == "superseded" and by_id[old["id"]]["superseded_by"] == new["id"]
    assert by_id[old["id"]]["valid_until"] == by_id[new["id"]]["valid_from"] != ""
    assert by_id[new["id"]]["supersedes"] == old["id"]
    assert (by_id[team["id"]]["status"], by_id[team["id"]]["about"]) == ("proposed", [handbook])
    order = [m["recorded_at"] for m in data["memories"]]
    assert order == sorted(order)

    # alice (an admin) exports hers: nothing of bob's private memories
    sign_in(client, "alice@acme.example")
    alices = client.get("/memories/export").json()
    assert old["id"] not in {m["id"] for m in alices["memories"]}
    assert "bob-cache" not in json.dumps(alices)

    # the CLI, as bob, to a file
    out = root / "bob-export.json"
    done = cli(root, "export", "--as", "bob@acme.example", "--output", str(out))
    assert done.returncode == 0, done.stderr
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert {m["id"] for m in exported["memories"]} == set(by_id)
    assert carols["id"] not in {m["id"] for m in exported["memories"]}
    # bad input: exit 2
    bad = cli(root, "export", "--as", "bob@acme.example", "--output", str(root))
    assert bad.returncode == 2, (bad.returncode, bad.stderr)


def test_export_needs_a_signed_in_person(memory_world: Any) -> None:
    _, client, _ = memory_world
    client.cookies.clear()
    assert client.get("/memories/export").status_code == 401
