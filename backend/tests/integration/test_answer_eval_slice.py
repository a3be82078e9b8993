"""A fast subset of the answer evaluation (``python -m devkb_devtools.evaluation.answer_eval``) as a
regression test: two tuning questions per intent on a small real Fluid slice (real embedder, SQLite
store, the sources' converters), scored against gold computed from the raw Jira/GitHub JSON. The
thresholds sit a little under the measured values (all 1.0 on this subset); the full tables, held-out
and tuning, are in docs/evaluation.md."""

from __future__ import annotations

from collections import defaultdict

import pytest

from devkb.agent.ask_service import AskService
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.planner import Planner
from devkb.agent.tools import Toolbox
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.evaluation.answer_eval import CorpusGold, evaluate, load_questions, slice_questions
from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys

pytestmark = pytest.mark.corpus


def test_question_sets_are_well_formed(fluid_dir):
    gold = CorpusGold(fluid_dir)
    for split in ("tuning", "heldout"):
        qs = load_questions([split], follow_ups=True, by_title=True)
        by_intent: dict[str, int] = defaultdict(int)
        for q in qs:
            by_intent[q.intent] += 1
            g = gold.gold(q)  # raises when an anchor does not fit its intent
            assert g.exists == (q.intent != "unknown")
        assert len(by_intent) >= 8 and min(by_intent.values()) >= 5, by_intent
        assert len({q.id for q in qs}) == len(qs)


def test_extractive_answers_on_a_fluid_slice(fluid_dir, embedder, tmp_path):
    seen: dict[str, int] = defaultdict(int)
    questions = []
    for q in load_questions(["tuning"], follow_ups=True):
        if seen[q.intent] < 2:
            seen[q.intent] += 1
            questions.append(q)
    gold = CorpusGold(fluid_dir)
    golds = {q.id: gold.gold(q) for q in questions}
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    build_slice(fluid_dir, slice_questions(questions, golds), store, embedder, distractors=30)
    keys = fluid_project_keys(fluid_dir)
    toolbox = Toolbox(store, HybridSearch(store, embedder), lambda: keys)
    report = evaluate({"extractive": AskService(Planner(toolbox, lambda: keys))}, questions, golds)
    table = report.to_markdown()
    print("\n" + table)
    for row in report.table():
        assert row["doc_hit"] >= 0.9, table
        assert row["fact_coverage"] >= 0.75, table
        assert row["wrong_direction"] == 0, table
        if row["not_found"] is not None:
            assert row["not_found"] == 1.0, table
    store.close()
