"""Pieces of the bench harness that must not drift: summaries, percentiles, reading the ONNX
speed script's output, and the report's handling of skipped and failed benchmarks."""

from __future__ import annotations

import gc
import json
from pathlib import Path

from devkb_devtools.bench.embedding import parse
from devkb_devtools.bench.measure import CollectorClock, Summary, percentile
from devkb_devtools.bench.report import fmt, render


def test_summary_is_median_min_max_of_runs():
    s = Summary.of([3.0, 1.0, 2.0], "s")
    assert (s.median, s.min, s.max, s.runs, s.unit) == (2.0, 1.0, 3.0, 3, "s")
    assert fmt(s.to_json()) == "2.0 (1.0–3.0)"
    assert fmt(Summary.of([2.5]).to_json(), 2) == "2.50"


def test_percentile_interpolates_like_numpy():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.5
    assert abs(percentile(values, 95) - 95.05) < 1e-9


def test_reads_per_run_rates_of_the_onnx_speed_script():
    out = (
        "speed: 300 texts of 1000 chars (230 tokens), batch 32, 2 runs, engines interleaved every 64 texts, 2 cores\n"
        "  run 1: torch 23.1/s  onnx-fp32 40.2/s  onnx-int8 61.0/s  (int8/torch 2.64x)\n"
        "  run 2: torch 22.0/s  onnx-fp32 39.0/s  onnx-int8 58.3/s  (int8/torch 2.65x)\n"
        "\nengine      chunks/s  x torch  cosine to torch (these texts)\n"
        "torch           22.5     1.00  mean 1.0000\n"
    )
    assert parse(out) == {"torch": [23.1, 22.0], "onnx-fp32": [40.2, 39.0], "onnx-int8": [61.0, 58.3]}


def test_report_names_skipped_and_failed_benchmarks():
    doc = render(
        {
            "run": {
                "machine": {"cpu_model": "cpu", "cores": 2, "ram_bytes": 2**34, "load_average": [7.0]},
                "date": "2026-01-01T00:00:00+00:00",
                "command": "make bench",
                "mode": "default",
                "seconds": 60,
                "load_average_at_end": [6.0],
            },
            "ingest": {"skipped": "the Fluid corpus is absent"},
            "query": {"error": "BenchError: boom"},
            "load": json.loads(
                '{"sessions": 50, "seconds": 60, "requests": 900, "asks": 400, "history_reads": 400, '
                '"churn_requests": 100, "errors": 0, "leaks": 0, "latency_ms": {"p95": 80.5}, '
                '"ok": true}'
            ),
            "extra": {"figure": 1.5},
        }
    )
    assert "_Skipped: the Fluid corpus is absent_" in doc
    assert "_Failed: `BenchError: boom`" in doc
    assert "The machine was shared" in doc
    assert "## Load test" in doc and "50 chat sessions for 60 s" in doc and "p95 80 ms" in doc
    assert "| load test: 50 sessions × 60 s (errors, session leaks, RSS bound) |" in doc
    assert "## extra" in doc and "| figure | 1.5 |" in doc


def test_report_shows_the_pipeline_passes_and_goals():
    summary = {"median": 10.0, "min": 9.0, "max": 11.0, "runs": 2, "unit": "s"}
    doc = render(
        {
            "pipeline": {
                "corpus": "the whole Fluid corpus",
                "documents": 11899,
                "chunks": 23050,
                "command": "python -m devkb_devtools.bench.pipeline_speed --repeats 2",
                "load_average_at_end": [3.0],
                "gpu_chunks_per_s": 2500.0,
                "gpu_floor_seconds": 9.2,
                "summary": {
                    k: {"seconds": summary, "chunks_per_s": summary}
                    for k in ("baseline", "pass_through", "remote")
                },
                "speedup_vs_baseline": {"median": 1.4, "min": 1.3, "max": 1.5, "runs": 2},
                "remote_server": {"server_requests": 786, "mean_batch": 29.3, "server_busy_seconds": 10.0},
                "goals": [{"goal": "pipeline: x", "target": "≥ 3,000", "measured": 900.0, "met": False}],
            }
        }
    )
    assert "## Pipeline without the model" in doc
    assert "The whole Fluid corpus (11,899 documents, 23,050 chunks)" in doc
    assert "| **pass-through embedder (no model)**, current defaults | 10.0 (9.0–11.0) |" in doc
    assert "| pipeline: x | ≥ 3,000 | 900 | **no** |" in doc
    assert "1.40 (1.30–1.50)×" in doc
    assert "Where the pass-through's time goes" not in doc  # a run before the CPU split: no line


