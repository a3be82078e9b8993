"""The embedded store's writes in a process of their own (``store/sqlite/write_process.py``): a
real spawned process writing a real SQLite file while the caller goes on. Held to the contract
the sync relies on: order, reading one's own writes, a failed write stopping its thread's later
checkpoints (never a checkpoint past documents that were not written), a dead process's lost
writes reported to their thread and the process replaced, and a sync that fails on a write
resuming from the last batch that was written."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from devkb.errors import StoreError
from devkb.sources.base import LoadBatch, SourceDocument
from devkb.store.models import Chunk, Document, Reference, SourceType, SyncState
from devkb.store.sqlite import SQLiteGraphStore
from devkb.store.sqlite.write_process import WriteProcess
from tests.support import build_indexer

pytestmark = pytest.mark.integration

REFUSE = (
    "CREATE TRIGGER refuse_bad BEFORE INSERT ON documents WHEN new.id LIKE '%bad%' "
    "BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END"
)


def doc(doc_id: str, text: str = "text") -> tuple[Document, list[Chunk]]:
    d = Document(id=doc_id, type=SourceType.JIRA, title=doc_id, content_hash=f"h-{text}", source="t")
    return d, [Chunk(id=f"{doc_id}#0", document_id=doc_id, chunk_index=0, content=text, embedding=None)]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteGraphStore]:
    s = SQLiteGraphStore(tmp_path / "graph.sqlite")
    try:
        yield s
    finally:
        s.close()


def test_writes_land_in_order_and_the_writer_reads_them(store):
    wp = store.offloaded(WriteProcess)
    assert isinstance(wp, WriteProcess) and store.offloaded(WriteProcess) is wp  # one per store
    state = SyncState(source="t", cursor="after-a")
    wp.write_documents([doc("t:a", "one")])
    wp.save_sync_state(state)
    state.cursor = "changed after it was handed in"  # the checkpoint is what it was when saved
    wp.write_documents([doc("t:a", "two"), doc("t:b")])
    assert wp.content_hashes(["t:a", "t:b"]) == {"t:a": "h-two", "t:b": "h-text"}  # waits for them
    assert wp.get_sync_state("t").cursor == "after-a"
    wp.flush()
    assert store.get_document("t:a").chunks[0].content == "two"  # the caller's own connection sees it


def test_a_checkpoint_with_nothing_on_its_way_is_written_without_waiting_for_a_process(store):
    """A sync's first store writes are small (its link hints, a checkpoint): with no process
    running and nothing handed in, they are applied at once instead of waiting for a process to
    start; once documents are on their way, checkpoints follow them through the process."""
    wp = store.offloaded(WriteProcess)
    wp.save_sync_state(SyncState(source="t", cursor="first"))
    assert wp._process is None and store.get_sync_state("t").cursor == "first"
    wp.write_documents([doc("t:a")])
    assert wp._process is not None
    wp.save_sync_state(SyncState(source="t", cursor="after-a"))  # behind t:a, never before it
    assert wp.get_sync_state("t").cursor == "after-a" and "t:a" in store.document_ids()


def test_a_failed_write_stops_its_threads_later_checkpoints_until_it_is_reported(store):
    store._conn().execute(REFUSE)
    wp = store.offloaded(WriteProcess)
    wp.write_documents([doc("t:a")])
    wp.save_sync_state(SyncState(source="t", cursor="1"))
    wp.write_documents([doc("t:bad")])
    wp.save_sync_state(SyncState(source="t", cursor="2"))  # claims t:bad: must not land
    wp.write_documents([doc("t:c")])

    failures: list[str] = []

    def other_thread() -> None:  # another run's writes are its own business
        wp.write_documents([doc("t:other")])
        wp.flush()

    t = threading.Thread(target=other_thread)
    t.start()
    t.join(30)

    with pytest.raises(StoreError, match="refused by the test trigger") as e:
        wp.flush()
    failures.append(str(e.value))
    assert store.get_sync_state("t").cursor == "1"
    assert store.document_ids() == {"t:a", "t:other"}
    wp.flush()  # reported once; the thread writes again
    wp.write_documents([doc("t:c")])
    wp.save_sync_state(SyncState(source="t", cursor="3"))
    wp.flush()
    assert store.get_sync_state("t").cursor == "3" and "t:c" in store.document_ids()
    assert len(failures) == 1


def test_a_write_that_fails_its_own_check_is_reported_to_the_next_write(store):
    wp = store.offloaded(WriteProcess)
    stray = Reference(from_id="t:x", to_id="t:y", kind="mentions", owner_id="t:x")
    wp.write_documents([doc("t:a")], references=[stray])  # its owner is not in the batch
    with pytest.raises(StoreError, match="not in owner_ids"):
        for _ in range(200):  # the failure surfaces at the next call of this thread
            wp.save_sync_state(SyncState(source="t", cursor="never"))
            wp.flush()
    assert store.get_sync_state("t") is None


def test_a_write_process_that_died_while_idle_is_replaced_by_the_next_write(store):
    """A long-lived store (``devkb serve``'s scheduled syncs) whose write process was killed between
    syncs: nothing was lost, so the next write starts a new process and nobody gets an error."""
    wp = store.offloaded(WriteProcess)
    wp.write_documents([doc("t:a")])
    wp.flush()
    first = wp._process
    first.kill()
    first.join()
    time.sleep(1.2)  # the answer thread notices (it polls every 0.5 s)
    wp.write_documents([doc("t:b")])
    wp.save_sync_state(SyncState(source="t", cursor="b"))
    wp.flush()
    assert wp._process is not first and wp._process.is_alive()
    assert wp.deaths == 1
    assert store.document_ids() == {"t:a", "t:b"} and store.get_sync_state("t").cursor == "b"


def test_writes_lost_with_their_process_are_an_error_for_their_thread_only(store):
    """Killed with writes not yet applied (held back by stopping the process first): the thread
    that handed them in gets an error naming the exit, its checkpoint never lands, another thread
    goes on, and the next write of either starts a new process."""
    wp = store.offloaded(WriteProcess)
    wp.write_documents([doc("t:a")])
    wp.save_sync_state(SyncState(source="t", cursor="a"))
    wp.flush()
    first = wp._process
    os.kill(first.pid, signal.SIGSTOP)
    wp.write_documents([doc("t:b")])
    wp.save_sync_state(SyncState(source="t", cursor="b"))  # claims t:b, which is never written
    os.kill(first.pid, signal.SIGKILL)
    first.join()

    others: list[BaseException | None] = []

    def other_thread() -> None:  # handed nothing in to the dead process
        try:
            wp.write_documents([doc("t:other")])
            wp.flush()
            others.append(None)
        except BaseException as e:
            others.append(e)

    with pytest.raises(StoreError, match="exited"):
        wp.flush()
    t = threading.Thread(target=other_thread)
    t.start()
    t.join(60)
    assert others == [None]
    assert store.get_sync_state("t").cursor == "a"
    assert store.document_ids() == {"t:a", "t:other"}
    wp.write_documents([doc("t:b")])  # reported once; this thread writes again
    wp.save_sync_state(SyncState(source="t", cursor="b"))
    wp.flush()
    assert store.get_sync_state("t").cursor == "b" and wp.deaths == 1


def test_closing_the_store_applies_what_was_handed_in(tmp_path):
    path = tmp_path / "graph.sqlite"
    s = SQLiteGraphStore(path)
    wp = s.offloaded(WriteProcess)
    for i in range(40):
        wp.write_documents([doc(f"t:{i}")])
    s.close()
    reopened = SQLiteGraphStore(path)
    try:
        assert len(reopened.document_ids()) == 40
    finally:
        reopened.close()


class Batches:
    """A source of three batches of three documents; the second batch holds one the store refuses."""

    name = "t"
    type = SourceType.JIRA

    def __init__(self, bad: bool) -> None:
        self.bad = bad
        self.loaded_since: list[str | None] = []

    def documents(self, n: int) -> list[SourceDocument]:
        ids = [f"t:{n}-{i}" for i in range(3)]
        if self.bad and n == 2:
            ids[1] = "t:2-bad"
        return [
            SourceDocument(
                id=i, type=SourceType.JIRA, kind="issue", title=i, url="", updated_at="", content=f"{i} body"
            )
            for i in ids
        ]

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        self.loaded_since.append(since)
        start = int(since or 0) + 1
        for n in range(start, 4):
            yield LoadBatch(self.documents(n), cursor=str(n))

    def list_ids(self) -> set[str]:
        return {d.id for n in range(1, 4) for d in self.documents(n)}

    def describe(self) -> dict[str, object]:
        return {}


def test_a_sync_whose_write_fails_resumes_from_the_last_batch_written(tmp_path, embedder):
    """The run goes on to batch 3 while batch 2 is being written; batch 2's write fails. The run
    fails, the stored checkpoint is batch 1's (not the one the run had reached), batch 3 is not
    written, and the next run reads again from batch 1's cursor."""
    source = Batches(bad=True)
    idx = build_indexer(tmp_path, embedder, [source])
    try:
        assert isinstance(idx.sync.store, WriteProcess)
        idx.store._conn().execute(REFUSE)
        with pytest.raises(Exception, match="refused by the test trigger"):  # as it surfaces: in
            idx.runs.run("t")  # the next batch's write (Haystack wraps it) or after the last
        state = idx.store.get_sync_state("t")
        assert state.cursor == "1" and "refused" in (state.last_error or "")
        assert idx.store.document_ids(source="t") == {"t:1-0", "t:1-1", "t:1-2"}

        idx.store._conn().execute("DROP TRIGGER refuse_bad")
        source.bad = False
        assert idx.runs.run("t").state == "succeeded"
        assert source.loaded_since[-1] == "1"
        assert idx.store.document_ids(source="t") == source.list_ids()
        assert idx.store.get_sync_state("t").last_error is None
    finally:
        idx.close()


KILLED = """
import os, signal, sys
from devkb.store.models import Chunk, Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb.store.sqlite.write_process import WriteProcess

wp = SQLiteGraphStore(sys.argv[1]).offloaded(WriteProcess)
for i in range(20):
    d = Document(id=f"t:{i}", type=SourceType.JIRA, title="t", content_hash="h", source="t")
    wp.write_documents([(d, [Chunk(id=f"t:{i}#0", document_id=d.id, chunk_index=0, content="x", embedding=None)])])
wp.flush()
print(wp._process.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_sync_process_leaves_no_write_process_behind(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "graph.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr
    writer = int(done.stdout.split()[0])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{writer}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":  # exited; its new parent has not reaped it yet
            break
        time.sleep(0.1)
    else:
        os.kill(writer, 9)
        pytest.fail("the write process outlived the process that started it")
    reopened = SQLiteGraphStore(path)
    try:
        assert len(reopened.document_ids()) == 20
    finally:
        reopened.close()
