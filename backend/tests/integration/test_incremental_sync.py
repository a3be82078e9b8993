"""Incremental sync of all three sources, end to end: the demo workspace served by the emulators,
the real loaders (atlassian-python-api, PyGithub), the production pipeline with the real MiniLM
embedder, the reference backfill, the run manager and the scheduler.

Each change made in the emulators between two runs — an edited issue, a deleted page, a commit
that changes and deletes files, a new pull request — must show after the next scheduled run
with exact document, chunk and edge counts, and the graph must equal a from-scratch index of
the changed data. Also: an unchanged resync embeds nothing; faults during a sync end in the
same graph as a clean sync; a run that crashes resumes from its checkpoint.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from devkb.config.sources_file import SourceConfig
from devkb.errors import SourceError
from devkb.indexing.components.splitter import KindAwareSplitter
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.pipeline import to_haystack
from devkb.indexing.splitting.by_kind import default_segmenters
from devkb.scheduling import SyncScheduler
from devkb.sources.base import SourceDocument, SourceLoader
from devkb.sources.confluence import ConfluenceLoader, ConfluenceLoaderConfig
from devkb.sources.github import GitHubLoader, GitHubLoaderConfig
from devkb.sources.github.convert import commit_to_document, file_to_document, pull_to_document
from devkb.sources.jira import JiraLoader, JiraLoaderConfig
from devkb.sources.jira.convert import issue_to_document
from devkb.sources.registry import build_loader
from devkb_devtools.demo.workspace import DEMO_DATA, JIRA_PUBLIC_URL, demo_sources
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.testkit import build_indexer

pytestmark = [pytest.mark.integration]

REPO = "acme/payments-service"
GH = f"github:{REPO}"


@dataclass(frozen=True)
class Graph:
    documents: dict[str, str]  # id → content hash
    chunks: dict[str, tuple[str, ...]]  # document id → chunk ids in order
    edges: frozenset[tuple[str, str, str]]  # visible REFERENCES (from, to, kind)

    @property
    def chunk_count(self) -> int:
        return sum(len(c) for c in self.chunks.values())

    def by_kind(self) -> Counter:
        return Counter(kind for _, _, kind in self.edges)

    def touching(self, doc_id: str) -> Counter:
        return Counter(k for a, b, k in self.edges if doc_id in (a, b))


class Workspace:
    """The demo sources wired like the container does, on their own store."""

    def __init__(
        self,
        suite: EmulatorSuite,
        data_dir: Path,
        embedder: TextEmbedder,
        loaders: list[SourceLoader] | None = None,
        schedule: str = "30m",
    ) -> None:
        self.configs = [c.model_copy(update={"schedule": schedule}) for c in demo_sources(suite)]
        self.loaders = loaders or [build_loader(c) for c in self.configs]
        indexer = build_indexer(data_dir, embedder, self.loaders)  # wired by the container
        self.store = indexer.store
        self.pipeline = indexer.pipeline
        self.runs = indexer.runs
        self.scheduler = SyncScheduler(lambda: self.runs, lambda: self.configs)

    def scheduled_run(self) -> dict[str, str]:
        """What the next due time runs: the scheduler's job for every source."""
        outcome = self.scheduler.run_now()
        assert set(outcome.values()) == {"succeeded"}, outcome
        return outcome

    def graph(self) -> Graph:
        ids = sorted(self.store.document_ids())
        docs = {d.id: d.content_hash for d in self.store.get_documents(ids)}
        chunks = {i: tuple(c.id for c in self.store.get_document(i).chunks) for i in ids}
        edges = frozenset((r.from_id, r.to_id, r.kind) for r in self.store.references())
        return Graph(docs, chunks, edges)

    def last(self, name: str):
        return self.runs.last_run(name)

    def close(self) -> None:
        self.scheduler.stop(wait=True)
        self.store.close()


def chunk_count(doc: SourceDocument) -> int:
    """Chunks the production splitter makes of ``doc``, computed apart from the sync."""
    splitter = KindAwareSplitter(segmenters=default_segmenters())
    return len(splitter.run([to_haystack(doc, "expected")])["chunks"])


@pytest.fixture(scope="module")
def demo_dataset() -> Dataset:
    return Dataset.load(DEMO_DATA)


@pytest.fixture
def suite(demo_dataset):
    with EmulatorSuite(demo_dataset.clone()) as s:
        yield s


