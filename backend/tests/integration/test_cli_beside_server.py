"""A ``devkb upload`` and a ``devkb memory add`` in another process, beside a running ``devkb
serve`` on the same data directory, are found by the server's next question — not after its views'
refresh periods (30 s for the retrieval snapshot, 5 s for the access catalog, by default). Real processes: the
server on 127.0.0.1 and the CLI as a person runs it (``python -m devkb``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support import RunningServer

pytestmark = pytest.mark.integration


def _cli(server: RunningServer, *args: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "devkb", *args], env=server.env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def _ask(server: RunningServer, question: str) -> dict:
    r = httpx.post(server.base_url + "/ask", json={"question": question}, timeout=120)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_cli_upload_and_memory_beside_a_server_are_found_by_its_next_question(tmp_path: Path) -> None:
    # periods far longer than the test: only the write counter can bring the CLI's writes in
    with RunningServer(tmp_path / "data", index=False, env={"DEVKB_VIEWS_REFRESH_SECONDS": "3600"}) as server:
        # the server's own upload: its snapshot and catalog hold one document
        seed = httpx.post(
            server.base_url + "/uploads",
            files={
                "file": (
                    "release-notes.md",
                    b"# Release notes\n\nThe 2026.6 release adds idempotency keys.\n",
                )
            },
            timeout=120,
        )
        assert seed.status_code == 201, seed.text
        question = "Who rotates the quokka sandbox signing key?"
        before = _ask(server, question)  # the upload below is not there yet
        assert not any("quokka" in s["title"].lower() for s in before["sources"])

        note = tmp_path / "quokka-runbook.md"
        note.write_text(
            "# Quokka sandbox runbook\n\n"
            "The quokka sandbox signing key is rotated every Monday by Ingrid Halvorsen, "
            "the platform on-call engineer.\n",
            encoding="utf-8",
        )
        out = _cli(server, "upload", str(note))
        assert "quokka-runbook.md" in out

        after = _ask(server, question)  # at once: no sleep for a refresh period
        titles = [s["title"] for s in after["sources"]]
        assert any("quokka" in t.lower() for t in titles), (titles, after["answer"])
        assert "Ingrid Halvorsen" in after["answer"]

        _cli(server, "memory", "add", "The wombat release train leaves every second Thursday.", "--team")
        r = httpx.get(server.base_url + "/memories/search", params={"q": "wombat release train"}, timeout=60)
        assert r.status_code == 200, r.text
        assert any("wombat" in m["memory"]["text"] for m in r.json()), r.text
        answer = _ask(server, "When does the wombat release train leave?")
        assert "second Thursday" in answer["answer"], answer
