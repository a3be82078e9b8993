"""Approximate vector search: the inverted file over the in-memory matrix (``vector_index.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from devkb.store.models import Chunk
from devkb.store.sqlite import SQLiteGraphStore
from devkb.store.sqlite.vector_index import build_partition, nearest
from tests.contract.store_contract import doc

DIM = 16


def clustered(n: int, clusters: int = 30, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, DIM)).astype(np.float32)
    v = centres[rng.integers(0, clusters, n)] + 0.3 * rng.standard_normal((n, DIM)).astype(np.float32)
    out: np.ndarray = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
    return out


def test_every_row_is_filed_once_under_its_nearest_centroid():
    v = clustered(3_000)
    part, order = build_partition(v, 2_500, epoch=0)
    assert part.offsets[0] == 0 and part.offsets[-1] == 2_500
    assert sorted(order.tolist()) == list(range(2_500))  # rows appended later are not filed
    in_order = v[order]
    owner = nearest(in_order, part.centroids)
    for lst in range(part.offsets.size - 1):  # each list is one contiguous block of its own rows
        assert (owner[part.offsets[lst] : part.offsets[lst + 1]] == lst).all()
    blocks = part.blocks(in_order[0], probe=2, count=3_000)
    assert blocks[-1] == (2_500, 3_000)  # the rows appended since: always scanned
    assert any(a <= 0 < b for a, b in blocks)  # a row is in the list nearest to itself
    assert len(blocks) <= 3


def store_with(tmp_path, vectors: np.ndarray, approx_min: int | None) -> SQLiteGraphStore:
    store = SQLiteGraphStore(tmp_path / "g.sqlite", vector_approx_min_chunks=approx_min)
    store.ensure_schema("test-model", DIM)
    items = []
    for i, vec in enumerate(vectors):
        d = doc(f"jira:V-{i}")
        items.append((d, [Chunk(Chunk.make_id(d.id, 0, "t"), d.id, 0, "t", embedding=vec.tolist())]))
    store.write_documents(items)
    return store


def ids(hits) -> list[str]:
    return [h.document.id for h in hits]


@pytest.fixture
def pair(tmp_path):
    v = clustered(2_000)
    approx = store_with(tmp_path / "a", v, approx_min=1_000)
    exact = SQLiteGraphStore(tmp_path / "a" / "g.sqlite")  # the same file, always exact
    approx.vector_search(v[0].tolist(), 1)  # loads the matrix, starts the partition
    assert approx._vectors.wait_partition(60)
    approx._vectors.probe = 4  # of ~44 lists: really approximate
    yield v, approx, exact
    approx.close()
    exact.close()


def test_search_goes_through_the_partition_and_keeps_recall(pair, monkeypatch):
    v, approx, exact = pair
    scanned: list[int] = []
    from devkb.store.sqlite import vector_index

    original = vector_index.Partition.blocks

    def counting(self, q, probe, count):
        out = original(self, q, probe, count)
        scanned.append(sum(b - a for a, b in out))
        return out

    monkeypatch.setattr(vector_index.Partition, "blocks", counting)
    for i in range(0, 2_000, 97):  # a stored vector finds itself first: its own list is probed
        assert ids(approx.vector_search(v[i].tolist(), 1)) == [f"jira:V-{i}"]
    assert scanned and max(scanned) < 1_000  # only the probed lists, not the 2,000 rows
    rng = np.random.default_rng(9)
    recall = []
    for _ in range(20):
        q = v[rng.integers(0, 2_000)] + 0.2 * rng.standard_normal(DIM).astype(np.float32)
        want = set(ids(exact.vector_search(q.tolist(), 10)))
        recall.append(len(want & set(ids(approx.vector_search(q.tolist(), 10)))) / 10)
    assert np.mean(recall) >= 0.9


def test_a_narrow_filter_deletions_and_new_rows_stay_exact(pair):
    v, approx, exact = pair
    few = [f"jira:V-{i}" for i in range(0, 2_000, 50)]  # 40 of 2,000 documents: an exact scan
    q = v[7].tolist()
    assert ids(approx.vector_search(q, 10, document_ids=few)) == ids(
        exact.vector_search(q, 10, document_ids=few)
    )
    approx.delete_documents(["jira:V-7"])
    assert "jira:V-7" not in ids(approx.vector_search(q, 10))
    new = np.zeros(DIM, dtype=np.float32)
    new[0] = 1.0
    d = doc("jira:NEW-1")
    approx.write_documents([(d, [Chunk(Chunk.make_id(d.id, 0, "t"), d.id, 0, "t", embedding=new.tolist())])])
    assert ids(approx.vector_search(new.tolist(), 1)) == ["jira:NEW-1"]  # appended since the build


def test_a_compaction_drops_the_partition_and_search_stays_right(pair):
    v, approx, exact = pair
    gone = [f"jira:V-{i}" for i in range(600)]  # more than a quarter: the matrix is compacted
    approx.delete_documents(gone)
    q = v[1_500].tolist()
    got = ids(approx.vector_search(q, 10))
    assert not set(got) & set(gone)
    assert len(got) == 10
    assert approx._vectors.wait_partition(60)  # rebuilt over the compacted rows
    assert approx._vectors._partition is not None and approx._vectors._partition.built == 1_400
    assert ids(approx.vector_search(v[1_500].tolist(), 1)) == ["jira:V-1500"]


def test_a_failed_build_leaves_search_exact_and_is_not_retried_at_once(tmp_path, monkeypatch):
    from devkb.store.sqlite import vector_index

    def no_memory(*args, **kwargs):
        raise MemoryError("test: no room for the partition")

    monkeypatch.setattr(vector_index, "build_partition", no_memory)
    v = clustered(1_200)
    store = store_with(tmp_path, v, approx_min=1_000)
    try:
        assert ids(store.vector_search(v[3].tolist(), 1)) == ["jira:V-3"]
        assert not store._vectors.wait_partition(30)
        assert store._vectors._failed_at == 1_200
        store.delete_documents(["jira:V-5"])  # a refresh: no new attempt below twice the rows
        assert ids(store.vector_search(v[3].tolist(), 1)) == ["jira:V-3"]
        assert store._vectors._building is not None and not store._vectors._building.is_alive()
        assert store._vectors._partition is None
    finally:
        store.close()
