"""The combined-conditions evaluation on the real Fluid Jira export (issue 58): every pair of a
person in a role, a period, a project, a type, a status, a priority and a fix version, and five
triples, several phrasings each, the gold count worked out from the raw JSON
(devkb_devtools.evaluation.conditions_eval) — at least 0.95 right per pair, and no silent drop."""

from __future__ import annotations

import pytest

from devkb_devtools.evaluation.conditions_eval import Question, bank_questions, evaluate, questions, score

pytestmark = pytest.mark.integration


def test_every_pair_of_conditions_is_answered_and_none_is_dropped(fluid_dir):
    outcomes, _ = evaluate(fluid_dir, ["tuning", "heldout"], seed=60)
    assert len(outcomes) == len(questions(fluid_dir, seed=60)) >= 300
    silent = [(o.question, o.expected, o.stated) for o in outcomes if o.silent_drop]
    assert not silent, silent[:5]
    for pair in {o.pair for o in outcomes}:
        mine = [o for o in outcomes if o.pair == pair]
        assert sum(o.right for o in mine) / len(mine) >= 0.95, (
            pair,
            [o.question for o in mine if not o.right],
        )


def test_a_drop_is_scored_as_silent_unless_the_answer_says_so():
    q = Question("c1", "scope+period", "tuning", "How many bugs did FLUID get in 2011?", 369)
    assert score(q, "There are 369 issues in FLUID (type Bug, created 2011-01-01 to 2011-12-31).").right
    dropped = score(q, "There are 4542 issues in FLUID (type Bug).")
    assert not dropped.right and dropped.silent_drop
    said = score(
        q,
        "There are 4542 issues in FLUID (type Bug).\n\nI could not apply every condition of the question: created in 2011.",
    )
    assert not said.right and not said.silent_drop


def test_the_demo_workspace_answers_every_pair_too():
    """The same evaluation on the demo workspace's raw Jira (41 issues, its own people, projects,
    versions and periods): written from its raw records, never tuned on."""
    from devkb_devtools.evaluation.conditions_eval import DEMO_JIRA

    outcomes, _ = evaluate(DEMO_JIRA, ["tuning", "heldout"], seed=61)
    assert len(outcomes) >= 300
    assert not [o.question for o in outcomes if o.silent_drop]
    assert sum(o.right for o in outcomes) / len(outcomes) >= 0.95


def test_the_phrasing_bank_as_people_type_it_drops_no_condition(fluid_dir):
    """The phrasing bank (conditions_bank.py: possessives, fragments without a verb, a project by
    its name, lower case, 'items', 'from X', …), seed 58, both template splits: at least 0.95 right
    each and no silent drop (the frame before this bank scored 0.354 with 31 silent drops on the
    tuning templates and 0.571 with 14 on the held-out ones)."""
    outcomes, _ = evaluate(fluid_dir, ["tuning", "heldout"], seed=58, bank=True)
    assert len(outcomes) == len(bank_questions(fluid_dir, seed=58)) >= 150
    silent = [(o.question, o.expected, o.stated) for o in outcomes if o.silent_drop]
    assert not silent, silent[:5]
    for split in ("tuning", "heldout"):
        mine = [o for o in outcomes if o.split == split]
        assert sum(o.right for o in mine) / len(mine) >= 0.95, (
            split,
            [o.question for o in mine if not o.right],
        )
