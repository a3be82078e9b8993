"""``migrate``: SQLite → SQLite copies everything a re-embed would otherwise have to recompute."""

from __future__ import annotations

import pytest

from devkb.errors import SchemaMismatchError, StoreError
from devkb.store.migrate import migrate
from devkb.store.models import Chunk, Reference, SourceType, SyncState, Version
from devkb.store.sqlite import SQLiteGraphStore
from tests.contract.store_contract import DIM, chunks, doc, seed


class RawReferencesSQLite(SQLiteGraphStore):
    """What the SQLite store would offer with ``all_references()`` (edges as stored)."""

    def all_references(self) -> list[Reference]:
        rows = self._conn().execute(
            "SELECT from_id, to_id, kind, evidence, owner_id FROM refs ORDER BY owner_id"
        )
        return [Reference(*r) for r in rows]


@pytest.fixture
def source(tmp_path):
    s = RawReferencesSQLite(tmp_path / "source.sqlite")
    seed(s)
    d = doc("jira:PAY-3", status="Open", component=["ledger"])
    s.write_documents(
        [(d, [Chunk(Chunk.make_id(d.id, 0, "no vector yet"), d.id, 0, "no vector yet", None, "intro")])],
        versions=[
            Version(d.id, "transition", 1, "2026-02-01T00:00:00+00:00", field="status", to_value="Open")
        ],
    )
    s.write_references(
        ["jira:PAY-3"], [Reference("jira:PAY-3", "jira:PAY-404", "jira-issuelink", "blocks", "jira:PAY-3")]
    )
    s.save_sync_state(SyncState("jira", cursor="2026-03-01 10:00", counts={"documents": 4}, extra={"x": [1]}))
    s.save_sync_state(SyncState("github", last_error="rate limited"))
    yield s
    s.close()


@pytest.fixture
def target(tmp_path):
    t = SQLiteGraphStore(tmp_path / "target.sqlite")
    yield t
    t.close()


def test_copies_documents_chunks_embeddings_references_and_sync_states(source, target):
    calls: list[tuple[str, int, int]] = []
    report = migrate(source, target, progress=lambda *a: calls.append(a), batch_size=2)

    assert (report.documents, report.chunks, report.chunks_without_embedding) == (5, 6, 1)
    assert report.dangling_edges_copied and report.sync_states == 2
    assert target.document_ids() == source.document_ids()
    for i in source.document_ids():
        assert target.get_document(i) == source.get_document(i)
        ids = [c.id for c in source.get_document(i).chunks]
        assert target.chunk_embeddings(ids) == source.chunk_embeddings(ids)
    assert set(target.references()) == set(source.references())
    assert target.list_sync_states() == source.list_sync_states()
    assert target.versions("jira:PAY-3") == source.versions("jira:PAY-3") != []
    s, t = source.stats(), target.stats()
    assert t == s

    # searches answer the same without re-embedding anything
    def scored(store, q):  # every chunk with a vector (ties may come in another order)
        return {(h.chunk.id, round(h.score, 6)) for h in store.vector_search(q, 10)}

    for q in ([1, 0, 0, 0], [0, 0, 1, 0], [0.7, 0, 0, 0.7]):
        assert target.vector_search(q, 1) == source.vector_search(q, 1)
        assert scored(target, q) == scored(source, q)
    assert target.keyword_search("ledger") == source.keyword_search("ledger")

    # progress: every stage starts at 0 and ends complete
    for stage, total in (("documents", 5), ("references", report.references), ("sync_states", 2)):
        seen = [(d, n) for st, d, n in calls if st == stage]
        assert seen[0] == (0, total) and seen[-1] == (total, total)
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_dangling_edge_appears_in_target_once_its_document_does(source, target):
    migrate(source, target)
    assert target.neighbors(["jira:PAY-3"]) == []
    d = doc("jira:PAY-404")
    target.write_documents([(d, chunks(d, ("found", [0, 0, 0, 1])))])
    assert [n.document.id for n in target.neighbors(["jira:PAY-3"])] == ["jira:PAY-404"]


def test_refuses_non_empty_target_and_other_embedding_model(source, target, tmp_path):
    migrate(source, target)
    with pytest.raises(StoreError, match="already holds"):
        migrate(source, target)
    other = SQLiteGraphStore(tmp_path / "other.sqlite")
    other.ensure_schema("another-model", DIM)
    with pytest.raises(SchemaMismatchError):
        migrate(source, other)
    assert other.document_ids() == set()
    other.close()


def test_empty_source(tmp_path, target):
    empty = SQLiteGraphStore(tmp_path / "empty.sqlite")
    report = migrate(empty, target)
    assert (report.documents, report.references, report.sync_states) == (0, 0, 0)
    assert target.stats().embedding_model is None
    empty.close()


def test_types_survive(source, target):
    migrate(source, target)
    assert target.document_ids(type=SourceType.CONFLUENCE) == {"confluence:page:10"}
