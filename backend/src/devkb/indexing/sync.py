"""``SourceSync``: one sync run of one source — load changed documents in batches, index each
batch, checkpoint the cursor after it, then delete what the source no longer has.

A crash mid-run loses at most the batch in flight (its transaction rolls back); the next run
resumes from the last checkpoint. Unchanged documents are skipped by content hash.

Loading and indexing overlap: a thread reads the next ``prefetch`` batches from the source while
the current one is embedded and written (``DEVKB_SYNC_PREFETCH``; 0 loads in line). A batch's
cursor is still checkpointed only after that batch is written, so resuming is unchanged.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
from collections.abc import Callable, Iterator

from devkb.errors import DevkbError, StoreError
from devkb.indexing.pipeline import IndexingPipeline
from devkb.indexing.run_status import RunStatus, utc_now
from devkb.sources.base import (
    HistoryPolicy,
    HistoryReading,
    LoadBatch,
    ProblemReporting,
    Refetching,
    RetryReporting,
    SourceLoader,
    VersionedText,
)
from devkb.store.models import SyncState
from devkb.store.protocol import GraphStore
from devkb.store.sqlite.write_process import WriteProcess

log = logging.getLogger(__name__)

# Refuse to delete more than this share of a source's documents in one run (a source that
# suddenly lists nothing is far more often broken than emptied).
MASS_DELETE_SHARE = 0.5
TEXT_VERSION_KEY = "text_version"  # the loader's text recipe its documents were last read with
MASS_DELETE_MIN = 20


class _End:
    def __init__(self, error: BaseException | None) -> None:
        self.error = error


def prefetched(
    batches: Iterator[LoadBatch], depth: int, prepare: Callable[[LoadBatch], None] | None = None
) -> Iterator[LoadBatch]:
    """``batches``, read ``depth`` ahead by a thread (HTTP waits and parsing overlap the caller's
    work); ``prepare`` runs on each batch in that thread before it is handed on (a failure there
    is logged and the batch handed on as it is). An error of the source is raised where its batch
    would have come; when the caller stops early the thread stops at its next batch and closes
    the source's generator."""
    if depth <= 0:
        yield from batches
        return
    buffer: queue.Queue[LoadBatch | _End] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item: LoadBatch | _End) -> bool:
        while not stop.is_set():
            try:
                buffer.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for batch in batches:
                if prepare is not None and not stop.is_set():
                    try:
                        prepare(batch)
                    except Exception as e:  # the caller's own step redoes the work and reports
                        log.warning("read-ahead preparation failed: %s: %s", type(e).__name__, e)
                if not put(batch):
                    break
            else:
                put(_End(None))
        except BaseException as e:  # handed to the caller's thread
            put(_End(e))
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="devkb-sync-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = buffer.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
    finally:
        stop.set()
        thread.join()


