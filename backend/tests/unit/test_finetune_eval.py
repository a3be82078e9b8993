"""The fine-tuning experiment's batching (issue 62): in-batch negatives must never be positives."""

from __future__ import annotations

import random
from collections import Counter

from devkb_devtools.evaluation.finetune_eval import ZeroEmbedder, no_duplicate_batches


def test_batches_hold_every_example_once_and_no_issue_twice():
    rng = random.Random(3)
    issues = [f"jira:P-{i}" for i in range(40)]
    examples = []
    for _ in range(300):
        a, b = rng.sample(issues, 2)
        examples.append((a, f"asks {a}", b, f"chunk of {b}"))
    batches = no_duplicate_batches(examples, 8, random.Random(62))
    assert Counter(k for batch in batches for k in batch) == Counter(range(len(examples)))
    for batch in batches:
        assert 1 <= len(batch) <= 8
        ids = [x for k in batch for x in (examples[k][0], examples[k][2])]
        assert len(ids) == len(set(ids)), batch
    # seeded: the same order again
    assert batches == no_duplicate_batches(examples, 8, random.Random(62))


def test_a_hub_issue_is_spread_over_batches():
    examples = [("jira:HUB-1", "q", f"jira:P-{i}", "d") for i in range(5)]
    batches = no_duplicate_batches(examples, 4, random.Random(0))
    assert [len(b) for b in batches] == [1, 1, 1, 1, 1]


def test_zero_embedder_indexes_without_a_model():
    vectors = ZeroEmbedder().embed(["a", "b"])
    assert vectors.shape == (2, 384) and not vectors.any()
