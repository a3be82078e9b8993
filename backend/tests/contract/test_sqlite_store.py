"""The contract suite on the embedded SQLite backend, plus its own durability behaviour."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from devkb.store.sqlite import SQLiteGraphStore
from tests.contract.store_contract import (
    DIM,
    GraphStoreContract,
    HistoryContract,
    ScopedReadsContract,
    chunks,
    doc,
    seed,
)


@pytest.fixture
def store(tmp_path):
    s = SQLiteGraphStore(tmp_path / "graph.sqlite")
    yield s
    s.close()


class TestSQLiteGraphStore(GraphStoreContract, HistoryContract, ScopedReadsContract):
    pass


class TestSQLiteGraphStoreApproximateVectors(GraphStoreContract, ScopedReadsContract):
    """The same contract with the inverted file on from the first chunk (it is built in the
    background, so a search runs on whichever path is ready: both must answer the same)."""

    @pytest.fixture
    def store(self, tmp_path):
        s = SQLiteGraphStore(tmp_path / "graph.sqlite", vector_approx_min_chunks=1)
        yield s
        s.close()


def test_reopen_persists(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite")
    seed(s)
    s.close()
    again = SQLiteGraphStore(tmp_path / "g.sqlite")
    assert again.stats().chunks == 5
    assert again.vector_search([1, 0, 0, 0], top_k=1)[0].document.id == "jira:PAY-1"


def test_failed_batch_rolls_back(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite")
    seed(s)
    a = doc("jira:PAY-1", title="changed")
    bad = chunks(a, ("x", [1, 0, 0, 0]))
    dup = bad + bad  # duplicate chunk id violates uniqueness mid-batch
    with pytest.raises(sqlite3.IntegrityError):
        s.write_documents([(a, dup)])
    got = s.get_document("jira:PAY-1")
    assert got.document.title == "Ledger drift" and len(got.chunks) == 2


def test_second_connection_sees_writes_in_vector_index(tmp_path):
    writer = SQLiteGraphStore(tmp_path / "g.sqlite")
    reader = SQLiteGraphStore(tmp_path / "g.sqlite")
    seed(writer)
    assert reader.vector_search([0, 0, 1, 0], top_k=1)[0].document.id == "confluence:page:10"
    writer.delete_documents(["confluence:page:10"])
    assert all(h.document.id != "confluence:page:10" for h in reader.vector_search([0, 0, 1, 0], top_k=5))


def test_reads_while_writing_from_threads(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite")
    s.ensure_schema("test-model", DIM)
    errors: list[BaseException] = []

    def write():
        try:
            for i in range(50):
                d = doc(f"jira:T-{i}")
                s.write_documents([(d, chunks(d, (f"text {i}", [1, i, 0, 0])))])
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=write)
    t.start()
    while t.is_alive():
        s.vector_search([1, 0, 0, 0], top_k=3)
        s.keyword_search("text")
    t.join()
    assert not errors
    assert s.stats().documents == 50


def test_connections_of_finished_threads_are_closed(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite")
    seed(s)
    for _ in range(20):
        t = threading.Thread(target=lambda: s.keyword_search("ledger"))
        t.start()
        t.join()
    s.keyword_search("ledger")  # a new connection in a live thread prunes the dead ones
    assert len(s._connections) <= 3


def test_paged_incremental_index_matches_brute_force(tmp_path, monkeypatch):
    """The vector index loads in pages, appends new rows, masks deleted ones and compacts; after
    each step its ranking equals a brute-force cosine ranking of what the store holds."""
    import numpy as np

    from devkb.store.models import Chunk
    from devkb.store.sqlite import vector_index

    monkeypatch.setattr(vector_index, "PAGE_ROWS", 3)
    rng = np.random.default_rng(0)
    writer = SQLiteGraphStore(tmp_path / "g.sqlite")
    writer.ensure_schema("test-model", DIM)
    reader = SQLiteGraphStore(tmp_path / "g.sqlite")
    held: dict[str, np.ndarray] = {}

    def add(ids):
        items = []
        for i in ids:
            d = doc(f"jira:PAY-{i}")
            v = rng.standard_normal(DIM).astype(np.float32)
            held[d.id] = v / np.linalg.norm(v)
            items.append((d, [Chunk(Chunk.make_id(d.id, 0, "t"), d.id, 0, "t", embedding=(3 * v).tolist())]))
        writer.write_documents(items)

    def check():
        q = rng.standard_normal(DIM)
        got = [h.document.id for h in reader.vector_search(q.tolist(), top_k=len(held))]
        want = sorted(held, key=lambda i: -float(held[i] @ (q / np.linalg.norm(q))))
        assert got == want

    add(range(10))  # four pages
    check()
    writer.delete_documents([f"jira:PAY-{i}" for i in (1, 4)])
    for i in (1, 4):
        del held[f"jira:PAY-{i}"]
    check()
    add(range(10, 17))  # appended, more than one page
    check()
    gone = [f"jira:PAY-{i}" for i in (0, 2, 3, 5, 6)]  # over a quarter dead: compacts
    writer.delete_documents(gone)
    for i in gone:
        del held[i]
    check()
    add([0, 2])  # ids come back with new rows
    check()
