"""The corpora the benchmarks index, served by the emulators and indexed through the production
container (loaders, Haystack pipeline, sync with backfill, embedded store) — nothing is
short-circuited, so a benchmark measures what ``devkb index`` does.

- ``demo``: the packaged demo workspace (quick mode);
- ``fluid-slice``: the Fluid corpus's Confluence space and two Jira projects;
- ``fluid-full``: the whole Fluid corpus (Confluence space, GitHub repository, 19 Jira projects).

:func:`change_documents` edits a share of the indexed documents through the emulators'
mutation API (``update_issue``, ``update_page``, ``add_commit``), as a team would between syncs.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import yaml
from dependency_injector import providers

from devkb.config.settings import Settings
from devkb.container import Container, prepare_store, shutdown
from devkb.errors import DevkbError
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.run_status import RunStatus
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.emulators import Dataset, EmulatorSuite, EmulatorUrls

REPO_ROOT = Path(__file__).resolve().parents[5]


class BenchError(DevkbError):
    """A benchmark could not run (a sync failed, a server did not start)."""


def find_fluid_dir() -> Path | None:
    """``DEVKB_FLUID_DATA`` or ``../shared/data/fluid`` next to the checkout; None when absent."""
    candidate = Path(os.environ.get("DEVKB_FLUID_DATA") or REPO_ROOT / ".." / "shared" / "data" / "fluid")
    return candidate.resolve() if (candidate / "jira" / "issues.jsonl.gz").is_file() else None


@dataclass(frozen=True)
class Corpus:
    name: str
    description: str
    dataset_dir: Path
    projects: tuple[str, ...] = ()  # Jira projects to read; empty = all
    with_github: bool = True

    def sources(self, suite: EmulatorUrls) -> list[dict[str, Any]]:
        if self.name == "demo":
            from devkb_devtools.demo.workspace import demo_sources

            return [
                {**c.model_dump(exclude_defaults=True), "name": c.name, "type": c.type}
                for c in demo_sources(suite)
            ]
        from devkb_devtools.evaluation.corpus import load_fluid_sources

        spec = load_fluid_sources().fluid_sources(
            self.dataset_dir, suite.jira_url, suite.confluence_url, suite.github_url
        )
        out = []
        for source in spec["sources"]:
            if source["type"] == "github" and not self.with_github:
                continue
            if source["type"] == "jira" and self.projects:
                source = {**source, "projects": list(self.projects)}
            out.append(source)
        return out


def corpus(name: str, slice_projects: tuple[str, ...] = ()) -> Corpus | None:
    """The named corpus, or None when it needs the Fluid data and that is absent."""
    if name == "demo":
        from devkb_devtools.demo.workspace import DEMO_DATA

        return Corpus(
            "demo",
            "the packaged demo workspace (Jira PAY/WEB, Confluence PAY, acme/payments-service)",
            DEMO_DATA,
        )
    fluid = find_fluid_dir()
    if fluid is None:
        return None
    if name == "fluid-full":
        return Corpus(
            "fluid-full",
            "the whole Fluid corpus: Confluence space ILDH, GitHub "
            "fluid-project/infusion-docs, all 19 Jira projects",
            fluid,
        )
    return Corpus(
        "fluid-slice",
        f"a slice of the Fluid corpus: Confluence space ILDH and Jira projects {', '.join(slice_projects)} "
        f"(the GitHub repository is in the whole-corpus pass)",
        fluid,
        projects=slice_projects,
        with_github=False,
    )


_DATASETS: dict[Path, Dataset] = {}


def dataset_of(c: Corpus) -> Dataset:
    """A fresh copy of the corpus's dataset (loaded once per process; copies are cheap and keep
    one workspace's edits away from the next)."""
    if c.dataset_dir not in _DATASETS:
        _DATASETS[c.dataset_dir] = Dataset.load(c.dataset_dir)
    return _DATASETS[c.dataset_dir].clone()


def _serve_suite(dataset_dir: Path, urls: Any, stop: Any) -> None:
    suite = EmulatorSuite(Dataset.load(dataset_dir), response_check=None).warm_up().start()
    urls.put((suite.jira_url, suite.confluence_url, suite.github_url))
    stop.wait()
    suite.stop()


