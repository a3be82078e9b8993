"""Ranking metrics for graded relevance, as trec_eval computes them.

``ranking`` is a list of document ids, best first; ``relevant`` maps the relevant ids to their
grade (> 0). Ids not in ``relevant`` are not relevant.

- Recall@k: relevant ids in the top k / all relevant ids.
- nDCG@k: DCG = sum(grade / log2(rank + 1)) over the top k (rank from 1, linear gain), divided
  by the DCG of the ideal ranking (all relevant ids by grade, cut at k).
- MRR@k: 1 / rank of the first relevant id in the top k, 0 when none is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def recall_at_k(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    if not relevant:
        return 0.0
    found = sum(1 for doc in dict.fromkeys(ranking[:k]) if relevant.get(doc, 0) > 0)
    return found / sum(1 for g in relevant.values() if g > 0)


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    ideal = dcg(sorted((g for g in relevant.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    seen: set[str] = set()
    gains = []
    for doc in ranking[:k]:
        gains.append(0.0 if doc in seen else float(relevant.get(doc, 0)))
        seen.add(doc)
    return dcg(gains) / ideal


def mrr_at_k(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    for i, doc in enumerate(ranking[:k]):
        if relevant.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between order statistics."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score_run(
    rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], k: int = 10
) -> dict[str, float]:
    """Mean Recall@k, nDCG@k and MRR@k over the queries in ``qrels`` (a query without a
    ranking scores 0)."""
    r, n, m = [], [], []
    for q, rel in qrels.items():
        ranking = rankings.get(q, [])
        r.append(recall_at_k(ranking, rel, k))
        n.append(ndcg_at_k(ranking, rel, k))
        m.append(mrr_at_k(ranking, rel, k))
    return {f"recall@{k}": mean(r), f"ndcg@{k}": mean(n), f"mrr@{k}": mean(m), "queries": len(qrels)}
