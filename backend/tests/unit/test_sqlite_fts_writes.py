"""New chunks enter the embedded store's FTS5 index from ``write_documents`` (after the
transaction's other statements), not from a row trigger — checked with FTS5's own
``integrity-check`` against the content table, which fails on a missing, extra or doubled row.
Stores written before keep working: opening one drops the old trigger, and while a process of an
earlier version has re-created it, the trigger indexes and ``write_documents`` does not."""

from __future__ import annotations

import sqlite3

import pytest

from devkb.store.models import Chunk, Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb.store.sqlite.schema import FTS_INSERT_TRIGGER

OLD_TRIGGER = f"""CREATE TRIGGER {FTS_INSERT_TRIGGER} AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, content) VALUES (new.rowid, new.content);
END"""


def doc(i: int, *texts: str, hash_: str = "") -> tuple[Document, list[Chunk]]:
    did = f"jira:T-{i}"
    document = Document(
        id=did,
        type=SourceType.JIRA,
        title=did,
        url="",
        updated_at="2026-01-01",
        content_hash=hash_ or f"h{i}",
        metadata={"key": f"T-{i}"},
        source="jira",
    )
    chunks = [
        Chunk(id=Chunk.make_id(did, k, t), document_id=did, chunk_index=k, content=t, embedding=[0.0] * 4)
        for k, t in enumerate(texts)
    ]
    return document, chunks


def check(path) -> None:
    """FTS5 compares its index with the content table (rank 1): raises on any difference."""
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")


def found(store: SQLiteGraphStore, word: str) -> list[str]:
    return sorted({h.document.id for h in store.keyword_search(word, 50)})


def has_trigger(path) -> bool:
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?", (FTS_INSERT_TRIGGER,)
        ).fetchone()
    return row is not None


@pytest.fixture
def store(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite", text_index_min_chunks=None)
    s.ensure_schema("m", 4)
    yield s
    s.close()


def test_new_rewritten_and_deleted_chunks_keep_the_index_exact(store, tmp_path):
    assert not has_trigger(tmp_path / "g.sqlite")
    store.write_documents([doc(1, "zebra crossing", "yak shaving"), doc(2, "zebra stripes")])
    check(tmp_path / "g.sqlite")
    assert found(store, "zebra") == ["jira:T-1", "jira:T-2"]
    assert found(store, "yak") == ["jira:T-1"]
    store.write_documents([doc(1, "walrus tusk", hash_="h1b")])  # rewritten: old chunks unindexed
    check(tmp_path / "g.sqlite")
    assert found(store, "yak") == [] and found(store, "walrus") == ["jira:T-1"]
    assert found(store, "zebra") == ["jira:T-2"]
    store.delete_documents(["jira:T-2"])
    check(tmp_path / "g.sqlite")
    assert found(store, "zebra") == []


def test_a_document_twice_in_one_batch_is_indexed_once_as_its_last_version(store, tmp_path):
    store.write_documents([doc(1, "first draft"), doc(2, "other"), doc(1, "second draft", hash_="b")])
    check(tmp_path / "g.sqlite")
    assert found(store, "first") == [] and found(store, "second") == ["jira:T-1"]


def test_documents_without_chunks_and_a_failed_batch_leave_the_index_exact(store, tmp_path):
    store.write_documents([doc(1), doc(2, "kept text")])
    check(tmp_path / "g.sqlite")
    first, _ = doc(3, "never written")
    clash = [*doc(3, "never written")[1], *doc(3, "never written")[1]]  # one chunk id twice
    with pytest.raises(sqlite3.IntegrityError):
        store.write_documents([doc(4, "also rolled back"), (first, clash)])
    check(tmp_path / "g.sqlite")
    assert found(store, "rolled") == [] and found(store, "kept") == ["jira:T-2"]


def test_a_store_written_with_the_old_trigger_loses_it_when_opened(tmp_path):
    path = tmp_path / "g.sqlite"
    old = SQLiteGraphStore(path, text_index_min_chunks=None)
    old.ensure_schema("m", 4)
    with sqlite3.connect(path) as conn:
        conn.execute(OLD_TRIGGER)
    old.write_documents([doc(1, "indexed by the trigger")])  # as the earlier version did
    old.close()
    check(path)
    reopened = SQLiteGraphStore(path, text_index_min_chunks=None)
    try:
        assert not has_trigger(path)
        reopened.write_documents([doc(2, "indexed by the store")])
        check(path)
        assert found(reopened, "indexed") == ["jira:T-1", "jira:T-2"]
    finally:
        reopened.close()


def test_while_an_earlier_version_has_recreated_the_trigger_nothing_is_indexed_twice(store, tmp_path):
    path = tmp_path / "g.sqlite"
    with sqlite3.connect(path) as conn:  # an earlier version's process opened the store meanwhile
        conn.execute(OLD_TRIGGER)
    store.write_documents([doc(1, "only once"), doc(2, "only once again")])
    check(path)
    hits = store.keyword_search("once", 50)
    assert len(hits) == 2
