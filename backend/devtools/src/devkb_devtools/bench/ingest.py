"""Ingest: end-to-end chunks/s against the embedder alone on the same chunks, in the same run.

Each repeat indexes the corpus into a fresh data directory through the emulators and the
production container (loaders → Haystack pipeline → store), with the configured embedder wrapped
in a :class:`RecordingEmbedder` that keeps every batch of texts the pipeline asked it to embed.
The embedder alone then embeds exactly those batches again. The ratio

    end-to-end chunks/s ÷ embedder-alone chunks/s   (goal ≥ 0.9)

says what the loaders, emulators, splitting, reference extraction and store cost on top of the
model. Repeats alternate the order (pipeline first, then alone first) so drift in the machine's
load hits both sides; ratios are taken per repeat. Peak memory: RSS sampled every 0.1 s during
each end-to-end run, and the process's ``ru_maxrss``.

The last repeat's workspace is returned still open, so resync and query benchmarks use it. In
the default mode the repeats run on a slice of the corpus and :func:`run_with_whole_corpus` then
adds one pass (pipeline + embedder alone) over the whole corpus, whose workspace is returned.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder
from devkb_devtools.bench.measure import RssSampler, Summary, peak_rss_bytes
from devkb_devtools.bench.options import BenchOptions
from devkb_devtools.bench.workspace import Corpus, Workspace

log = logging.getLogger(__name__)


class RecordingEmbedder:
    """Passes calls to ``inner``; remembers each batch of texts and the seconds spent in it."""

    def __init__(self, inner: TextEmbedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dimension = inner.dimension
        self.batches: list[list[str]] = []
        self.seconds = 0.0
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        self.inner.warm_up()

    def check(self) -> str | None:
        return self.inner.check()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        start = time.perf_counter()
        out = self.inner.embed(texts)
        with self._lock:
            self.seconds += time.perf_counter() - start
            self.batches.append(list(texts))
        return out

    def reset(self) -> None:
        self.batches, self.seconds = [], 0.0


def embed_alone(embedder: TextEmbedder, batches: list[list[str]]) -> float:
    """Seconds the embedder takes for exactly these batches, called the way the pipeline did."""
    start = time.perf_counter()
    for batch in batches:
        embedder.embed(batch)
    return time.perf_counter() - start


BASELINE_WINDOW = 256  # the token window of the default embedder before the first-index work (issue 28)
BASELINE_SAMPLE = 4  # the baseline embeds every 4th batch: its rate, not its total, is compared


def baseline_embedder(embedder: TextEmbedder) -> OnnxMiniLMEmbedder | None:
    """The previous default embedder next to ``embedder``: the same ONNX engine and export with
    the full 256-token window. None when ``embedder`` is not the ONNX one (nothing to compare)."""
    if not isinstance(embedder, OnnxMiniLMEmbedder):
        return None
    return OnnxMiniLMEmbedder(
        cache_dir=embedder.cache_dir,
        precision="int8",
        batch_size=2,
        max_seq_length=BASELINE_WINDOW,
        workers=embedder.workers,
        model_dir=embedder.model_dir,
    )


def same_configuration(baseline: OnnxMiniLMEmbedder | None, embedder: TextEmbedder) -> bool:
    """Whether the previous default is exactly ``embedder``'s configuration (then timing it again
    on the same batches would repeat the embedder-alone pass: its rate is that pass's)."""
    while hasattr(embedder, "inner"):
        embedder = embedder.inner
    if baseline is None or type(embedder) is not type(baseline):
        return False
    keys = (
        "model_name",
        "precision",
        "max_seq_length",
        "batch_size",
        "workers",
        "threads_per_worker",
        "spin",
    )
    return all(getattr(baseline, k) == getattr(embedder, k, None) for k in keys)


def baseline_rate(baseline: TextEmbedder | None, batches: list[list[str]]) -> float | None:
    """chunks/s of the baseline embedder on every ``BASELINE_SAMPLE``-th of these batches."""
    if baseline is None or not batches:
        return None
    sample = batches[::BASELINE_SAMPLE]
    return sum(len(b) for b in sample) / embed_alone(baseline, sample)


