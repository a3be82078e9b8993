"""What each mode of ``make bench`` measures, in one place.

- ``quick``: a smoke run of every benchmark on the demo workspace at tiny sizes (``make test``
  runs it); its figures say nothing, its files have the real structure.
- ``default``: the Fluid corpus — ingest and queries on a representative slice with the real
  embedder, resync on the slice and on the whole corpus, 1M chunks for scale. Fits in 30 minutes.
- ``full``: ingest, resync and queries on the whole Fluid corpus with the real embedder
  (~20k chunks: about 15 minutes per ingest pass with torch on two cores).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

Mode = Literal["quick", "default", "full"]
BENCHMARKS = ("embedding", "ingest", "resync", "query", "scale")

# The default slice: the whole Confluence space (115 pages, ~600 chunks) plus two Jira projects
# (IDI and CITY: ~210 issues, ~290 chunks) — ~880 chunks, ~40 s per pass with torch on two idle
# cores, so three repeats of pipeline + embedder-alone fit the 30-minute budget.
SLICE_PROJECTS = ("IDI", "CITY")


@dataclass(frozen=True)
class BenchOptions:
    mode: Mode
    out_dir: Path
    doc_path: Path
    work_dir: Path  # stores, copies and the 1M-chunk database; deleted afterwards
    only: tuple[str, ...] = BENCHMARKS
    corpus: Literal["demo", "fluid-slice", "fluid-full"] = "fluid-slice"
    slice_projects: tuple[str, ...] = SLICE_PROJECTS
    # ingest
    ingest_repeats: int = 3
    # embedding speed (the ONNX engineer's script)
    embedding_texts: int = 200
    embedding_runs: int = 3
    # resync
    resync_repeats: int = 3
    change_shares: tuple[float, ...] = (0.01, 0.05)
    resync_full_corpus: bool = True  # also on the whole corpus, with the hashing embedder
    # queries
    client_levels: tuple[int, ...] = (1, 8, 32)
    query_seconds: float = 4.0  # per level and system, per repeat
    query_repeats: int = 3
    query_count: int = 40  # distinct questions
    # scale
    scale_chunks: int = 1_000_000
    scale_queries: int = 60
    scale_repeats: int = 3
    scale_server: bool = True  # RSS and /ask latency of `devkb serve` on the big store
    keep_work_dir: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    def wants(self, name: str) -> bool:
        return name in self.only


def options_for(mode: Mode, out_dir: Path, doc_path: Path, work_dir: Path) -> BenchOptions:
    base = BenchOptions(mode=mode, out_dir=out_dir, doc_path=doc_path, work_dir=work_dir)
    if mode == "quick":
        return replace(
            base, corpus="demo", ingest_repeats=1, embedding_texts=0, resync_repeats=1,
            resync_full_corpus=False, query_seconds=0.5, query_repeats=1, query_count=8,
            scale_chunks=3_000, scale_queries=10, scale_repeats=1, scale_server=False,
        )
    if mode == "full":
        return replace(base, corpus="fluid-full", ingest_repeats=1, resync_full_corpus=False)
    return base