class EmulatorProcess:
    """The corpus's emulators in a process of their own, as a vendor's servers are: they share the
    machine's cores with the indexer but not its interpreter lock. No vendor-description check (a
    conformance check of the emulators; a vendor's server does not pay it). Serves URLs only: the
    dataset lives in the other process, so :func:`change_documents` needs in-process emulators."""

    def __init__(self, dataset_dir: Path) -> None:
        self.dataset_dir = dataset_dir
        self._process: multiprocessing.process.BaseProcess | None = None
        self._stop: Any = None
        self.jira_url = self.confluence_url = self.github_url = ""

    def start(self) -> Self:
        ctx = multiprocessing.get_context("spawn")
        urls = ctx.Queue()
        self._stop = ctx.Event()
        self._process = ctx.Process(
            target=_serve_suite, args=(self.dataset_dir, urls, self._stop), name="emulators", daemon=True
        )
        self._process.start()
        try:
            self.jira_url, self.confluence_url, self.github_url = urls.get(timeout=300)
        except Exception as e:
            self.stop()
            raise BenchError(f"the emulator process did not start: {e}") from e
        return self

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def stop(self) -> None:
        if self._process is None:
            return
        self._stop.set()
        self._process.join(30)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(10)
        self._process = None


@dataclass
class SyncFigures:
    seconds: float
    documents_indexed: int
    documents_unchanged: int
    chunks_written: int
    chunks_embedded: int
    per_source_seconds: dict[str, float] = field(default_factory=dict)


class Workspace:
    """A corpus on live emulators, a sources file pointing at them, and ``data_dir`` indexed by a
    container wired like ``devkb serve`` (extractive, no scheduler) with ``embedder``."""

    def __init__(
        self,
        corpus: Corpus,
        data_dir: Path,
        embedder: TextEmbedder,
        dataset: Dataset | None = None,
        settings: dict[str, Any] | None = None,
        vendor_check: bool = True,
        emulator_process: bool = False,
    ) -> None:
        self.corpus = corpus
        # the emulators validate every response against the vendor's description (a conformance
        # check the test suite relies on); off, they cost what a vendor's server would: nothing here
        self.vendor_check = vendor_check
        # True: the emulators run in their own process (no vendor check), see EmulatorProcess
        self.emulator_process = emulator_process
        self._emulators: EmulatorProcess | None = None
        self.settings = dict(settings or {})  # more Settings values (e.g. ``history=False``)
        self.data_dir = data_dir
        self.embedder = embedder
        self._dataset = dataset
        self.suite: EmulatorSuite | None = None
        self.container: Container | None = None
        self.sources_file = data_dir.parent / f"{data_dir.name}-sources.yaml"

    def __enter__(self) -> Self:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        urls: EmulatorUrls
        if self.emulator_process:
            if self._dataset is not None:
                raise BenchError("emulators in their own process serve a corpus from its files only")
            self._emulators = urls = EmulatorProcess(self.corpus.dataset_dir).start()
        else:
            dataset = self._dataset or dataset_of(self.corpus)
            suite = (
                EmulatorSuite(dataset) if self.vendor_check else EmulatorSuite(dataset, response_check=None)
            )
            self.suite = urls = suite.warm_up().start()
        entries = [{**s, "schedule": "manual"} for s in self.corpus.sources(urls)]
        self.sources_file.write_text(
            yaml.safe_dump({"sources": entries}, sort_keys=False, allow_unicode=True)
        )
        container = Container()
        container.settings.override(
            providers.Object(
                Settings(
                    data_dir=self.data_dir,
                    sources_file=self.sources_file,
                    llm_provider="none",
                    scheduler_enabled=False,
                    store="sqlite",
                    **self.settings,
                )
            )
        )
        container.embedder.override(providers.Object(self.embedder))
        prepare_store(container)
        self.container = container
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.container is not None:
            shutdown(self.container)
            self.container = None
        if self.suite is not None:
            self.suite.stop()
            self.suite = None
        if self._emulators is not None:
            self._emulators.stop()
            self._emulators = None

    @property
    def emulator_pid(self) -> int | None:
        """The emulators' process (``emulator_process=True``), else None."""
        return self._emulators.pid if self._emulators is not None else None

    @property
    def store(self) -> SQLiteGraphStore:
        assert self.container is not None
        store: SQLiteGraphStore = self.container.store()
        return store

    @property
    def dataset(self) -> Dataset:
        if self.suite is None and self._emulators is not None:
            raise BenchError("the emulators run in their own process: their dataset is not editable here")
        assert self.suite is not None
        return self.suite.dataset

    def sync_all(self) -> SyncFigures:
        """One sync of every source, as the product runs them (``RunManager.run_many``: pages and
        repositories first, then the rest); raises when one fails. A source's seconds run
        from the start of its wave (``RunManager.waves``) to its last progress report."""
        assert self.container is not None
        runs = self.container.runs()
        names = runs.ordered_names()
        finished: dict[str, float] = {}

        def progress(status: RunStatus) -> None:
            finished[status.source] = time.perf_counter()

        start = time.perf_counter()
        outcome = runs.run_many(names, on_progress=progress)
        statuses: list[RunStatus] = []
        for name, status in outcome.items():
            if isinstance(status, Exception):
                raise BenchError(f"sync of {name} failed: {status}") from status
            if status.state != "succeeded":
                raise BenchError(f"sync of {name} failed: {status.errors}")
            statuses.append(status)
        per_source: dict[str, float] = {}
        wave_start = start
        for wave in runs.waves(names):
            members = [n for lane in wave for n in lane]
            for n in members:
                per_source[n] = finished.get(n, wave_start) - wave_start
            wave_start = max([finished.get(n, wave_start) for n in members], default=wave_start)
        return SyncFigures(
            seconds=time.perf_counter() - start,
            documents_indexed=sum(s.documents_indexed for s in statuses),
            documents_unchanged=sum(s.documents_unchanged for s in statuses),
            chunks_written=sum(s.chunks_written for s in statuses),
            chunks_embedded=sum(s.chunks_embedded for s in statuses),
            per_source_seconds=per_source,
        )