@pytest.fixture
def workspace(suite, tmp_path, embedder):
    ws = Workspace(suite, tmp_path / "incremental", embedder)
    ws.scheduled_run()
    yield ws
    ws.close()


def rebuilt(suite, tmp_path, embedder) -> Graph:
    """The graph a from-scratch index of the emulators' current data gives."""
    fresh = Workspace(suite, tmp_path / f"fresh-{time.monotonic_ns()}", embedder)
    try:
        fresh.scheduled_run()
        return fresh.graph()
    finally:
        fresh.close()


def test_edited_issue_is_reflected_after_the_next_scheduled_run(workspace, suite, tmp_path, embedder):
    before = workspace.graph()
    old = issue_to_document(suite.dataset.issue("PAY-7"), JIRA_PUBLIC_URL)
    suite.dataset.add_comment(
        "PAY-7",
        "Follow-up for the jitter bug: https://github.com/acme/payments-service/pull/5 "
        "— the retry counters are described in Payments Ledger Design.",
    )
    new = issue_to_document(suite.dataset.issue("PAY-7"), JIRA_PUBLIC_URL)

    workspace.scheduled_run()
    after = workspace.graph()

    jira = workspace.last("jira")
    assert (jira.documents_indexed, jira.documents_deleted) == (1, 0)
    assert workspace.last("wiki").documents_indexed == workspace.last("code").documents_indexed == 0
    assert len(after.documents) == len(before.documents)
    assert after.chunk_count == before.chunk_count - chunk_count(old) + chunk_count(new)
    assert (
        jira.chunks_embedded == len(set(after.chunks["jira:PAY-7"]) - set(before.chunks["jira:PAY-7"])) >= 1
    )
    expected = before.by_kind() + Counter(
        {"jira-mentions-pull-request-url": 1, "jira-mentions-confluence-title": 1}
    )
    assert after.by_kind() == expected
    assert ("jira:PAY-7", f"{GH}:pull:5", "jira-mentions-pull-request-url") in after.edges
    assert ("jira:PAY-7", "confluence:page:2000007", "jira-mentions-confluence-title") in after.edges
    assert after == rebuilt(suite, tmp_path, embedder)


def test_deleted_page_is_reflected_after_the_next_scheduled_run(workspace, suite, tmp_path, embedder):
    before = workspace.graph()
    page = "confluence:page:2000012"  # the postmortem: a leaf page that links and is linked a lot
    touching = before.touching(page)
    assert sum(touching.values()) >= 10

    suite.dataset.delete_page("2000012")
    workspace.scheduled_run()
    after = workspace.graph()

    assert (workspace.last("wiki").documents_deleted, workspace.last("wiki").documents_indexed) == (1, 0)
    assert set(before.documents) - set(after.documents) == {page}
    assert len(after.documents) == len(before.documents) - 1
    assert after.chunk_count == before.chunk_count - len(before.chunks[page])
    assert after.by_kind() == before.by_kind() - touching
    assert sum(workspace.last(n).chunks_embedded for n in ("wiki", "code", "jira")) == 0
    fresh = rebuilt(suite, tmp_path, embedder)
    assert (after.chunks, after.edges) == (fresh.chunks, fresh.edges)
    # Pages that linked to the deleted one did not change, so they are not re-read: they keep the
    # (now hidden) link in their stored references, which is part of their content hash.
    linking = {a for a, b, k in before.edges if b == page and k == "confluence-link"}
    assert {i for i in after.documents if after.documents[i] != fresh.documents[i]} == linking