def run(
    opts: BenchOptions,
    corpus: Corpus,
    embedder: TextEmbedder,
    label: str = "ingest",
    alone_sample: int = 1,
) -> tuple[dict[str, Any], Workspace]:
    """Measure; returns the results and the last repeat's workspace, open (close it when done).
    ``alone_sample``: the embedder alone embeds every n-th of the pipeline's batches (its rate, not
    its total, is compared; the whole corpus's pass uses ``BASELINE_SAMPLE`` to save a pass)."""
    baseline = baseline_embedder(embedder)
    reuse_alone = alone_sample == BASELINE_SAMPLE and same_configuration(baseline, embedder)
    if baseline is not None and not reuse_alone:
        baseline.warm_up()
        baseline.embed(["warm-up: first-call allocations"] * 4)
    t = time.perf_counter()
    embedder.warm_up()
    embedder.embed(["warm-up: first-call allocations"] * 4)
    model_load_s = time.perf_counter() - t
    recorder = RecordingEmbedder(embedder)
    runs: list[dict[str, Any]] = []
    last_batches: list[list[str]] = []
    workspace: Workspace | None = None
    for r in range(opts.ingest_repeats):
        alone_first = r % 2 == 1 and bool(last_batches)
        alone_s = embed_alone(embedder, last_batches[::alone_sample]) if alone_first else None
        if workspace is not None:  # the previous repeat's: closed and removed
            workspace.__exit__(None, None, None)
            shutil.rmtree(workspace.data_dir, ignore_errors=True)
        data_dir = opts.work_dir / f"{label}-{r}"
        shutil.rmtree(data_dir, ignore_errors=True)
        recorder.reset()
        workspace = Workspace(corpus, data_dir, recorder).__enter__()
        with RssSampler() as rss:
            figures = workspace.sync_all()
        batches = recorder.batches
        texts = sum(len(b) for b in batches)
        sampled = sum(len(b) for b in batches[::alone_sample])
        if not alone_first:
            alone_s = embed_alone(embedder, batches[::alone_sample])
        assert alone_s is not None
        if reuse_alone and not alone_first:  # the same embedder on the same sampled batches
            baseline_cps: float | None = sampled / alone_s
        else:
            baseline_cps = baseline_rate(baseline, batches)
        alone_s *= texts / max(1, sampled)  # the whole batches' time at the sample's rate
        stats = workspace.store.stats()
        run_figures = {
            "repeat": r,
            "order": "alone, then pipeline" if alone_first else "pipeline, then alone",
            "seconds": figures.seconds,
            "documents": stats.documents,
            "chunks_stored": stats.chunks,
            "chunks_embedded": texts,
            "pipeline_chunks_per_s": stats.chunks / figures.seconds,
            "embed_seconds_in_pipeline": recorder.seconds,
            "embedder_alone_seconds": alone_s,
            "embedder_alone_sample": alone_sample,
            "embedder_alone_chunks_per_s": texts / alone_s,
            "ratio": (stats.chunks / figures.seconds) / (texts / alone_s),
            "baseline_alone_chunks_per_s": baseline_cps,
            "speedup_over_baseline": (stats.chunks / figures.seconds) / baseline_cps
            if baseline_cps
            else None,
            "peak_rss_bytes": rss.peak,
            "per_source_seconds": figures.per_source_seconds,
        }
        log.info(
            "ingest %d: %.1f chunks/s end to end, %.1f alone, ratio %.3f",
            r,
            run_figures["pipeline_chunks_per_s"],
            run_figures["embedder_alone_chunks_per_s"],
            run_figures["ratio"],
        )
        runs.append(run_figures)
        last_batches = batches
    assert workspace is not None
    summary = {
        "pipeline_chunks_per_s": Summary.of([x["pipeline_chunks_per_s"] for x in runs], "chunks/s"),
        "embedder_alone_chunks_per_s": Summary.of(
            [x["embedder_alone_chunks_per_s"] for x in runs], "chunks/s"
        ),
        "ratio": Summary.of([x["ratio"] for x in runs]),
        "seconds": Summary.of([x["seconds"] for x in runs], "s"),
        "embed_share_of_pipeline": Summary.of([x["embed_seconds_in_pipeline"] / x["seconds"] for x in runs]),
        "embed_in_pipeline_over_alone": Summary.of(
            [x["embed_seconds_in_pipeline"] / x["embedder_alone_seconds"] for x in runs]
        ),
        "peak_rss_bytes": Summary.of([x["peak_rss_bytes"] for x in runs], "bytes"),
    }
    if all(x["baseline_alone_chunks_per_s"] for x in runs):
        summary["baseline_alone_chunks_per_s"] = Summary.of(
            [x["baseline_alone_chunks_per_s"] for x in runs], "chunks/s"
        )
        summary["speedup_over_baseline"] = Summary.of([x["speedup_over_baseline"] for x in runs])
    result = {
        "corpus": corpus.name,
        "corpus_description": corpus.description,
        "embedder": embedder.model_name,
        "baseline_embedder": baseline.model_name if baseline is not None else None,
        "baseline_is_embedder": reuse_alone,
        "baseline_sample": BASELINE_SAMPLE,
        "embedder_alone_sample": alone_sample,
        "embedder_class": type(embedder).__name__,
        "model_load_seconds": model_load_s,
        "documents": runs[-1]["documents"],
        "chunks": runs[-1]["chunks_stored"],
        "summary": {k: v.to_json() for k, v in summary.items()},
        "ru_maxrss_bytes": peak_rss_bytes(),
        "runs": runs,
        "goals": [
            {
                "goal": "ingest: end-to-end chunks/s ÷ embedder-alone chunks/s (separate passes, same repeat)",
                "target": "≥ 0.9",
                "measured": summary["ratio"].median,
                "met": summary["ratio"].median >= 0.9,
            },
            {
                "goal": "ingest: share of the end-to-end time outside the embedder (loaders, emulators, pipeline, "
                "store; measured within each pass)",
                "target": "< 0.1",
                "measured": 1 - summary["embed_share_of_pipeline"].median,
                "met": 1 - summary["embed_share_of_pipeline"].median < 0.1,
            },
        ],
    }
    if baseline is not None:
        baseline.close()
    if "speedup_over_baseline" in summary:
        result["goals"].insert(
            0,
            {
                "goal": "ingest: first index, end-to-end chunks/s ÷ the previous default embedder alone "
                f"(int8, {BASELINE_WINDOW}-token window; same run, same batches)",
                "target": "≥ 2",
                "measured": summary["speedup_over_baseline"].median,
                "met": summary["speedup_over_baseline"].median >= 2,
            },
        )
    return result, workspace


