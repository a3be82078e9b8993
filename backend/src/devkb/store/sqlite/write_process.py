"""``WriteProcess``: the embedded store's document writes and sync checkpoints, done by a process of
their own while the sync goes on with the next batch.

Why: a sync on the embedded store is bound by one interpreter. SQLite's own work for a batch
(inserting rows, the full-text index, the field index, the commit) is about 40 % of the CPU a
whole-Fluid index spends outside the embedder, and a writer *thread* gains nothing: SQLite gives
the interpreter lock back at every row and waits for it again beside the busy sync thread
(docs/deployment.md). A process has its own interpreter; SQLite's WAL lets it write while the
sync's process reads.

What stays the same for the sync (the contract the tests hold it to):
- Order: the process applies writes one at a time in the order they were handed in, so a
  checkpoint lands after the documents of its batch, never before.
- Read your writes: every other call on the store waits until the writes handed in before it
  are applied (``flush``). Three reads the sync makes per batch — ``content_hashes``,
  ``chunk_embeddings`` and ``versions`` — only wait when they ask about a document or chunk still
  on its way; they ask about the batch in hand, so they rarely do.
- Failure: when a write fails, the process applies nothing more from that thread (its later
  checkpoints would claim documents that were never written) until that thread has been told:
  its next ``flush`` or write raises ``StoreError`` with the cause.
- A process that dies (killed, out of memory) loses only the writes it had not applied: each
  thread that handed one in gets ``StoreError`` at its next call, as for a failed write (its run
  fails and resumes from its last checkpoint written). The next write starts a new process, so a
  long-lived store (``devkb serve``'s scheduled syncs) does not stay broken, and a process that
  died while idle costs nothing.
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
import queue
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from devkb.errors import StoreError
from devkb.store.models import Chunk, Document, Reference, SyncState, Version

log = logging.getLogger(__name__)

_POLL_S = 0.5
_RESET = "reset"
_STOP = "stop"


def _serve(open_store: Any, path: str, inbox: Any, outbox: Any) -> None:
    """The write process: apply each message in order, answer (seq, lane, error, skipped).
    ``open_store`` is the wrapped store's class (pickled by name, imported here)."""
    store = open_store(path, text_index_min_chunks=None)
    parent = multiprocessing.parent_process()
    failed: set[int] = set()
    try:
        while True:
            try:
                raw = inbox.get(timeout=_POLL_S)
            except queue.Empty:
                if parent is not None and not parent.is_alive():
                    return  # the sync's process was killed: what it handed in is applied
                continue
            seq, lane, method, payload = pickle.loads(raw)
            if method == _STOP:
                return
            if method == _RESET:
                failed.discard(lane)
                continue
            if lane in failed:
                outbox.put((seq, lane, None, True))
                continue
            try:
                args, kwargs = payload
                getattr(store, method)(*args, **kwargs)
            except BaseException as e:  # reported to the thread that handed the write in
                failed.add(lane)
                outbox.put((seq, lane, f"{type(e).__name__}: {e}", False))
            else:
                outbox.put((seq, lane, None, False))
    finally:
        store.close()


