"""The store's writes of a first index, alone: this code against another commit, same batches.

    python -m devkb_devtools.bench.store_writes [--before COMMIT] [--repeats 3]

Indexes the whole Fluid corpus once (through the emulators, a pass-through embedder, the store
written from the sync's own process) and keeps every ``write_documents`` call it makes —
documents, chunks, references, versions, as the write process receives them. Then it replays
those calls into a fresh store, with this code and with ``--before``'s product code (``git
archive``, this virtualenv), alternating, each replay in a process of its own, and prints each
replay's CPU seconds and wall time and whether both codes wrote the same rows (a hash of every
table the writes fill). The sync's write process does exactly this work. Prints; measures
nothing on its own account (``make bench`` measures the whole pipeline).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The tables a first index's writes fill, each read in a fixed order.
TABLES = {
    "documents": "SELECT id, type, title, url, updated_at, content_hash, metadata, source FROM documents ORDER BY id",
    "chunks": "SELECT rowid, id, document_id, chunk_index, content, section FROM chunks ORDER BY rowid",
    "full text": "SELECT rowid, content FROM chunks_fts ORDER BY rowid",
    "fields": "SELECT document_id, field, value FROM document_fields ORDER BY 1, 2, 3",
    "references": "SELECT from_id, to_id, kind, evidence, owner_id FROM refs ORDER BY 1, 2, 3, 5",
    "versions": "SELECT document_id, kind, seq, valid_from, author, field, to_value FROM versions ORDER BY 1, 2, 3",
}


def replay(calls_file: Path, db: Path) -> dict[str, Any]:
    """Write the kept calls into a fresh store at ``db``: CPU and wall seconds, table hashes."""
    import sqlite3

    from devkb.store.sqlite.store import SQLiteGraphStore

    with calls_file.open("rb") as f:
        calls = pickle.load(f)
    store = SQLiteGraphStore(db)
    store.stats()  # schema, triggers, field index: opened before the clock starts
    wall, cpu = time.perf_counter(), time.process_time()
    for items, references, versions in calls:
        store.write_documents(items, references, versions)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    store.close()
    with sqlite3.connect(db) as conn:
        hashes = {
            name: hashlib.sha256(repr(conn.execute(sql).fetchall()).encode()).hexdigest()[:16]
            for name, sql in TABLES.items()
        }
    return {"cpu_s": cpu, "wall_s": wall, "hashes": hashes}


def capture(calls_file: Path, work: Path) -> int:
    """Index the whole Fluid corpus with the store in the sync's process, keeping its writes."""
    from devkb.store.sqlite.store import SQLiteGraphStore
    from devkb_devtools.bench.pipeline_speed import PassThroughEmbedder, index_once
    from devkb_devtools.bench.workspace import corpus

    whole = corpus("fluid-full")
    if whole is None:
        raise SystemExit("error: the Fluid corpus was not found (set DEVKB_FLUID_DATA)")
    calls: list[Any] = []
    write = SQLiteGraphStore.write_documents

    def keep(self: SQLiteGraphStore, items: Any, references: Any = None, versions: Any = None) -> None:
        calls.append((items, references, versions))
        write(self, items, references, versions)

    SQLiteGraphStore.write_documents = keep  # type: ignore[method-assign]
    try:
        index_once(
            whole,
            work,
            "capture",
            PassThroughEmbedder(),
            {"sync_prefetch": 0, "sync_write_process": False},
            False,
        )
    finally:
        SQLiteGraphStore.write_documents = write  # type: ignore[method-assign]
    with calls_file.open("wb") as f:
        pickle.dump(calls, f, protocol=pickle.HIGHEST_PROTOCOL)
    return sum(len(items) for items, _, _ in calls)


def _replay_in_process(calls_file: Path, db: Path, src: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:  # the other commit's product code first on the path
        env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, "-m", "devkb_devtools.bench.store_writes", "--replay", str(calls_file), str(db)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"error: a replay failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the commit to compare with (default: this code only)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--replay", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay:
        print(json.dumps(replay(args.replay[0], args.replay[1])))
        return
    from devkb_devtools.bench.baseline_code import extract_backend_src

    with tempfile.TemporaryDirectory(prefix="devkb-writes-") as tmp:
        work = Path(tmp)
        src: Path | None = None
        if args.before:
            src, why_not = extract_backend_src(args.before, work / "before")
            if src is None:
                raise SystemExit(f"error: {why_not}")
        calls_file = work / "writes.pickle"
        print(f"kept the writes of {capture(calls_file, work / 'index')} documents", flush=True)
        codes: dict[str, Path | None] = {"now": None}
        if src is not None:
            codes[args.before] = src
        seen: dict[str, dict[str, str]] = {}
        for r in range(args.repeats):
            for name in codes if r % 2 == 0 else reversed(codes):
                db = work / f"replay-{name}-{r}.sqlite"
                out = _replay_in_process(calls_file, db, codes[name])
                db.unlink(missing_ok=True)
                seen[name] = out["hashes"]
                print(f"repeat {r} {name:>10}: {out['cpu_s']:5.2f} CPU s, {out['wall_s']:5.2f} s", flush=True)
        if len(seen) == 2:
            a, b = seen.values()
            differ = [t for t in TABLES if a[t] != b[t]]
            print("same rows in every table" if not differ else f"rows differ in: {', '.join(differ)}")


if __name__ == "__main__":
    main()
