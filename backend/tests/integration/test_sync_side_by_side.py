"""Several sources synced by ``RunManager.run_many``: one after the other (the default) and side by
side (``DEVKB_SYNC_SIDE_BY_SIDE``) give the same graph, each run counts the chunks it embedded
itself, and Jira's text is matched only after the pages and the repository are in the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from devkb.container import prepare_store, shutdown
from devkb.indexing.run_status import RunStatus
from devkb_devtools.demo.workspace import DEMO_DATA
from devkb_devtools.emulators import Dataset, EmulatorSuite
from tests.demo_workspace import graph_snapshot, make_container, write_sources_file

pytestmark = pytest.mark.integration


def _index(data_dir: Path, sources_file: Path, embedder, side_by_side: bool) -> dict:
    container = make_container(data_dir, sources_file, embedder, sync_side_by_side=side_by_side)
    try:
        prepare_store(container)
        runs = container.runs()
        names = runs.ordered_names()
        events: list[tuple[str, str]] = []

        def progress(status: RunStatus) -> None:
            events.append((status.source, status.phase))

        chunk_embedder = runs.sync.pipeline.chunk_embedder
        before = chunk_embedder.embedded
        outcome = runs.run_many(names, on_progress=progress)
        assert list(outcome) == names
        statuses = {}
        for name, status in outcome.items():
            assert isinstance(status, RunStatus), (name, status)
            assert status.state == "succeeded", (name, status.errors)
            statuses[name] = status
        # each run counts its own chunks, also when another source's run embeds at the same time
        assert sum(s.chunks_embedded for s in statuses.values()) == chunk_embedder.embedded - before
        return {
            "waves": runs.waves(names),
            "events": events,
            "embedded": {n: s.chunks_embedded for n, s in statuses.items()},
            "graph": graph_snapshot(container.store()),
        }
    finally:
        shutdown(container)


def test_side_by_side_gives_the_graph_one_after_the_other_gives(tmp_path, embedder):
    suite = EmulatorSuite(Dataset.load(DEMO_DATA)).start()
    try:
        sources_file = write_sources_file(tmp_path / "sources.yaml", suite)
        apart = _index(tmp_path / "apart", sources_file, embedder, side_by_side=False)
        together = _index(tmp_path / "together", sources_file, embedder, side_by_side=True)
    finally:
        suite.stop()

    assert apart["waves"] == [[["wiki"]], [["code"]], [["jira"]], [["uploads"]]]
    assert together["waves"] == [[["wiki"], ["code"]], [["jira"], ["uploads"]]]
    for run in (apart, together):
        order = [source for source, _ in run["events"]]
        assert max(i for i, s in enumerate(order) if s in ("wiki", "code")) < order.index("jira")
    assert together["graph"] == apart["graph"]
    assert together["embedded"] == apart["embedded"]
    assert apart["graph"]["references"] > 0
    assert all(apart["embedded"][n] > 0 for n in ("wiki", "code", "jira"))
