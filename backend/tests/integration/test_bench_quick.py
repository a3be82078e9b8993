"""``make bench --quick`` as a smoke test: every benchmark runs on the demo workspace at tiny
sizes (a real ``devkb serve`` included) and writes its JSON and the markdown report. Checks the
structure only — never a timing."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from devkb_devtools.bench.harness import run_all
from devkb_devtools.bench.options import BENCHMARKS, options_for

pytestmark = [pytest.mark.integration]

SUMMARY_KEYS = {"median", "min", "max", "runs", "unit"}
GOAL_KEYS = {"goal", "target", "measured", "met"}


def is_summary(value: object) -> bool:
    return isinstance(value, dict) and SUMMARY_KEYS <= set(value)


def test_quick_bench_writes_every_benchmark_and_the_report(tmp_path, embedder):
    out, work = tmp_path / "out", tmp_path / "work"
    opts = options_for("quick", out, out / "benchmarks.md", work)

    code = run_all(opts, "pytest: quick bench", embedder=embedder)

    found = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    errors = {name: d["error"] for name, d in found.items() if "error" in d}
    assert code == 0 and not errors, errors
    assert set(BENCHMARKS) | {"run"} <= set(found)
    assert not work.exists(), "the scratch directory is removed after the run"
    for name in BENCHMARKS:
        d = found[name]
        assert {"mode", "date", "command", "machine"} <= set(d)
        assert {"cores", "ram_bytes", "cpu_model"} <= set(d["machine"])
    assert "skipped" in found["embedding"]  # quick mode skips the ONNX export

    pipeline = found["pipeline"]  # pass-through and simulated-GPU passes (on the demo workspace here)
    assert {"baseline", "pass_through", "remote"} == set(pipeline["summary"])
    assert pipeline["remote_server"]["server_texts"] >= pipeline["chunks"] > 0
    assert len(pipeline["goals"]) == 2

    ingest = found["ingest"]
    assert ingest["chunks"] > 0 and ingest["runs"]
    assert all(is_summary(v) for v in ingest["summary"].values())

    resync = found["resync"]["workspaces"][0]
    assert is_summary(resync["summary"]["no_change_seconds"])
    assert {"1%", "5%", "proportionality"} <= set(resync["summary"])
    assert resync["runs"][0]["1%"]["documents_indexed"] >= 1  # the edits were picked up

    adaptation = found["adaptation"]  # on the demo workspace: a graph too small to adapt to
    assert adaptation["decision"] in {"too_few_pairs", "defaults", "adapted"}
    assert adaptation["documents"] > 0 and adaptation["total_seconds"] >= adaptation["snapshot_seconds"]
    assert set(adaptation["goals"][0]) >= GOAL_KEYS

    query = found["query"]
    for levels in (query["ask_http"]["levels"], *query["retrieval"]["systems"].values()):
        assert set(levels) == {"1", "8", "32"}
        for figures in levels.values():
            assert is_summary(figures["p50_ms"]) and is_summary(figures["p95_ms"])
            assert is_summary(figures["throughput_per_s"]) and figures["errors"] == 0
    assert set(query["retrieval"]["ratios"]) == {"devkb hybrid", "devkb related", "devkb dense"}
    ask = query["ask_http"]  # the recommended deployment against today's code, in the same repeats
    assert ask["deployment"].startswith("devkb serve")
    if "skipped" not in ask["baseline"]:  # a git checkout: today's code was served and measured
        assert set(ask["baseline"]["levels"]) == set(ask["p95_now_over_today"]) == {"1", "8", "32"}
        assert all(is_summary(v) for v in ask["p95_now_over_today"].values())
    assert [g["goal"].split(":")[0] for g in query["goals"][1:]] == [
        "POST /ask p95 at 8 clients ÷ today's (same run)",
        "POST /ask p95 at 32 clients ÷ today's (same run)",
    ]

    scale = found["scale"]
    assert scale["load"]["chunks"] == opts.scale_chunks
    assert {"vector_search", "vector_search_filtered", "neighbours"} == set(scale["queries"])
    assert scale["memory"]["matrix_bytes"] > 0
    assert scale["related_search_snapshot"]["chunks"] > 0
    search = scale["search"]
    assert search["full_text"]["build"]["chunks"] == opts.scale_chunks
    assert 0 <= search["full_text"]["top10_overlap_with_exact"]["impact_index"] <= 1
    assert is_summary(search["full_text"]["impact_index"]["question"]["p95_ms"])
    assert is_summary(search["full_text"]["fts5"]["question"]["p95_ms"])  # FTS5 timed here only
    assert is_summary(search["learnt_ranking"]["queries"]["related_candidates"]["p95_ms"])
    # the inverted file is built and searched (at the store's size here: its figures say nothing)
    approx = scale["approximate"]
    assert (
        approx["lists"] >= 1
        and 0 <= approx["recall_at_50"] <= 1
        and is_summary(approx["vector_search"]["p95_ms"])
    )
    assert search["learnt_ranking"]["vector_stage"] == "inverted file"
    assert search["learnt_ranking"]["blas_threads"] == 1  # as the server runs
    assert is_summary(search["learnt_ranking"]["queries"]["related_candidates_exact_vectors"]["p95_ms"])
    assert len(scale["goals"]) == 3  # vector search, full text, the learnt ranking

    for name in ("ingest", "resync", "query", "scale"):
        assert found[name]["goals"] and all(GOAL_KEYS <= set(g) for g in found[name]["goals"])

    report = (out / "benchmarks.md").read_text()
    for heading in (
        "# Benchmarks",
        "## Goals",
        "## 1. Ingest",
        "## 2. Embedding speed",
        "## 3. Resync",
        "## 4. Query",
        "## 5. Scale",
        "### Where the embedded store stops scaling",
        "## Reproduce",
    ):
        assert heading in report
    assert "**Machine**" in report and "**Command**" in report and "**Date**" in report


def test_a_benchmark_that_needs_an_index_indexes_without_timing_the_ingest(tmp_path, embedder):
    out, work = tmp_path / "out", tmp_path / "work"
    opts = options_for("quick", out, out / "benchmarks.md", work)
    opts = replace(opts, only=("resync",))

    code = run_all(opts, "pytest: quick bench, resync only", embedder=embedder)

    found = {p.stem for p in out.glob("*.json")}
    assert code == 0 and "resync" in found and "ingest" not in found  # indexed, not measured
    resync = json.loads((out / "resync.json").read_text())["workspaces"][0]
    assert resync["runs"][0]["1%"]["documents_indexed"] >= 1
