"""The query adapter learnt from a deployment's own graph (``agent/retrieval/adaptation.py``),
on a synthetic graph whose linked issues are related by a known linear map of the embedding
space: the fit recovers the map, the validation slice says it helps, the search path uses the
stored artefact — and with too few edges nothing changes."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.adaptation import (
    ADAPTER_MATRIX,
    AdapterFile,
    QueryAdapter,
    adapt,
    cut_by_time,
    fit_matrix,
    graph_pairs,
    time_split_evaluation,
)
from devkb.store.models import Chunk, Document, Reference, SourceType
from devkb.store.sqlite import SQLiteGraphStore

DIM = 32


class PlainEmbedder:
    """Text → a fixed unit vector per text (the tests pass vectors themselves where it matters)."""

    model_name = "test/plain-32"
    dimension = DIM

    def embed(self, texts):
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            rng = np.random.default_rng(zlib.crc32(text.encode()))
            v = rng.normal(size=DIM)
            out[row] = v / np.linalg.norm(v)
        return out


def involution(seed: int = 1) -> np.ndarray:
    """A symmetric orthogonal matrix (R = Rᵀ = R⁻¹): the same map takes either end of a link
    to the other, so one query-side matrix serves both directions."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.normal(size=(DIM, DIM)))
    signs = np.where(np.arange(DIM) % 2 == 0, 1.0, -1.0)
    return (basis * signs) @ basis.T


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def build_graph(path, pairs: int, seed: int = 7):
    """``pairs`` linked issue pairs (PRJ-2k ↔ PRJ-2k+1): the second's vector is the first's moved
    by ``involution()`` (plus a little noise); words and creation days tell nothing about links."""
    rng = np.random.default_rng(seed)
    r = involution()
    store = SQLiteGraphStore(path)
    store.ensure_schema(PlainEmbedder.model_name, DIM)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    items, refs = [], []
    for k in range(pairs):
        x = _unit(rng.normal(size=DIM))
        y = _unit(r @ x + 0.05 * rng.normal(size=DIM))
        day = int(rng.integers(0, 1000))
        for n, vec in ((2 * k + 1, x), (2 * k + 2, y)):
            key = f"PRJ-{n}"
            doc = Document(
                id=f"jira:{key}",
                type=SourceType.JIRA,
                title=f"{key}: item w{n}a w{n}b",
                content_hash=f"h{n}",
                metadata={
                    "project": "PRJ",
                    "created": (start + timedelta(days=day + int(rng.integers(0, 400)))).isoformat(),
                },
            )
            text = f"{key}: item w{n}a w{n}b\n\n## Description\nw{n}c w{n}d"
            items.append((doc, [Chunk(Chunk.make_id(doc.id, 0, text), doc.id, 0, text, vec.tolist())]))
        a, b = f"jira:PRJ-{2 * k + 1}", f"jira:PRJ-{2 * k + 2}"
        refs.append(Reference(a, b, "jira-issuelink", f"PRJ-{2 * k + 1} relates to PRJ-{2 * k + 2}", a))
    store.write_documents(items)
    store.write_references({r.owner_id for r in refs}, refs)
    return store, r


@pytest.fixture
def graph(tmp_path):
    store, r = build_graph(tmp_path / "graph.sqlite", pairs=300)
    search = RelatedSearch(store, PlainEmbedder(), unrestricted=True)
    yield store, search, r
    store.close()


def test_least_squares_recovers_a_known_map():
    rng = np.random.default_rng(0)
    r = involution()
    q = np.stack([_unit(v) for v in rng.normal(size=(2000, DIM))])
    w = fit_matrix(q, q @ r, ridge=1e-6)
    assert np.abs(w - r).max() < 1e-3
    strong = fit_matrix(q, q @ r, ridge=1e6)  # all regularisation: the identity
    assert np.abs(strong - np.eye(DIM)).max() < 1e-3


def test_pairs_come_from_the_graph_with_their_time(graph):
    store, search, _ = graph
    pairs = graph_pairs(store.all_references(), search.snapshot())
    assert len(pairs) == 300 and all(p.kind == "jira-issuelink" and p.grade == 1 for p in pairs)
    assert [p.time for p in pairs] == sorted(p.time for p in pairs)
    before, after, at = cut_by_time(pairs, 0.2)
    assert len(after) >= 60 and all(p.time < at for p in before) and all(p.time >= at for p in after)


def test_adapting_on_the_synthetic_graph_learns_the_map_and_is_used(graph, tmp_path):
    store, search, r = graph
    snapshot = search.snapshot()
    pairs = graph_pairs(store.all_references(), snapshot)
    adapter, decision = adapt(search, snapshot, pairs, min_pairs=100)
    assert decision.status == "adapted" and adapter is not None
    v = decision.validation
    assert decision.use_anchor and decision.use_text
    best = max(v[k]["ndcg@10"] for k in v if k.startswith("anchor_ridge"))
    assert best > v["anchor_defaults"]["ndcg@10"] + 0.3  # the links are invisible without it
    # the refitted matrix moves a vector where the map does
    probe = np.stack([_unit(x) for x in np.random.default_rng(3).normal(size=(50, DIM))])
    moved = np.stack([adapter.apply(x) for x in probe])
    assert float(np.mean(np.sum(moved * (probe @ r), axis=1))) > 0.8

    # stored, and the search path reads it: the query vector is the adapted one
    adapter.save(tmp_path / "retrieval")
    stored = AdapterFile(tmp_path / "retrieval", dimension=DIM)
    adapted = RelatedSearch(store, PlainEmbedder(), unrestricted=True, adapter=stored)
    raw = PlainEmbedder().embed(["some question"])[0]
    assert np.allclose(adapted.query_vector("some question", anchored=True), adapter.apply(raw), atol=1e-6)
    plain = RelatedSearch(store, PlainEmbedder(), unrestricted=True)
    assert np.allclose(plain.query_vector("some question", anchored=True), raw)
    # …and the ranking through search() is the one the adapted vector gives
    text = "PRJ-1: item w1a w1b"
    _, docs, _, _, _ = plain.rank(
        text, "jira:PRJ-1", [SourceType.JIRA], vector=adapter.apply(PlainEmbedder().embed([text])[0])
    )
    hits = adapted.search(text, top_k=5, types=[SourceType.JIRA], anchor="jira:PRJ-1")
    assert [h.document.id for h in hits] == [snapshot.ids[i] for i in docs[:5]]


