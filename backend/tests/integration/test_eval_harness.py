"""The evaluation harness end to end on a slice: 50 dev queries, their issues, the issues they
are judged against and 250 others, indexed through the Jira emulator with links stripped, the
baselines and RAGSearch scored, the report written. Vectors come from the hashing embedder (the
harness itself runs MiniLM; here only the plumbing is under test)."""

from __future__ import annotations

import json
import random

import pytest

from devkb.indexing.embedders.cache import CachingEmbedder
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.emulators import Dataset
from devkb_devtools.evaluation.corpus import build_corpus
from devkb_devtools.evaluation.queries import load_queries
from devkb_devtools.evaluation.related import run_related
from devkb_devtools.evaluation.report import BEGIN, END, IMPROVED, Report
from tests.hashing_embedder import HashingEmbedder

pytestmark = [pytest.mark.integration, pytest.mark.corpus]


def test_harness_on_a_slice(fluid_dir, tmp_path):
    queries = load_queries(fluid_dir / "eval" / "linked_issues_dev.jsonl", fluid_dir, limit=50)
    assert len(queries) == 50
    keys = {q.key for q in queries} | {d.split(":", 1)[1] for q in queries for d in q.relevant}
    others = sorted(i["key"] for i in Dataset.load(fluid_dir).issues() if i["key"] not in keys)
    keys |= set(random.Random(7).sample(others, 250))

    embedder = CachingEmbedder(HashingEmbedder())
    build = build_corpus(fluid_dir, tmp_path / "store", embedder, issue_keys=keys, sources=["jira"])
    assert build.documents_by_type == {"JIRA": len(keys)}
    store = SQLiteGraphStore(build.store_path)
    try:
        # links are stripped from the graph and the text
        assert "jira-issuelink" not in store.stats().references_by_kind
        for q in queries[:10]:
            text = store.get_document(q.doc_id)
            assert text is not None
            body = "\n".join(c.content for c in text.chunks)
            assert not any(d.split(":", 1)[1] in body for d in q.relevant)
    finally:
        store.close()

    related = run_related(
        build.store_path,
        queries,
        embedder,
        fluid_dir,
        hybrid_sample=5,
        embed_sample=3,
        issue_text_dense=True,
        log=lambda _: None,
    )
    names = {(m.name, m.group) for m in related.methods}
    assert ("BM25 (bm25s)", "issue text") in names and ("RRF(BM25, dense)", "indexed text") in names
    assert ("dense all-MiniLM-L6-v2", "issue text") in names
    best = related.best(IMPROVED)
    assert best is not None and best.queries == 50
    for m in related.methods:
        assert all(0.0 <= v <= 1.0 for v in m.metrics.values())
        assert m.latency_ms["p95"] >= m.latency_ms["p50"] >= 0
        assert len(m.rankings) == m.queries
        for q in queries:
            ranking = m.rankings.get(q.key, [])
            assert q.doc_id not in ranking and len(ranking) <= 10
    bm25 = next(m for m in related.methods if m.name == "BM25 (bm25s)" and m.group == "indexed text")
    assert best.metrics["ndcg@10"] > bm25.metrics["ndcg@10"]  # the anchor's priors help even on a slice

    doc, js = tmp_path / "evaluation.md", tmp_path / "evaluation.json"
    doc.write_text(f"# Evaluation\n\n{BEGIN}\nOLD-BLOCK\n{END}\n\n## Experiments\nkept\n", encoding="utf-8")
    report = Report(
        command="test", queries_file="dev", related=related, fidelity_note="skipped", agent_note="skipped"
    )
    report.write(doc, js)
    text = doc.read_text(encoding="utf-8")
    assert "OLD-BLOCK" not in text and "## Experiments\nkept" in text and IMPROVED in text
    assert "not available (skipped)" in text
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["related_issue_retrieval"]["queries"] == 50
    assert data["machine"]["cores"] >= 1
