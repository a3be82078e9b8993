"""The ranking's weights refitted on a deployment's own pairs (``agent/retrieval/ranker_fit.py``
and its place in ``adaptation.adapt``): the fit recovers a known direction and is pulled to the
shipped weights by its strength; on a synthetic graph whose issues are linked by a habit the
shipped weights ignore (the same reporter), the refit is chosen for questions about an issue,
stored, and used by the search — and text-only questions, where the habit is no feature, keep
the defaults."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.adaptation import AdapterFile, QueryAdapter, adapt, graph_pairs
from devkb.agent.retrieval.ranker_fit import Pool, as_model, as_vector, fit_logistic, pairwise_differences
from devkb.store.models import Chunk, Document, Reference, SourceType
from devkb.store.sqlite import SQLiteGraphStore

DIM = 16


class PlainEmbedder:
    model_name = "test/plain-16"
    dimension = DIM

    def embed(self, texts):
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            v = np.random.default_rng(zlib.crc32(text.encode())).normal(size=DIM)
            out[row] = v / np.linalg.norm(v)
        return out


def test_the_fit_recovers_a_known_direction_and_its_strength_pulls_to_the_prior():
    rng = np.random.default_rng(1)
    truth = np.array([2.0, -1.0, 0.5])
    pools = []
    for _ in range(200):
        X = rng.normal(size=(50, 3)).astype(np.float32)
        grades = np.zeros(50, np.int8)
        grades[np.argsort(-(X @ truth + 0.3 * rng.normal(size=50)))[:2]] = 1
        pools.append(Pool(X, grades))
    rows = pairwise_differences(pools, np.zeros(3), negatives=40)
    assert rows.shape == (200 * 2 * 40, 3)  # each relevant one against 40 of the 48 less relevant
    free = fit_logistic(rows, np.zeros(3), strength=1e-4)
    cosine = free @ truth / np.linalg.norm(free) / np.linalg.norm(truth)
    assert cosine > 0.99
    prior = np.array([0.0, 0.0, 5.0])
    held = fit_logistic(rows, prior, strength=1e6)
    assert np.abs(held - prior).max() < 1e-2  # all regularisation: the shipped weights
    text_model = as_model(np.arange(4.0), anchored=False)  # the text model's four features, by name
    assert list(text_model) == ["bm25", "bm25_title", "dense_max", "dense_first"]
    assert as_vector(text_model, anchored=False).tolist() == [0.0, 1.0, 2.0, 3.0]


def build_habit_graph(path, pairs: int, seed: int = 5):
    """``pairs`` linked issue pairs; the two issues of a pair share a reporter no other issue has
    (the deployment's habit), while words, vectors and creation days are random."""
    rng = np.random.default_rng(seed)
    store = SQLiteGraphStore(path)
    store.ensure_schema(PlainEmbedder.model_name, DIM)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    items, refs = [], []
    for k in range(pairs):
        day = int(rng.integers(0, 1200))
        for n in (2 * k + 1, 2 * k + 2):
            key = f"PRJ-{n}"
            vec = rng.normal(size=DIM)
            doc = Document(
                id=f"jira:{key}",
                type=SourceType.JIRA,
                title=f"{key}: item w{n}a w{n}b",
                content_hash=f"h{n}",
                metadata={
                    "project": "PRJ",
                    "reporter": f"person {k}",
                    "created": (start + timedelta(days=day + int(rng.integers(0, 300)))).isoformat(),
                },
            )
            text = f"{key}: item w{n}a w{n}b\n\n## Description\nw{n}c w{n}d"
            chunk = Chunk(
                Chunk.make_id(doc.id, 0, text), doc.id, 0, text, (vec / np.linalg.norm(vec)).tolist()
            )
            items.append((doc, [chunk]))
        a, b = f"jira:PRJ-{2 * k + 1}", f"jira:PRJ-{2 * k + 2}"
        refs.append(Reference(a, b, "jira-issuelink", f"PRJ-{2 * k + 1} relates to PRJ-{2 * k + 2}", a))
    store.write_documents(items)
    store.write_references({r.owner_id for r in refs}, refs)
    return store


@pytest.fixture
def habit(tmp_path):
    store = build_habit_graph(tmp_path / "graph.sqlite", pairs=300)
    yield store, RelatedSearch(store, PlainEmbedder(), unrestricted=True)
    store.close()


def test_a_habit_the_shipped_weights_ignore_is_learnt_and_used(habit, tmp_path):
    store, search = habit
    snapshot = search.snapshot()
    pairs = graph_pairs(store.all_references(), snapshot)
    adapter, decision = adapt(search, snapshot, pairs, min_pairs=100, ridges=(), strengths=(1.0, 100.0))
    assert decision.status == "adapted" and adapter is not None
    assert decision.validation_queries == "issue links"
    v = decision.validation
    assert decision.methods == {"anchor": "ranker", "text": "defaults"}, v
    assert decision.use_anchor and not decision.use_text
    best = max(v["anchor_ranker_1"]["ndcg@10"], v["anchor_ranker_100"]["ndcg@10"])
    assert best > v["anchor_defaults"]["ndcg@10"] + 0.3
    assert v["anchor_ranker_1"]["gain_bound"] > 0 >= v["text_ranker_1"]["gain_bound"]
    assert decision.projects == {"anchor": ["PRJ"]} and adapter.projects == {"anchor": ["PRJ"]}
    shipped = search.model(anchored=True)
    learnt = adapter.model(anchored=True)
    assert learnt is not None and learnt["same_reporter"] > shipped["same_reporter"] + 1.0
    assert adapter.model(anchored=False) is None and not adapter.used(anchored=True)

    # stored and read back by the search: its anchor model is the refitted one, text the shipped
    adapter.save(tmp_path / "retrieval")
    assert not (tmp_path / "retrieval" / "adapter.npz").exists()  # no mode moves the vector
    adapted = RelatedSearch(
        store, PlainEmbedder(), unrestricted=True, adapter=AdapterFile(tmp_path / "retrieval", DIM)
    )
    assert adapted.model(anchored=True) == learnt
    assert adapted.model(anchored=False) == search.model(anchored=False)
    hits = sum(
        adapted.search(
            f"item w{2 * k + 1}a", top_k=1, types=[SourceType.JIRA], anchor=f"jira:PRJ-{2 * k + 1}"
        )[0].document.id
        == f"jira:PRJ-{2 * k + 2}"
        for k in range(0, 300, 10)
    )
    assert hits >= 27  # the partner first for nearly every issue asked about


def test_noise_keeps_the_defaults(tmp_path):
    """Links that no feature explains: no refit's gain is sure enough to be used."""
    store = build_habit_graph(tmp_path / "graph.sqlite", pairs=150)
    try:
        # shuffle the reporters, so the habit is gone
        search = RelatedSearch(store, PlainEmbedder(), unrestricted=True)
        snapshot = search.snapshot()
        rng = np.random.default_rng(0)
        shuffled = [
            Reference(f"jira:PRJ-{a}", f"jira:PRJ-{b}", "jira-issuelink", "relates to", f"jira:PRJ-{a}")
            for a, b in rng.permutation(np.arange(1, 301)).reshape(-1, 2)
        ]
        pairs = graph_pairs(shuffled, snapshot)
        adapter, decision = adapt(search, snapshot, pairs, min_pairs=100, ridges=(), strengths=(1.0,))
        assert adapter is None and decision.methods == {"anchor": "defaults", "text": "defaults"}
        assert "standard errors" in decision.note
        assert QueryAdapter.load(tmp_path / "nothing", DIM) is None
    finally:
        store.close()


def test_questions_about_a_project_without_evidence_keep_the_defaults(tmp_path):
    """The refit is used for questions about an issue only in projects whose validation queries
    (enough of them) do not lose with it; a new project, or one that loses, keeps the defaults."""
    from devkb.agent.retrieval.adaptation import Figures, helped_projects

    base = Figures(per_query=[0.5] * 70, query_projects=["OLD"] * 30 + ["LOSES"] * 25 + ["FEW"] * 15)
    refit = Figures(
        per_query=[0.6] * 30 + [0.4] * 25 + [0.9] * 15,
        query_projects=base.query_projects,
    )
    assert helped_projects(base, refit, min_queries=20) == ["OLD"]

    model = {"bm25": 1.0, "same_reporter": 5.0}
    adapter = QueryAdapter(methods={"anchor": "ranker", "text": "defaults"}, weights={"anchor": model})
    adapter.projects = {"anchor": ["OLD"]}
    adapter.save(tmp_path)
    loaded = QueryAdapter.load(tmp_path, DIM)
    assert loaded is not None
    assert loaded.model(anchored=True, project="OLD") == model
    assert loaded.model(anchored=True, project="NEW") is None  # not judged there: the defaults
    assert loaded.model(anchored=True) == model  # no project known: the mode's choice
    assert loaded.model(anchored=False, project="OLD") is None
