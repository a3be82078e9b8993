"""The contract suite on Neo4j, plus Neo4j-only behaviour (stubs for dangling edges, the vector
index). Runs when ``DEVKB_NEO4J_URI`` points at a server whose database may be WIPED:

    DEVKB_NEO4J_URI=neo4j://localhost:7687 DEVKB_NEO4J_USER=neo4j DEVKB_NEO4J_PASSWORD=... \\
    DEVKB_NEO4J_DATABASE=neo4j pytest -m neo4j tests/contract
"""

from __future__ import annotations

import os

import neo4j
import pytest

from devkb.errors import SchemaMismatchError
from devkb.store.models import Reference
from devkb.store.neo4j import Neo4jGraphStore
from devkb.store.neo4j import queries as q
from tests.contract.shared_state_contract import SharedStateContract
from tests.contract.store_contract import (
    DIM,
    GraphStoreContract,
    HistoryContract,
    ScopedReadsContract,
    chunks,
    doc,
    seed,
)

pytestmark = pytest.mark.neo4j

URI = os.environ.get("DEVKB_NEO4J_URI")
if not URI:
    pytest.skip(
        "Neo4j contract tests skipped: set DEVKB_NEO4J_URI (and DEVKB_NEO4J_USER, DEVKB_NEO4J_PASSWORD, "
        "DEVKB_NEO4J_DATABASE) to a server whose database may be wiped, e.g. `docker compose up -d neo4j`",
        allow_module_level=True,
    )

DATABASE = os.environ.get("DEVKB_NEO4J_DATABASE", "neo4j")


@pytest.fixture(scope="module")
def driver():
    auth = (os.environ.get("DEVKB_NEO4J_USER", "neo4j"), os.environ.get("DEVKB_NEO4J_PASSWORD", ""))
    with neo4j.GraphDatabase.driver(URI, auth=auth, max_transaction_retry_time=15) as d:
        Neo4jGraphStore(d, DATABASE).verify()
        yield d


def _wipe(driver: neo4j.Driver) -> None:
    """Empty the database and drop the vector index (its dimension belongs to the data)."""
    while True:
        records = driver.execute_query(
            q.WIPE_BATCH.text, q.WIPE_BATCH.bind({"batch": 10_000}), database_=DATABASE
        ).records
        if not records or records[0]["n"] == 0:
            break
    driver.execute_query(q.DROP_VECTOR_INDEX.text, database_=DATABASE)


@pytest.fixture
def store(driver):
    _wipe(driver)
    yield Neo4jGraphStore(driver, DATABASE)


class TestNeo4jGraphStore(GraphStoreContract, HistoryContract, ScopedReadsContract):
    pass


def test_deleted_target_becomes_a_stub_and_comes_back(store):
    seed(store)
    store.delete_documents(["jira:PAY-2"])  # PAY-1 owns PAY-1 -> PAY-2
    assert "jira:PAY-2" not in {n.document.id for n in store.neighbors(["jira:PAY-1"])}
    assert store.get_document("jira:PAY-2") is None
    assert store.find_documents({"id": "jira:PAY-2"}) == []
    d = doc("jira:PAY-2")
    store.write_documents([(d, chunks(d, ("back", [0, 1, 0, 0])))])
    assert "jira:PAY-2" in {n.document.id for n in store.neighbors(["jira:PAY-1"])}


def test_orphan_stubs_are_removed(store, driver):
    seed(store)
    store.write_references(["jira:PAY-1"], [Reference("jira:PAY-1", "jira:GONE-1", "k", "", "jira:PAY-1")])
    store.write_references(["jira:PAY-1"], [])
    records = driver.execute_query("MATCH (s:DocumentStub) RETURN count(s) AS n", database_=DATABASE).records
    assert records[0]["n"] == 0


def test_all_references_keeps_dangling_edges_and_owners(store):
    seed(store)
    store.write_references(["jira:PAY-1"], [Reference("jira:PAY-1", "jira:PAY-9", "k", "e", "jira:PAY-1")])
    assert Reference("jira:PAY-1", "jira:PAY-9", "k", "e", "jira:PAY-1") in store.all_references()
    assert all(r.to_id != "jira:PAY-9" for r in store.references())


def test_vector_index_dimension_checked_by_verify(store):
    store.ensure_schema("test-model", DIM)
    store.verify("test-model", DIM)
    with pytest.raises(SchemaMismatchError):
        store.verify("test-model", DIM + 1)


class TestNeo4jSharedState(SharedStateContract):
    @pytest.fixture
    def shared(self, store):
        from devkb.store.neo4j.shared_state import Neo4jSharedState

        store.ensure_schema("test-model", DIM)  # the shared state's constraints come with the schema
        return Neo4jSharedState(store)
