"""The BM25 impact index beside the embedded store (store/sqlite/text_index.py): the same
ranking and scores as FTS5's bm25(), and consistent with writes and deletes after its build."""

from __future__ import annotations

import random

import pytest

from devkb.store.models import Chunk, Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore

WORDS = (
    "widget panel slider broken render focus keyboard screen reader contrast theme preference "
    "layout button table header caption error fails loading tooltip menu dialog sliding rendered"
).split()


def docs(start: int, n: int, seed: int) -> list[tuple[Document, list[Chunk]]]:
    rng = random.Random(seed)
    items = []
    for i in range(start, start + n):
        type_ = SourceType.JIRA if i % 3 else SourceType.CONFLUENCE
        doc = Document(id=f"d{i}", type=type_, title=f"doc {i}", content_hash=f"h{i}")
        chunks = [
            Chunk(
                id=f"d{i}-{k}",
                document_id=doc.id,
                chunk_index=k,
                content=" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30))) + ".",
            )
            for k in range(rng.randint(1, 3))
        ]
        items.append((doc, chunks))
    return items


def fts5(store: SQLiteGraphStore, query: str, k: int, **filters) -> list[tuple[str, float]]:
    index, store.text_index = store.text_index, None
    try:
        return [(h.chunk.id, h.score) for h in store.keyword_search(query, k, **filters)]
    finally:
        store.text_index = index


def indexed(store: SQLiteGraphStore, query: str, k: int, **filters) -> list[tuple[str, float]]:
    return [(h.chunk.id, h.score) for h in store.keyword_search(query, k, **filters)]


def same(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> None:
    assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-4)
    assert {c for c, _ in a} == {c for c, _ in b}


QUERIES = ("broken slider", "keyboard focus fails", "the screen reader renders a table caption", "menu")


@pytest.fixture
def store(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite", text_index_min_chunks=50)
    s.write_documents(docs(0, 80, seed=1))
    yield s
    s.close()


def test_scores_match_fts5_bm25(store):
    assert store.text_index is not None
    store.text_index.build_now()
    for q in QUERIES:
        same(indexed(store, q, 15), fts5(store, q, 15))
        for filters in ({"types": [SourceType.CONFLUENCE]}, {"document_ids": ["d3", "d4", "d5", "d40"]}):
            got = indexed(store, q, 10, **filters)
            same(got, fts5(store, q, 10, **filters))
    assert indexed(store, "nothingmatches", 5) == []


def test_writes_and_deletes_after_the_build_are_seen(store):
    assert store.text_index is not None
    store.text_index.build_now()
    store.text_index.stale_share = 10.0  # no background rebuild: the delta path answers
    store.write_documents(docs(80, 3, seed=2))  # after the build: above the watermark
    store.delete_documents(["d1", "d2"])
    for q in QUERIES:
        hits = indexed(store, q, 200)
        ids = {c.split("-")[0] for c, _ in hits}
        assert not ids & {"d1", "d2"}
        expected = {c.split("-")[0] for c, _ in fts5(store, q, 200)}
        assert ids == expected  # every live chunk holding a query word, and no other
    store.text_index.build_now()  # a rebuild takes them in: same chunks, no delta left
    for q in QUERIES:
        after = indexed(store, q, 200)
        same(after, fts5(store, q, 200))
    assert store.text_index._delta_rows == 0 and store.text_index._deleted.size == 0


def test_a_stale_index_is_rebuilt_in_the_background(store):
    assert store.text_index is not None
    assert store.keyword_search("broken slider", 5)  # no index yet: FTS5 answers and a build starts
    store.text_index.wait(30)
    first = store.text_index._build_id_on_disk()
    assert first is not None
    store.write_documents(docs(100, 40, seed=3))  # > 10% new rows
    store.keyword_search("broken slider", 5)
    store.text_index.wait(30)
    assert store.text_index._build_id_on_disk() not in (None, first)
    store.keyword_search("broken slider", 5)
    assert store.text_index._delta_rows == 0


def test_small_stores_keep_fts5(tmp_path):
    s = SQLiteGraphStore(tmp_path / "g.sqlite")  # default: 100,000 chunks
    s.write_documents(docs(0, 10, seed=1))
    assert s.keyword_search("broken", 5) is not None
    assert s.text_index is not None and s.text_index._build_id_on_disk() is None
    s.close()


def test_an_index_of_another_database_is_ignored(tmp_path, store):
    assert store.text_index is not None
    store.text_index.build_now()
    other = SQLiteGraphStore(tmp_path / "other" / "g.sqlite", text_index_min_chunks=50)
    other.write_documents(docs(0, 20, seed=9))  # fewer rows: a lower rowid sequence
    assert other.text_index is not None
    store.text_index.path.rename(other.text_index.path)  # e.g. a data directory put back together
    other.text_index.auto_build = False
    assert indexed(other, "broken slider", 50) == fts5(other, "broken slider", 50)
    other.close()


MIXED = (
    "Café",
    "naïve",
    "RÉSUMÉ",
    "straße",
    "Ærø",
    "snake_case",
    "CamelCase",
    "v2.3.1",
    "x86_64",
    "running",
    "runs",
    "runner",
    "Ünïcödé",
    "日本語",
    "emoji🙂smile",
    "tab\tseparated",
    "ﬁle",
    "İstanbul",
)


def test_built_from_any_text_in_several_batches_scores_match_fts5(tmp_path, monkeypatch):
    """Every word's stem and term id is worked out once per build (not per token), and ASCII
    text is split without the regular expression: scores still match FTS5's over non-ASCII words,
    underscores, stems shared by several words, and words first met in a later batch."""
    from devkb.store.sqlite import text_index

    monkeypatch.setattr(text_index, "_BATCH", 7)
    rng = random.Random(3)
    s = SQLiteGraphStore(tmp_path / "g.sqlite", text_index_min_chunks=10)
    try:
        items = []
        for i in range(40):
            doc = Document(id=f"m{i}", type=SourceType.JIRA, title=f"doc {i}", content_hash=f"h{i}")
            words = [rng.choice(MIXED + tuple(WORDS)) for _ in range(rng.randint(2, 14))]
            if rng.random() < 0.5:
                words.insert(rng.randint(0, len(words)), "\n")
            items.append(
                (doc, [Chunk(id=f"m{i}-0", document_id=doc.id, chunk_index=0, content=" ".join(words))])
            )
        s.write_documents(items)
        assert s.text_index is not None
        s.text_index.build_now()
        for q in (
            "café resume",
            "straße ærø",
            "snake case",
            "running",
            "x86 64 v2",
            "ünïcödé file",
            "istanbul",
        ):
            same(indexed(s, q, 20), fts5(s, q, 20))
    finally:
        s.close()
