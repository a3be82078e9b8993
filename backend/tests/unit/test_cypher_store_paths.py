"""Every statement ``Neo4jGraphStore`` sends is one the offline Cypher check lints.

No Neo4j server can run here, so a recording double stands in for the driver (the same three
entry points the store uses: ``execute_query``, ``session().execute_write`` and
``verify_connectivity``). It answers with canned rows only where the store needs one to go on;
the contract suite (``tests/contract/test_neo4j_store.py``) covers behaviour against a server.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from devkb.errors import SchemaMismatchError
from devkb.store.models import FIND_FIELDS, Chunk, Document, Reference, SourceType, SyncState, Version
from devkb.store.neo4j import Neo4jGraphStore
from devkb.store.neo4j import queries as q
from devkb.store.neo4j.shared_state import Neo4jSharedState
from devkb.store.shared_state import ConversationMessage, Gap, SyncRunRecord
from tests.unit.test_cypher_lint import gather_statements


class _Record:
    def __init__(self, row: dict[str, Any]) -> None:
        self._row = row

    def data(self) -> dict[str, Any]:
        return dict(self._row)


@dataclass
class _Eager:
    records: list[_Record]


class _Run:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self._rows = rows

    def data(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._rows]


@dataclass
class RecordingDriver:
    answers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    sent: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    execute_query_bookmark_manager: object = field(default_factory=object)
    sessions: list[str] = field(default_factory=list)

    def _answer(self, text: str, params: dict[str, Any], how: str) -> list[dict[str, Any]]:
        assert set(q._PARAM.findall(text)) == set(params), text
        self.sent.append((text, params, how))
        for prefix, rows in self.answers.items():
            if text.startswith(prefix):
                return rows
        return [{"n": 0}] if "AS n" in text else []

    def execute_query(self, text, params, routing_, database_):
        assert database_ == "kb"
        return _Eager([_Record(r) for r in self._answer(text, params, str(routing_.value))])

    def session(self, database, bookmark_manager):
        assert database == "kb" and bookmark_manager is self.execute_query_bookmark_manager
        self.sessions.append(database)
        driver = self

        class Tx:
            def run(self, text, params):
                return _Run(driver._answer(text, params, "tx"))

        class Session:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def execute_write(self, work):
                return work(Tx())

        return Session()

    def verify_connectivity(self) -> None:
        pass


DOC = Document("jira:PAY-1", SourceType.JIRA, "Ledger", metadata={"status": "Open", "component": ["a", "B"]})
DOC_PROPS = {
    "id": DOC.id,
    "type": "JIRA",
    "title": "Ledger",
    "url": "",
    "updated_at": "",
    "content_hash": "",
    "source": "",
    "metadata": '{"status": "Open"}',
}
CONVERSATION = {"id": "c1", "owner": "ann", "title": "", "created_at": 1.0, "updated_at": 2.0, "n": 0}
RUN = {"id": "r1", "source": "jira", "state": "running", "instance": "a", "updated_at": 8.0, "status": "{}"}
VERSION = {"document_id": DOC.id, "kind": "page", "seq": 1, "valid_from": "2026-01-01T00:00:00+00:00"}
CHUNK = {"id": "c1", "document_id": DOC.id, "chunk_index": 0, "content": "ledger", "section": ""}


def _exercise(store: Neo4jGraphStore) -> None:
    store.verify("m", 4)
    store.ensure_schema("m", 4)
    store.reset_embedding_model()
    chunks = [Chunk("c1", DOC.id, 0, "ledger", [1.0, 0, 0, 0]), Chunk("c2", DOC.id, 1, "no vector")]
    store.write_documents([(DOC, chunks)])
    store.write_documents([(DOC, chunks)], [Reference(DOC.id, "jira:PAY-2", "link", "e", DOC.id)])
    store.write_references([DOC.id], [Reference(DOC.id, "jira:PAY-2", "link", "e", DOC.id)])
    store.delete_documents([DOC.id, "x"])
    store.get_document(DOC.id)
    store.get_documents([DOC.id])
    store.content_hashes([DOC.id])
    store.chunk_embeddings(["c1"])
    for source in (None, "jira"):
        for type_ in (None, SourceType.JIRA):
            store.document_ids(source, type_)
    emb = [1.0, 0, 0, 0]
    store.vector_search(emb, 3)
    store.vector_search(emb, 3, types=[SourceType.JIRA])  # falls back to the exact scan
    store.vector_search(emb, 3, document_ids=[DOC.id])
    store.vector_search(emb, 3, types=[SourceType.JIRA], document_ids=[DOC.id])
    for types in (None, [SourceType.JIRA]):
        for ids in (None, [DOC.id]):
            store.keyword_search("ledger drift", 3, types, ids)
    for direction in ("out", "in", "both"):
        for kinds in (None, ["link"]):
            for types in (None, [SourceType.JIRA]):
                store.neighbors([DOC.id], direction, kinds, types)
    for filters, types, title, since, until in itertools.product((False, True), repeat=5):
        store.find_documents(
            {"status": "open"} if filters else None,
            [SourceType.JIRA] if types else None,
            "led" if title else None,
            "2026" if since else None,
            "2027" if until else None,
        )
    for f in FIND_FIELDS:
        store.find_documents({f: "x"})
        store.find_documents({f: "x"}, [SourceType.JIRA])
    store.find_documents({f: ["a", "b"] for f in FIND_FIELDS}, [SourceType.JIRA], "t", "2026", "2027")
    for types in (None, [SourceType.JIRA]):
        for kinds in (None, ["link"]):
            store.graph_page(10, types, kinds)
            store.graph_page(10, types, kinds, around=[DOC.id])
    store.references()
    store.all_references()
    store.stats()
    page = Version(DOC.id, "page", 1, "2026-01-01T00:00:00+00:00", body="b")
    store.write_documents([(DOC, [])], versions=[page])
    store.versions(DOC.id)
    store.versions(DOC.id, ["page"])
    store.get_version(DOC.id, "page", 1)
    store.latest_versions([DOC.id], "page")
    store.changes_between("", "2027", [SourceType.JIRA], [DOC.id], 5)
    store.save_sync_state(SyncState("jira", cursor="c"))
    store.get_sync_state("jira")
    store.list_sync_states()
    _exercise_shared_state(Neo4jSharedState(store))


def _exercise_shared_state(shared: Neo4jSharedState) -> None:
    """Conversations, leases and sync runs of replicas (``store/shared_state.py``)."""
    shared.create_conversation("c1", "ann", "", 1.0)
    shared.conversation("c1")
    shared.touch_conversation("c1", 2.0)
    message = ConversationMessage("assistant", "a", "t", ({"document_id": DOC.id},))
    shared.append_message("c1", message, 3.0, keep_last=10)
    shared.messages("c1")
    shared.messages("c1", last=2)
    shared.clear_conversation("c1", 4.0)
    shared.list_conversations("ann")
    shared.rename_conversation("c1", "t", 5.0)
    shared.delete_conversation("c1")
    shared.expire_conversations(6.0)
    shared.conversation_count()
    shared.acquire_lease("scheduler", "a", 10.0, 7.0)
    shared.lease("scheduler")
    shared.release_lease("scheduler", "a")
    shared.save_run(SyncRunRecord("r1", "jira", "running", "a", 8.0, {"id": "r1"}))
    shared.get_run("r1")
    shared.runs()
    shared.runs("jira")
    shared.record_gap(Gap("g1", "not_found", "q", ("q",), 0.5, (DOC.id,), 9.0))
    shared.gaps()
    shared.expire_gaps(10.0)


def _answers() -> dict[str, list[dict[str, Any]]]:
    return {
        q.CLAIM_META.text: [{"model": "m", "dimension": 4}],
        q.GET_DOCUMENT.text: [{"doc": DOC_PROPS, "chunks": [CHUNK]}],
        q.GET_DOCUMENTS.text: [{"doc": DOC_PROPS}],
        "MATCH (d:Document) WITH d, COUNT": [{"doc": DOC_PROPS}],
        "UNWIND $ids AS id MATCH (s:Document {id: id})": [
            {
                "doc": {**DOC_PROPS, "id": "jira:PAY-2"},
                "kind": "link",
                "evidence": "",
                "direction": "out",
                "via": DOC.id,
            }
        ],
        "CALL db.index.vector.queryNodes": [{"chunk": CHUNK, "doc": DOC_PROPS, "score": 0.75}],
        q.STATS_DOCUMENTS.text: [{"type": "JIRA", "n": 1}],
        q.DELETE_OWNED_REFERENCES.text: [{"stub_ids": ["jira:PAY-2"]}],
        q.STATS_REFERENCES.text: [],
        q.LOCK_CONVERSATION.text: [{"seq": 1}],
        q.GET_CONVERSATION.text: [CONVERSATION],
        q.LIST_CONVERSATIONS.text: [CONVERSATION],
        q.GET_LEASE.text: [{"name": "scheduler", "holder": "a", "expires_at": 17.0}],
        q.GET_RUN.text: [RUN],
        q.LIST_RUNS.text: [RUN],
        q.VERSIONS_OF.text: [{"v": VERSION}],
        q.GET_VERSION.text: [{"v": VERSION}],
        q.LATEST_VERSIONS.text: [{"id": DOC.id, "seq": 1}],
        q.CHANGES_BETWEEN.text: [{"v": VERSION}],
        q.LIST_GAPS.text: [
            {
                "id": "g1",
                "kind": "not_found",
                "question": "q",
                "terms": ["q"],
                "probability": None,
                "document_ids": [DOC.id],
                "at": 9.0,
            }
        ],
        q.GET_MESSAGES.text: [{"role": "user", "content": "q", "timestamp": "t", "sources": "[]"}],
    }


def test_store_sends_only_linted_statements():
    driver = RecordingDriver(_answers())
    _exercise(Neo4jGraphStore(driver, database="kb"))  # type: ignore[arg-type]
    linted = {s.text for s in gather_statements().values()}
    sent = {text for text, _, _ in driver.sent}
    assert sent - linted == set(), "statements the lint check does not gather"
    # and the lint check gathers nothing the store cannot send (besides the test-only wipe)
    assert linted - sent - {q.WIPE_BATCH.text} == set()


def test_writes_go_through_managed_transactions_and_reads_route_to_readers():
    driver = RecordingDriver(_answers())
    store = Neo4jGraphStore(driver, database="kb")  # type: ignore[arg-type]
    store.write_documents([(DOC, [Chunk("c1", DOC.id, 0, "ledger", [1.0, 0, 0, 0])])])
    store.get_document(DOC.id)
    how = {text.split()[0] + " " + text.split()[1]: h for text, _, h in driver.sent}
    assert how["UNWIND $rows"] == "tx" and how["MATCH (d:Document"] == "r"
    rows = next(p["rows"] for t, p, _ in driver.sent if t == q.UPSERT_DOCUMENTS.text)
    assert rows[0]["meta_status"] == ["open"] and rows[0]["meta_component"] == ["a", "b"]
    assert "component" in rows[0]["metadata"]


def test_vector_scores_are_cosine_and_rare_types_fall_back_to_exact():
    driver = RecordingDriver(_answers())
    store = Neo4jGraphStore(driver, database="kb")  # type: ignore[arg-type]
    hits = store.vector_search([1.0, 0, 0, 0], top_k=1)
    assert hits[0].score == pytest.approx(0.5)  # Neo4j's (1 + cos) / 2 = 0.75
    driver.sent.clear()
    store.vector_search([1.0, 0, 0, 0], top_k=5, types=[SourceType.JIRA])
    assert [t.split()[0] for t, _, _ in driver.sent] == ["CALL", "MATCH"]
    assert store.vector_search([0.0, 0, 0, 0]) == [] and store.vector_search([1.0], document_ids=[]) == []


def test_recorded_model_mismatch_is_reported_before_any_schema_change():
    driver = RecordingDriver({q.GET_META.text: [{"model": "other", "dimension": 4}]})
    store = Neo4jGraphStore(driver, database="kb")  # type: ignore[arg-type]
    with pytest.raises(SchemaMismatchError, match="re-embed"):
        store.ensure_schema("m", 4)
    assert not any(t.startswith("CREATE") for t, _, _ in driver.sent)


def test_vector_index_dimension_mismatch():
    index = {"type": "VECTOR", "state": "ONLINE", "options": {"indexConfig": {"vector.dimensions": 384}}}
    driver = RecordingDriver({q.SHOW_INDEX.text: [index]})
    store = Neo4jGraphStore(driver, database="kb")  # type: ignore[arg-type]
    with pytest.raises(SchemaMismatchError, match="384-d"):
        store.verify("m", 768)
    store.verify("m", 384)


def test_a_message_is_appended_in_one_transaction_that_locks_its_conversation_first():
    driver = RecordingDriver(_answers())
    shared = Neo4jSharedState(Neo4jGraphStore(driver, database="kb"))  # type: ignore[arg-type]
    shared.append_message("c1", ConversationMessage("user", "q", "t"), 3.0, keep_last=10)
    assert [(t, h) for t, _, h in driver.sent] == [
        (q.LOCK_CONVERSATION.text, "tx"),
        (q.CREATE_MESSAGE.text, "tx"),
        (q.TRIM_MESSAGES.text, "tx"),
    ]
    assert driver.sent[1][1]["seq"] == 1 and driver.sent[2][1]["below"] == 1 - 10


def test_documents_and_the_edges_they_own_are_written_in_one_transaction():
    """The indexing pipeline passes ``references`` (the store protocol's signature): the Neo4j store
    used to lack the parameter and failed its first index run with ``TypeError``."""
    driver = RecordingDriver(_answers())
    store = Neo4jGraphStore(driver, database="kb")  # type: ignore[arg-type]
    edge = Reference(DOC.id, "jira:PAY-2", "link", "e", DOC.id)
    store.write_documents([(DOC, [Chunk("c1", DOC.id, 0, "ledger", [1.0, 0, 0, 0])])], [edge])
    assert {h for _, _, h in driver.sent} == {"tx"}
    assert [t for t, _, _ in driver.sent] == [
        s.text
        for s in (
            q.PROMOTE_STUBS,
            q.UPSERT_DOCUMENTS,
            q.DELETE_CHUNKS,
            q.CREATE_CHUNKS,
            q.DELETE_OWNED_REFERENCES,
            q.ENSURE_ENDPOINTS,
            q.CREATE_REFERENCES,
            q.DELETE_ORPHAN_STUBS,
        )
    ]
    assert len(driver.sessions) == 1  # one managed transaction
    rows = next(p["rows"] for t, p, _ in driver.sent if t == q.CREATE_REFERENCES.text)
    assert rows == [
        {"from_id": DOC.id, "to_id": "jira:PAY-2", "kind": "link", "evidence": "e", "owner_id": DOC.id}
    ]
    with pytest.raises(ValueError, match="not in owner_ids"):
        store.write_documents([(DOC, [])], [Reference("jira:X-1", "jira:PAY-2", "link", "e", "jira:X-1")])
