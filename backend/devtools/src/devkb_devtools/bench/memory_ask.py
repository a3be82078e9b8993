"""``POST /ask`` p95 with 10,000 memories against without, in one run (issue 59, team memory).

    python -m devkb_devtools.bench.memory_ask [--memories 10000] [--repeats 5] [--seconds 4] [--clients 8]

A workspace of real text (the repository's ``docs/`` as a files source, or ``--corpus DIR``) is
indexed once; its data directory is copied, and the copy gets ``--memories`` memories written
through the indexing pipeline as ``MemoryService`` writes them (split, embedded, full text, the
reference rules): 70 % private to 50 people, 30 % team, a tenth of them superseded, about the
same topics the documents are about. Two ``devkb serve`` processes (extractive, ONNX, no accounts:
the operator's reads) serve the two stores; closed-loop clients ask both the same questions
(titles of the documents), alternating which goes first repeat by repeat. Prints per repeat the
p95 of each and the ratio with memories ÷ without; the median ratio is the figure
(docs/memory.md, goal ≤ 1.1). Writes ``artifacts/bench/memory_ask.json`` (``--output``), which
``make bench`` runs this for and renders in ``docs/benchmarks.md`` with its goal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import httpx
from dependency_injector import providers

from devkb.config.settings import Settings
from devkb.container import Container, prepare_store, shutdown
from devkb.memory.model import SOURCE, Memory, gates_for, new_id
from devkb_devtools.bench.baseline_code import REPO_ROOT
from devkb_devtools.bench.clients import ServerProcess, http_closed_loop
from devkb_devtools.bench.measure import Summary
from devkb_devtools.bench.query import questions
from devkb_devtools.bench.workspace import BenchError

OUT = REPO_ROOT / "artifacts" / "bench" / "memory_ask.json"
GOAL = 1.1  # issue 59: POST /ask p95 with 10,000 memories within 1.1x of without

SUBJECTS = [
    "the search index",
    "the deploy pipeline",
    "the release train",
    "the sync scheduler",
    "the chat",
    "the graph view",
    "the uploads page",
    "the Jira source",
    "the Confluence source",
    "the GitHub source",
    "the embedder",
    "the access policy",
    "the web app",
    "the CLI",
    "the MCP server",
    "the store",
    "the payments freeze",
    "the staging cluster",
    "the on-call rota",
    "the benchmark suite",
]
FACTS = [
    "is owned by team {n}",
    "runs every {n} minutes",
    "needs Node {n}",
    "was moved to region eu-{n}",
    "keeps {n} days of history",
    "is reviewed by squad {n}",
    "times out after {n} seconds",
    "is documented on page {n}",
    "has {n} open bugs",
    "is paused until week {n}",
]


def settings(data_dir: Path, sources_file: Path) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=data_dir,
        sources_file=sources_file,
        llm_provider="none",
        scheduler_enabled=False,
        embedder="onnx",
        model_cache_dir=Path(os.environ.get("DEVKB_MODEL_CACHE_DIR", REPO_ROOT / "data" / "models")),
    )


def container(data_dir: Path, sources_file: Path) -> Container:
    c = Container()
    c.settings.override(providers.Object(settings(data_dir, sources_file)))
    prepare_store(c)
    return c


def memories(count: int, seed: int = 59) -> list[Memory]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        subject = rng.choice(SUBJECTS)
        fact = rng.choice(FACTS).format(n=rng.randint(1, 400))
        team = rng.random() < 0.3
        owner = f"person{rng.randint(1, 50)}@acme.example"
        recorded = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T09:00:00+00:00"
        superseded = rng.random() < 0.1
        out.append(
            Memory(
                id=new_id(),
                text=f"{subject[0].upper()}{subject[1:]} {fact} (note {i}).",
                scope="team" if team else "private",
                owner=owner,
                status="superseded" if superseded else "active",
                recorded_at=recorded,
                valid_from=recorded,
                valid_until="2026-11-30T00:00:00+00:00" if superseded else "",
                origin="admin" if team else "conversation",
                subject=subject.removeprefix("the "),
                attribute=fact.split(" ")[0],
                gates=gates_for("team" if team else "private", owner, []),
            )
        )
    return out


def build(root: Path, corpus: Path, count: int) -> tuple[Path, Path, Path]:
    """(data dir without memories, data dir with them, sources file)."""
    sources = root / "sources.yaml"
    sources.write_text(f"sources:\n  - name: docs\n    type: files\n    path: {corpus}\n", encoding="utf-8")
    plain = root / "without"
    c = container(plain, sources)
    try:
        state = c.runs().run("docs").state
        if state != "succeeded":
            raise BenchError(f"indexing {corpus} ended {state}")
    finally:
        shutdown(c)
    with_memories = root / "with"
    shutil.copytree(plain, with_memories)
    c = container(with_memories, sources)
    try:
        written = memories(count)
        for start in range(0, len(written), 500):
            c.pipeline().run([m.source_document() for m in written[start : start + 500]], SOURCE)
    finally:
        shutdown(c)
    return plain, with_memories, sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--corpus", type=Path, default=REPO_ROOT / "docs")
    parser.add_argument("--output", type=Path, default=OUT, help=f"the figures as JSON (default {OUT})")
    args = parser.parse_args(argv)
    if args.memories < 1 or args.repeats < 1 or args.seconds <= 0 or args.clients < 1:
        parser.error("--memories, --repeats, --clients must be ≥ 1 and --seconds > 0")
    if not args.corpus.is_dir():
        parser.error(f"--corpus {args.corpus} is not a directory")
    env = {
        "DEVKB_EMBEDDER": "onnx",
        "DEVKB_MODEL_CACHE_DIR": os.environ.get("DEVKB_MODEL_CACHE_DIR", str(REPO_ROOT / "data" / "models")),
        "DEVKB_LLM_PROVIDER": "none",
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="devkb-memory-ask-") as tmp:
        plain, with_memories, sources = build(Path(tmp), args.corpus.resolve(), args.memories)
        bodies = [{"question": q} for q in questions(plain / "graph.sqlite", "files", 40)]
        if not bodies:
            raise SystemExit(f"error: no document titles to ask about in {args.corpus}")
        conn = sqlite3.connect(f"file:{with_memories / 'graph.sqlite'}?mode=ro", uri=True)
        try:
            stored: int = conn.execute("SELECT count(*) FROM documents WHERE id LIKE 'memory:%'").fetchone()[
                0
            ]
        finally:
            conn.close()
        print(f"{stored} memories stored; {len(bodies)} questions", flush=True)
        with (
            ServerProcess(plain, sources, env=env, name="without") as without,
            ServerProcess(with_memories, sources, env=env, name="with") as with_,
        ):
            servers = {"without": without, "with": with_}
            for server in servers.values():  # model, snapshot, caches
                http_closed_loop(server.base_url, "/ask", bodies[:8], args.clients, 3.0, server.headers)
            cited = 0  # answers of the store with memories that cite one: the memories are in play
            for body in bodies:
                answer = httpx.post(with_.base_url + "/ask", json=body, headers=with_.headers, timeout=120)
                answer.raise_for_status()
                cited += any(
                    str(x.get("document_id", "")).startswith("memory:") for x in answer.json()["sources"]
                )
            print(f"{cited} of {len(bodies)} answers with memories cite a memory", flush=True)
            p95: dict[str, list[float]] = {name: [] for name in servers}
            throughput: dict[str, list[float]] = {name: [] for name in servers}
            for r in range(args.repeats):
                for name in list(servers) if r % 2 == 0 else list(reversed(servers)):
                    server = servers[name]
                    run = http_closed_loop(
                        server.base_url, "/ask", bodies, args.clients, args.seconds, server.headers
                    )
                    p95[name].append(run["p95_ms"])
                    throughput[name].append(run["throughput_per_s"])
                    print(
                        f"repeat {r} {name:>7} {args.memories if name == 'with' else 0:>6} memories: "
                        f"p95 {run['p95_ms']:7.1f} ms, {run['throughput_per_s']:5.1f} req/s ({run['count']} answers)",
                        flush=True,
                    )
    ratios = Summary.of([a / b for a, b in zip(p95["with"], p95["without"], strict=True)])
    figures = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": "python -m devkb_devtools.bench.memory_ask "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "cores": os.cpu_count(),
        "load_average": os.getloadavg(),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "memories": args.memories,
        "clients": args.clients,
        "repeats": args.repeats,
        "seconds": args.seconds,
        "memories_stored": stored,
        "answers_citing_a_memory": f"{cited}/{len(bodies)}",
        "p95_ms": p95,
        "ratio_median": round(ratios.median, 3),
        "ratio_min": round(ratios.min, 3),
        "ratio_max": round(ratios.max, 3),
        "throughput_per_s": throughput,
        "goals": [
            {
                "goal": f"POST /ask p95 with {args.memories:,} memories ÷ without (median of per-repeat ratios)",
                "target": f"≤ {GOAL:g}",
                "measured": round(ratios.median, 3),
                "met": ratios.median <= GOAL,
            }
        ],
    }
    print(
        f"POST /ask p95 with {args.memories} memories ÷ without, per repeat, median (min–max): "
        f"{ratios.median:.3f} ({ratios.min:.3f}–{ratios.max:.3f})"
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
