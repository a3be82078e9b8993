"""A fast subset of the trust evaluation (``python -m devkb_devtools.evaluation.trust_eval``) as a regression
test: the question files are valid against the raw corpus (every unanswerable topic absent from it,
every answerable page present), and on a small real Fluid slice the tuning split's topic questions
are answered when the handbook covers them and "not found" when nothing does. Thresholds sit under
the measured values; the full tables are in docs/evaluation.md."""

from __future__ import annotations

import pytest

from devkb.agent.ask_service import AskService
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.planner import Planner
from devkb.agent.tools import Toolbox
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.evaluation.answer_eval import CorpusGold, slice_questions
from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys
from devkb_devtools.evaluation.trust_eval import (
    TRUST_SPLITS,
    _as_answer_question,
    check_questions,
    evaluate,
    load_trust,
    metrics,
)

pytestmark = pytest.mark.corpus


def test_trust_questions_are_valid_against_the_corpus(fluid_dir):
    questions = [q for q in load_trust(list(TRUST_SPLITS)) if q.source == "trust"]
    assert sum(q.answerable for q in questions) >= 40
    assert sum(not q.answerable for q in questions) >= 100
    assert check_questions(fluid_dir, questions) == []


def test_topics_the_sources_do_not_cover_are_not_found(fluid_dir, embedder, tmp_path):
    every = [q for q in load_trust(["tuning"]) if q.source == "trust"]
    questions = [q for q in every if q.answerable][:8] + [q for q in every if not q.answerable][:16]
    gold = CorpusGold(fluid_dir)
    golds = {q.id: gold.gold(_as_answer_question(q)) for q in questions}
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    answerable = [_as_answer_question(q) for q in questions if q.answerable]
    build_slice(fluid_dir, slice_questions(answerable, golds), store, embedder, distractors=30)
    keys = fluid_project_keys(fluid_dir)
    toolbox = Toolbox(store, HybridSearch(store, embedder), lambda: keys)
    results = evaluate(AskService(Planner(toolbox, lambda: keys)), questions, golds)
    m = metrics(results)
    print(m)
    assert m["unanswerable_not_found"] >= 0.8, m
    assert m["answerable_answered"] >= 0.85, m
    for r in results:
        if r.status == "not_found" and not r.answerable:
            assert r.answer.startswith("The knowledge base does not say."), r.answer
    store.close()
