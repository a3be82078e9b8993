"""Concurrent writes lose nothing: two ``devkb serve`` processes on one embedded store (SQLite
WAL, each server's writes through its write process) and the ``devkb memory add`` command, all
writing at once over HTTP on 127.0.0.1 and from a shell — 20 memories written, 20 stored, each
readable from both servers and the command. And a race on one fact: both servers superseding
the same subject at once leaves recall with exactly one current version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from devkb_devtools.bench.server_process import DevkbServer
from tests.integration.memory.conftest import workspace

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def cli_env(root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DEVKB_DATA_DIR": str(root / "data"),
        "DEVKB_SOURCES_FILE": str(root / "sources.yaml"),
        "DEVKB_LLM_PROVIDER": "none",
        "DEVKB_SCHEDULER_ENABLED": "false",
        "DEVKB_RELATED_SEARCH_MAX_DOCUMENTS": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def test_two_servers_and_the_cli_write_20_memories_and_20_are_stored(tmp_path: Path) -> None:
    data, sources = workspace(tmp_path)
    env = {"DEVKB_SOURCES_FILE": str(sources), "DEVKB_RELATED_SEARCH_MAX_DOCUMENTS": "0"}
    with (
        DevkbServer(data, env=env, log_path=tmp_path / "one.log", timeout=600) as one,
        DevkbServer(data, env=env, log_path=tmp_path / "two.log", timeout=600) as two,
    ):
        jobs: list[tuple[str, str]] = [
            (one.base_url, f"Fact {i} from the first server is kept") for i in range(8)
        ]
        jobs += [(two.base_url, f"Fact {i} from the second server is kept") for i in range(8)]
        jobs += [("cli", f"Fact {i} from the command line is kept") for i in range(4)]

        def write(job: tuple[str, str]) -> str:
            where, text = job
            if where == "cli":
                done = subprocess.run(
                    [sys.executable, "-m", "devkb", "memory", "add", text, "--team", "--json"],
                    env=cli_env(tmp_path),
                    capture_output=True,
                    text=True,
                    timeout=600,
                )
                assert done.returncode == 0, done.stderr
                return str(json.loads(done.stdout)[0]["id"])
            r = httpx.post(f"{where}/memories", json={"text": text, "scope": "team"}, timeout=300)
            assert r.status_code == 201, r.text
            return str(r.json()["id"])

        with ThreadPoolExecutor(max_workers=20) as pool:
            written = list(pool.map(write, jobs))
        assert len(set(written)) == 20
        for server in (one, two):
            stored = {
                m["id"] for m in httpx.get(f"{server.base_url}/memories", params={"limit": 1000}).json()
            }
            assert stored == set(written), server.base_url
        listed = subprocess.run(
            [sys.executable, "-m", "devkb", "memory", "list", "--json", "--limit", "1000"],
            env=cli_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert listed.returncode == 0, listed.stderr
        assert {m["id"] for m in json.loads(listed.stdout)} == set(written)
        print(f"\nparallel writes: {len(jobs)} written, {len(set(written))} stored")

        # a race on one fact: both servers supersede the same subject and attribute at once
        base = httpx.post(
            f"{one.base_url}/memories", json={"text": "The demo day starts on 1 June", "scope": "team"}
        )
        assert base.status_code == 201
        with ThreadPoolExecutor(max_workers=2) as pool:
            racers = list(
                pool.map(
                    lambda a: httpx.post(
                        f"{a[0]}/memories",
                        json={"text": f"The demo day starts on {a[1]} June", "scope": "team"},
                        timeout=300,
                    ).json()["id"],
                    [(one.base_url, 8), (two.base_url, 9)],
                )
            )
        for server in (one, two):
            now = httpx.get(
                f"{server.base_url}/memories/search", params={"q": "When does the demo day start?"}
            ).json()
            demo = [m["memory"]["id"] for m in now if "demo day" in m["memory"]["text"]]
            assert len(demo) == 1 and demo[0] in racers, now
