"""The test suite's folders are its tiers (``scripts/test.sh`` runs and times one pytest per tier):
topics live inside a tier, never beside the tiers."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
TIERS = {"unit", "contract", "integration", "llm"}  # scripts/test.sh runs each (two lanes at once)
DATA = {"eval", "data"}  # question sets and real documents (data, no tests)


def test_every_folder_of_the_suite_is_a_tier():
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders == TIERS | DATA


def test_test_sh_runs_every_tier():
    script = (TESTS.parents[1] / "scripts" / "test.sh").read_text(encoding="utf-8")
    for tier in TIERS:  # each tier folder is run by its own pytest_tier line, in one of the two lanes
        assert f"pytest_tier {tier}" in script, tier


def test_no_test_module_outside_a_tier():
    stray = list(TESTS.glob("test_*.py")) + list((TESTS / "eval").rglob("test_*.py"))
    assert stray == []