def test_commit_that_changes_and_deletes_files_is_reflected(workspace, suite, tmp_path, embedder):
    before = workspace.graph()
    repo = suite.dataset.repo(REPO)
    doc_path, gone_path = "docs/webhooks.md", "tests/test_webhooks.py"
    old_text = repo.blob(repo.snapshot(repo.head_sha).files[doc_path].sha).decode()
    new_text = (
        old_text
        + "\n## Retries of outbound deliveries\n\nFailed deliveries are retried with backoff (PAY-26).\n"
    )
    old_doc = file_to_document(REPO, doc_path, old_text, "", "https://github.com", "main")
    new_doc = file_to_document(REPO, doc_path, new_text, "", "https://github.com", "main")
    record = suite.dataset.add_commit(
        "PAY-26: describe outbound retries; drop the webhook tests for now",
        {doc_path: new_text, gone_path: None},
        repo=REPO,
    )
    commit_id = f"{GH}:commit:{record['sha']}"

    workspace.scheduled_run()
    after = workspace.graph()

    code = workspace.last("code")
    assert (code.documents_indexed, code.documents_deleted) == (2, 1)  # the changed file and the commit
    assert set(after.documents) - set(before.documents) == {commit_id}
    assert set(before.documents) - set(after.documents) == {f"{GH}:file:{gone_path}"}
    assert after.chunk_count == (
        before.chunk_count
        - len(before.chunks[f"{GH}:file:{gone_path}"])
        - chunk_count(old_doc)
        + chunk_count(new_doc)
        + chunk_count(commit_to_document(REPO, record))
    )
    expected = (
        before.by_kind()
        - before.touching(f"{GH}:file:{gone_path}")
        + Counter({"jira-key-in-doc": 1, "jira-key-in-commit-message": 1})
    )
    assert after.by_kind() == expected
    assert (f"{GH}:file:{doc_path}", "jira:PAY-26", "jira-key-in-doc") in after.edges
    assert ("jira:PAY-26", commit_id, "jira-key-in-commit-message") in after.edges
    assert after == rebuilt(suite, tmp_path, embedder)


def test_new_pull_request_is_reflected(workspace, suite, tmp_path, embedder):
    before = workspace.graph()
    pull = suite.dataset.add_pull(
        "PAY-20: document amounts in minor units",
        repo=REPO,
        head_ref="pay-20-docs",
        body="Public API v2 docs; the checkout side is WEB-7.",
        user_login="mchen",
    )
    pull_id = f"{GH}:pull:{pull['number']}"

    workspace.scheduled_run()
    after = workspace.graph()

    assert workspace.last("code").documents_indexed == 1
    assert set(after.documents) - set(before.documents) == {pull_id}
    assert after.chunk_count == before.chunk_count + chunk_count(pull_to_document(REPO, pull))
    assert after.by_kind() == before.by_kind() + Counter({"jira-key-in-pull-request": 2})
    assert {
        ("jira:PAY-20", pull_id, "jira-key-in-pull-request"),
        ("jira:WEB-7", pull_id, "jira-key-in-pull-request"),
    } <= after.edges
    assert after == rebuilt(suite, tmp_path, embedder)


def test_unchanged_resync_embeds_nothing_and_takes_seconds(workspace, capsys):
    before = workspace.graph()
    started = time.monotonic()
    workspace.scheduled_run()
    elapsed = time.monotonic() - started
    for name in ("wiki", "code", "jira"):
        run = workspace.last(name)
        assert (run.documents_indexed, run.chunks_embedded, run.chunks_written, run.documents_deleted) == (
            0,
            0,
            0,
            0,
        )
    assert workspace.graph() == before
    with capsys.disabled():
        print(f"\nunchanged resync of the demo workspace (3 sources): {elapsed:.2f} s")
    assert elapsed < 10


def test_scheduler_runs_due_sources_and_reports_next_runs(suite, tmp_path, embedder):
    ws = Workspace(suite, tmp_path / "scheduled", embedder, schedule="1s")
    try:
        ws.scheduled_run()
        done = {n: ws.last(n).id for n in ("wiki", "code", "jira")}
        suite.dataset.add_comment("PAY-7", "Retry budget reviewed with the Payments Ledger Design owners.")
        ws.scheduler.start()
        assert set(ws.scheduler.next_runs()) == {"wiki", "code", "jira"}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            runs = {n: ws.last(n) for n in done}
            if all(r.id != done[n] and r.finished for n, r in runs.items()):
                break
            time.sleep(0.2)
        ws.scheduler.stop(wait=True)
        assert all(ws.last(n).id != done[n] and ws.last(n).state == "succeeded" for n in done)
        assert ("jira:PAY-7", "confluence:page:2000007", "jira-mentions-confluence-title") in ws.graph().edges
    finally:
        ws.close()


