"""The graph store's behaviour, written once. Each backend's test module subclasses
``GraphStoreContract`` and provides a ``store`` fixture that yields an empty store."""

from __future__ import annotations

import pytest

from devkb.errors import InvalidQueryError, SchemaMismatchError
from devkb.store.models import Chunk, Document, Reference, SourceType, SyncState, Version
from devkb.store.protocol import BulkReadingStore

DIM = 4


def doc(id: str, type: SourceType = SourceType.JIRA, **meta) -> Document:
    return Document(
        id=id,
        type=type,
        title=meta.pop("title", id.upper()),
        url=f"https://example.test/{id}",
        updated_at=meta.pop("updated_at", "2026-01-01T00:00:00+00:00"),
        content_hash=meta.pop("content_hash", "h-" + id),
        metadata=meta,
        source=type.value.lower(),
    )


def chunks(d: Document, *texts_and_vectors: tuple[str, list[float]]) -> list[Chunk]:
    return [
        Chunk(
            id=Chunk.make_id(d.id, i, t),
            document_id=d.id,
            chunk_index=i,
            content=t,
            embedding=v,
            section=f"s{i}",
        )
        for i, (t, v) in enumerate(texts_and_vectors)
    ]


def seed(store) -> None:
    store.ensure_schema("test-model", DIM)
    a = doc("jira:PAY-1", project="PAY", status="Open", component=["ledger", "api"], title="Ledger drift")
    b = doc("jira:PAY-2", project="PAY", status="Closed", updated_at="2026-03-01T00:00:00+00:00")
    c = doc("confluence:page:10", SourceType.CONFLUENCE, space="PAY", title="Retry policy")
    g = doc("github:acme/pay:commit:abc", SourceType.GITHUB, repository="acme/pay", kind="commit")
    store.write_documents(
        [
            (
                a,
                chunks(
                    a,
                    ("the ledger balance drifts after refunds", [1, 0, 0, 0]),
                    ("second part about api", [0.9, 0.1, 0, 0]),
                ),
            ),
            (b, chunks(b, ("webhook signature verification fails", [0, 1, 0, 0]))),
            (c, chunks(c, ("retry with exponential backoff and jitter", [0, 0, 1, 0]))),
            (g, chunks(g, ("PAY-1: fix ledger rounding", [0.7, 0, 0, 0.7]))),
        ]
    )
    store.write_references(
        ["jira:PAY-1"], [Reference("jira:PAY-1", "jira:PAY-2", "jira-issuelink", "relates to", "jira:PAY-1")]
    )
    store.write_references(
        ["github:acme/pay:commit:abc"],
        [
            Reference(
                "jira:PAY-1",
                "github:acme/pay:commit:abc",
                "jira-key-in-commit-message",
                "PAY-1",
                "github:acme/pay:commit:abc",
            )
        ],
    )
    store.write_references(
        ["jira:PAY-2"],
        [
            Reference(
                "jira:PAY-2",
                "confluence:page:10",
                "jira-mentions-confluence-title",
                "Retry policy",
                "jira:PAY-2",
            )
        ],
    )


