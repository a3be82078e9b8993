"""Runs the benchmarks in order and writes one JSON file per benchmark, then the report.

    python -m devkb_devtools.bench run [--quick | --full] [--only ingest,query] [--repeats N] [--keep]
    python -m devkb_devtools.bench report          # re-render docs/benchmarks.md from artifacts/bench/*.json

Order: embedding speed (a subprocess), ingest (leaves its last workspace open — the whole
corpus's in the default mode), resync and query on that workspace, scale last (it needs the most
memory). A benchmark that fails is
recorded with its error and the others still run; the exit code is then 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from devkb.indexing.embedders.base import TextEmbedder
from devkb_devtools.bench import adaptation, embedding, ingest, pipeline_speed, query, resync, scale
from devkb_devtools.bench.measure import load_average, machine, utc_now
from devkb_devtools.bench.options import BENCHMARKS, BenchOptions, Mode, options_for
from devkb_devtools.bench.report import write_report
from devkb_devtools.bench.workspace import REPO_ROOT, Workspace, corpus, find_fluid_dir

log = logging.getLogger("devkb_devtools.bench")


def write_json(path: Path, payload: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=str, ensure_ascii=False) + "\n", encoding="utf-8")


class Recorder:
    """Writes each benchmark's JSON with the run's metadata as soon as it is done."""

    def __init__(self, opts: BenchOptions, meta: dict[str, Any]) -> None:
        self.opts = opts
        self.meta = meta
        self.failed: list[str] = []

    def run(self, name: str, fn: Any, *args: Any) -> Any:
        log.info("== %s", name)
        start = time.perf_counter()
        try:
            result, value = fn(*args), None
            if isinstance(result, tuple):
                result, value = result
        except Exception as e:
            log.exception("benchmark %s failed", name)
            self.failed.append(name)
            result, value = (
                {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-4000:]},
                None,
            )
        self.save(name, result, time.perf_counter() - start)
        return result, value

    def save(self, name: str, result: dict[str, Any], seconds: float = 0.0) -> None:
        if not self.opts.wants(name):  # run only as another benchmark's prerequisite
            return
        write_json(
            self.opts.out_dir / f"{name}.json",
            {
                "benchmark": name,
                **self.meta,
                "benchmark_seconds": seconds,
                "load_average_at_end": load_average(),
                **result,
            },
        )


def run_all(opts: BenchOptions, command: str, embedder: TextEmbedder | None = None) -> int:
    """Run the benchmarks ``opts`` asks for; 0 when none failed. ``embedder`` replaces the
    configured one (the quick test passes its session's cached model)."""
    started = time.perf_counter()
    meta = {"mode": opts.mode, "date": utc_now(), "command": command, "machine": machine()}
    opts.out_dir.mkdir(parents=True, exist_ok=True)
    for name in opts.only:  # their old figures must not survive a failed run
        (opts.out_dir / f"{name}.json").unlink(missing_ok=True)
    rec = Recorder(opts, meta)
    fluid = find_fluid_dir()
    main = corpus(opts.corpus, opts.slice_projects)
    needs_index = any(opts.wants(n) for n in ("ingest", "resync", "query", "scale", "adaptation"))
    if opts.wants("embedding"):
        rec.run("embedding", embedding.run, opts, fluid)
    if opts.wants("pipeline"):
        # the whole Fluid corpus; the demo workspace in --quick (its figures say nothing there)
        target = corpus("demo" if opts.mode == "quick" else "fluid-full")
        if target is None:
            rec.save("pipeline", {"skipped": "the Fluid corpus is absent (set DEVKB_FLUID_DATA)"})
        else:
            rec.run("pipeline", pipeline_speed.run, opts.pipeline_repeats, opts.work_dir / "pipeline", target)
    if needs_index and main is None:
        message = (
            f"the Fluid corpus is absent (looked for {REPO_ROOT.parent / 'shared' / 'data' / 'fluid'}, "
            f"or set DEVKB_FLUID_DATA): ingest, resync, query and scale skipped; "
            f"`make bench ARGS=--quick` runs them on the demo workspace"
        )
        print(message, file=sys.stderr)
        for name in ("ingest", "resync", "query", "scale", "adaptation"):
            if opts.wants(name):
                rec.save(name, {"skipped": message})
        needs_index = False
    ws: Workspace | None = None
    try:
        if needs_index:
            assert main is not None
            if embedder is None:
                from devkb.config.settings import Settings
                from devkb.container import build_embedder

                embedder = build_embedder(Settings())
            ingest_opts = opts if opts.wants("ingest") else replace(opts, ingest_repeats=1)
            whole = corpus("fluid-full") if main.name == "fluid-slice" and opts.whole_corpus_pass else None
            if whole is not None and not opts.wants("ingest"):  # only a prerequisite: index what is used
                main, whole = whole, None
            if opts.wants("ingest"):
                _, ws = rec.run("ingest", ingest.run_with_whole_corpus, ingest_opts, main, whole, embedder)
            else:  # a prerequisite only: index, time nothing (no embedder-alone passes)
                _, ws = rec.run("ingest", ingest.index_only, ingest_opts, main, embedder)
            if ws is None:  # ingest failed: nothing indexed to resync, query or imitate
                for name in ("resync", "query", "scale", "adaptation"):
                    if opts.wants(name):
                        rec.save(name, {"skipped": "ingest failed (see ingest.json), so nothing was indexed"})
            else:
                if opts.wants("resync"):
                    rec.run("resync", resync.run, opts, ws)
                if opts.wants("query"):
                    rec.run("query", query.run, opts, ws, embedder)
                template_db = ws.data_dir / "graph.sqlite"
                if opts.wants("adaptation"):  # before scale: on the indexed corpus, as a deployment
                    rec.run("adaptation", adaptation.run, template_db, embedder, opts.work_dir / "adaptation")
                if opts.wants("scale"):
                    rec.run(
                        "scale",
                        scale.run,
                        opts,
                        template_db,
                        embedder,
                        fluid if main.name != "demo" else None,
                    )
    finally:
        if ws is not None:
            ws.__exit__(None, None, None)
        if not opts.keep_work_dir:
            shutil.rmtree(opts.work_dir, ignore_errors=True)
    write_json(
        opts.out_dir / "run.json",
        {
            **meta,
            "finished": utc_now(),
            "seconds": time.perf_counter() - started,
            "load_average_at_end": machine()["load_average"],
            "failed": rec.failed,
            "options": {k: v for k, v in asdict(opts).items() if k != "extra"},
        },
    )
    write_report(opts.out_dir, opts.doc_path)
    log.info("done in %.0f s: %s, %s", time.perf_counter() - started, opts.out_dir, opts.doc_path)
    return 1 if rec.failed else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m devkb_devtools.bench", description=__doc__.split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command")
    run_p = sub.add_parser("run", help="run the benchmarks (default)")
    size = run_p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smoke run on the demo workspace, tiny sizes")
    size.add_argument(
        "--full", action="store_true", help="ingest, resync and query on the whole Fluid corpus"
    )
    run_p.add_argument("--only", default=",".join(BENCHMARKS), help=f"comma-separated subset of {BENCHMARKS}")
    run_p.add_argument("--repeats", type=int, default=None, help="repeats of every measurement")
    run_p.add_argument("--scale-chunks", type=int, default=None, help="chunks for the scale benchmark")
    run_p.add_argument("--out", type=Path, default=None, help="JSON directory (default artifacts/bench)")
    run_p.add_argument("--doc", type=Path, default=None, help="report (default docs/benchmarks.md)")
    run_p.add_argument(
        "--work-dir", type=Path, default=None, help="scratch directory (default: a new one in /tmp)"
    )
    run_p.add_argument("--keep", action="store_true", help="keep the scratch directory")
    rep_p = sub.add_parser("report", help="render the report from the JSON files")
    rep_p.add_argument("--out", type=Path, default=REPO_ROOT / "artifacts" / "bench")
    rep_p.add_argument("--doc", type=Path, default=REPO_ROOT / "docs" / "benchmarks.md")
    args = parser.parse_args(
        argv if argv is not None and argv[:1] in (["run"], ["report"]) else ["run", *(argv or [])]
    )
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", datefmt="%H:%M:%S")
    for noisy in (
        "httpx",
        "httpx2",  # the openai client's HTTP library: a line per embeddings request otherwise
        "openai",
        "haystack",
        "devkb_devtools.emulators",
        "devkb.indexing",
        "devkb.sources",
        "urllib3",
    ):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if args.command == "report":
        write_report(args.out, args.doc)
        return 0
    mode: Mode = "quick" if args.quick else "full" if args.full else "default"
    out = args.out or REPO_ROOT / "artifacts" / "bench" / ("quick" if mode == "quick" else "")
    doc = args.doc or (out / "benchmarks.md" if mode == "quick" else REPO_ROOT / "docs" / "benchmarks.md")
    work = args.work_dir or Path(
        tempfile.mkdtemp(prefix="devkb-bench-", dir=os.environ.get("DEVKB_BENCH_TMP"))
    )
    opts = options_for(mode, out.resolve(), doc.resolve(), work.resolve())
    only = tuple(n.strip() for n in args.only.split(",") if n.strip())
    unknown = set(only) - set(BENCHMARKS)
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(sorted(unknown))}; choose from {', '.join(BENCHMARKS)}",
            file=sys.stderr,
        )
        return 2
    opts = replace(opts, only=only, keep_work_dir=args.keep)
    if args.repeats:
        opts = replace(
            opts,
            ingest_repeats=args.repeats,
            resync_repeats=args.repeats,
            query_repeats=args.repeats,
            scale_repeats=args.repeats,
            embedding_runs=args.repeats,
            pipeline_repeats=args.repeats,
        )
    if args.scale_chunks:
        opts = replace(opts, scale_chunks=args.scale_chunks)
    command = (
        "python -m devkb_devtools.bench " + shlex.join(argv) if argv else "python -m devkb_devtools.bench"
    )
    return run_all(opts, os.environ.get("DEVKB_BENCH_COMMAND", command))
