"""The evaluation set's ``none`` path on a real Fluid slice: the real embedder and SQLite store,
documents from the sources' converters through the indexing pipeline, a subset of the questions
(five per category, chosen to keep the slice near 150 chunks) and their gold documents among
seeded distractors. The full set's numbers are in docs/agent.md (``python -m devkb_devtools.evaluation.agent_questions
--fluid-slice``)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from devkb.agent.ask_service import AskService
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.planner import Planner
from devkb.agent.tools import Toolbox
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.evaluation.agent_questions import evaluate, load_questions
from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys

pytestmark = pytest.mark.corpus

SUBSET = (
    ["id-01", "id-04", "id-12", "id-13", "id-17"]
    + ["rel-01", "rel-02", "rel-09", "rel-13", "rel-16"]
    + ["con-02", "con-04", "con-07", "con-16", "con-18"]
    + ["xs-04", "xs-06", "xs-07", "xs-08", "xs-11"]
)


def test_questions_are_well_formed():
    qs = load_questions()
    assert len(qs) >= 60 and len({q.id for q in qs}) == len(qs)
    assert {q.category for q in qs} == {"identifier", "relationship", "conceptual", "cross-source"}
    for q in qs:
        assert (
            q.gold
            and q.expected_tools
            and set(q.expected_tools) <= {"RAGSearch", "GraphQuery", "FetchNeighbors", "FilterDocs"}
        )
    assert set(SUBSET) <= {q.id for q in qs}


def test_none_mode_finds_the_gold_documents(fluid_dir, embedder, tmp_path):
    questions = [q for q in load_questions() if q.id in SUBSET]
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    stats = build_slice(fluid_dir, [asdict(q) for q in questions], store, embedder, distractors=30)
    assert stats.by_type.keys() == {"JIRA", "GITHUB", "CONFLUENCE"}
    keys = fluid_project_keys(fluid_dir)
    toolbox = Toolbox(store, HybridSearch(store, embedder), lambda: keys)
    report = evaluate(AskService(Planner(toolbox, lambda: keys)), questions, indexed=store.document_ids())
    print(f"\nslice: {stats.documents} documents, {stats.chunks} chunks\n{report.to_text()}")
    assert not report.skipped
    assert report.rate() >= 0.9, report.to_text()
    assert report.tool_accuracy() >= 0.9, report.to_text()
    for category in ("identifier", "relationship", "conceptual", "cross-source"):
        assert report.rate(category) >= 0.8, report.to_text()
    store.close()
