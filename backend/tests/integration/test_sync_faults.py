"""Faults beyond the HTTP ones of ``test_jira_sync.py``: a store write that fails in the middle
of a batch's transaction, source data that changes while a load is paginating, and a failed run
as ``GET /sources`` shows it. Every case ends by comparing the graph with the exact expected one
(document, chunk and edge counts, content hashes, chunk texts)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.container import prepare_store, shutdown
from devkb.errors import StoreError
from devkb.sources.base import LoadBatch
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.demo.workspace import DEMO_DATA
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.emulators.timestamps import format_jira
from tests.demo_workspace import graph_snapshot, make_container, write_sources_file
from tests.integration.test_jira_sync import PROJECT, assert_graph, expected_graph, loader_for
from tests.support import build_indexer

pytestmark = pytest.mark.integration


# -- doubles ---------------------------------------------------------------------------------------


class ExplodingChunks(Sequence):
    """Chunks that raise when the store iterates them, i.e. inside its write transaction, after
    it has already upserted the document row and deleted the document's old chunks."""

    def __init__(self, chunks: Sequence[Any]) -> None:
        self.chunks = list(chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def __getitem__(self, i):  # type: ignore[override]
        return self.chunks[i]

    def __iter__(self) -> Iterator[Any]:
        raise StoreError("injected fault: the disk filled up in the middle of a batch")


class FailingStore:
    """A real store whose ``fail_on``-th ``write_documents`` call fails mid-transaction (at the
    middle document of the batch); every other call and method goes to the real store."""

    def __init__(self, inner: SQLiteGraphStore, fail_on: int) -> None:
        self.inner = inner
        self.fail_on = fail_on
        self.writes = 0
        self.failed_batch: list[str] = []

    def write_documents(self, items, references=None, versions=None):
        self.writes += 1
        if self.writes == self.fail_on:
            items = list(items)
            middle = len(items) // 2
            self.failed_batch = [d.id for d, _ in items]
            items[middle] = (items[middle][0], ExplodingChunks(items[middle][1]))
        return self.inner.write_documents(items, references, versions)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# -- Jira on the Fluid slice ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kettle_dataset(fluid_dir) -> Dataset:
    full = Dataset.load(fluid_dir)
    issues = [i for i in full.issues() if i["fields"]["project"]["key"] == PROJECT]
    return Dataset(projects=[p for p in full.projects() if p["key"] == PROJECT], issues=issues)


@pytest.fixture
def kettle(kettle_dataset):
    with EmulatorSuite(kettle_dataset.clone()) as suite:
        yield suite


@pytest.mark.corpus
def test_store_write_failing_mid_batch_rolls_back_and_a_rerun_converges(
    kettle, embedder, tmp_path, fluid_dir
):
    loader = loader_for(kettle, page_size=20)
    idx = build_indexer(tmp_path, embedder, [loader])
    failing = FailingStore(idx.store, fail_on=3)
    set_writer_store(idx.pipeline, failing)
    with pytest.raises(Exception, match="injected fault"):
        idx.runs.run("jira")
    # the two batches before the fault are stored whole, nothing of the third, and the cursor
    # is the second batch's checkpoint
    assert idx.store.stats().documents == 40
    assert not set(failing.failed_batch) & idx.store.document_ids()
    state = idx.store.get_sync_state("jira")
    assert state.last_error and "injected fault" in state.last_error and state.cursor

    set_writer_store(idx.pipeline, idx.store)
    status = idx.runs.run("jira")
    assert status.state == "succeeded"
    assert_graph(idx.store, expected_graph(kettle.dataset, fluid_dir))
    assert idx.store.get_sync_state("jira").last_error is None


def set_writer_store(pipeline, store) -> None:
    """Make the pipeline's writer (the one component that writes documents) use ``store``."""
    pipeline.pipeline.get_component("write").store = store


class MutatingLoader:
    """Wraps a loader; right after the load's first batch (its first page) was served, applies
    ``mutate`` to the emulator's dataset — the source changes under the paginating loader."""

    def __init__(self, inner, mutate) -> None:
        self.inner = inner
        self.mutate = mutate
        self.name, self.type = inner.name, inner.type

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        for n, batch in enumerate(self.inner.load(since)):
            yield batch
            if n == 0:
                self.mutate()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _first_page_key(suite, offset: int = 3) -> str:
    issues = sorted(suite.dataset.issues(), key=lambda i: (i["fields"]["updated"], i["key"]))
    return issues[offset]["key"]


PAGE_CHANGES = {
    # an issue already served moves to the end of "ORDER BY updated": every later one shifts left
    "update-served-issue": lambda s: s.dataset.update_issue(
        _first_page_key(s), {"summary": "Edited mid-sync"}
    ),
    # an issue already served disappears: every later one shifts left
    "delete-served-issue": lambda s: s.dataset.delete_issue(_first_page_key(s)),
    # a new issue appears at the end
    "create-issue": lambda s: s.dataset.add_issue(PROJECT, summary="Created mid-sync", description="new"),
}


@pytest.mark.corpus
@pytest.mark.parametrize("change", list(PAGE_CHANGES))
@pytest.mark.parametrize("incremental", [False, True], ids=["full", "incremental"])
def test_results_changing_while_paginating_end_in_the_exact_graph(
    change, incremental, kettle, embedder, tmp_path, fluid_dir
):
    loader = loader_for(kettle, page_size=20)
    idx = build_indexer(tmp_path, embedder, [MutatingLoader(loader, lambda: None)])
    if incremental:
        idx.runs.run("jira")
        # change every issue (metadata only: a new content hash, no chunk to re-embed) so that the
        # next incremental load pages through all of them again and must not miss any
        for issue in sorted(kettle.dataset.issues(), key=lambda i: i["key"]):
            kettle.dataset.update_issue(issue["key"], {"created": format_jira()})
    idx.runs.loaders["jira"].mutate = lambda: PAGE_CHANGES[change](kettle)
    status = idx.runs.run("jira")
    assert status.state == "succeeded"
    assert_graph(idx.store, expected_graph(kettle.dataset, fluid_dir))


def test_confluence_page_edited_while_paginating_ends_in_the_exact_graph(embedder, tmp_path):
    """The same race on Confluence (``order by lastmodified``, offset pages of 5): a page served in
    the first batch is edited before the second is requested. The result must equal a clean run
    over the final state."""
    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        sources = write_sources_file(tmp_path / "sources.yaml", suite, page_sizes={"wiki": 5})
        raced, clean = (make_container(tmp_path / n, sources, embedder) for n in ("raced", "clean"))
        try:
            prepare_store(raced)
            runs = raced.runs()
            first_batch = sorted(suite.dataset.pages(), key=lambda p: (p["version"]["when"], str(p["id"])))[1]
            runs.loaders["wiki"] = MutatingLoader(
                runs.loaders["wiki"],
                lambda: suite.dataset.update_page(
                    str(first_batch["id"]), body="<p>Edited while the loader was between pages.</p>"
                ),
            )
            assert runs.run("wiki").state == "succeeded"
            prepare_store(clean)
            assert clean.runs().run("wiki").state == "succeeded"
            assert graph_snapshot(raced.store()) == graph_snapshot(clean.store())
        finally:
            shutdown(raced)
            shutdown(clean)


# -- Confluence and GitHub (and Jira) on the demo workspace ------------------------------------------


@pytest.mark.parametrize("source", ["wiki", "code", "jira"])
def test_store_write_failing_mid_batch_on_each_source_converges(source, demo_workspace, embedder, tmp_path):
    """One source indexed alone, twice: cleanly, and with its second store write failing
    mid-transaction followed by a rerun. Both graphs must be identical."""
    sources = write_sources_file(
        tmp_path / "sources.yaml", demo_workspace.suite, page_sizes={"wiki": 5, "jira": 10}
    )
    clean = make_container(tmp_path / "clean", sources, embedder)
    faulty = make_container(tmp_path / "faulty", sources, embedder)
    try:
        prepare_store(clean)
        assert clean.runs().run(source).state == "succeeded"
        prepare_store(faulty)
        real = faulty.store()
        failing = FailingStore(real, fail_on=2)
        set_writer_store(faulty.pipeline(), failing)
        with pytest.raises(Exception, match="injected fault"):
            faulty.runs().run(source)
        assert failing.failed_batch and not set(failing.failed_batch) & real.document_ids()
        set_writer_store(faulty.pipeline(), real)
        assert faulty.runs().run(source).state == "succeeded"
        assert graph_snapshot(real) == graph_snapshot(clean.store())
        assert graph_snapshot(real)["documents"] > 0
    finally:
        shutdown(clean)
        shutdown(faulty)


# -- the failed run as the API shows it ----------------------------------------------------------------


def test_a_failed_run_is_visible_in_sources_until_a_run_succeeds(demo_workspace, embedder, tmp_path: Path):
    data = demo_workspace.copy_data(tmp_path / "data")
    container = make_container(data, demo_workspace.sources_file, embedder)
    before = None
    with TestClient(create_app(container, start_background=False), client=("127.0.0.1", 40000)) as client:
        before = graph_snapshot(container.store())
        faults = demo_workspace.suite.faults
        faults.server_error(404, times=5, service="jira", message="Project PAY was archived")
        try:
            run = client.post("/sources/jira/sync").json()
            failed = wait(client, run["status_url"])
        finally:
            faults.clear_faults()
        assert failed["state"] == "failed"
        jira = source_entry(client, "jira")
        assert jira["status"] == "failed"
        assert "archived" in jira["last_error"]
        assert jira["last_run"]["state"] == "failed" and jira["last_run"]["errors"] == [jira["last_error"]]
        assert jira["last_success"]  # the earlier success is still reported
        assert graph_snapshot(container.store()) == before  # nothing lost

        again = wait(client, client.post("/sources/jira/sync").json()["status_url"])
        assert again["state"] == "succeeded"
        jira = source_entry(client, "jira")
        assert jira["status"] == "idle" and jira["last_error"] is None
        assert graph_snapshot(container.store()) == before


def source_entry(client: TestClient, name: str) -> dict:
    return next(s for s in client.get("/sources").json() if s["name"] == name)


def wait(client: TestClient, url: str, timeout: float = 60) -> dict:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = client.get(url).json()
        if run["state"] in ("succeeded", "failed"):
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {url} did not finish in {timeout}s")
