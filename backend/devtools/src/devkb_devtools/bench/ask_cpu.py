"""Server CPU per ``POST /ask``: this code against another commit, side by side on one store.

    python -m devkb_devtools.bench.ask_cpu --data-dir DIR --before 95d6a86 [--repeats 4] [--seconds 6]
    python -m devkb_devtools.bench.ask_cpu --data-dir DIR --before HEAD --set DEVKB_ACCESS_LOG=false

Both servers (``devkb serve``, extractive, one process each; the other commit's product code
served from ``git archive`` with this virtualenv, as the query benchmark serves its baseline)
open ``DIR`` — a store the query benchmark's questions come from — and answer the same 40
questions from closed-loop clients, alternating run by run. Each run prints p95, requests/s and
the CPU the server's process tree used per answer (``/proc``), which moves far less from run to
run than a p95 on shared cores. Prints; measures nothing on its own account.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from devkb_devtools.bench.baseline_code import REPO_ROOT, extract_backend_src
from devkb_devtools.bench.clients import ServerProcess, http_closed_loop
from devkb_devtools.bench.measure import Summary, cpu_seconds
from devkb_devtools.bench.query import questions
from devkb_devtools.bench.workspace import BenchError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--before", required=True, help="the commit to compare with")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for this code's server only",
    )
    args = parser.parse_args()
    if args.before == "now":
        raise SystemExit("error: --before names a commit; 'now' is this code")
    extra = dict(_setting(item) for item in args.set)
    db = args.data_dir / "graph.sqlite"
    if not db.is_file():
        raise SystemExit(f"error: no store at {db}")
    bodies = [{"question": q} for q in questions(db, "fluid-full", 40)]
    env = {  # the repository's model export unless told otherwise (as `make run` made it)
        "DEVKB_EMBEDDER": os.environ.get("DEVKB_EMBEDDER", "onnx"),
        "DEVKB_MODEL_CACHE_DIR": os.environ.get("DEVKB_MODEL_CACHE_DIR", str(REPO_ROOT / "data" / "models")),
    }
    with tempfile.TemporaryDirectory(prefix="devkb-before-") as tmp:
        src, why_not = extract_backend_src(args.before, Path(tmp))
        if src is None:
            raise SystemExit(f"error: {why_not}")
        with (
            ServerProcess(args.data_dir, None, env={**env, **extra}, name="ask-cpu-now") as now,
            ServerProcess(
                args.data_dir, None, env={**env, "PYTHONPATH": str(src)}, name="ask-cpu-before"
            ) as before,
        ):
            servers = {"now": now, args.before: before}
            for server in servers.values():  # model, snapshot, caches
                http_closed_loop(server.base_url, "/ask", bodies[:8], args.clients, 3.0, server.headers)
            figures: dict[str, list[tuple[float, float]]] = {name: [] for name in servers}
            for r in range(args.repeats):
                order = list(servers) if r % 2 == 0 else list(reversed(servers))
                for name in order:
                    server = servers[name]
                    assert server.proc is not None
                    start = cpu_seconds(server.proc.pid)
                    try:
                        run = http_closed_loop(
                            server.base_url, "/ask", bodies, args.clients, args.seconds, server.headers
                        )
                    except BenchError as e:
                        raise SystemExit(f"error: {e}") from e
                    per_answer = (cpu_seconds(server.proc.pid) - start) / run["count"] * 1000
                    figures[name].append((run["p95_ms"], per_answer))
                    print(
                        f"repeat {r} {name:>10}: p95 {run['p95_ms']:6.1f} ms, {run['throughput_per_s']:5.1f} req/s, "
                        f"server CPU {per_answer:5.2f} ms per answer",
                        flush=True,
                    )

            pairs = list(zip(figures["now"], figures[args.before], strict=True))
            p95 = Summary.of([a[0] / b[0] for a, b in pairs])
            cpu = Summary.of([a[1] / b[1] for a, b in pairs])
            print(
                f"now ÷ {args.before} per repeat, median (min–max): p95 {p95.median:.3f} "
                f"({p95.min:.3f}–{p95.max:.3f}), server CPU per answer {cpu.median:.3f} ({cpu.min:.3f}–{cpu.max:.3f})"
            )


def _setting(item: str) -> tuple[str, str]:
    name, sep, value = item.partition("=")
    if not sep or not name:
        raise SystemExit(f"error: --set takes NAME=VALUE, not {item!r}")
    return name, value


if __name__ == "__main__":
    main()