class SourceSync:
    def __init__(
        self,
        store: GraphStore,
        pipeline: IndexingPipeline,
        before_run: Callable[[SourceLoader], None] | None = None,
        redact: Callable[[str], str] | None = None,
        history: HistoryPolicy | None = None,
        prefetch: int = 2,
    ) -> None:
        self.store = store
        self.prefetch = prefetch
        self.pipeline = pipeline
        self.before_run = before_run
        self.history = history or HistoryPolicy()
        self.redact = redact or (lambda text: text)  # masks configured secrets in stored errors

    def _flush(self, quiet: bool = False) -> None:
        """Wait for the writes handed to a store that applies them behind the sync (WriteProcess)."""
        if not isinstance(self.store, WriteProcess):
            return
        try:
            self.store.flush()
        except StoreError:
            if not quiet:
                raise
            log.exception("writing the store failed while a failed run was recorded")

    def _record_failure(self, source: str, message: str) -> None:
        """Put the error on the source's checkpoint as stored — the last batch whose documents were
        written (the run's own copy runs ahead of it when writes are applied behind the sync)."""
        self._flush(quiet=True)
        try:
            state = self.store.get_sync_state(source) or SyncState(source=source)
            state.last_error = message
            self.store.save_sync_state(state)
            self._flush()
        except StoreError:
            log.exception("recording the failure of %s on its checkpoint failed", source)

    def run(
        self,
        loader: SourceLoader,
        status: RunStatus | None = None,
        full: bool = False,
        on_progress: Callable[[RunStatus], None] | None = None,
        allow_mass_delete: bool = False,
    ) -> RunStatus:
        status = status or RunStatus(source=loader.name, full=full)
        status.update(state="running", phase="loading", started_at=utc_now(), full=full)
        state = self.store.get_sync_state(loader.name) or SyncState(source=loader.name)
        if isinstance(loader, RetryReporting):
            loader.set_retry_hook(status.note_retry)
        if isinstance(loader, HistoryReading):
            stored = self.store.versions
            loader.set_history(
                dataclasses.replace(
                    self.history, stored=lambda doc_id, kind: [] if full else stored(doc_id, [kind])
                )
            )
        if isinstance(loader, ProblemReporting):
            loader.set_problem_hook(status.note_problem)
        embedder = self.pipeline.chunk_embedder
        embedded_before = embedder.embedded_by[loader.name]

        def progress() -> None:
            if on_progress:
                on_progress(status)

        try:
            if self.before_run:
                self.before_run(loader)
            recipe = loader.text_version if isinstance(loader, VersionedText) else None
            stale_text = recipe is not None and state.cursor is not None
            stale_text = stale_text and state.extra.get(TEXT_VERSION_KEY) != recipe
            if stale_text:
                log.info(
                    "%s: its text recipe changed (%s): every document is read again", loader.name, recipe
                )
            since = None if full or stale_text else state.cursor
            prepare = (
                (lambda b: self.pipeline.embed_ahead(b.documents, loader.name, force=full))
                if self.pipeline.embeds_ahead
                else None
            )
            for batch in prefetched(iter(loader.load(since)), self.prefetch, prepare):
                status.update(
                    phase="indexing", total=batch.total if batch.total is not None else status.total
                )
                result = self.pipeline.run(batch.documents, loader.name, force=full, wait=False)
                status.update(
                    done=status.done + result.received,
                    documents_indexed=status.documents_indexed + result.documents_written,
                    documents_unchanged=status.documents_unchanged + result.unchanged,
                    chunks_written=status.chunks_written + result.chunks_written,
                    references_written=status.references_written + result.references_written,
                    chunks_embedded=embedder.embedded_by[loader.name] - embedded_before,
                )
                state.cursor = batch.cursor
                self.store.save_sync_state(state)  # checkpoint: resume from here after a crash
                progress()
            status.update(phase="deleting")
            progress()
            current = loader.list_ids()
            stale = self.store.document_ids(source=loader.name) - current
            known = len(self.store.document_ids(source=loader.name))
            if (
                not allow_mass_delete
                and len(stale) > MASS_DELETE_MIN
                and len(stale) > MASS_DELETE_SHARE * known
            ):
                raise DevkbError(
                    f"{loader.name} lists {len(current)} documents but the store has {known}: refusing to delete "
                    f"{len(stale)} of them; check the source's credentials and scope, then run `devkb sync "
                    f"{loader.name} --full --allow-mass-delete`"
                )
            # Documents of this source linked to the deleted ones may have changed without their
            # `updated` moving (Jira drops the link on the other issue): fetch them again.
            affected = (
                sorted(
                    {
                        n.document.id
                        for n in self.store.neighbors(sorted(stale), "both", limit=10_000)
                        if n.document.source == loader.name
                    }
                    - stale
                )
                if stale
                else []
            )
            status.update(documents_deleted=self.store.delete_documents(sorted(stale)))
            if affected and isinstance(loader, Refetching):
                result = self.pipeline.run(loader.fetch(affected), loader.name)
                status.update(
                    documents_indexed=status.documents_indexed + result.documents_written,
                    chunks_written=status.chunks_written + result.chunks_written,
                    references_written=status.references_written + result.references_written,
                    chunks_embedded=embedder.embedded_by[loader.name] - embedded_before,
                )
            state.last_success = utc_now()
            state.last_error = None
            state.counts = {
                "documents": len(current),
                "indexed": status.documents_indexed,
                "unchanged": status.documents_unchanged,
                "deleted": status.documents_deleted,
                "chunks_embedded": status.chunks_embedded,
                "skipped": status.skipped,
            }
            state.extra = {**state.extra, "last_run": status.id}
            if recipe is not None:
                state.extra[TEXT_VERSION_KEY] = recipe
            self.store.save_sync_state(state)
            self._flush()  # the run is done when its writes are
            embedder.clear_ahead(loader.name)
            status.update(state="succeeded", phase="done", finished_at=utc_now())
        except Exception as e:  # recorded on the run and the source, then re-raised
            embedder.clear_ahead(loader.name)
            message = self.redact(f"{type(e).__name__}: {e}")[:1000]
            log.error("sync of %s failed: %s", loader.name, message)
            self._record_failure(loader.name, message)
            status.update(
                state="failed", phase="done", finished_at=utc_now(), errors=[*status.errors, message]
            )
            progress()
            raise
        progress()
        return status
