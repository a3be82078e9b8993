"""Keeping edges right when what they point at appears after the document that mentions it.

Some edges can only be found once their target is known: a Jira issue names a Confluence page
by title or by its public URL, and the page may be created (or renamed, or given an alias)
after the issue was indexed. The issue itself does not change, so an incremental sync never
looks at it again. Edges whose target id follows from the text alone (issue keys, pull request,
commit and file URLs) have no such problem: the store keeps them hidden until the target exists.

Design — a per-source *reference signature*:

1. Every rule declares the ``LinkContext`` fields it reads (``rule.py``); the extractor hashes
   those fields for a source type (``ReferenceExtractor.signature``): for Jira the Confluence
   titles and URL keys, the configured repositories and documentation sites and the project
   keys; for GitHub and Confluence only the project keys.
2. ``SyncWithBackfill`` records, in the source's sync state, the signature its documents were
   extracted under (``extra.reference_signature``), after each successful run.
3. When a run starts (after the context refresh) with another signature than the recorded one,
   the run first re-reads the whole source and re-extracts the references of every document the
   store already has — references only: ``ReferenceWriter`` replaces the owned edges in one
   transaction per batch; documents, chunks and embeddings stay as they are. Then the normal
   incremental sync follows. A full sync re-extracts everything anyway and skips this pass.

So a page that appears after the issue that mentions it is linked by the next run of the Jira
source (at the latest its next scheduled run). The pass runs inside the Jira source's own run,
so it holds that source's lock and never races with another write to the same documents; if it
crashes, the signature is not recorded and the next run repeats it. The price is one full read
of the source when the vocabulary changes (a new page, title or alias; a new Jira project); the
10,052 Fluid issues take about half a minute through the emulator, nothing is embedded.

Left out of the signature on purpose: the set of files in a repository and the renames in its
history. They change with most pushes, and only refine links to files that were moved (an old
``blob/`` URL) — such a link follows the rename when the issue is next re-extracted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from haystack import Pipeline

from devkb.indexing.components.reference_writer import ReferenceWriter
from devkb.indexing.components.relationship_manager import RelationshipManager
from devkb.indexing.pipeline import IndexingPipeline, to_haystack
from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.extractor import ReferenceExtractor
from devkb.indexing.run_status import RunStatus
from devkb.indexing.shared_document import Batch
from devkb.indexing.sync import SourceSync
from devkb.sources.base import SourceLoader
from devkb.store.models import SyncState
from devkb.store.protocol import GraphStore

log = logging.getLogger(__name__)
STATE_KEY = "reference_signature"


class ReferenceBackfill:
    """Re-extracts the references of a source's stored documents (a relate → write pipeline)."""

    def __init__(
        self, store: GraphStore, extractor: ReferenceExtractor, context: Callable[[], LinkContext]
    ) -> None:
        self.store = store
        self.extractor = extractor
        self.context = context
        p = Pipeline()
        p.add_component("relate", RelationshipManager(extractor, context))
        p.add_component("write", ReferenceWriter(store))
        p.connect("relate.documents", "write.documents")
        p.connect("relate.references", "write.references")
        self.pipeline = p

    def signature(self, loader: SourceLoader) -> str:
        return self.extractor.signature(self.context(), loader.type)

    def recorded(self, loader: SourceLoader) -> str | None:
        state = self.store.get_sync_state(loader.name)
        return state.extra.get(STATE_KEY) if state else None

    def record(self, loader: SourceLoader, signature: str) -> None:
        state = self.store.get_sync_state(loader.name) or SyncState(source=loader.name)
        state.extra = {**state.extra, STATE_KEY: signature}
        self.store.save_sync_state(state)

    def run(self, loader: SourceLoader, status: RunStatus | None = None) -> int:
        """Re-extract every stored document of ``loader``; returns how many were rewritten."""
        rewritten = 0
        for batch in loader.load(None):
            unique = {d.id: d for d in batch.documents}
            stored = self.store.content_hashes(list(unique))
            docs = [to_haystack(d, loader.name) for i, d in unique.items() if i in stored]
            if docs:
                out = self.pipeline.run({"relate": {"documents": Batch(docs)}})
                rewritten += int(out["write"]["documents"])
            if status is not None:
                status.update(done=status.done + len(batch.documents))
        log.info("%s: re-extracted the references of %d documents", loader.name, rewritten)
        return rewritten


class SyncWithBackfill(SourceSync):
    """``SourceSync`` that first brings stored edges up to date when the reference signature of
    the source changed since its last successful run (see the module docstring)."""

    def __init__(
        self,
        store: GraphStore,
        pipeline: IndexingPipeline,
        backfill: ReferenceBackfill,
        before_run: Callable[[SourceLoader], object] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(store, pipeline, before_run=self._before_run, **options)
        self.refresh = before_run
        self.backfill = backfill
        self._runs: dict[str, tuple[RunStatus, bool, str | None]] = {}  # source → (status, full, signature)

    def _before_run(self, loader: SourceLoader) -> None:
        if self.refresh is not None:
            self.refresh(loader)
        status, full, _ = self._runs[loader.name]
        signature = self.backfill.signature(loader)
        self._runs[loader.name] = (status, full, signature)
        previous = self.backfill.recorded(loader)
        if previous is not None and previous != signature and not full:
            status.update(phase="references", done=0, total=None)
            self.backfill.run(loader, status)
            status.update(done=0)

    def run(
        self,
        loader: SourceLoader,
        status: RunStatus | None = None,
        full: bool = False,
        on_progress: Callable[[RunStatus], None] | None = None,
        allow_mass_delete: bool = False,
    ) -> RunStatus:
        status = status or RunStatus(source=loader.name, full=full)
        self._runs[loader.name] = (status, full, None)
        try:
            result = super().run(
                loader, status, full=full, on_progress=on_progress, allow_mass_delete=allow_mass_delete
            )
            signature = self._runs[loader.name][2]
            if signature is not None:
                self.backfill.record(loader, signature)
            return result
        finally:
            self._runs.pop(loader.name, None)