class GraphStoreContract:
    def test_write_and_get_document(self, store):
        seed(store)
        got = store.get_document("jira:PAY-1")
        assert got is not None
        assert got.document.title == "Ledger drift"
        assert got.document.metadata["component"] == ["ledger", "api"]
        assert [c.chunk_index for c in got.chunks] == [0, 1]
        assert got.chunks[0].section == "s0"
        assert store.get_document("jira:NOPE-1") is None

    def test_rewrite_replaces_chunks(self, store):
        seed(store)
        a = doc("jira:PAY-1", project="PAY", title="Ledger drift v2", content_hash="h2")
        store.write_documents([(a, chunks(a, ("only one chunk now", [0, 0, 0, 1])))])
        got = store.get_document("jira:PAY-1")
        assert got.document.title == "Ledger drift v2"
        assert [c.content for c in got.chunks] == ["only one chunk now"]
        assert store.stats().chunks == 4
        hits = store.vector_search([1, 0, 0, 0], top_k=10)
        assert all(h.chunk.content != "the ledger balance drifts after refunds" for h in hits)

    def test_content_hashes_and_ids(self, store):
        seed(store)
        assert store.content_hashes(["jira:PAY-1", "jira:X-1"]) == {"jira:PAY-1": "h-jira:PAY-1"}
        assert store.document_ids(source="jira") == {"jira:PAY-1", "jira:PAY-2"}
        assert store.document_ids(type=SourceType.CONFLUENCE) == {"confluence:page:10"}

    def test_chunk_embeddings(self, store):
        seed(store)
        cid = store.get_document("jira:PAY-2").chunks[0].id
        emb = store.chunk_embeddings([cid, "missing"])
        assert list(emb) == [cid]
        assert emb[cid] == pytest.approx([0, 1, 0, 0])

    def test_documents_with_vectors_match_reads_one_by_one(self, store):
        if not isinstance(store, BulkReadingStore):
            pytest.skip("this backend reads documents one by one")
        seed(store)
        got = store.documents_with_vectors(["jira:PAY-1", "missing", "confluence:page:10", "jira:PAY-1"])
        assert [d.document.id for d, _ in got] == ["jira:PAY-1", "confluence:page:10"]  # once each, in order
        for d, vectors in got:
            single = store.get_document(d.document.id)
            assert d.document == single.document and d.chunks == single.chunks  # chunks in chunk order
            stored = store.chunk_embeddings([c.id for c in single.chunks])
            assert [v.tolist() for v in vectors] == [pytest.approx(stored[c.id]) for c in single.chunks]

    def test_vector_search_order_and_filters(self, store):
        seed(store)
        hits = store.vector_search([1, 0, 0, 0], top_k=3)
        assert hits[0].document.id == "jira:PAY-1" and hits[0].chunk.chunk_index == 0
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert [h.score for h in hits] == sorted([h.score for h in hits], reverse=True)
        only = store.vector_search([1, 0, 0, 0], top_k=5, types=[SourceType.GITHUB])
        assert {h.document.id for h in only} == {"github:acme/pay:commit:abc"}
        scoped = store.vector_search([1, 0, 0, 0], top_k=5, document_ids=["confluence:page:10"])
        assert {h.document.id for h in scoped} == {"confluence:page:10"}
        assert store.vector_search([1, 0, 0, 0], document_ids=[]) == []

    def test_keyword_search(self, store):
        seed(store)
        hits = store.keyword_search("exponential backoff", top_k=5)
        assert hits and hits[0].document.id == "confluence:page:10"
        assert (
            store.keyword_search("ledger", types=[SourceType.GITHUB])[0].document.id
            == "github:acme/pay:commit:abc"
        )
        # query syntax is never interpreted
        for q in [
            'ledger" OR "x',
            "NEAR(a b)",
            "a AND OR NOT",
            "*",
            "'; DROP TABLE chunks; --",
            "-ledger",
            "",
        ]:
            store.keyword_search(q)
        assert store.stats().chunks == 5

    def test_neighbors_both_directions_and_kinds(self, store):
        seed(store)
        ns = store.neighbors(["jira:PAY-1"])
        assert {(n.document.id, n.direction, n.kind) for n in ns} == {
            ("jira:PAY-2", "out", "jira-issuelink"),
            ("github:acme/pay:commit:abc", "out", "jira-key-in-commit-message"),
        }
        ins = store.neighbors(["jira:PAY-2"], direction="in")
        assert [(n.document.id, n.evidence, n.via) for n in ins] == [
            ("jira:PAY-1", "relates to", "jira:PAY-2")
        ]
        only = store.neighbors(["jira:PAY-1"], kinds=["jira-issuelink"])
        assert [n.document.id for n in only] == ["jira:PAY-2"]
        typed = store.neighbors(["jira:PAY-1"], types=[SourceType.GITHUB])
        assert [n.document.id for n in typed] == ["github:acme/pay:commit:abc"]

    def test_dangling_edges_hidden_until_target_exists(self, store):
        seed(store)
        store.write_references(
            ["jira:PAY-1"],
            [
                Reference("jira:PAY-1", "jira:PAY-2", "jira-issuelink", "relates to", "jira:PAY-1"),
                Reference("jira:PAY-1", "jira:PAY-9", "jira-issuelink", "depends on", "jira:PAY-1"),
            ],
        )
        assert "jira:PAY-9" not in {n.document.id for n in store.neighbors(["jira:PAY-1"])}
        d9 = doc("jira:PAY-9")
        store.write_documents([(d9, chunks(d9, ("nine", [0, 0, 0, 1])))])
        assert "jira:PAY-9" in {n.document.id for n in store.neighbors(["jira:PAY-1"])}

    def test_references_replaced_per_owner(self, store):
        seed(store)
        store.write_references(["jira:PAY-1"], [])
        assert [n.document.id for n in store.neighbors(["jira:PAY-1"])] == ["github:acme/pay:commit:abc"]
        with pytest.raises(ValueError):
            store.write_references(["jira:PAY-1"], [Reference("a", "b", "k", "", "jira:OTHER")])

    def test_delete_removes_chunks_and_owned_edges(self, store):
        seed(store)
        assert store.delete_documents(["github:acme/pay:commit:abc", "missing"]) == 1
        s = store.stats()
        assert (s.documents, s.chunks, s.references) == (3, 4, 2)
        assert store.vector_search([0.7, 0, 0, 0.7], top_k=10)[0].document.id != "github:acme/pay:commit:abc"
        assert store.keyword_search("rounding") == []
        assert store.get_document("github:acme/pay:commit:abc") is None

    def test_a_write_is_found_by_the_next_search_and_a_delete_is_gone(self, store):
        """Read-your-writes (an upload acknowledged "indexed" is searched at once): whatever earlier
        searches loaded (in-memory text and vector indexes) or an index fills after the commit,
        documents written one after the other are each found by the next search after
        ``write_documents`` returns; a rewrite (an upload's next version) by its new words only; a
        deleted one is gone from the next search."""
        seed(store)
        assert store.keyword_search("ledger") and store.vector_search([1, 0, 0, 0], top_k=2)  # loaded
        vectors = {"quokka": [0, 0.2, 0, 1], "narwhal": [0, 0, 0.2, 1], "axolotl": [0.2, 0, 0, 1]}
        for i, (word, vector) in enumerate(vectors.items()):
            d = doc(f"upload:{i}", SourceType.UPLOAD, title=word)
            store.write_documents([(d, chunks(d, (f"the {word} key is rotated monthly", vector)))])
            assert [h.document.id for h in store.keyword_search(word)] == [d.id], word
            assert store.vector_search(vector, top_k=1)[0].document.id == d.id, word
        d = doc("upload:0", SourceType.UPLOAD, title="quokka", content_hash="h-2")
        store.write_documents(
            [(d, chunks(d, ("the quokka key is rotated weekly by the dingo", [0, 1, 0, 0])))]
        )
        assert [h.document.id for h in store.keyword_search("dingo")] == ["upload:0"]
        assert {h.document.id for h in store.keyword_search("monthly")} == {"upload:1", "upload:2"}
        assert store.vector_search([0, 1, 0, 0], top_k=1)[0].document.id == "upload:0"
        assert store.delete_documents(["upload:1"]) == 1
        assert store.keyword_search("narwhal") == []
        assert "upload:1" not in {h.document.id for h in store.vector_search(vectors["narwhal"], top_k=10)}

    def test_find_documents(self, store):
        seed(store)
        assert [d.id for d in store.find_documents({"project": "pay", "status": "open"})] == ["jira:PAY-1"]
        assert [d.id for d in store.find_documents({"component": "API"})] == ["jira:PAY-1"]
        assert {d.id for d in store.find_documents({"status": ["Open", "Closed"]})} == {
            "jira:PAY-1",
            "jira:PAY-2",
        }
        assert [d.id for d in store.find_documents(types=[SourceType.CONFLUENCE])] == ["confluence:page:10"]
        assert [d.id for d in store.find_documents(title_contains="retry")] == ["confluence:page:10"]
        assert [d.id for d in store.find_documents(title_contains="Y POL")] == ["confluence:page:10"]
        both = store.find_documents({"status": ["Open", "Closed"]}, title_contains="DRIFT")
        assert [d.id for d in both] == ["jira:PAY-1"]  # with a field filter: the other plan
        assert [d.id for d in store.find_documents({"id": "JIRA:PAY-2"})] == ["jira:PAY-2"]
        newest = store.find_documents(types=[SourceType.JIRA])
        assert newest[0].id == "jira:PAY-2"
        assert [d.id for d in store.find_documents(updated_from="2026-02-01", types=[SourceType.JIRA])] == [
            "jira:PAY-2"
        ]
        assert store.find_documents({"project": "PAY' OR '1'='1"}) == []
        with pytest.raises(InvalidQueryError):
            store.find_documents({"content) MATCH (n": "x"})
        assert len(store.find_documents(limit=2)) == 2

    def test_find_documents_with_common_and_rare_values_pages_newest_first(self, store):
        """A field most documents share (a project) and one few do (a key): the same answer,
        newest first with the id breaking ties, at every limit — whichever way the store reads."""
        docs = [
            doc(
                f"jira:BIG-{i}",
                project="BIG" if i % 5 else "SMALL",
                key=f"BIG-{i}",
                status="Open" if i % 2 else "Closed",
                updated_at=f"2026-01-{1 + i % 28:02d}T00:00:00+00:00",
            )
            for i in range(120)
        ]
        store.write_documents([(d, chunks(d, (d.id, [1.0, 0, 0, 0]))) for d in docs])
        for filters in (
            {"project": "BIG"},
            {"project": "SMALL"},
            {"key": "BIG-7"},
            {"project": "BIG", "status": "Open"},
        ):
            matching = [
                d
                for d in docs
                if all(str(d.metadata[f]).lower() == str(v).lower() for f, v in filters.items())
            ]
            want = sorted(sorted(matching, key=lambda d: d.id), key=lambda d: d.updated_at, reverse=True)
            for limit in (1, 3, 10, 50, 200):
                got = [d.id for d in store.find_documents(filters, limit=limit)]
                assert got == [d.id for d in want[:limit]], (filters, limit)

    def test_graph_page(self, store):
        seed(store)
        page = store.graph_page(limit=10)
        assert {d.id for d in page.nodes} == {
            "jira:PAY-1",
            "jira:PAY-2",
            "confluence:page:10",
            "github:acme/pay:commit:abc",
        }
        assert len(page.edges) == 3
        small = store.graph_page(limit=1)
        assert [d.id for d in small.nodes] == ["jira:PAY-1"] and small.edges == []
        around = store.graph_page(limit=10, around=["confluence:page:10"])
        assert {d.id for d in around.nodes} == {"confluence:page:10", "jira:PAY-2"}
        kinds = store.graph_page(limit=10, kinds=["jira-issuelink"])
        assert {e.kind for e in kinds.edges} == {"jira-issuelink"}

    def test_stats(self, store):
        seed(store)
        s = store.stats()
        assert (s.documents, s.chunks, s.references) == (4, 5, 3)
        assert s.documents_by_type == {"JIRA": 2, "CONFLUENCE": 1, "GITHUB": 1}
        assert s.references_by_kind["jira-issuelink"] == 1
        assert (s.embedding_model, s.embedding_dimension) == ("test-model", DIM)

    def test_schema_mismatch(self, store):
        store.ensure_schema("test-model", DIM)
        store.ensure_schema("test-model", DIM)
        with pytest.raises(SchemaMismatchError, match="re-embed"):
            store.ensure_schema("other-model", DIM)
        with pytest.raises(SchemaMismatchError):
            store.ensure_schema("test-model", DIM + 1)

    def test_sync_state_roundtrip(self, store):
        assert store.get_sync_state("jira") is None
        store.save_sync_state(
            SyncState("jira", cursor="2026-01-01 10:00", counts={"documents": 3}, extra={"x": 1})
        )
        store.save_sync_state(SyncState("github", last_error="boom"))
        got = store.get_sync_state("jira")
        assert (got.cursor, got.counts, got.extra) == ("2026-01-01 10:00", {"documents": 3}, {"x": 1})
        assert [s.source for s in store.list_sync_states()] == ["github", "jira"]

    def test_write_documents_with_references_is_one_step(self, store):
        seed(store)
        a = doc("jira:PAY-1", project="PAY", title="Ledger drift", content_hash="h3")
        store.write_documents(
            [(a, chunks(a, ("x", [1, 0, 0, 0])))],
            references=[
                Reference(
                    "jira:PAY-1",
                    "confluence:page:10",
                    "jira-mentions-confluence-title",
                    "Retry policy",
                    "jira:PAY-1",
                )
            ],
        )
        out = {(n.document.id, n.kind) for n in store.neighbors(["jira:PAY-1"], direction="out")}
        assert out == {
            ("confluence:page:10", "jira-mentions-confluence-title"),
            ("github:acme/pay:commit:abc", "jira-key-in-commit-message"),  # owned by the commit: kept
        }
        with pytest.raises(ValueError):
            store.write_documents([(a, [])], references=[Reference("a", "b", "k", "", "jira:OTHER")])


