"""Full-text queries on big stores leave out the commonest words (store/sqlite/term_pruning.py)."""

from __future__ import annotations

from devkb.store.models import Chunk, Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb.store.sqlite.term_pruning import TermPruner


def fill(store: SQLiteGraphStore, n: int = 20) -> None:
    items = []
    for i in range(n):
        doc = Document(id=f"jira:T-{i}", type=SourceType.JIRA, title=f"T-{i}", content_hash=f"h{i}")
        text = (
            "the widget is broken " + ("and the panels slide " if i % 2 else "") + ("zebra" if i == 7 else "")
        )
        items.append((doc, [Chunk(id=f"c{i}", document_id=doc.id, chunk_index=0, content=text)]))
    store.write_documents(items)


def test_common_words_are_dropped_only_on_big_tables(tmp_path):
    store = SQLiteGraphStore(tmp_path / "g.sqlite")
    fill(store)
    conn = store._conn()
    gen = store._generation(conn)
    words = ["the", "panels", "sliding", "zebra", "broken"]
    assert TermPruner(min_rows=21).prune(conn, gen, words) == words  # 20 chunks: small, exact query
    pruner = TermPruner(min_rows=5, max_share=0.6, keep_at_least=2)
    # the, broken: 20/20 chunks; panels, sliding (stem "slide"): 10/20; zebra 1/20
    assert pruner.frequencies(conn, words) == {
        "the": 20,
        "panels": 10,
        "sliding": 10,
        "zebra": 1,
        "broken": 20,
    }
    assert pruner.prune(conn, gen, words) == ["panels", "sliding", "zebra"]
    # never fewer than keep_at_least: the rarest common words come back
    assert TermPruner(min_rows=5, max_share=0.01, keep_at_least=2).prune(conn, gen, words) == [
        "panels",
        "zebra",
    ]
    assert pruner.frequencies(conn, ["unknownword"]) == {"unknownword": 0}
    store.close()


def test_keyword_search_uses_the_pruned_query_and_the_cache_follows_writes(tmp_path):
    store = SQLiteGraphStore(tmp_path / "g.sqlite")
    fill(store)
    store._term_pruner = TermPruner(min_rows=5, max_share=0.6, keep_at_least=1)
    hits = store.keyword_search("the broken zebra", top_k=20)
    assert [h.document.id for h in hits] == ["jira:T-7"]  # "the", "broken" (every chunk) left out
    doc = Document(id="jira:T-99", type=SourceType.JIRA, title="T-99", content_hash="h99")
    store.write_documents(
        [(doc, [Chunk(id="c99", document_id=doc.id, chunk_index=0, content="zebra zebra")])]
    )
    assert {h.document.id for h in store.keyword_search("the broken zebra", top_k=20)} == {
        "jira:T-7",
        "jira:T-99",
    }
    store.close()