class WriteProcess:
    """A store whose ``write_documents`` and ``save_sync_state`` are applied by a process of their
    own (see the module docstring); everything else is the wrapped store, after the writes before
    it. The process starts on the first write of documents (a checkpoint with nothing on its way
    is written here, at once) and stops with ``close``."""

    def __init__(self, store: Any, max_in_flight: int = 16) -> None:
        self.store = store
        self.path = Path(store.path)
        self.max_in_flight = max_in_flight
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._process: Any = None
        self._inbox: Any = None
        self._outbox: Any = None
        self._collector: threading.Thread | None = None
        self._sent = 0  # last sequence number handed in
        self._applied = 0  # every message up to this one is answered
        self._answered: set[int] = set()
        self._pending_docs: Counter[str] = Counter()
        self._pending_chunks: Counter[str] = Counter()
        self._keys: dict[int, tuple[list[str], list[str], int]] = {}  # seq -> docs, chunks, lane
        self._errors: dict[int, str] = {}  # lane (thread) -> the first failed write's cause
        self._closed = False
        self.deaths = 0  # processes that exited on their own (a new one starts on the next write)

    # -- the deferred writes ---------------------------------------------------------------
    def write_documents(
        self,
        items: Sequence[tuple[Document, Sequence[Chunk]]],
        references: Sequence[Reference] | None = None,
        versions: Sequence[Version] | None = None,
    ) -> None:
        if not items:
            return
        docs = [d.id for d, _ in items]
        chunks = [c.id for _, cs in items for c in cs]
        payload = (
            ([(d, list(cs)) for d, cs in items],),
            {
                "references": None if references is None else list(references),
                "versions": None if versions is None else list(versions),
            },
        )
        self._submit("write_documents", payload, docs, chunks)

    def save_sync_state(self, state: SyncState) -> None:
        with self._lock:
            if self._process is None and self._sent == self._applied and not self._closed:
                # no process and nothing on its way (a sync's first checkpoint or link hints):
                # applied here, in order all the same, instead of waiting for a process to start
                self._raise_for_lane()
                self.store.save_sync_state(state)
                return
        self._submit("save_sync_state", ((state,), {}), [], [])  # pickled now: the caller goes on changing it

    # -- reads that wait only for the writes they could see --------------------------------
    def content_hashes(self, document_ids: Sequence[str]) -> dict[str, str]:
        self._wait_if(document_ids, self._pending_docs)
        result: dict[str, str] = self.store.content_hashes(document_ids)
        return result

    def chunk_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        self._wait_if(chunk_ids, self._pending_chunks)
        result: dict[str, list[float]] = self.store.chunk_embeddings(chunk_ids)
        return result

    def versions(self, document_id: str, kinds: Sequence[str] | None = None) -> list[Version]:
        self._wait_if([document_id], self._pending_docs)
        result: list[Version] = self.store.versions(document_id, kinds)
        return result

    # -- everything else: after the writes before it -----------------------------------------
    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.store, name)
        if not callable(attr):
            return attr

        def after_writes(*args: Any, **kwargs: Any) -> Any:
            self.flush()
            return attr(*args, **kwargs)

        return after_writes

    def flush(self) -> None:
        """Wait until every write handed in so far is applied; raise the first failure of this
        thread's writes since its last flush (``StoreError``)."""
        with self._lock:
            target = self._sent
            while self._applied < target:
                self._done.wait(_POLL_S)
            self._raise_for_lane()

    def close(self) -> None:
        """Apply what was handed in, then stop the process (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            process, inbox, outbox = self._process, self._inbox, self._outbox
            target = self._sent
            while self._applied < target:
                self._done.wait(_POLL_S)
            ours = process is not None and self._process is process  # not died meanwhile
        if process is None:
            return
        try:
            if ours and process.is_alive():
                inbox.put(pickle.dumps((0, 0, _STOP, None)))
                process.join(timeout=30)
        finally:
            if process.is_alive():
                process.kill()
                process.join()
            if ours:
                for q in (inbox, outbox):
                    q.close()
                    q.join_thread()
            if self._errors:
                log.error("store writes failed and were not reported to their run: %s", self._errors)

    # -- internals ------------------------------------------------------------------------
    def _wait_if(self, keys: Sequence[str], pending: Counter[str]) -> None:
        with self._lock:
            waiting = any(k in pending for k in keys) if pending else False
            if not waiting:
                self._raise_for_lane()
                return
        self.flush()

    def _raise_for_lane(self) -> None:
        """Under the lock: raise this thread's failed write (and let the process take its writes
        again)."""
        lane = threading.get_ident()
        cause = self._errors.pop(lane, None)
        if cause is not None:
            if self._process is not None:
                self._send(0, lane, _RESET, None)
            raise StoreError(f"writing to the store at {self.path} failed: {cause}")

    def _submit(self, method: str, payload: object, docs: list[str], chunks: list[str]) -> None:
        with self._lock:
            if self._closed:
                raise StoreError(f"the store at {self.path} is closed")
            while True:
                self._raise_for_lane()
                if self._process is None:
                    self._start()
                if self._sent - self._applied < self.max_in_flight:
                    break
                self._done.wait(_POLL_S)  # the process is behind: let it catch up (bounded memory)
            self._sent += 1
            seq = self._sent
            self._keys[seq] = (docs, chunks, threading.get_ident())
            self._pending_docs.update(docs)
            self._pending_chunks.update(chunks)
            self._send(seq, threading.get_ident(), method, payload)

    def _send(self, seq: int, lane: int, method: str, payload: object) -> None:
        self._inbox.put(pickle.dumps((seq, lane, method, payload), protocol=pickle.HIGHEST_PROTOCOL))

    def _start(self) -> None:
        """Under the lock: a new process, and a thread taking its answers."""
        ctx = multiprocessing.get_context(
            "spawn"
        )  # no fork: the caller's threads and connections stay its own
        self._inbox, self._outbox = ctx.Queue(), ctx.Queue()
        self._process = ctx.Process(
            target=_serve,
            args=(type(self.store), str(self.path), self._inbox, self._outbox),
            name="devkb-store-writes",
            daemon=True,
        )
        self._process.start()
        self._collector = threading.Thread(
            target=self._collect,
            args=(self._process, self._inbox, self._outbox),
            name="devkb-store-write-answers",
            daemon=True,
        )
        self._collector.start()

    def _collect(self, process: Any, inbox: Any, outbox: Any) -> None:
        """Take the process's answers; notice when it dies."""
        while True:
            try:
                seq, lane, error, skipped = outbox.get(timeout=_POLL_S)
            except queue.Empty:
                if process.is_alive():
                    continue
                self._died(process, inbox, outbox)
                return
            except (EOFError, OSError, ValueError):  # closed
                return
            with self._lock:
                docs, chunks, _ = self._keys.pop(seq, ([], [], 0))
                _forget(self._pending_docs, docs)
                _forget(self._pending_chunks, chunks)
                if error is not None:
                    self._errors.setdefault(lane, error)
                    log.error("store write failed: %s", error)
                elif skipped:
                    log.debug("store write %d skipped after an earlier failure of its thread", seq)
                self._answered.add(seq)
                while self._applied + 1 in self._answered:
                    self._applied += 1
                    self._answered.discard(self._applied)
                self._done.notify_all()

    def _died(self, process: Any, inbox: Any, outbox: Any) -> None:
        """The process exited on its own (killed, out of memory): every write it had not applied
        is an error for the thread that handed it in; the next write starts a new process."""
        with self._lock:
            if self._process is not process:
                return
            lost = list(self._keys.values())  # every write not answered yet
            if lost or not self._closed:
                log.error(
                    "the process writing the store at %s exited (code %s) with %d writes not applied",
                    self.path,
                    process.exitcode,
                    len(lost),
                )
            cause = (
                f"the process writing the store at {self.path} exited (code {process.exitcode}) "
                f"before applying this run's writes; run the sync again"
            )
            for _, _, lane in lost:
                self._errors.setdefault(lane, cause)
            self._pending_docs.clear()
            self._pending_chunks.clear()
            self._keys.clear()
            self._answered.clear()
            self._applied = self._sent
            self._process = None
            if not self._closed:
                self.deaths += 1
            self._done.notify_all()
        for q in (inbox, outbox):  # nobody reads them any more: do not wait for their buffers
            q.cancel_join_thread()
            q.close()


def _forget(pending: Counter[str], keys: list[str]) -> None:
    for k in keys:
        left = pending[k] - 1
        if left > 0:
            pending[k] = left
        else:
            del pending[k]
