"""Embedding speed: torch vs ONNX Runtime fp32 vs int8, chunks/s — measured by the ONNX
embedder's own script (``devkb_devtools.bench.onnx_speed speed``), not re-implemented here.

That script embeds the same ~1,000-character Fluid issue texts with the three engines
interleaved in blocks of two batches per run, so load from other processes hits them alike.
This module runs it in a subprocess, keeps its output, and turns its per-run lines into
summaries: chunks/s per engine and the same-run ratios to torch. Quality (Recall@10, nDCG@10)
is that script's ``retrieval`` mode, reported in docs/embedding-speed.md.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from devkb_devtools.bench.measure import Summary
from devkb_devtools.bench.options import BenchOptions
from devkb_devtools.bench.workspace import REPO_ROOT


def shown(path: Path) -> str:
    """``path`` as the report prints it: relative to the checkout (``../shared/data/fluid``) when it
    lies beside it, else as ``$DEVKB_FLUID_DATA`` (where such a corpus is given), so the report
    names no machine's directories."""
    try:
        return str(Path("..") / path.resolve().relative_to(REPO_ROOT.parent))
    except ValueError:
        return "$DEVKB_FLUID_DATA"


RUN_LINE = re.compile(r"^\s*run (\d+):(.*)$")
RATE = re.compile(r"([\w-]+) ([\d.]+)/s")
GOAL_SPEEDUP = 2.0


def parse(stdout: str) -> dict[str, list[float]]:
    """``{engine: [chunks/s of run 1, run 2, ...]}`` from the script's ``run N:`` lines."""
    rates: dict[str, list[float]] = {}
    for line in stdout.splitlines():
        m = RUN_LINE.match(line)
        if m:
            for engine, rate in RATE.findall(m.group(2)):
                rates.setdefault(engine, []).append(float(rate))
    return rates


def run(opts: BenchOptions, fluid_dir: Path | None) -> dict[str, Any]:
    if opts.embedding_texts <= 0:
        return {"skipped": "quick mode: the ONNX export and three engines take minutes"}
    if fluid_dir is None:
        return {"skipped": "the Fluid corpus is absent (its issue texts are the speed test's input)"}
    cmd = [
        sys.executable,
        "-m",
        "devkb_devtools.bench.onnx_speed",
        "speed",
        "--data",
        str(fluid_dir),
        "--n",
        str(opts.embedding_texts),
        "--runs",
        str(opts.embedding_runs),
    ]
    try:
        done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        return {"skipped": "the embedding speed script ran over 30 minutes", "command": " ".join(cmd[1:])}
    if done.returncode != 0:
        return {
            "skipped": f"the embedding speed script failed (exit {done.returncode})",
            "stderr_tail": done.stderr[-2000:],
            "command": " ".join(cmd[1:]),
        }
    rates = parse(done.stdout)
    if "torch" not in rates or len(rates) < 2:
        return {
            "skipped": "could not read per-run rates from the script's output",
            "stdout": done.stdout[-3000:],
        }
    engines = {name: Summary.of(values, "chunks/s").to_json() for name, values in rates.items()}
    ratios = {
        name: Summary.of([v / t for v, t in zip(values, rates["torch"], strict=True)]).to_json()
        for name, values in rates.items()
        if name != "torch"
    }
    header = next((line for line in done.stdout.splitlines() if line.startswith("speed:")), "")
    best = max(ratios, key=lambda n: ratios[n]["median"])
    return {
        "command": "python -m " + " ".join(shown(fluid_dir) if a == str(fluid_dir) else a for a in cmd[2:]),
        "setup": header,
        "chunks_per_s": engines,
        "speedup_over_torch": ratios,
        "stdout": done.stdout,
        "quality_report": "docs/embedding-speed.md",
        "goals": [
            {
                "goal": f"embedding speed: {best} chunks/s ÷ torch chunks/s (same run)",
                "target": f"≥ {GOAL_SPEEDUP:.0f}×",
                "measured": ratios[best]["median"],
                "met": ratios[best]["median"] >= GOAL_SPEEDUP,
            }
        ],
    }