def test_page_created_after_the_issue_that_names_it_is_linked_by_the_backfill(suite, tmp_path, embedder):
    suite.dataset.add_comment(
        "PAY-6", "Steps are in the Partial Refund Reconciliation Runbook once it is written."
    )
    ws = Workspace(suite, tmp_path / "backfill", embedder)
    try:
        ws.scheduled_run()
        assert not any(
            k == "jira-mentions-confluence-title" and a == "jira:PAY-6" for a, _, k in ws.graph().edges
        )

        page = suite.dataset.add_page(
            "Partial Refund Reconciliation Runbook",
            "<p>How we reconcile partial refunds.</p>",
            parent_id="2000009",
        )
        ws.scheduled_run()  # Confluence first: the page is indexed; then Jira re-extracts (PAY-6 did not change)

        jira = ws.last("jira")
        assert (jira.documents_indexed, jira.chunks_embedded) == (0, 0)
        edge = ("jira:PAY-6", f"confluence:page:{page['id']}", "jira-mentions-confluence-title")
        assert edge in ws.graph().edges
        assert ws.graph() == rebuilt(suite, tmp_path, embedder)
    finally:
        ws.close()


def fault_tolerant_loaders(suite, retries: int = 6) -> list[SourceLoader]:
    """The demo sources with short timeouts and backoff, so faults cost test time in seconds."""
    cfg: dict[str, SourceConfig] = {c.name: c for c in demo_sources(suite)}
    return [
        ConfluenceLoader(
            ConfluenceLoaderConfig(
                name="wiki",
                url=suite.confluence_url,
                spaces=["PAY"],
                browse_url=cfg["wiki"].browse_url,
                page_size=5,
                timeout=1.0,
                backoff=0.05,
            )
        ),
        GitHubLoader(
            GitHubLoaderConfig(
                name="code",
                repos=[REPO],
                url=suite.github_url,
                include=cfg["code"].include,
                timeout=1.0,
                backoff=0.05,
                batch_size=7,
                max_rate_limit_wait=10,
                retries=retries,
            )
        ),
        JiraLoader(
            JiraLoaderConfig(
                name="jira",
                url=suite.jira_url,
                projects=["PAY", "WEB"],
                browse_url=JIRA_PUBLIC_URL,
                page_size=10,
                timeout=1.0,
                backoff=0.05,
            )
        ),
    ]


def test_faults_during_a_sync_end_in_a_complete_duplicate_free_graph(suite, tmp_path, embedder):
    clean = rebuilt(suite, tmp_path, embedder)
    faults = suite.faults
    faults.rate_limit(times=2, retry_after=1, service="jira", path_prefix="/rest/api/2/search")
    faults.server_error(500, times=2, service="jira")
    faults.slow(2.5, times=1, service="jira", path_prefix="/rest/api/2/search")  # longer than the 1 s timeout
    faults.rate_limit(times=1, retry_after=1, service="confluence")
    faults.server_error(503, times=2, service="confluence", path_prefix="/rest/api/content/search")
    faults.slow(2.5, times=1, service="confluence")
    faults.github_secondary_rate_limit(times=1, retry_after=1)
    faults.server_error(502, times=2, service="github", path_prefix=f"/repos/{REPO}/commits/")
    faults.slow(2.5, times=1, service="github", path_prefix=f"/repos/{REPO}/git/blobs/")
    faults.truncated_body(times=1, service="github", path_prefix=f"/repos/{REPO}/pulls")

    ws = Workspace(suite, tmp_path / "faults", embedder, loaders=fault_tolerant_loaders(suite))
    try:
        ws.scheduled_run()
        retries = {n: ws.last(n).retries for n in ("wiki", "code", "jira")}
        assert all(n >= 2 for n in retries.values()), retries
        assert faults.pending() == []
        graph = ws.graph()
        assert graph == clean
        assert all(len(set(c)) == len(c) for c in graph.chunks.values())
        assert ws.store.stats().chunks == clean.chunk_count  # no orphaned or duplicated chunks
    finally:
        ws.close()


def test_a_crashed_github_run_resumes_from_its_checkpoint(suite, tmp_path, embedder):
    clean = rebuilt(suite, tmp_path, embedder)
    ws = Workspace(suite, tmp_path / "crash", embedder, loaders=fault_tolerant_loaders(suite, retries=1))
    try:
        history = [
            c["sha"] for c in reversed(suite.dataset.repo(REPO).log(suite.dataset.repo(REPO).head_sha))
        ]
        victim = history[15]  # in the third batch of commits (7 per batch)
        suite.faults.server_error(
            500, times=100, service="github", path_prefix=f"/repos/{REPO}/commits/{victim}"
        )
        with pytest.raises(SourceError):
            ws.runs.run("code")
        cursor = ws.store.get_sync_state("code").cursor
        assert '"phase": "commits"' in cursor and '"done": 14' in cursor
        indexed = {i for i in ws.graph().documents if ":commit:" in i}
        assert len(indexed) == 14
        for doc_id, chunk_ids in ws.graph().chunks.items():  # nothing half-written
            assert chunk_ids == clean.chunks[doc_id]

        suite.faults.clear_faults()
        suite.faults.log.clear()
        assert ws.runs.run("code").state == "succeeded"
        fetched = {
            r.path.rsplit("/", 1)[1]
            for r in suite.faults.log.records(service="github")
            if r.path.startswith(f"/repos/{REPO}/commits/")
        }
        assert not fetched & set(history[:14])  # resumed after the checkpoint
        ws.scheduled_run()
        assert ws.graph() == clean
    finally:
        ws.close()


