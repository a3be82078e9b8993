"""The count evaluation on the real Fluid Jira export: every count the count kind states for the
generated questions equals the one worked out from the raw JSON (devkb_devtools.evaluation.count_eval)."""

from __future__ import annotations

import pytest

from devkb_devtools.evaluation.count_eval import evaluate, questions, stated_count

pytestmark = pytest.mark.integration


def test_every_count_matches_the_raw_export(fluid_dir):
    """Counts by field are exact; "which issues mention X" reads the full-text index's best
    candidates for X, so a holder of two common words can be missed (docs/evaluation.md)."""
    outcomes, _ = evaluate(fluid_dir, ["tuning", "heldout"])
    assert len(outcomes) == len(questions(fluid_dir)) > 100
    wrong = [(o.question, o.expected, o.stated) for o in outcomes if not o.right and o.shape != "mentions"]
    assert not wrong, wrong[:5]
    mentions = [o for o in outcomes if o.shape == "mentions"]
    assert len(mentions) >= 20 and sum(o.right for o in mentions) / len(mentions) >= 0.9


def test_the_stated_count_is_read_off_the_answer():
    assert stated_count("There are 412 issues in FLUID; the newest first: …") == 412
    assert stated_count("There is 1 issue (assigned to Cindy Li); it is: …") == 1
    assert stated_count("There are no issues in NOPE.") == 0
    assert stated_count("There are at least 20000 issues; …") == 20000
    assert stated_count("FLUID-1: status Open [1].") is None
    # a person's work and mentions (agent/kinds/person_work.py, agent/kinds/mentions.py)
    assert stated_count("Avtar Gill worked on 12 issues; the newest first: …") == 12
    assert stated_count("Kasper Markus is working on 1 issue; the newest first: …") == 1
    assert stated_count("Alistair Smith has no unresolved issue assigned and no open pull request …") == 0
    assert stated_count("3 issues mention “date time”: FLUID-1: …") == 3
    assert stated_count("No issue mentions “date time” in the knowledge base.") == 0


def test_every_release_answer_matches_the_raw_export(fluid_dir):
    """The latest and next release, the versions and a version's issues, per Fluid project, as the
    raw JSON has them (devkb_devtools.evaluation.dates_eval)."""
    from devkb_devtools.evaluation.dates_eval import evaluate as evaluate_releases
    from devkb_devtools.evaluation.dates_eval import questions as release_questions

    outcomes, _ = evaluate_releases(fluid_dir, ["tuning", "heldout"])
    assert len(outcomes) == len(release_questions(fluid_dir)) > 100
    wrong = [(o.question, o.expected, o.stated) for o in outcomes if not o.right]
    assert not wrong, wrong[:5]