def index_only(
    opts: BenchOptions, corpus: Corpus, embedder: TextEmbedder
) -> tuple[dict[str, Any], Workspace]:
    """``corpus`` indexed once into a fresh store, nothing timed: the store the resync, query and
    scale benchmarks need when the ingest benchmark itself was not asked for."""
    data_dir = opts.work_dir / "ingest-0"
    shutil.rmtree(data_dir, ignore_errors=True)
    workspace = Workspace(corpus, data_dir, embedder).__enter__()
    workspace.sync_all()
    return {"indexed": corpus.name}, workspace


def run_with_whole_corpus(
    opts: BenchOptions, corpus: Corpus, whole: Corpus | None, embedder: TextEmbedder
) -> tuple[dict[str, Any], Workspace]:
    """``run`` on ``corpus`` (the repeats), then, when asked, one repeat on the whole corpus.
    Returns the results — the whole corpus's under ``whole_corpus``, its goals first — and the
    workspace the later benchmarks use (the whole corpus's when it was indexed)."""
    result, ws = run(opts, corpus, embedder)
    if whole is None or not opts.whole_corpus_pass or whole.name == corpus.name:
        return result, ws
    ws.__exit__(None, None, None)
    shutil.rmtree(ws.data_dir, ignore_errors=True)
    whole_result, whole_ws = run(
        replace(opts, ingest_repeats=1), whole, embedder, label="ingest-whole", alone_sample=BASELINE_SAMPLE
    )
    whole_goals = [
        {
            **g,
            "goal": g["goal"].replace(
                "ingest:", f"ingest, whole corpus ({whole_result['chunks']:,} chunks, one pass):", 1
            ),
        }
        for g in whole_result["goals"]
    ]
    slice_goals = [
        {
            **g,
            "goal": g["goal"].replace(
                "ingest:", f"ingest, slice ({result['chunks']:,} chunks, median of {opts.ingest_repeats}):", 1
            ),
        }
        for g in result["goals"]
    ]
    return {**result, "goals": whole_goals + slice_goals, "whole_corpus": whole_result}, whole_ws