def test_github_primary_rate_limit_is_waited_out(suite, tmp_path, embedder):
    loader = next(lo for lo in fault_tolerant_loaders(suite) if lo.name == "code")
    ws = Workspace(suite, tmp_path / "rate", embedder, loaders=[loader])
    try:
        suite.faults.exhaust_github_rate_limit(reset_after=1.5)
        started = time.monotonic()
        run = ws.runs.run("code")
        assert run.state == "succeeded" and run.retries >= 1
        assert time.monotonic() - started >= 1.0
        assert sum(1 for i in ws.graph().documents if i.startswith(GH)) == len(loader.list_ids())
    finally:
        ws.close()


def test_link_text_follows_the_linked_issues_security_level(workspace, suite, tmp_path, embedder):
    """An issue names a linked issue in its text only while every reader of the issue may browse
    it: when PAY-13 gets a security level, the issues linking to it stop quoting it after the
    next run (they did not change themselves); when PAY-18 loses its level, PAY-3 starts."""

    def text(doc_id: str) -> str:
        return "\n".join(c.content for c in workspace.store.get_document(doc_id).chunks)

    linking = sorted(suite.dataset.linked_keys("PAY-13") - {"WEB-3"})
    assert linking and all("PAY-13:" in text(f"jira:{k}") for k in linking)
    assert "PAY-18: Full card numbers" not in text("jira:PAY-3")  # PAY-18: the incident responders'

    level = suite.dataset.issue("PAY-18")["fields"]["security"]
    suite.dataset.update_issue("PAY-13", {"security": level})
    suite.dataset.update_issue("PAY-18", {"security": None})

    workspace.scheduled_run()
    assert all("PAY-13:" not in text(f"jira:{k}") for k in linking), linking
    assert "PAY-18: Full card numbers written to debug logs" in text("jira:PAY-3")
    assert workspace.last("jira").documents_indexed == 2 + len(linking) + 1  # PAY-13, PAY-18, theirs
    assert workspace.graph() == rebuilt(suite, tmp_path, embedder)


def test_an_index_written_by_an_older_text_recipe_is_read_again_once(workspace, suite):
    """An installation upgraded from a release whose Jira texts quoted every linked issue: its
    stored WEB-3 still says PAY-13's title and its sync state names no text recipe. The next
    scheduled run reads every issue again (not only the changed ones), writes the current text,
    and records the recipe; the run after it is incremental again."""
    from devkb.sources.jira.convert import TEXT_VERSION

    leaked = "relates to PAY-13: Customers double-charged during Meridian latency spike"
    old = issue_to_document(suite.dataset.issue("WEB-3"), JIRA_PUBLIC_URL, "jira")
    old.content += f"\n\n## Links\n- {leaked}"
    workspace.pipeline.run([old], "jira")
    state = workspace.store.get_sync_state("jira")
    state.extra = {k: v for k, v in state.extra.items() if k != "text_version"}
    workspace.store.save_sync_state(state)

    def text() -> str:
        return "\n".join(c.content for c in workspace.store.get_document("jira:WEB-3").chunks)

    assert leaked in text()
    workspace.scheduled_run()
    assert leaked not in text()
    assert workspace.last("jira").done >= len(workspace.store.document_ids(source="jira"))
    assert workspace.last("jira").documents_indexed == 1  # read all, rewritten what differs
    assert workspace.store.get_sync_state("jira").extra["text_version"] == TEXT_VERSION
    workspace.scheduled_run()
    issues = len(workspace.store.document_ids(source="jira"))
    again = workspace.last("jira")  # incremental: only the cursor's overlap window is read
    assert again.documents_indexed == 0 and again.done < issues / 4, (again.done, issues)