class HistoryContract:
    """Versions linked to their documents (docs/history.md)."""

    def _page_versions(self, store, numbers):
        page = doc("confluence:page:10", SourceType.CONFLUENCE, space="PAY", title="Retry policy")
        store.write_documents(
            [(page, chunks(page, ("retry", [0, 0, 1, 0])))],
            versions=[
                Version(
                    "confluence:page:10",
                    "page",
                    n,
                    f"2026-0{n}-01T00:00:00+00:00",
                    author=f"author{n}",
                    message=f"edit {n}",
                    body=f"body {n}",
                )
                for n in numbers
            ],
        )

    def test_page_versions_are_chained_and_kept_across_writes(self, store):
        seed(store)
        self._page_versions(store, [1, 2])
        self._page_versions(store, [3])  # an incremental sync writes only the new version
        got = store.versions("confluence:page:10")
        assert [(v.seq, v.valid_from[:10], v.valid_until[:10]) for v in got] == [
            (1, "2026-01-01", "2026-02-01"),
            (2, "2026-02-01", "2026-03-01"),
            (3, "2026-03-01", ""),
        ]
        assert store.get_version("confluence:page:10", "page", 2).body == "body 2"
        assert store.get_version("confluence:page:10", "page", 9) is None
        assert store.latest_versions(["confluence:page:10", "jira:PAY-1"], "page") == {
            "confluence:page:10": 3
        }

    def test_transitions_and_diffs_and_changes_between(self, store):
        seed(store)
        a = doc("jira:PAY-1", project="PAY", title="Ledger drift")
        g = doc("github:acme/pay:commit:abc", SourceType.GITHUB, repository="acme/pay", kind="commit")
        store.write_documents(
            [(a, chunks(a, ("x", [1, 0, 0, 0]))), (g, chunks(g, ("y", [0, 1, 0, 0])))],
            versions=[
                Version(
                    "jira:PAY-1",
                    "transition",
                    1,
                    "2026-02-01T10:00:00+00:00",
                    "2026-02-03T00:00:00+00:00",
                    "Ana",
                    field="status",
                    from_value="Open",
                    to_value="In Progress",
                ),
                Version(
                    "jira:PAY-1",
                    "transition",
                    2,
                    "2026-02-03T00:00:00+00:00",
                    "",
                    "Ben",
                    field="status",
                    from_value="In Progress",
                    to_value="Done",
                ),
                Version(
                    "github:acme/pay:commit:abc",
                    "diff",
                    1,
                    "2026-02-02T00:00:00+00:00",
                    author="Cy",
                    message="PAY-1: fix",
                    body="@@ -1 +1 @@\n-a\n+b",
                    field="src/x.py",
                    to_value="modified",
                    ref="abc",
                ),
            ],
        )
        assert [v.to_value for v in store.versions("jira:PAY-1", kinds=["transition"])] == [
            "In Progress",
            "Done",
        ]
        window = store.changes_between("2026-02-01T00:00:00+00:00", "2026-02-03T00:00:00+00:00")
        assert [(v.document_id, v.kind) for v in window] == [
            ("github:acme/pay:commit:abc", "diff"),
            ("jira:PAY-1", "transition"),
        ]
        assert window[0].body.startswith("@@") and window[0].field == "src/x.py"
        only_jira = store.changes_between("", "2027-01-01", types=[SourceType.JIRA])
        assert {v.document_id for v in only_jira} == {"jira:PAY-1"}
        assert store.changes_between("", "2027-01-01", document_ids=[]) == []
        assert len(store.changes_between("", "2027-01-01", limit=1)) == 1
        store.delete_documents(["jira:PAY-1"])
        assert store.versions("jira:PAY-1") == []
        assert {v.document_id for v in store.changes_between("", "2027-01-01")} == {
            "github:acme/pay:commit:abc"
        }
        with pytest.raises(ValueError):
            store.write_documents([(a, [])], versions=[Version("jira:OTHER", "transition", 1, "2026")])


