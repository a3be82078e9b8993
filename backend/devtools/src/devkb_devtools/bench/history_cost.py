"""What keeping history costs a sync: the whole Fluid corpus (Jira 10,052 issues, the ILDH space
with its 721 page versions, infusion-docs with 10,415 diffs) synced first in full and then again
unchanged, with history on and off, alternating in one run.

    python -m devkb_devtools.bench.history_cost [--repeats 2] [--json OUT]

Embedding is the same work in both arms (versions add no chunks), so it runs on the test kit's
feature-hashing embedder: what is measured is what history adds — the Confluence version
requests, converting and writing the versions — not MiniLM's time, which would only dilute
the ratio. The machine is shared, so besides wall time each sync's CPU time of this process
(loaders, emulators, indexing and SQLite all run in it) is reported: the steadier figure when
other work competes for the cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from devkb_devtools.bench.workspace import Workspace, corpus
from devkb_devtools.testkit.hashing_embedder import HashingEmbedder


def one(history: bool, root: Path) -> dict[str, Any]:
    fluid = corpus("fluid-full")
    assert fluid is not None
    with Workspace(
        fluid, root / f"history-{history}", HashingEmbedder(), settings={"history": history}
    ) as ws:
        cpu = time.process_time()
        full = ws.sync_all()
        full_cpu = time.process_time() - cpu
        cpu = time.process_time()
        again = ws.sync_all()
        again_cpu = time.process_time() - cpu
        versions = ws.store._conn().execute("SELECT kind, COUNT(*) FROM versions GROUP BY kind").fetchall()
        return {
            "history": history,
            "full_seconds": round(full.seconds, 2),
            "full_cpu_seconds": round(full_cpu, 2),
            "resync_cpu_seconds": round(again_cpu, 3),
            "full_per_source": {k: round(v, 2) for k, v in full.per_source_seconds.items()},
            "resync_seconds": round(again.seconds, 3),
            "resync_documents_indexed": again.documents_indexed,
            "documents": full.documents_indexed,
            "versions": dict(versions),
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if corpus("fluid-full") is None:
        print("the Fluid corpus is not available (DEVKB_FLUID_DATA)", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for history in (False, True) if r % 2 == 0 else (True, False):
                rows.append(one(history, Path(tmp) / str(r)))
                print(json.dumps(rows[-1]), flush=True)
    out: dict[str, Any] = {"rows": rows}
    metrics = ("full_seconds", "full_cpu_seconds", "resync_seconds", "resync_cpu_seconds")
    for history in (False, True):
        mine = [x for x in rows if x["history"] is history]
        out["with" if history else "without"] = {m: statistics.median(x[m] for x in mine) for m in metrics}
    out["ratio_with_to_without"] = {m: round(out["with"][m] / out["without"][m], 2) for m in metrics}
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