def test_report_shows_where_the_pass_through_time_goes():
    def s(median: float) -> dict[str, float]:
        return {"median": median, "min": median, "max": median, "runs": 1}

    timing = {"seconds": s(10.0), "chunks_per_s": s(2300.0)}
    doc = render(
        {
            "pipeline": {
                "corpus": "the whole Fluid corpus",
                "documents": 11899,
                "chunks": 23000,
                "machine": {"cores": 2},
                "gpu_chunks_per_s": 2500.0,
                "gpu_floor_seconds": 9.2,
                "summary": dict.fromkeys(("baseline", "pass_through", "remote"), timing),
                "speedup_vs_baseline": s(1.3),
                "pass_through_cpu_seconds": {
                    "sync_process": s(8.0),
                    "emulators": s(3.0),
                    "other_processes": s(4.0),
                },
                "target_chunks_per_s": 3000.0,
                "goals": [],
            }
        }
    )
    assert "the sync's process 8.0, the store's write process 4.0, the emulators" in doc
    assert "15.0 core-seconds in 10.0 s on 2 cores (75% of them busy)" in doc
    assert "3,000 chunks/s would need the sync done in 7.7 s, i.e. at most 15.3 core-seconds" in doc


def test_cpu_split_counts_each_process_from_its_first_reading():
    import os

    from devkb_devtools.bench.pipeline_speed import cpu_split

    me = os.getpid()
    split = cpu_split({me: 1.0, 7: 2.0}, {me: 3.5, 7: 2.5, 9: 0.7, 11: 0.3}, emulators=7)
    assert split == {"sync_process": 2.5, "emulators": 0.5, "other_processes": 1.0}
    assert cpu_split({me: 1.0}, {me: 1.0}, emulators=None)["emulators"] == 0.0


def test_cpu_by_process_sees_a_busy_child():
    import os
    import subprocess
    import sys
    import time

    from devkb_devtools.bench.measure import cpu_by_process

    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ntime.sleep(30)",
        ]
    )
    try:
        deadline = time.monotonic() + 20
        seen = 0.0
        while time.monotonic() < deadline and seen < 0.25:
            time.sleep(0.1)
            seen = cpu_by_process(os.getpid()).get(child.pid, 0.0)
        assert seen >= 0.25  # its own 0.3 s of CPU, read from /proc
        assert os.getpid() in cpu_by_process(os.getpid())
    finally:
        child.kill()
        child.wait()


def test_the_goal_of_make_bench_within_30_minutes_uses_the_whole_runs_wall_time_when_it_is_this_runs():
    run = {"mode": "default", "seconds": 1500, "finished": "2026-01-01T01:00:00+00:00"}
    whole = {"seconds": 2100, "args": [], "finished": "2026-01-01T01:10:00+00:00"}
    doc = render({"run": run, "wall": whole})
    assert (
        "| make bench after its setup, minutes (every benchmark, the load test, the replicas' and the memory run) | ≤ 30 | 35.0 | **no** |"
        in doc
    )
    older = {**whole, "finished": "2025-12-31T00:00:00+00:00"}  # an earlier run's record
    assert "| make bench: the benchmarks' run, minutes" in render({"run": run, "wall": older})
    assert "| 25.0 | yes |" in render({"run": run, "wall": {**whole, "args": ["--only", "query"]}})
    assert (
        "make bench"
        not in render({"run": {**run, "mode": "quick"}, "wall": whole}).split("## Goals")[1].split("##")[0]
    )


def test_a_session_id_taken_from_another_client_is_a_leak_a_fresh_one_an_eviction() -> None:
    from devkb_devtools.bench.load_test import session_change

    owners = {"s-a": 0, "s-b": 1, "s-churn": -1}
    assert session_change(owners, 0, "s-b") == "leaks"  # client 0 got client 1's session
    assert session_change(owners, 0, "s-churn") == "leaks"
    assert session_change(owners, 0, "s-new") == "evictions"  # a fresh session, now client 0's
    assert owners["s-new"] == 0
    assert session_change(owners, 1, "s-new") == "leaks"


