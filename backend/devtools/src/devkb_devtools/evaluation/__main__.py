"""``python -m devkb_devtools.evaluation`` (what ``make eval`` runs): index the Fluid corpus through the
emulators with issue links stripped, score related-issue retrieval (baselines and RAGSearch) on a
queries file, run the graph-fidelity test and the agent question set when they are present, and
write ``docs/evaluation.md`` (the generated block) and ``docs/evaluation.json``.

    make eval                                   # dev split, everything
    make eval ARGS="--queries FILE"             # any file in the linked_issues_dev.jsonl format
    make eval ARGS="--limit 100 --skip-fidelity --skip-agent"

Embeddings are cached in ``.cache/eval/embeddings.sqlite`` (by model and text), so a re-run
embeds nothing; a cold run embeds ~22,500 chunks and the queries (see docs/evaluation.md for how
long that takes).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from devkb_devtools.evaluation.corpus import (
    DEFAULT_CACHE_DIR,
    DEFAULT_FLUID_DIR,
    REPO_ROOT,
    build_corpus,
    make_embedder,
)
from devkb_devtools.evaluation.queries import load_queries
from devkb_devtools.evaluation.related import run_related
from devkb_devtools.evaluation.report import Report, git_revision

BACKEND = REPO_ROOT / "backend"
FIDELITY_TEST = BACKEND / "tests" / "integration" / "test_fidelity_corpus.py"
FIDELITY_DOC = REPO_ROOT / "docs" / "graph-fidelity.md"
FIDELITY_BEGIN, FIDELITY_END = "<!-- fidelity:begin -->", "<!-- fidelity:end -->"
AGENT_QUESTIONS = BACKEND / "tests" / "eval" / "agent_questions.jsonl"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_fidelity(timeout: float) -> tuple[str | None, str, float]:
    """Run the graph-fidelity test (it writes its table to ``DEVKB_FIDELITY_OUT``), copy the table into
    docs/graph-fidelity.md between its markers, and return it."""
    if not FIDELITY_TEST.exists():
        return None, f"{FIDELITY_TEST.relative_to(REPO_ROOT)} is not in this checkout", 0.0
    started = time.monotonic()
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-s",
        "-p",
        "no:cacheprovider",
        str(FIDELITY_TEST.relative_to(BACKEND)),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "graph-fidelity.md"
        env = {**os.environ, "DEVKB_FIDELITY_OUT": str(out)}
        try:
            proc = subprocess.run(
                cmd, check=False, cwd=BACKEND, capture_output=True, text=True, timeout=timeout, env=env
            )
        except subprocess.TimeoutExpired:
            return None, f"the fidelity test did not finish in {timeout:.0f} s", time.monotonic() - started
        seconds = time.monotonic() - started
        table = out.read_text(encoding="utf-8").strip() if out.exists() else None
    if table is not None and not table.startswith("|"):
        table = None
    if table is not None:
        write_fidelity_doc(table)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        note = f"the fidelity test failed (exit {proc.returncode}): {' / '.join(tail)}"
        if table is not None:
            return f"{table}\n\n(the test failed its thresholds: {' / '.join(tail)})", note, seconds
        return None, note, seconds
    if table is None:
        return None, "the fidelity test ran but wrote no table", seconds
    return table, "", seconds


def write_fidelity_doc(table: str) -> None:
    """The table between the markers of docs/graph-fidelity.md (the rest of the page is prose)."""
    if not FIDELITY_DOC.exists():
        return
    text = FIDELITY_DOC.read_text(encoding="utf-8")
    if FIDELITY_BEGIN in text and FIDELITY_END in text:
        head, rest = text.split(FIDELITY_BEGIN, 1)
        tail = rest.split(FIDELITY_END, 1)[1]
        FIDELITY_DOC.write_text(f"{head}{FIDELITY_BEGIN}\n{table}\n{FIDELITY_END}{tail}", encoding="utf-8")


def run_agent(fluid_dir: Path, timeout: float) -> tuple[dict[str, Any] | None, str, float]:
    """``python -m devkb_devtools.evaluation.agent_questions --fluid-slice`` in a subprocess; its JSON summary."""
    try:
        import devkb_devtools.evaluation.agent_questions  # noqa: F401
    except ImportError as e:
        return None, f"devkb_devtools.evaluation.agent_questions is not available ({e})", 0.0
    if not AGENT_QUESTIONS.exists():
        return None, f"{AGENT_QUESTIONS.relative_to(REPO_ROOT)} is not in this checkout", 0.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="devkb-agent-eval-") as tmp:
        out = Path(tmp) / "agent.json"
        cmd = [
            sys.executable,
            "-m",
            "devkb_devtools.evaluation.agent_questions",
            "--fluid-slice",
            str(fluid_dir),
            "--json",
            str(out),
        ]
        try:
            proc = subprocess.run(
                cmd,
                check=False,
                cwd=BACKEND,
                capture_output=True,
                text=True,
                timeout=timeout,
                env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
            )
        except subprocess.TimeoutExpired:
            return None, f"the agent evaluation did not finish in {timeout:.0f} s", time.monotonic() - started
        seconds = time.monotonic() - started
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            return None, f"the agent evaluation failed (exit {proc.returncode}): {' / '.join(tail)}", seconds
        return json.loads(out.read_text(encoding="utf-8"))["summary"], "", seconds


def run_answers(fluid_dir: Path, timeout: float) -> tuple[str | None, str, float]:
    """``python -m devkb_devtools.evaluation.answer_eval --fluid-slice`` in a subprocess; its markdown table."""
    started = time.monotonic()
    cmd = [sys.executable, "-m", "devkb_devtools.evaluation.answer_eval", "--fluid-slice", str(fluid_dir)]
    try:
        proc = subprocess.run(
            cmd,
            check=False,
            cwd=BACKEND,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        )
    except subprocess.TimeoutExpired:
        return None, f"the answer evaluation did not finish in {timeout:.0f} s", time.monotonic() - started
    seconds = time.monotonic() - started
    table = "\n".join(line for line in proc.stdout.splitlines() if line.startswith("|"))
    if proc.returncode != 0 or not table:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        return None, f"the answer evaluation failed (exit {proc.returncode}): {' / '.join(tail)}", seconds
    notes = [line for line in proc.stderr.splitlines() if line.startswith("no LLM")]
    return table + ("\n\n" + notes[0] + "." if notes else ""), "", seconds


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--data", type=Path, default=DEFAULT_FLUID_DIR, help="the Fluid data package (../shared/data/fluid)"
    )
    p.add_argument(
        "--queries", type=Path, help="related-issue queries (default: DATA/eval/linked_issues_dev.jsonl)"
    )
    p.add_argument("--limit", type=int, help="only the first N queries")
    p.add_argument(
        "--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, help="embedding cache and ONNX export"
    )
    p.add_argument(
        "--engine",
        choices=["auto", "onnx-fp32", "onnx-int8", "torch"],
        default="auto",
        help="MiniLM engine for cache misses (auto, onnx-fp32 and torch give the same vectors; "
        "onnx-int8 is the shipped default's own)",
    )
    p.add_argument(
        "--max-tokens", type=int, default=256, help="tokens of each text the ONNX engine reads (default 256)"
    )
    p.add_argument(
        "--store",
        type=Path,
        help="index into this directory and keep it (default: a temporary one); "
        "an existing store there is synced, not rebuilt",
    )
    p.add_argument("--hybrid-sample", type=int, default=100, help="queries for the slow shipped HybridSearch")
    p.add_argument(
        "--issue-text-dense",
        action="store_true",
        help="also dense and RRF baselines on the issue text (embeds ~10,000 issue texts once)",
    )
    p.add_argument("--skip-fidelity", action="store_true")
    p.add_argument("--skip-agent", action="store_true")
    p.add_argument("--doc", type=Path, default=REPO_ROOT / "docs" / "evaluation.md")
    p.add_argument("--json", type=Path, default=REPO_ROOT / "docs" / "evaluation.json")
    p.add_argument(
        "--timeout", type=float, default=1800, help="seconds allowed to each of fidelity and agent runs"
    )
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    started = time.monotonic()
    data = args.data.resolve()
    if not (data / "jira" / "issues.jsonl.gz").exists():
        log(f"the Fluid data package is not at {data}; pass --data")
        return 2
    queries_file = (args.queries or data / "eval" / "linked_issues_dev.jsonl").resolve()
    queries = load_queries(queries_file, data, limit=args.limit)
    if not queries:
        log(f"no usable queries in {queries_file}")
        return 2
    command = "python -m devkb_devtools.evaluation " + " ".join(
        shlex.quote(a) for a in (argv or sys.argv[1:])
    )
    report = Report(
        command=command.strip(),
        queries_file=str(_display(queries_file)),
        related=None,
        revision=git_revision(REPO_ROOT),
    )
    embedder = make_embedder(args.cache_dir, args.engine, args.max_tokens)
    log(f"{len(queries)} queries from {queries_file}; indexing the corpus (links stripped)...")
    with tempfile.TemporaryDirectory(prefix="devkb-eval-") as tmp:
        out = args.store or Path(tmp) / "store"
        build = build_corpus(data, out, embedder)
        report.corpus = {
            "documents": build.documents,
            "chunks": build.chunks,
            "documents_by_type": build.documents_by_type,
            "seconds": round(build.seconds, 1),
            "cache_hits": build.cache_hits,
            "cache_misses": build.cache_misses,
            "references_by_kind": build.references_by_kind,
        }
        report.timings["index"] = build.seconds
        log(
            f"indexed {build.documents} documents, {build.chunks} chunks in {build.seconds:.0f} s "
            f"({build.cache_misses} chunks embedded, {build.cache_hits} from the cache)"
        )
        t = time.monotonic()
        report.related = run_related(
            build.store_path,
            queries,
            embedder,
            data,
            hybrid_sample=args.hybrid_sample,
            issue_text_dense=args.issue_text_dense,
            log=log,
        )
        report.timings["related_issue_retrieval"] = time.monotonic() - t
    if args.skip_fidelity:
        report.fidelity_note = "skipped: --skip-fidelity"
    else:
        log("graph fidelity: running tests/integration/test_fidelity_corpus.py ...")
        report.fidelity, report.fidelity_note, seconds = run_fidelity(args.timeout)
        report.timings["graph_fidelity"] = seconds
    if args.skip_agent:
        report.agent_note = "skipped: --skip-agent"
    else:
        log("agent questions: python -m devkb_devtools.evaluation.agent_questions --fluid-slice ...")
        report.agent, report.agent_note, seconds = run_agent(data, args.timeout)
        report.timings["agent_questions"] = seconds
        log("answer questions: python -m devkb_devtools.evaluation.answer_eval --fluid-slice ...")
        report.answers, report.answers_note, seconds = run_answers(data, args.timeout)
        report.timings["answer_questions"] = seconds
    report.timings["total"] = time.monotonic() - started
    report.write(args.doc, args.json)
    print(report.markdown())
    log(f"wrote {_display(args.doc)} and {_display(args.json)} in {report.timings['total']:.0f} s")
    return 0


def _display(path: Path) -> Path:
    try:
        return path.resolve().relative_to(REPO_ROOT.parent)
    except ValueError:
        return path


if __name__ == "__main__":
    raise SystemExit(main())
