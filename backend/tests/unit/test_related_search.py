"""RelatedSearch (the ranking behind RAGSearch) on the agent test corpus, and its BM25."""

from __future__ import annotations

import numpy as np
import pytest

from devkb.agent.evidence import Scope
from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.fields import document_fields
from devkb.agent.retrieval.lexical import _TOKEN, BM25Index, Tokenizer, split_words
from devkb.agent.retrieval.snapshot import SnapshotLoader
from devkb.agent.tools.rag_search import RAGSearch
from devkb.store.models import Chunk, Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from tests.agent_corpus import COMMIT_ID, PAGE_ID


def test_bm25_prefers_rare_shared_terms_and_stems():
    index = BM25Index(
        [
            {"text": "retry the webhook deliveries to the payment provider later"},
            {"text": "the the the report"},
            {"text": "webhooks retried with backoff"},
        ]
    )
    scores = index.scores("retrying webhooks")
    assert scores[1] == 0
    assert scores[2] > scores[0] > 0  # both match both after stemming; doc 0 is longer
    assert Tokenizer()("The Webhooks were RETRIED") == ["webhook", "retri"]


@pytest.mark.parametrize(
    "text",
    [
        "Plain ASCII: retry_policy, HTTP-500s; v2.3.1 (fix #42) e-mail\tTAB",
        "naïve café — “quoted” straße İstanbul x_y __init__ ½ ² ١٢٣ 𝟘 ﬁ\nnext line, ascii only",
        "\u00a0a\u2003b\u200bc\r\nΣίσυφος ΣΑΣ ẞ ﬀoo",
        "",
        "\n\n___\n",
    ],
)
def test_split_words_equals_the_regular_expression(text):
    assert split_words(text) == _TOKEN.findall(text.lower())


def test_fields_of_a_jira_document():
    doc = Document(id="jira:PAY-1", type=SourceType.JIRA, title="PAY-1: Refunds fail")
    chunks = [
        Chunk(
            id="a",
            document_id=doc.id,
            chunk_index=0,
            content="PAY-1: Refunds fail\nType: Bug · Project: Payments\n\n## Description\nTimeouts.",
        ),
        Chunk(
            id="b",
            document_id=doc.id,
            chunk_index=1,
            content="PAY-1: Refunds fail — Comments\n## Comments\n### Ada (2024-01-01)\nRetried.",
        ),
    ]
    f = document_fields(doc, chunks)
    assert f["summary"] == "Refunds fail"
    assert "Project: Payments" in f["facts"]
    assert f["description"].strip() == "Timeouts."
    assert "Retried." in f["comments"] and "PAY-1" not in f["comments"]


@pytest.fixture
def related(agent_store, embedder):
    return RelatedSearch(agent_store, embedder, unrestricted=True)