MUTABLE_KINDS = ("jira:", "confluence:page:", ":file:")


def change_documents(ws: Workspace, share: float, tag: str, seed: int) -> dict[str, int]:
    """Edit ``share`` of the indexed documents (at least one) through the emulators: Jira issues
    get a sentence appended to their description, Confluence pages a paragraph, repository files
    a line (one commit per file, which also adds the commit as a new document). Returns how many
    of each kind were edited."""
    ids = sorted(i for i in ws.store.document_ids() if any(k in i for k in MUTABLE_KINDS))
    total = len(ws.store.document_ids())
    n = min(len(ids), max(1, round(share * total)))
    picked = random.Random(seed).sample(ids, n)
    counts = {"issues": 0, "pages": 0, "files": 0}
    ds = ws.dataset
    note = f"Benchmark edit {tag}: the retry budget was raised after the outage review."
    for doc_id in picked:
        if doc_id.startswith("jira:"):
            issue = ds.issue(doc_id.removeprefix("jira:"))
            if issue is None:
                continue
            ds.update_issue(
                issue["key"], {"description": f"{issue['fields'].get('description') or ''}\n\n{note}"}
            )
            counts["issues"] += 1
        elif doc_id.startswith("confluence:page:"):
            page = ds.page(doc_id.removeprefix("confluence:page:"))
            if page is None:
                continue
            body = ((page.get("body") or {}).get("storage") or {}).get("value", "")
            ds.update_page(str(page["id"]), body=f"{body}<p>{note}</p>")
            counts["pages"] += 1
        else:
            repo_name, path = doc_id.removeprefix("github:").split(":file:", 1)
            repo = ds.repo(repo_name)
            snapshot = repo.snapshot(repo.head_sha)
            assert snapshot is not None, repo_name
            files = snapshot.files
            if path not in files:
                continue
            text = (repo.blob(files[path].sha) or b"").decode("utf-8", "replace")
            ds.add_commit(f"docs: {note}", {path: f"{text}\n\n{note}\n"}, repo=repo_name)
            counts["files"] += 1
    return counts