def test_a_mode_it_does_not_help_keeps_the_raw_vector(tmp_path):
    adapter = QueryAdapter.vector_map(involution(), use_anchor=False, use_text=True)
    adapter.save(tmp_path)
    loaded = QueryAdapter.load(tmp_path, DIM)
    assert loaded is not None and loaded.used(anchored=False) and not loaded.used(anchored=True)
    assert np.allclose(loaded.matrix, involution(), atol=1e-6)
    assert QueryAdapter.load(tmp_path, DIM + 1) is None  # another model's dimension: ignored
    (tmp_path / ADAPTER_MATRIX).write_bytes(b"not a matrix")
    assert QueryAdapter.load(tmp_path, DIM) is None  # unreadable: shipped defaults, no crash


def test_too_few_edges_keep_the_defaults(tmp_path):
    store, _ = build_graph(tmp_path / "graph.sqlite", pairs=30)
    try:
        search = RelatedSearch(store, PlainEmbedder(), unrestricted=True)
        snapshot = search.snapshot()
        pairs = graph_pairs(store.all_references(), snapshot)
        adapter, decision = adapt(search, snapshot, pairs, min_pairs=200)
        assert adapter is None and decision.status == "too_few_pairs" and "30" in decision.note
        split = time_split_evaluation(search, snapshot, pairs, min_pairs=200)
        assert split.adapted == split.defaults
        missing = AdapterFile(tmp_path / "retrieval", dimension=DIM)
        assert missing.current() is None
        with_missing = RelatedSearch(store, PlainEmbedder(), unrestricted=True, adapter=missing)
        raw = PlainEmbedder().embed(["q"])[0]
        assert np.allclose(with_missing.query_vector("q", anchored=True), raw)
    finally:
        store.close()


def test_time_split_never_trains_on_the_test_pairs(graph):
    store, search, _ = graph
    snapshot = search.snapshot()
    pairs = graph_pairs(store.all_references(), snapshot)
    split = time_split_evaluation(search, snapshot, pairs, min_pairs=100)
    assert split.train_pairs + split.test_pairs == len(pairs)
    assert split.decision.pairs == split.train_pairs  # the adaptation saw the training period only
    assert split.decision.validation_from < split.test_from
    assert split.adapted["anchor"].ndcg > split.defaults["anchor"].ndcg + 0.3


class _Loader:
    def __init__(self, name: str) -> None:
        self.name = name
        self.type = SourceType.JIRA


class _Sync:
    """A sync that succeeds or fails at once, as told."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def run(self, loader, status, **_kw):
        if self.fail:
            status.update(state="failed")
            raise RuntimeError("source down")
        status.update(state="succeeded")


def test_a_successful_sync_with_enough_new_edges_adapts_in_the_background(graph, tmp_path):
    from devkb.agent.retrieval.adaptation import GraphAdaptation
    from devkb.indexing.run_manager import RunManager

    store, search, _ = graph
    directory = tmp_path / "retrieval"
    adaptation = GraphAdaptation(store, search, directory, min_pairs=100, new_edges=50)
    failing = RunManager(_Sync(fail=True), [_Loader("jira")])
    failing.after_run.append(adaptation.after_sync)
    with pytest.raises(RuntimeError):
        failing.run("jira")
    assert adaptation.status.state == "idle"  # a failed sync triggers nothing

    runs = RunManager(_Sync(), [_Loader("jira")])
    runs.after_run.append(adaptation.after_sync)
    runs.run("jira")
    adaptation.wait(120)
    assert adaptation.status.state == "succeeded", adaptation.status
    assert adaptation.status.edges_seen == 300
    decision = adaptation.decision()
    assert decision is not None and decision["status"] == "adapted" and decision["use_anchor"]
    assert QueryAdapter.load(directory, DIM) is not None  # what the search's AdapterFile reads

    assert adaptation.after_sync() is False  # no new edges since: nothing runs
    off = GraphAdaptation(store, search, tmp_path / "off", min_pairs=100, new_edges=1, enabled=False)
    assert off.after_sync() is False and not (tmp_path / "off").exists()


def test_a_decision_for_the_defaults_removes_an_old_adapter(tmp_path):
    from devkb.agent.retrieval.adaptation import GraphAdaptation

    store, _ = build_graph(tmp_path / "graph.sqlite", pairs=30)
    try:
        search = RelatedSearch(store, PlainEmbedder(), unrestricted=True)
        directory = tmp_path / "retrieval"
        QueryAdapter.vector_map(involution()).save(directory)  # an adapter from an earlier, larger graph
        decision = GraphAdaptation(store, search, directory, min_pairs=200).run()
        assert decision.status == "too_few_pairs"
        assert QueryAdapter.load(directory, DIM) is None and not (directory / ADAPTER_MATRIX).exists()
    finally:
        store.close()