def test_replicas_without_nginx_are_reported_as_skipped_not_failed(tmp_path, monkeypatch):
    from devkb_devtools.bench import replicas

    monkeypatch.setattr(replicas, "nginx_path", lambda: None)
    out = tmp_path / "replicas.json"
    assert replicas.main(["--replicas", "1,2", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert "nginx is not installed" in data["skipped"]
    doc = render({"replicas": data})
    assert "## Replicas" in doc and "_Skipped: nginx is not installed" in doc


def test_a_sampled_embedder_alone_pass_says_so_in_the_report():
    from devkb_devtools.bench.report import ingest_table

    figure = {"median": 40.0, "min": 40.0, "max": 40.0, "runs": 1, "unit": "chunks/s"}
    summary = dict.fromkeys(
        (
            "pipeline_chunks_per_s",
            "embedder_alone_chunks_per_s",
            "ratio",
            "embed_share_of_pipeline",
            "seconds",
            "peak_rss_bytes",
        ),
        figure,
    )
    assert "(every 3rd batch), chunks/s" in "\n".join(
        ingest_table({"summary": summary, "embedder_alone_sample": 3})
    )
    assert "on the same chunks, chunks/s" in "\n".join(ingest_table({"summary": summary}))


def test_the_previous_default_is_timed_again_only_when_it_differs(tmp_path):
    from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder
    from devkb_devtools.bench.ingest import baseline_embedder, same_configuration

    current = OnnxMiniLMEmbedder(tmp_path, precision="int8", workers=2)
    assert same_configuration(baseline_embedder(current), current)

    class Wrapper:  # the bench's and the cache's wrappers are looked through
        inner = current

    assert same_configuration(baseline_embedder(current), Wrapper())  # type: ignore[arg-type]
    shorter = OnnxMiniLMEmbedder(tmp_path, precision="int8", max_seq_length=128, workers=2)
    assert not same_configuration(baseline_embedder(shorter), shorter)
    assert not same_configuration(None, current)


def test_the_report_names_no_machine_directories() -> None:
    from devkb_devtools.bench.embedding import shown
    from devkb_devtools.bench.report import public_command

    cmd = "python -m devkb_devtools.bench.onnx_speed speed --data /srv/corpora/fluid --n 200 --runs 3"
    assert public_command(cmd) == (
        "python -m devkb_devtools.bench.onnx_speed speed --data $DEVKB_FLUID_DATA --n 200 --runs 3"
    )
    relative = "python -m devkb_devtools.bench.onnx_speed speed --data ../shared/data/fluid --n 200"
    assert public_command(relative) == relative
    assert shown(Path("/nonexistent-elsewhere/fluid")) == "$DEVKB_FLUID_DATA"


def test_the_collector_clock_counts_the_collections_made_while_it_runs():
    gc.collect()
    with CollectorClock() as clock:
        gc.collect(0)
        gc.collect()
    after = clock.collections
    gc.collect()  # outside: not counted
    assert after == clock.collections == 2 and clock.full_collections == 1 and clock.seconds > 0
    assert clock._callback not in gc.callbacks


def test_the_memory_run_shows_its_per_repeat_ratios_and_its_goal() -> None:
    """``make bench`` runs ``bench/memory_ask.py`` (issue 59); its JSON becomes a section and a goal row."""
    d = {
        "date": "2026-12-07T09:00:00Z",
        "command": "python -m devkb_devtools.bench.memory_ask ",
        "cores": 2,
        "load_average": [3.0, 2.0, 1.0],
        "wall_seconds": 170.0,
        "memories": 10000,
        "clients": 8,
        "repeats": 2,
        "seconds": 4.0,
        "memories_stored": 10000,
        "answers_citing_a_memory": "6/19",
        "p95_ms": {"without": [100.0, 110.0], "with": [105.0, 121.0]},
        "throughput_per_s": {"without": [100.0, 98.0], "with": [95.0, 90.0]},
        "ratio_median": 1.075,
        "ratio_min": 1.05,
        "ratio_max": 1.1,
        "goals": [
            {
                "goal": "POST /ask p95 with 10,000 memories ÷ without",
                "target": "≤ 1.1",
                "measured": 1.075,
                "met": True,
            }
        ],
    }
    doc = render({"memory_ask": d})
    assert "| POST /ask p95 with 10,000 memories ÷ without | ≤ 1.1 | 1.07 | yes |" in doc
    assert "| 2 | 110 | 121 | 1.100 | 98 | 90 |" in doc
    assert "**1.075** (1.050–1.100)" in doc
    assert "## memory_ask" not in doc  # its own section, not the generic listing
    assert "Not measured: no server" in render({"memory_ask": {"error": "no server"}})