class ScopedReadsContract:
    """Permission enforcement (``access/scoped_store.py``) over this backend: the same code runs
    on both stores and leans on each backend's ``document_ids`` filter, so it is held to it here."""

    def test_a_reader_sees_only_what_the_gates_let_them(self, store, tmp_path):
        from devkb.access.accounts import AccountStore
        from devkb.access.policy import AccessPolicy
        from devkb.access.readers import reading_as
        from devkb.access.scoped_store import ScopedStore

        store.ensure_schema("test-model", DIM)
        open_doc = doc(
            "jira:WEB-1", project="WEB", acl=[["scope:jira:jira:project:WEB"]], title="Open login bug"
        )
        secret = doc(
            "jira:PAY-9", project="PAY", acl=[["scope:jira:jira:project:PAY"]], title="Secret ledger"
        )
        store.write_documents(
            [
                (open_doc, chunks(open_doc, ("ledger login timeout", [1, 0, 0, 0]))),
                (secret, chunks(secret, ("ledger balance secret", [1, 0, 0, 0]))),
            ],
            [Reference("jira:WEB-1", "jira:PAY-9", "jira-issuelink", "blocks", "jira:WEB-1")],
            [
                Version(i, "transition", 1, "2026-01-02T00:00:00+00:00", field="status", to_value="Done")
                for i in ("jira:WEB-1", "jira:PAY-9")
            ],
        )
        accounts = AccountStore(tmp_path / "accounts.db")
        accounts.create_user("web@x.example", password="password-1")
        accounts.replace_memberships("jira", [("scope:jira:jira:project:WEB", "web@x.example")])
        policy = AccessPolicy(lambda: accounts, cache_seconds=0)
        scoped = ScopedStore(store, policy, catalog_seconds=0)
        user = accounts.user("web@x.example")
        assert user is not None
        with reading_as(policy.reader_for(user)):
            assert {h.document.id for h in scoped.vector_search([1, 0, 0, 0], 10)} == {"jira:WEB-1"}
            assert {h.document.id for h in scoped.keyword_search("ledger", 10)} == {"jira:WEB-1"}
            assert scoped.get_document("jira:PAY-9") is None
            assert scoped.neighbors(["jira:WEB-1"]) == []
            page = scoped.graph_page()
            assert [d.id for d in page.nodes] == ["jira:WEB-1"] and page.edges == []
            assert [d.id for d in scoped.find_documents(title_contains="e")] == ["jira:WEB-1"]
            assert scoped.stats().documents == 1 and scoped.stats().references == 0
            assert scoped.versions("jira:PAY-9") == [] and scoped.versions("jira:WEB-1")
            assert scoped.get_version("jira:PAY-9", "transition", 1) is None
            assert {v.document_id for v in scoped.changes_between("", "2100")} == {"jira:WEB-1"}
        accounts.close()
