"""What each mode of ``make bench`` measures, in one place.

- ``quick``: a smoke run of every benchmark on the demo workspace at tiny sizes (``make test``
  runs it); its figures say nothing, its files have the real structure.
- every mode but quick first indexes the whole Fluid corpus three times without the model
  (``pipeline_speed``: pass-through embedder with the previous and the current defaults, then a
  simulated GPU embedder on loopback; ~2–4 min); quick does the same on the demo workspace.
- ``default``: the Fluid corpus with the real (default) embedder — ingest repeated on a slice
  (for the spread of the ratio), then one ingest pass over the whole corpus (~23k chunks, ~3.5 min
  with ONNX int8 on two cores) whose store the resync and query benchmarks use; 1M chunks for
  scale. Fits in 30 minutes.
- ``full``: ingest repeated on the whole Fluid corpus (each repeat two passes of ~3.5 min with
  ONNX int8, ~15 min with torch), then resync and queries on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

Mode = Literal["quick", "default", "full"]
BENCHMARKS = ("embedding", "pipeline", "ingest", "resync", "query", "scale", "adaptation")

# The default slice: the whole Confluence space (115 pages, ~600 chunks) plus two Jira projects
# (IDI and CITY: ~210 issues, ~290 chunks) — ~880 chunks, ~10 s per pass with ONNX int8 on two
# cores, so three repeats of pipeline + embedder-alone give the ratio's spread cheaply.
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
    # pipeline without the model (pass-through and simulated GPU embedders, whole Fluid): three
    # repeats (~65 s each), as one pass moved by a fifth with the host's load (2026-11-30)
    pipeline_repeats: int = 3
    # ingest
    ingest_repeats: int = 3
    # embedding speed (the ONNX engineer's script)
    embedding_texts: int = 200
    embedding_runs: int = 3
    whole_corpus_pass: bool = True  # after the slice repeats: one pass over the whole corpus
    # resync
    resync_repeats: int = 3
    change_shares: tuple[float, ...] = (0.01, 0.05)
    # queries
    client_levels: tuple[int, ...] = (1, 8, 32)
    query_seconds: float = 4.0  # POST /ask: per level and deployment, per repeat
    retrieval_seconds: float = 2.0  # retrieval alone, in process: per level and system, per repeat
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
            base,
            corpus="demo",
            pipeline_repeats=1,  # each pass starts its own process (~10 s); one shows it runs
            ingest_repeats=1,
            embedding_texts=0,
            resync_repeats=1,
            whole_corpus_pass=False,
            query_seconds=0.5,
            retrieval_seconds=0.5,
            query_repeats=1,
            query_count=8,
            scale_chunks=3_000,
            scale_queries=10,
            scale_repeats=1,
            scale_server=False,
        )
    if mode == "full":
        return replace(base, corpus="fluid-full", ingest_repeats=2, whole_corpus_pass=False)
    return base
