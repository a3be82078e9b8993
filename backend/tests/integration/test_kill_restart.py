"""``devkb index`` killed with SIGKILL in the middle of indexing, then started again, ends in the
same graph as a clean run: nothing lost, nothing duplicated, and the restart resumes from the
last checkpoint instead of starting over.

Real processes only: the emulators serve a Fluid slice (45 issues of the KETTLE project) from
``python -m devkb_devtools.emulators``; ``devkb index`` runs as the CLI does, with the real embedder."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from devkb_devtools.emulators import Dataset
from tests.demo_workspace import graph_snapshot
from tests.integration.test_jira_sync import BROWSE, PROJECT, assert_graph, expected_graph, loader_for
from tests.support import build_indexer

pytestmark = [pytest.mark.integration, pytest.mark.corpus]


SLICE = 45  # issues: enough for 9 pages of 5, small enough to embed twice in seconds


def write_slice(fluid_dir: Path, out: Path) -> Dataset:
    """The first ``SLICE`` issues of the KETTLE project as a dataset directory of its own."""
    full = Dataset.load(fluid_dir)
    (out / "jira").mkdir(parents=True)
    (out / "jira" / "projects.json").write_text(
        json.dumps([p for p in full.projects() if p["key"] == PROJECT])
    )
    issues = sorted(
        (i for i in full.issues() if i["fields"]["project"]["key"] == PROJECT),
        key=lambda i: int(i["key"].split("-")[1]),
    )[:SLICE]
    (out / "jira" / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in issues))
    return Dataset.load(out)


class Emulators:
    """``python -m devkb_devtools.emulators`` on free loopback ports, stopped on exit."""

    def __init__(self, dataset_dir: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devkb_devtools.emulators", "--dataset", str(dataset_dir), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.urls: dict[str, str] = {}
        while len(self.urls) < 3:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the emulators exited before printing their URLs")
            service, url = line.split()
            self.urls[service] = url

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


@pytest.fixture
def emulators(fluid_dir, tmp_path):
    dataset = write_slice(fluid_dir, tmp_path / "dataset")
    emu = Emulators(tmp_path / "dataset")
    emu.dataset = dataset
    yield emu
    emu.stop()


def devkb_index(data_dir: Path, sources: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DEVKB_DATA_DIR": str(data_dir),
        "DEVKB_SOURCES_FILE": str(sources),
        "DEVKB_LLM_PROVIDER": "none",
        "DEVKB_EMBEDDER": "local",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "devkb", "index"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stored(db: Path) -> tuple[int, str | None]:
    """(documents, the jira cursor) as another process sees them right now."""
    if not db.exists():
        return 0, None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
            row = conn.execute("SELECT state FROM sync_state WHERE source = 'jira'").fetchone()
    except sqlite3.OperationalError:  # the schema is not created yet
        return 0, None
    return docs, json.loads(row[0]).get("cursor") if row else None


def test_sigkill_during_indexing_then_restart_equals_a_clean_run(emulators, tmp_path, embedder, fluid_dir):
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        yaml.safe_dump(
            {
                "sources": [
                    {
                        "name": "jira",
                        "type": "jira",
                        "url": emulators.urls["jira"],
                        "browse_url": BROWSE,
                        "projects": [PROJECT],
                        "page_size": 5,
                        "schedule": "manual",
                    }
                ]
            }
        )
    )
    data = tmp_path / "killed"
    db = data / "graph.sqlite"

    first = devkb_index(data, sources)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and first.poll() is None:
        docs, cursor = stored(db)
        if docs >= 10 and cursor:
            break
        time.sleep(0.05)
    assert first.poll() is None, f"devkb index ended before it could be killed:\n{first.stdout.read()}"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    first.stdout.close()
    killed_at, cursor = stored(db)
    assert 10 <= killed_at < SLICE and cursor, (killed_at, cursor)

    second = devkb_index(data, sources)
    out, _ = second.communicate(timeout=300)
    assert second.returncode == 0, out
    # the restart resumed from the checkpoint: its load asked only for issues updated since then
    log = emulators_requests(emulators.urls["jira"])
    loads = [r["query"] for r in log if r["path"].endswith("/search") and "updated" in r["query"]]
    assert loads, "the restarted run did not resume from its cursor"

    from devkb.store.sqlite import SQLiteGraphStore

    resumed = SQLiteGraphStore(db)
    try:
        assert_graph(resumed, expected_graph(emulators.dataset, fluid_dir))
        clean = build_indexer(tmp_path / "clean", embedder, [loader_for_url(emulators.urls["jira"])])
        assert clean.runs.run("jira").state == "succeeded"
        assert graph_snapshot(resumed) == graph_snapshot(clean.store)
        assert resumed.get_sync_state("jira").last_error is None
    finally:
        resumed.close()


def emulators_requests(jira_url: str) -> list[dict]:
    import httpx

    return httpx.get(f"{jira_url}/_emulator/requests", params={"service": "jira"}, timeout=10).json()[
        "requests"
    ]


def loader_for_url(url: str):
    class _Suite:
        jira_url = url

    return loader_for(_Suite(), page_size=5)
