"""A full sync of the demo workspace and the ask path through ``Neo4jGraphStore``, wired by the
container exactly as ``DEVKB_STORE=neo4j`` wires it — with the driver provider overridden by a
recording driver. Every statement sent must be one the offline Cypher check lints (Neo4j's own
parser and semantic analysis, ``tests/unit/test_cypher_lint.py``) and carry exactly the
parameters it declares.

No Neo4j server runs here, so the recording driver answers reads with canned rows: this proves the
wiring, signatures, statements and parameters of the whole flow (the bug it guards against: the
store lacked ``write_documents``'s ``references`` and the first index run raised ``TypeError``),
not Neo4j's behaviour (``docs/neo4j.md`` says what stays unverified)."""

from __future__ import annotations

from typing import Any

import pytest
from dependency_injector import providers

from devkb.container import shutdown
from devkb.store.neo4j import Neo4jGraphStore
from devkb.store.neo4j import queries as q
from tests.demo_workspace import index_all, make_container
from tests.unit.test_cypher_lint import gather_statements
from tests.unit.test_cypher_store_paths import RecordingDriver

pytestmark = pytest.mark.integration


class FlowDriver(RecordingDriver):
    """The recording driver, for any database name and with the store's schema claim answered."""

    def __init__(self, model: str, dimension: int) -> None:
        super().__init__({q.CLAIM_META.text: [{"model": model, "dimension": dimension}]})

    def execute_query(self, text: str, params: dict[str, Any], routing_: Any, database_: str) -> Any:
        return super().execute_query(text, params, routing_, "kb")

    def session(self, database: str, bookmark_manager: Any) -> Any:
        return super().session("kb", bookmark_manager)

    def close(self) -> None:
        pass


def test_the_demo_workspace_syncs_and_answers_through_the_neo4j_store(demo_workspace, embedder, tmp_path):
    driver = FlowDriver(embedder.model_name, embedder.dimension)
    container = make_container(
        tmp_path / "data",
        demo_workspace.sources_file,
        embedder,
        store="neo4j",
        neo4j_uri="neo4j://127.0.0.1:7687",
        related_search_max_documents=0,
    )
    container.neo4j_driver.override(providers.Object(driver))
    try:
        assert isinstance(container.store(), Neo4jGraphStore)
        index_all(container)  # every source, through the pipeline and SyncWithBackfill, as in production
        answer = container.ask().ask("What is PAY-12 about, and which commits fixed PAY-7?")
        assert answer.answer
        # a question naming no identifier: the planner answers it by hybrid search (vector + text)
        answer = container.ask().ask("How are failed payment retries handled?")
        assert answer.answer
    finally:
        shutdown(container)

    sent = driver.sent  # (text, params, how); RecordingDriver checked each one's parameter names
    texts = {text for text, _, _ in sent}
    linted = {s.text for s in gather_statements().values()}
    assert texts - linted == set(), "statements the Cypher lint check does not cover"
    writes = [(t, p) for t, p, how in sent if how == "tx"]
    upserted = {row["id"] for t, p in writes if t == q.UPSERT_DOCUMENTS.text for row in p["rows"]}
    assert {"jira:PAY-12", "jira:PAY-7", "confluence:page:2000005"} <= upserted
    edges = [row for t, p in writes if t == q.CREATE_REFERENCES.text for row in p["rows"]]
    assert any(e["from_id"].startswith("github:") and e["to_id"] == "jira:PAY-7" for e in edges) or any(
        e["from_id"] == "jira:PAY-7" for e in edges
    )
    reads = {t for t, _, how in sent if how != "tx"}
    assert any(t.startswith("CALL db.index.vector.queryNodes") for t in reads)  # the ask path searched