def test_text_search_finds_the_runbook_and_returns_passages(related):
    hits = related.search("what does the runbook say when refund webhooks fail", top_k=3)
    assert hits and hits[0].document.id in {PAGE_ID, "jira:PAY-1"}
    assert all(h.chunks and h.chunks[0].document.id == h.document.id for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_anchor_is_left_out_and_filters_hold(related):
    hits = related.search("refund webhooks retries", top_k=10, anchor="jira:PAY-1")
    ids = [h.document.id for h in hits]
    assert "jira:PAY-1" not in ids and "jira:PAY-2" in ids
    assert [h.document.id for h in related.search("refund webhooks retries", top_k=10, anchor="PAY-1")] == ids
    only_jira = related.search("refund webhooks", top_k=10, types=[SourceType.JIRA], anchor="jira:PAY-1")
    assert {h.document.type for h in only_jira} == {SourceType.JIRA}
    subset = related.search("refund webhooks", top_k=10, document_ids=[COMMIT_ID, PAGE_ID])
    assert {h.document.id for h in subset} <= {COMMIT_ID, PAGE_ID}


def test_rag_search_tool_passes_the_anchor(related):
    scope = Scope.for_sources(None)
    docs = RAGSearch(related).run(scope, "refund webhooks", top_k=5, anchor="jira:PAY-1")
    assert docs and all(d.id != "jira:PAY-1" for d in docs)
    assert scope.calls[-1].arguments["anchor"] == "jira:PAY-1"


def test_snapshot_refresh_sees_new_documents(agent_corpus, tmp_path, embedder):
    import shutil

    shutil.copy(agent_corpus / "graph.sqlite", tmp_path / "graph.sqlite")
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    try:
        related = RelatedSearch(store, embedder, refresh_seconds=3600, unrestricted=True)
        before = related.snapshot()
        doc = Document(
            id="jira:PAY-9",
            type=SourceType.JIRA,
            title="PAY-9: Chargeback disputes",
            content_hash="h9",
            metadata={"project": "PAY", "created": "2024-05-02T00:00:00+00:00"},
        )
        text = "PAY-9: Chargeback disputes\n\n## Description\nChargeback disputes are escalated by email."
        vector = embedder.embed([text])[0].tolist()
        store.write_documents([(doc, [Chunk(Chunk.make_id(doc.id, 0, text), doc.id, 0, text, vector)])])
        after = related.refresh()
        assert after.n == before.n + 1
        hits = related.search("chargeback disputes escalation", top_k=1)
        assert hits[0].document.id == "jira:PAY-9"
        assert np.allclose(np.linalg.norm(after.vectors, axis=1)[after.chunk_count.sum() - 1], 1.0, atol=1e-3)
    finally:
        store.close()


def test_a_reload_begun_before_a_write_never_replaces_the_one_after_it(agent_corpus, tmp_path, embedder):
    """A background reload reads the store, a document is written (an upload), the upload's
    ``refresh_if_built`` returns: the snapshot has the document, also once the older reload ends."""
    import shutil
    import threading
    import time

    shutil.copy(agent_corpus / "graph.sqlite", tmp_path / "graph.sqlite")
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    try:
        related = RelatedSearch(store, embedder, refresh_seconds=0, unrestricted=True)
        related.snapshot()
        real, read, go = related.loader.load, threading.Event(), threading.Event()

        def slow(previous):  # the first reload reads the store, then waits before it lands
            if read.is_set():
                return real(previous)
            stale = real(previous)
            read.set()
            go.wait(10)
            return stale

        related.loader.load = slow  # type: ignore[method-assign]
        related.snapshot()  # past refresh_seconds: a background reload starts
        assert read.wait(10)
        doc = Document(id="upload:1", type=SourceType.UPLOAD, title="Quokka rotation", content_hash="u1")
        text = "The quokka key is rotated by Grace Lee."
        vector = embedder.embed([text])[0].tolist()
        store.write_documents([(doc, [Chunk(Chunk.make_id(doc.id, 0, text), doc.id, 0, text, vector)])])
        done = threading.Thread(target=related.refresh_if_built)
        done.start()
        time.sleep(0.3)
        go.set()
        done.join(10)
        for thread in threading.enumerate():  # the older reload has landed too
            if thread.name == "related-search-refresh":
                thread.join(10)
        assert "upload:1" in related._snapshot.position  # type: ignore[union-attr]
    finally:
        store.close()


def test_empty_store_falls_back_to_hybrid_search(tmp_path, embedder):
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    store.ensure_schema(embedder.model_name, embedder.dimension)
    try:
        assert RelatedSearch(store, embedder, unrestricted=True).search("anything", top_k=3) == []
    finally:
        store.close()


def test_over_max_documents_it_ranks_candidates_from_the_store_indexes(agent_store, embedder):
    """Past ``max_documents`` no snapshot is built (its memory grows with the corpus): the same
    learnt model ranks the documents the store's full-text and vector indexes find."""
    count = len(agent_store.document_ids())
    capped = RelatedSearch(agent_store, embedder, max_documents=count - 1, unrestricted=True)
    query = "what does the runbook say when refund webhooks fail"
    hits = capped.search(query, top_k=5)
    assert capped._snapshot is None and not capped.available()
    roomy = RelatedSearch(agent_store, embedder, max_documents=count, unrestricted=True)
    full = roomy.search(query, top_k=5)
    assert roomy._snapshot is not None
    # the candidates hold the answer: the same best document, scores from the same model
    assert hits and hits[0].document.id == full[0].document.id
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.chunks and h.chunks[0].document.id == h.document.id for h in hits)
    # anchor and filters hold without a snapshot too
    anchored = capped.search("refund webhooks retries", top_k=10, anchor="PAY-1")
    ids = [h.document.id for h in anchored]
    assert "jira:PAY-1" not in ids and "jira:PAY-2" in ids
    only_jira = capped.search("refund webhooks", top_k=10, types=[SourceType.JIRA])
    assert only_jira and {h.document.type for h in only_jira} == {SourceType.JIRA}
    subset = capped.search("refund webhooks", top_k=10, document_ids=[COMMIT_ID, PAGE_ID])
    assert {h.document.id for h in subset} <= {COMMIT_ID, PAGE_ID}
    assert capped._snapshot is None


class _OneByOne:
    """The store seen through the protocol's single reads only (as a backend without
    ``documents_with_vectors``)."""

    def __init__(self, store):
        self._store = store

    def get_document(self, document_id):
        return self._store.get_document(document_id)

    def chunk_embeddings(self, chunk_ids):
        return self._store.chunk_embeddings(chunk_ids)


def test_candidates_read_in_bulk_equal_those_read_one_by_one(agent_store, embedder):
    known = sorted(agent_store.document_ids())
    ids = [*known[1:], "jira:NOPE-1", known[0]]
    bulk = SnapshotLoader(agent_store, embedder.dimension)._read(ids)
    single = SnapshotLoader(_OneByOne(agent_store), embedder.dimension)._read(ids)  # type: ignore[arg-type]
    assert list(bulk) == list(single) == [*known[1:], known[0]]
    for i in known:
        a, b = bulk[i], single[i]
        assert (a.document, a.chunks, a.text_tokens, a.summary_tokens) == (
            b.document,
            b.chunks,
            b.text_tokens,
            b.summary_tokens,
        )
        np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-6)
        assert a.vectors.shape == (len(a.chunks), embedder.dimension)
        norms = np.linalg.norm(a.vectors, axis=1)
        assert np.all((np.abs(norms - 1) < 1e-5) | (norms == 0))


def test_background_warm_up_builds_the_snapshot(agent_store, embedder):
    related = RelatedSearch(agent_store, embedder, unrestricted=True)
    related.start_warm_up().join(timeout=120)
    assert related._snapshot is not None and related._snapshot.n == len(agent_store.document_ids())
    capped = RelatedSearch(agent_store, embedder, max_documents=0, unrestricted=True)
    capped.start_warm_up().join(timeout=120)
    assert capped._snapshot is None
