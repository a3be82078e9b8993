"""The four tools: allowed sources enforced by each tool itself, GraphQuery's parameter-only
lookups, neighbour expansion, keyword filtering, content rebuilt from chunks."""

from __future__ import annotations

from typing import Any

import pytest
from haystack.tools.errors import ToolInvocationError

from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.tools import Toolbox
from devkb.agent.tools.content import rebuild_content
from devkb.agent.tools.filter_docs import FilterDocs, keywords
from devkb.agent.tools.graph_query import GraphQuery
from devkb.errors import InvalidQueryError
from devkb.store.models import FIND_FIELDS, Chunk, Document, SourceType
from tests.agent_corpus import COMMIT_ID, FILE_ID, PAGE_ID, PULL_ID, SHA

JIRA, GITHUB, CONFLUENCE = SourceType.JIRA, SourceType.GITHUB, SourceType.CONFLUENCE


class LeakyStore:
    """Wraps the real store but ignores every ``types`` filter, so only the tools' own checks
    stand between a question and the sources it may not see."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def vector_search(self, embedding, top_k=10, types=None, document_ids=None):
        return self._store.vector_search(embedding, top_k, None, document_ids)

    def keyword_search(self, query, top_k=10, types=None, document_ids=None):
        return self._store.keyword_search(query, top_k, None, document_ids)

    def neighbors(self, document_ids, direction="both", kinds=None, types=None, limit=100):
        return self._store.neighbors(document_ids, direction, kinds, None, limit)

    def find_documents(self, filters=None, types=None, **kw):
        return self._store.find_documents(filters, None, **kw)


class RecordingStore(LeakyStore):
    """Records every store call GraphQuery makes."""

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if not callable(attr):
            return attr

        def record(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            return attr(*args, **kwargs)

        return record

    def find_documents(self, filters=None, types=None, **kw):
        self.calls.append(("find_documents", (filters, types), kw))
        return self._store.find_documents(filters, types, **kw)


@pytest.fixture
def leaky_toolbox(agent_store, embedder):
    leaky = LeakyStore(agent_store)
    return Toolbox(leaky, HybridSearch(leaky, embedder), lambda: {"PAY"})


def ids(docs: list[EvidenceDoc]) -> set[str]:
    return {d.id for d in docs}


def test_rag_search_finds_across_sources_with_best_chunks(agent_toolbox):
    scope = Scope()
    docs = agent_toolbox.rag_search.run(scope, "how are refund webhooks retried with backoff")
    assert {"jira:PAY-1", FILE_ID} <= ids(docs)
    assert all(d.passages for d in docs)
    assert scope.calls[0].tool == "RAGSearch" and scope.calls[0].result_count == len(docs)


@pytest.mark.parametrize("allowed", [[JIRA], [GITHUB], [CONFLUENCE], [JIRA, CONFLUENCE]])
def test_every_tool_enforces_allowed_sources_itself(leaky_toolbox, allowed):
    scope = Scope.for_sources(allowed)
    tb = leaky_toolbox
    found = tb.rag_search.run(scope, "refund webhooks retries backoff PAY-1 runbook")
    found += tb.graph_query.run(
        scope, f'PAY-1, commit {SHA}, pull request #7, docs/retries.md and "Payments Runbook"'
    )
    found += tb.graph_query.run(scope, document_ids=["jira:PAY-1", COMMIT_ID, PAGE_ID])
    found += tb.fetch_neighbors.run(scope, document_ids=["jira:PAY-1", COMMIT_ID, PAGE_ID, FILE_ID])
    found += tb.fetch_neighbors.run(scope)
    assert found, "each allowed source has documents in the corpus"
    assert {d.document.type for d in found} <= set(allowed)
    assert {d.document.type for d in scope.selection} <= set(allowed)
    # and through the Haystack tools, whatever arguments the model passes
    for tool in tb.bind(scope):
        if tool.name == "GraphQuery":
            out = tool.invoke(question="PAY-1", document_ids=[COMMIT_ID, PAGE_ID, FILE_ID], kind="commit")
        elif tool.name == "FetchNeighbors":
            out = tool.invoke(document_ids=[COMMIT_ID, PAGE_ID, "jira:PAY-1"])
        elif tool.name == "RAGSearch":
            out = tool.invoke(query="runbook retries commit")
        else:
            out = tool.invoke(question="refund webhooks")
        for t in {JIRA, GITHUB, CONFLUENCE} - set(allowed):
            assert f"type: {t.value.lower()}" not in out
    with pytest.raises(ToolInvocationError):  # the model cannot widen the scope by passing it
        next(t for t in tb.bind(scope) if t.name == "RAGSearch").invoke(query="x", sources=["jira", "github"])


def test_graph_query_reads_identifiers_off_the_question(agent_toolbox):
    scope = Scope()
    docs = agent_toolbox.graph_query.run(
        scope, f'What links PAY-2, commit {SHA}, PR #7, docs/retries.md and the "Payments Runbook"?'
    )
    assert ids(docs) == {"jira:PAY-2", COMMIT_ID, PULL_ID, FILE_ID, PAGE_ID}
    pay2 = next(d for d in docs if d.id == "jira:PAY-2")
    assert "Idempotency keys" in pay2.passages[0] and "Status: Closed" in pay2.passages[0]


def test_graph_query_passes_only_whitelisted_fields_as_parameters(agent_store):
    recording = RecordingStore(agent_store)
    gq = GraphQuery(recording, lambda: {"PAY"})
    scope = Scope()
    tool = gq.as_tool(scope)
    hostile = "'; DROP TABLE documents; -- ) OR 1=1 MATCH (n) DETACH DELETE n // PAY-1"
    tool.invoke(
        question=hostile,
        status="Open' OR '1'='1",
        assignee='x") RETURN n //',
        title=hostile,
        updated_from="2024-01-01",
        document_ids=[f"jira:PAY-1{hostile}", "jira:PAY-2"],
    )
    names = [c[0] for c in recording.calls]
    assert set(names) <= {"find_documents", "get_document", "get_documents"}, names
    assert "keyword_search" not in names and "vector_search" not in names
    finds = [c for c in recording.calls if c[0] == "find_documents"]
    assert finds
    for _, (filters, _types), kw in finds:
        assert set(filters) <= set(FIND_FIELDS)
        assert set(kw) <= {"title_contains", "updated_from", "updated_to", "limit"}
    # the question's text is never a value, only the identifier read off it
    key_lookup = next(f for _, (f, _), _ in finds if "key" in f)
    assert key_lookup == {"key": ["PAY-1"]}
    assert store_still_intact(agent_store)
    # a field the tool does not have is refused before anything reaches the store
    before = len(recording.calls)
    with pytest.raises(ToolInvocationError):
        tool.invoke(question="PAY-1", **{"d.id) OR 1=1 //": "x"})
    with pytest.raises(InvalidQueryError):
        gq.run(Scope(), fields={"content": "anything"})
    with pytest.raises(InvalidQueryError):
        gq.run(Scope(), fields={"updated_from": "yesterday; DROP"})
    assert len(recording.calls) == before


def store_still_intact(store: Any) -> bool:
    return store.stats().documents == 7


def test_fetch_neighbors_expands_both_directions_and_deduplicates(agent_toolbox):
    scope = Scope()
    agent_toolbox.graph_query.run(scope, "PAY-1")
    docs = agent_toolbox.fetch_neighbors.run(scope)
    assert ids(docs) == {"jira:PAY-1", "jira:PAY-2", COMMIT_ID, PULL_ID, FILE_ID, PAGE_ID}
    assert len(docs) == len(ids(docs))
    commit = next(d for d in docs if d.id == COMMIT_ID)
    assert "PAY-1" in commit.relation and commit.found_by == "FetchNeighbors"
    only_links = agent_toolbox.fetch_neighbors.run(
        Scope(), document_ids=["jira:PAY-1"], kinds=["jira-issuelink"]
    )
    assert ids(only_links) == {"jira:PAY-1", "jira:PAY-2"}
    incoming = agent_toolbox.fetch_neighbors.run(Scope(), document_ids=["jira:PAY-2"], direction="in")
    assert ids(incoming) == {"jira:PAY-2", "jira:PAY-1"}
    with pytest.raises(InvalidQueryError):
        agent_toolbox.fetch_neighbors.run(Scope(), document_ids=["jira:PAY-1"], kinds=["x') OR 1=1"])


def test_filter_docs_drops_unrelated_documents_and_sorts(agent_toolbox):
    scope = Scope()
    agent_toolbox.graph_query.run(scope, "PAY-1")
    agent_toolbox.fetch_neighbors.run(scope)
    kept = FilterDocs().run(scope, "Which commits reference PAY-1?")
    assert kept[0].id == COMMIT_ID
    scope2 = Scope()
    agent_toolbox.graph_query.run(scope2, "PAY-2 and PAY-3")
    kept2 = FilterDocs().run(scope2, "idempotency keys")
    assert ids(kept2) == {"jira:PAY-2"}
    assert scope2.calls[-1].arguments["before"] == 2 and scope2.calls[-1].result_count == 1
    assert keywords("Commits linked") == {"commit", "link"}


def test_content_is_rebuilt_from_chunks_without_headers_or_overlap():
    doc = Document("jira:X-1", SourceType.JIRA, "X-1: title")
    original = "X-1: title\n" + " ".join(f"word{i}" for i in range(400))
    step, overlap = 300, 60
    chunks, start, i = [], 0, 0
    while start < len(original):
        piece = original[max(0, start - overlap) : start + step] if start else original[:step]
        text = piece if piece.startswith(doc.title) else f"{doc.title} — Description\n{piece}"
        chunks.append(Chunk(f"c{i}", doc.id, i, text, section="Description"))
        start, i = start + step, i + 1
    assert rebuild_content(doc, list(reversed(chunks))).split() == original.split()
