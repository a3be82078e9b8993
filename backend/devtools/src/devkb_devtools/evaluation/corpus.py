"""Index the Fluid corpus for evaluation: the three sources served by the emulators with the
``strip_links`` switch on, read by the real loaders, through the production indexing pipeline
(reference extraction, kind-aware splitting, embedding, transactional writes) into an embedded
store.

With links stripped, Jira serves no ``issuelinks`` and no mention of a linked issue's key in the
texts of either end, so related-issue retrieval measures retrieval, not the links. Everything
else stays: commits and pull requests that name several issues, pages mentioned by issues.

Vectors come from a ``CachingEmbedder`` backed by a SQLite file (``.cache/eval/embeddings.sqlite``
by default), keyed by model and text: a re-run embeds nothing that was embedded before.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Literal

from devkb.config.sources_file import SourceConfig
from devkb.errors import ConfigurationError
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.embedders.cache import CachingEmbedder
from devkb.sources.registry import build_loader
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.testkit import build_indexer

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[5]
DEFAULT_FLUID_DIR = (REPO_ROOT / ".." / "shared" / "data" / "fluid").resolve()
# DEVKB_EVAL_CACHE: share one warm cache between checkouts (a fresh clone has an empty .cache/)
DEFAULT_CACHE_DIR = Path(os.environ.get("DEVKB_EVAL_CACHE") or REPO_ROOT / ".cache" / "eval")
Engine = Literal["auto", "onnx-fp32", "onnx-int8", "torch"]


def make_embedder(
    cache_dir: Path = DEFAULT_CACHE_DIR,
    engine: Engine = "auto",
    max_tokens: int = 256,
    model_dir: Path | None = None,
) -> CachingEmbedder:
    """all-MiniLM-L6-v2 behind a persistent vector cache.

    ``onnx-fp32`` and ``torch`` give the same vectors (cosine 1.0000) under the same model name,
    so they share cache entries and a store built by either serves the default ``local`` embedder.
    ``auto`` takes ONNX Runtime (the faster on CPU) when ``onnxruntime`` and ``onnx`` are
    installed, else torch. ``onnx-int8`` is the shipped default engine (its own model name);
    ``max_tokens`` other than 256 cuts texts shorter (ONNX engines; its own model name too).
    ``model_dir``: other weights (a fine-tuned copy, ONNX engines), exported into their own cache
    directory and recorded under the model name with their hash."""
    inner: TextEmbedder
    if engine == "auto":
        have_onnx = all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnx"))
        engine = "onnx-fp32" if have_onnx else "torch"
    if engine in ("onnx-fp32", "onnx-int8"):
        from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder

        precision: Literal["fp32", "int8"] = "fp32" if engine == "onnx-fp32" else "int8"
        models = cache_dir / "models"
        if model_dir is not None:
            from devkb.indexing.embedders.onnx_export import source_hash

            digest = source_hash(model_dir)[:12]
            models = cache_dir / f"models-{digest}"  # an export removes other keys in its directory
        inner = OnnxMiniLMEmbedder(
            cache_dir=models, precision=precision, max_seq_length=max_tokens, model_dir=model_dir
        )
        if model_dir is not None:
            inner.model_name = f"{inner.model_name}#{digest}"
    elif engine == "torch":
        if model_dir is not None:
            raise ConfigurationError("--model-dir applies to the ONNX engines")
        if max_tokens != 256:
            raise ConfigurationError("--max-tokens applies to the ONNX engines")
        from devkb.indexing.embedders.local_minilm import LocalMiniLMEmbedder

        inner = LocalMiniLMEmbedder()
    else:
        raise ConfigurationError(
            f"unknown embedding engine {engine!r}; expected onnx-fp32, onnx-int8 or torch"
        )
    return CachingEmbedder(inner, cache_dir / "embeddings.sqlite")


def load_fluid_sources() -> ModuleType:
    """``examples/fluid_sources.py``: the one definition of the Fluid sources (also used by the
    graph-fidelity test and the shipped ``fluid-sources.yaml``)."""
    path = REPO_ROOT / "examples" / "fluid_sources.py"
    if not path.is_file():
        raise ConfigurationError(f"{path} is missing; run the evaluation from a devkb checkout")
    spec = importlib.util.spec_from_file_location("fluid_sources", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def slice_dataset(dataset: Dataset, issue_keys: Iterable[str]) -> Dataset:
    """A dataset holding only ``issue_keys`` of the Jira issues (pages and repositories as they
    are). Each issue lists its own links, so stripping still removes links to issues outside the
    slice."""
    keep = set(issue_keys)
    return Dataset(
        projects=dataset.projects(),
        issues=[i for i in dataset.issues() if i["key"] in keep],
        spaces=dataset.spaces(),
        pages=dataset.pages(),
        repos=dataset.repos(),
        lock=dataset.lock,
        root=dataset.root,
    )


@dataclass
class CorpusBuild:
    store_path: Path
    seconds: float
    documents: int
    chunks: int
    chunks_embedded: int
    documents_by_type: dict[str, int] = field(default_factory=dict)
    references_by_kind: dict[str, int] = field(default_factory=dict)
    cache_hits: int = 0
    cache_misses: int = 0
    sources: list[str] = field(default_factory=list)


def build_corpus(
    fluid_dir: Path,
    out_dir: Path,
    embedder: TextEmbedder,
    issue_keys: Iterable[str] | None = None,
    sources: Iterable[str] = ("confluence", "github", "jira"),
    strip_links: bool = True,
) -> CorpusBuild:
    """Index the corpus (or the Jira slice ``issue_keys``) into ``out_dir/graph.sqlite``.

    An existing store there is synced, not rebuilt: unchanged documents are skipped by content
    hash. Pass a fresh ``out_dir`` for a clean build."""
    wanted = set(sources)
    dataset = Dataset.load(fluid_dir)
    if issue_keys is not None:
        dataset = slice_dataset(dataset, issue_keys)
    started = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    store = SQLiteGraphStore(out_dir / "graph.sqlite")
    try:
        store.ensure_schema(embedder.model_name, embedder.dimension)
        with EmulatorSuite(dataset) as suite:
            suite.faults.strip_links = strip_links
            spec = load_fluid_sources().fluid_sources(
                fluid_dir, suite.jira_url, suite.confluence_url, suite.github_url
            )
            configs = [SourceConfig(**s) for s in spec["sources"] if s["type"] in wanted]
            loaders = [build_loader(c) for c in configs]
            runs = build_indexer(out_dir, embedder, loaders).runs  # the container's wiring
            embedded = 0
            for name in runs.ordered_names():
                status = runs.run(name)
                if status.state != "succeeded":
                    raise RuntimeError(f"indexing {name} failed: {status.errors}")
                embedded += status.chunks_embedded
                log.info(
                    "indexed %s: %d documents, %d chunks embedded",
                    name,
                    status.documents_indexed,
                    status.chunks_embedded,
                )
        stats = store.stats()
    finally:
        store.close()
    return CorpusBuild(
        store_path=out_dir / "graph.sqlite",
        seconds=time.monotonic() - started,
        documents=stats.documents,
        chunks=stats.chunks,
        chunks_embedded=embedded,
        documents_by_type=dict(stats.documents_by_type),
        references_by_kind=dict(stats.references_by_kind),
        cache_hits=getattr(embedder, "hits", 0),
        cache_misses=getattr(embedder, "misses", 0),
        sources=[c.name for c in configs],
    )
