"""The replicas benchmark: ``POST /ask`` throughput and latency with one ``devkb serve`` process
and with N behind nginx (round robin), on the same machine, at 8 and 32 concurrent clients, in
the persistent mode (``DEVKB_CHAT_MEMORY=store``: the mode in which replicas share sessions).

The demo workspace is indexed once into a scratch directory; every configuration serves that one
store. The load generator runs on the same cores as the servers, so the figures show what more
processes buy on *this* machine (2 cores here), not what more machines would::

    python -m devkb_devtools.bench.replicas                       # 1 and os.cpu_count() replicas, 8 and 32 clients
    python -m devkb_devtools.bench.replicas --replicas 1,2,3 --clients 8,32 --seconds 20

Writes ``artifacts/bench/replicas.json`` (``make bench`` renders it in ``docs/benchmarks.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import yaml

from devkb_devtools.bench.clients import http_closed_loop
from devkb_devtools.bench.proxy import nginx_path, nginx_round_robin
from devkb_devtools.bench.server_process import SHARED_MODEL_CACHE, DevkbServer
from devkb_devtools.demo.workspace import DEMO_DATA, demo_sources
from devkb_devtools.emulators import Dataset, EmulatorSuite

REPO_ROOT = Path(__file__).resolve().parents[5]
OUT = REPO_ROOT / "artifacts" / "bench" / "replicas.json"


def questions() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (DEMO_DATA / "questions.jsonl").read_text().splitlines() if line]
    return [{"question": r["question"]} for r in rows]


def index_demo(suite: EmulatorSuite, root: Path) -> tuple[Path, Path]:
    sources = root / "sources.yaml"
    entries = [
        {**c.model_dump(exclude_defaults=True), "name": c.name, "type": c.type} for c in demo_sources(suite)
    ]
    for e in entries:
        e["schedule"] = "manual"
    sources.write_text(yaml.safe_dump({"sources": entries}, sort_keys=False))
    data = root / "data"
    env = {
        **os.environ,
        "DEVKB_DATA_DIR": str(data),
        "DEVKB_SOURCES_FILE": str(sources),
        "DEVKB_MODEL_CACHE_DIR": str(SHARED_MODEL_CACHE),
    }
    subprocess.run([sys.executable, "-m", "devkb", "index"], env=env, check=True, capture_output=True)
    return data, sources


def measure(
    data: Path, sources: Path, replicas: int, clients: list[int], seconds: float, root: Path
) -> dict[str, Any]:
    env = {
        "DEVKB_CHAT_MEMORY": "store",
        "DEVKB_SOURCES_FILE": str(sources),
        "DEVKB_SCHEDULER_ENABLED": "false",
    }
    bodies = questions()
    with ExitStack() as stack:
        servers = [
            stack.enter_context(
                DevkbServer(data, env={**env, "DEVKB_INSTANCE_ID": f"r{i}"}, log_path=root / f"r{i}.log")
            )
            for i in range(replicas)
        ]
        if replicas == 1:
            url = servers[0].base_url
        else:
            upstreams = [s.base_url.removeprefix("http://") for s in servers]
            url = stack.enter_context(nginx_round_robin(upstreams, root / f"nginx-{replicas}"))
        http_closed_loop(url, "/ask", bodies, max(clients), min(5.0, seconds))  # warm every replica
        levels = {str(c): http_closed_loop(url, "/ask", bodies, c, seconds) for c in clients}
    return {"replicas": replicas, "levels": levels}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devkb_devtools.bench.replicas", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--replicas", default=f"1,{max(2, os.cpu_count() or 2)}", help="comma-separated counts"
    )
    parser.add_argument("--clients", default="8,32", help="comma-separated concurrency levels")
    parser.add_argument("--seconds", type=float, default=20.0, help="closed-loop seconds per level")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.replicas.split(",")]
    clients = [int(x) for x in args.clients.split(",")]
    if max(counts) > 1 and nginx_path() is None:  # reported in the benchmarks' report, not a failure
        why = "nginx is not installed (Debian nginx-light; scripts/ensure_nginx.sh installs it)"
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps({"skipped": why, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        )
        print(f"replicas: skipped: {why}", file=sys.stderr)
        return 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="devkb-replicas-") as tmp:
        root = Path(tmp)
        suite = EmulatorSuite(Dataset.load(DEMO_DATA)).start()
        try:
            data, sources = index_demo(suite, root)
            runs = [measure(data, sources, n, clients, args.seconds, root) for n in counts]
        finally:
            suite.stop()
    base = runs[0]["levels"]
    for run in runs:
        run["throughput_ratio_vs_first"] = {
            c: run["levels"][c]["throughput_per_s"] / base[c]["throughput_per_s"] for c in run["levels"]
        }
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": "python -m devkb_devtools.bench.replicas " + " ".join(argv or sys.argv[1:]),
        "cores": os.cpu_count(),
        "load_average": os.getloadavg(),
        "seconds_per_level": args.seconds,
        "mode": "DEVKB_CHAT_MEMORY=store, extractive answers, demo workspace, nginx round robin",
        "runs": runs,
        "wall_seconds": time.perf_counter() - started,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    for run in runs:
        for c, lv in run["levels"].items():
            print(
                f"{run['replicas']} replica(s), {c:>2} clients: {lv['throughput_per_s']:7.1f} req/s, "
                f"p50 {lv['p50_ms']:.0f} ms, p95 {lv['p95_ms']:.0f} ms, errors {lv['errors']:.0f}, "
                f"x{run['throughput_ratio_vs_first'][c]:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
