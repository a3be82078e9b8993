"""The query benchmark's same-run baseline: a commit's ``backend/src`` from ``git archive``, or a
reason it cannot be had (then the ratio is skipped, never guessed)."""

from __future__ import annotations

import shutil

import pytest

from devkb_devtools.bench.baseline_code import ASK_BASELINE_COMMIT, REPO_ROOT, extract_backend_src

needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (REPO_ROOT / ".git").exists(), reason="not a git checkout"
)


@needs_git
def test_the_baseline_commit_extracts_a_servable_package(tmp_path):
    src, why_not = extract_backend_src(ASK_BASELINE_COMMIT, tmp_path)
    assert why_not == "" and src is not None
    assert (src / "devkb" / "cli" / "main.py").is_file()
    assert (src / "devkb" / "api" / "app.py").is_file()


@needs_git
def test_an_unknown_commit_is_a_reason_not_an_error(tmp_path):
    src, why_not = extract_backend_src("0" * 40, tmp_path)
    assert src is None and "git archive" in why_not
