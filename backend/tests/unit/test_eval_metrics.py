"""Ranking metrics of the evaluation harness on hand-computed examples."""

from __future__ import annotations

import math

import pytest

from devkb_devtools.evaluation.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k, score_run


def test_single_relevant_at_rank_two():
    ranking, rel = ["a", "b", "c"], {"b": 1}
    assert recall_at_k(ranking, rel) == 1.0
    assert mrr_at_k(ranking, rel) == 0.5
    # DCG = 1/log2(3); ideal = 1/log2(2) = 1
    assert ndcg_at_k(ranking, rel) == pytest.approx(1 / math.log2(3))


def test_graded_relevance_uses_linear_gain():
    ranking, rel = ["x", "a", "b"], {"a": 2, "b": 1}
    dcg = 2 / math.log2(3) + 1 / math.log2(4)  # 1.26186 + 0.5
    ideal = 2 / math.log2(2) + 1 / math.log2(3)  # 2 + 0.63093
    assert ndcg_at_k(ranking, rel) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(ranking, rel) == pytest.approx(0.66967, abs=1e-5)
    assert mrr_at_k(ranking, rel) == 0.5


def test_perfect_ranking_scores_one():
    rel = {"a": 2, "b": 1, "c": 1}
    assert ndcg_at_k(["a", "b", "c", "x"], rel) == pytest.approx(1.0)
    assert ndcg_at_k(["a", "c", "b"], rel) == pytest.approx(1.0)  # equal grades may swap
    assert ndcg_at_k(["b", "a", "c"], rel) < 1.0


def test_cut_at_k():
    ranking = [f"n{i}" for i in range(10)] + ["a"]
    rel = {"a": 1, "b": 1}
    assert recall_at_k(ranking, rel, 10) == 0.0
    assert recall_at_k(ranking, rel, 11) == 0.5
    assert mrr_at_k(ranking, rel, 10) == 0.0
    assert mrr_at_k(ranking, rel, 11) == pytest.approx(1 / 11)
    assert ndcg_at_k(ranking, rel, 10) == 0.0


def test_ideal_dcg_is_cut_at_k_too():
    rel = {f"r{i}": 1 for i in range(12)}
    ranking = [f"r{i}" for i in range(10)]
    assert ndcg_at_k(ranking, rel, 10) == pytest.approx(1.0)
    assert recall_at_k(ranking, rel, 10) == pytest.approx(10 / 12)


def test_duplicates_count_once():
    rel = {"a": 1, "b": 1}
    assert recall_at_k(["a", "a", "x"], rel) == 0.5
    assert ndcg_at_k(["a", "a"], rel) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_nothing_relevant():
    assert recall_at_k(["a"], {}) == 0.0
    assert ndcg_at_k(["a"], {}) == 0.0
    assert mrr_at_k(["a"], {}) == 0.0
    assert mrr_at_k([], {"a": 1}) == 0.0


def test_percentile_interpolates():
    assert percentile([4, 1, 3, 2], 50) == 2.5
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile([7], 95) == 7
    assert percentile([], 50) == 0.0


def test_score_run_means_over_queries_and_missing_ranking_scores_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 2}}
    run = score_run({"q1": ["a"]}, qrels)
    assert run["recall@10"] == 0.5
    assert run["mrr@10"] == 0.5
    assert run["ndcg@10"] == 0.5
    assert run["queries"] == 2
