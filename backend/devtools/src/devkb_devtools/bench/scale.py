"""Scale: the embedded store filled with synthetic chunks (1M by default), bulk-loaded through
``write_documents`` in batches, then vector search, full-text search and neighbour expansion
latency, disk size and memory — of this process and of a ``devkb serve`` on the same store.

What makes the synthetic chunks realistic:

- text: windows of the Fluid corpus's Jira text (summaries, descriptions, comments; ~12 MB) —
  or of the indexed chunks' texts without it — with lengths drawn from the indexed chunks'
  lengths (real words, real term frequencies, no two chunks alike);
- vectors (384-d): a real chunk embedding plus Gaussian noise (cosine ≈ 0.7 to it), normalised —
  clustered like real embeddings, unlike uniform random vectors;
- documents: chunks per document drawn from the corpus, types in the Fluid corpus's mix,
  ~0.5 REFERENCES edges per document to random other documents (the corpus has 0.47).

Vector search is also measured while the store fills (at 10%, 25%, 50% and 100%), which shows
how exact search grows with the number of chunks. Queries: vectors made like the data; for full
text (``scale_search``), titles of real documents — as they are and phrased as a question the way
``HybridSearch`` passes it; 8 random documents for neighbour expansion (like FetchNeighbors).
"""

from __future__ import annotations

import gzip
import json
import logging
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from devkb.indexing.embedders.base import TextEmbedder
from devkb.store.models import Chunk, Document, Reference, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.bench import scale_search
from devkb_devtools.bench.clients import ServerProcess, embedder_env
from devkb_devtools.bench.measure import (
    RssSampler,
    Summary,
    directory_bytes,
    latency_figures,
    peak_rss_bytes,
    rss_bytes,
    timed_calls,
)
from devkb_devtools.bench.options import BenchOptions
from devkb_devtools.bench.workspace import BenchError

log = logging.getLogger(__name__)
VECTOR_P95_GOAL_MS = 250.0
DIM = 384
NOISE = 1.0  # ‖noise‖ relative to the unit centroid: cosine to it ≈ 1/sqrt(1 + NOISE²)
REFS_PER_DOC = 0.5
BATCH_CHUNKS = 5_000
TOP_K = 50
# The Fluid corpus's documents by type and kind (what the synthetic documents imitate).
DOC_MIX = (
    (SourceType.JIRA, "issue", 10052),
    (SourceType.GITHUB, "commit", 1371),
    (SourceType.GITHUB, "file", 138),
    (SourceType.GITHUB, "pull", 223),
    (SourceType.CONFLUENCE, "page", 115),
)
CHECKPOINTS = (0.1, 0.25, 0.5)
FIRST_ASK_TIMEOUT = 180.0
TEXT_QUERIES = 12  # full-text queries per repeat (each may rank a large share of the table)


def fluid_text(fluid_dir: Path) -> str:
    """Summaries, descriptions and comments of the Fluid corpus's Jira issues, as one string."""
    parts: list[str] = []
    with gzip.open(fluid_dir / "jira" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            fields = json.loads(line)["fields"]
            parts += [fields.get("summary") or "", fields.get("description") or ""]
            parts += [c.get("body") or "" for c in ((fields.get("comment") or {}).get("comments") or [])]
    return " ".join(p for p in parts if p)


@dataclass
class Template:
    """What the synthetic chunks are drawn from: a real, indexed store."""

    blob: str
    lengths: np.ndarray
    chunks_per_doc: np.ndarray
    centroids: np.ndarray
    titles: list[str]

    @classmethod
    def from_store(cls, db_path: Path, text: str | None = None) -> Template:
        """Lengths, chunks per document, embeddings and titles of ``db_path``; windows are cut
        from ``text`` when given, else from that store's chunk texts."""
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT content, embedding FROM chunks WHERE embedding IS NOT NULL"
            ).fetchall()
            per_doc = [r[0] for r in conn.execute("SELECT count(*) FROM chunks GROUP BY document_id")]
            titles = [r[0] for r in conn.execute("SELECT title FROM documents WHERE length(title) > 12")]
        finally:
            conn.close()
        vecs = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return cls(
            blob=text or " ".join(r[0] for r in rows),
            lengths=np.fromiter((len(r[0]) for r in rows), dtype=np.int64, count=len(rows)),
            chunks_per_doc=np.asarray(per_doc, dtype=np.int64),
            centroids=vecs / np.linalg.norm(vecs, axis=1, keepdims=True),
            titles=titles,
        )

    def vectors(self, rng: np.random.Generator, n: int) -> np.ndarray:
        base = self.centroids[rng.integers(0, len(self.centroids), n)]
        noisy = base + rng.standard_normal((n, DIM), dtype=np.float32) * np.float32(NOISE / np.sqrt(DIM))
        return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def doc_id(kind: str, i: int) -> str:
    return {
        "issue": f"jira:SYN-{i}",
        "page": f"confluence:page:{900_000_000 + i}",
    }.get(kind, f"github:synthetic/corpus:{kind}:{i}")


class SyntheticCorpus:
    def __init__(self, template: Template, chunks: int, seed: int = 5) -> None:
        self.t = template
        self.rng = np.random.default_rng(seed)
        per_doc = self.rng.choice(template.chunks_per_doc, size=chunks)  # more than enough documents
        ends = np.cumsum(per_doc)
        n_docs = int(np.searchsorted(ends, chunks) + 1)
        per_doc = per_doc[:n_docs]
        per_doc[-1] -= int(ends[n_docs - 1] - chunks)
        self.per_doc = per_doc
        self.ends = np.cumsum(per_doc)
        weights = np.array([w for _, _, w in DOC_MIX], dtype=np.float64)
        self.kind_of = self.rng.choice(len(DOC_MIX), size=n_docs, p=weights / weights.sum())
        self.ids = [doc_id(DOC_MIX[k][1], i) for i, k in enumerate(self.kind_of)]

    def batches(self):
        """``(items, references)`` for ``write_documents``, about BATCH_CHUNKS chunks each."""
        rng, t = self.rng, self.t
        blob_len = len(t.blob)
        n_docs = len(self.ids)
        start = 0
        while start < n_docs:
            before = int(self.ends[start - 1]) if start else 0
            end = min(int(np.searchsorted(self.ends, before + BATCH_CHUNKS)) + 1, n_docs)
            n_chunks = int(self.per_doc[start:end].sum())
            lengths = rng.choice(t.lengths, size=n_chunks)
            offsets = rng.integers(0, np.maximum(1, blob_len - lengths))
            vectors = t.vectors(rng, n_chunks)
            items: list[tuple[Document, list[Chunk]]] = []
            refs: list[Reference] = []
            c = 0
            for i in range(start, end):
                type_, kind, _ = DOC_MIX[self.kind_of[i]]
                did = self.ids[i]
                title = t.blob[offsets[c] : offsets[c] + 60].strip() or did
                chunks = []
                for k in range(int(self.per_doc[i])):
                    text = t.blob[offsets[c] : offsets[c] + lengths[c]]
                    chunks.append(
                        Chunk(
                            id=Chunk.make_id(did, k, text),
                            document_id=did,
                            chunk_index=k,
                            content=text,
                            embedding=vectors[c],
                        )
                    )
                    c += 1
                items.append(
                    (
                        Document(
                            id=did,
                            type=type_,
                            title=title,
                            updated_at="2024-01-01T00:00:00Z",
                            content_hash=f"synthetic-{i}",
                            metadata={"kind": kind},
                            source="synthetic",
                        ),
                        chunks,
                    )
                )
                for target in rng.integers(0, n_docs, rng.poisson(REFS_PER_DOC)):
                    if int(target) != i:
                        refs.append(
                            Reference(did, self.ids[int(target)], "jira-key-mention", "synthetic", did)
                        )
            yield items, refs, n_chunks
            start = end


def p95_of(fn: Any, args: list[Any], repeats: int) -> dict[str, Any]:
    runs = [latency_figures(timed_calls(fn, args)) for _ in range(repeats)]
    return {
        "p50_ms": Summary.of([r["p50_ms"] for r in runs], "ms").to_json(),
        "p95_ms": Summary.of([r["p95_ms"] for r in runs], "ms").to_json(),
    }


def fill(
    db_path: Path, model_name: str, corpus: SyntheticCorpus, qvecs: list[list[float]], total: int
) -> tuple[dict[str, Any], list[dict[str, float]], dict[str, Any] | None]:
    """Bulk-load the synthetic corpus; vector search is timed at each checkpoint on a second
    connection whose index refreshes incrementally, as a server's would; at the first
    checkpoint, the cost of ``RelatedSearch``'s snapshot is measured too."""
    store = SQLiteGraphStore(db_path)
    store.ensure_schema(model_name, DIM)
    reader = SQLiteGraphStore(db_path)
    growth: list[dict[str, float]] = []
    marks = [int(total * f) for f in CHECKPOINTS]
    snapshot: dict[str, Any] | None = None
    written = 0
    generate_s = write_s = 0.0
    try:
        t = time.perf_counter()
        for items, refs, n in corpus.batches():
            generate_s += time.perf_counter() - t
            t = time.perf_counter()
            store.write_documents(items, refs)
            write_s += time.perf_counter() - t
            written += n
            if marks and written >= marks[0]:
                marks.pop(0)
                reader.vector_search(qvecs[0], TOP_K)  # incremental refresh
                lat = latency_figures(timed_calls(lambda v: reader.vector_search(v, TOP_K), qvecs[:20]))
                growth.append({"chunks": written, **lat})
                log.info("scale: %d chunks written, vector p95 %.0f ms", written, lat["p95_ms"])
                if snapshot is None:
                    snapshot = snapshot_cost(db_path)
            t = time.perf_counter()
    finally:
        reader.close()
        store.close()
    load = {
        "chunks": written,
        "documents": len(corpus.ids),
        "generate_seconds": generate_s,
        "write_seconds": write_s,
        "chunks_per_s": written / (generate_s + write_s),
        "disk_bytes": directory_bytes(db_path.parent),
    }
    log.info("scale: bulk load %s", load)
    return load, growth, snapshot


def measure(
    db_path: Path,
    opts: BenchOptions,
    qvecs: list[list[float]],
    neighbour_args: list[list[str]],
) -> dict[str, Any]:
    """A fresh store (its first vector search loads the whole matrix, as a server start does),
    then the query latencies and this process's memory. Full text is timed once, by
    ``scale_search`` (the impact index and FTS5 as before it, same queries)."""
    store = SQLiteGraphStore(db_path, text_index_min_chunks=None)
    try:
        rss_before = rss_bytes() or 0
        with RssSampler() as sampler:
            t = time.perf_counter()
            store.vector_search(qvecs[0], TOP_K)
            cold_s = time.perf_counter() - t
        rss_after = rss_bytes() or 0
        figures = {
            "vector_search": p95_of(lambda v: store.vector_search(v, TOP_K), qvecs, opts.scale_repeats),
            "vector_search_filtered": p95_of(
                lambda v: store.vector_search(v, TOP_K, types=[SourceType.CONFLUENCE]),
                qvecs,
                opts.scale_repeats,
            ),
            "neighbours": p95_of(
                lambda ids: store.neighbors(ids, "both", limit=50), neighbour_args, opts.scale_repeats
            ),
        }
        variants = matrix_variants(store, qvecs[:5]) if opts.mode != "quick" else {}
        approximate = approximate_search(db_path, store, qvecs, opts.scale_repeats)
        memory = {
            "rss_before_load_bytes": rss_before,
            "rss_after_load_bytes": rss_after,
            "peak_rss_during_load_bytes": sampler.peak,
            "ru_maxrss_bytes": peak_rss_bytes(),
            "matrix_bytes": store._vectors.memory_bytes(),
        }  # a benchmark reads the index's size
    finally:
        store.close()
    return {
        "cold_first_vector_search_seconds": cold_s,
        "approximate": approximate,
        "queries": figures,
        "memory": memory,
        "matrix_variants": variants,
    }


def run(
    opts: BenchOptions, template_db: Path, embedder: TextEmbedder, fluid_dir: Path | None
) -> dict[str, Any]:
    model_name = embedder.model_name
    template = Template.from_store(template_db, fluid_text(fluid_dir) if fluid_dir else None)
    root = opts.work_dir / "scale"
    shutil.rmtree(root, ignore_errors=True)
    db_path = root / "data" / "graph.sqlite"
    corpus = SyntheticCorpus(template, opts.scale_chunks)
    rng = np.random.default_rng(99)
    qvecs = [v.tolist() for v in template.vectors(rng, opts.scale_queries)]
    neighbour_args = [
        [corpus.ids[int(i)] for i in rng.integers(0, len(corpus.ids), 8)] for _ in range(opts.scale_queries)
    ]
    titles = [template.titles[int(i)] for i in rng.integers(0, len(template.titles), opts.scale_queries)]
    try:
        load, growth, snapshot = fill(db_path, model_name, corpus, qvecs, opts.scale_chunks)
        measured = measure(db_path, opts, qvecs, neighbour_args)
        search = search_at_scale(db_path, titles[:TEXT_QUERIES], embedder, opts.scale_repeats)
        server: dict[str, Any] | None = None
        if opts.scale_server:
            try:
                # phrased as questions, so /ask runs its search (RAGSearch) on every one
                asked = [scale_search.question(t) for t in titles[:TEXT_QUERIES]]
                server = serve_and_ask(root, asked, embedder)
            except (BenchError, httpx.HTTPError) as e:  # the figures above stay
                server = {"error": f"{type(e).__name__}: {e}"[:2000]}
    finally:
        if not opts.keep_work_dir:
            shutil.rmtree(root, ignore_errors=True)
    p95 = measured["queries"]["vector_search"]["p95_ms"]["median"]
    return {
        "load": load,
        "text_source": "Fluid Jira text" if fluid_dir else "the indexed chunks' texts",
        "growth": growth,
        **measured,
        "server": server,
        "related_search_snapshot": snapshot,
        "search": search,
        "goals": [
            {
                "goal": f"vector search p95 at {load['chunks']:,} chunks (exact, top {TOP_K})",
                "target": f"≤ {VECTOR_P95_GOAL_MS:.0f} ms",
                "measured": p95,
                "met": p95 <= VECTOR_P95_GOAL_MS,
            },
            *(
                scale_search.goals(load["chunks"], search["full_text"], search["learnt_ranking"])
                if "error" not in search
                else []
            ),
        ],
    }


def search_at_scale(db_path: Path, titles: list[str], embedder: TextEmbedder, repeats: int) -> dict[str, Any]:
    """The impact index and the learnt ranking on candidates (``scale_search``); an error is
    recorded without losing the figures above."""
    started = time.perf_counter()
    try:
        text = scale_search.full_text(db_path, titles, repeats)
        learnt = scale_search.learnt_ranking(db_path, titles, embedder, repeats)
    except Exception as e:  # the other scale figures stay
        log.exception("scale: search at scale failed")
        return {"error": f"{type(e).__name__}: {e}"[:2000]}
    return {"full_text": text, "learnt_ranking": learnt, "seconds": time.perf_counter() - started}


def approx_min_chunks(db_path: Path) -> int | None:
    """The product's ``vector_approx_min_chunks``, lowered to the store's size when it is smaller
    (quick runs: the path is exercised, its figures say nothing); None when it is switched off."""
    from devkb.config.settings import Settings

    setting = Settings().vector_approx_min_chunks
    if setting is None:
        return None
    with sqlite3.connect(db_path) as conn:
        chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    return max(1, min(setting, chunks))


def approximate_search(
    db_path: Path, exact: SQLiteGraphStore, qvecs: list[list[float]], repeats: int
) -> dict[str, Any]:
    """Vector search through the inverted file (``vector_index.py``) on a fresh store object:
    the partition's build time, p95, and recall@50 against the exact search of ``exact``."""
    minimum = approx_min_chunks(db_path)
    if minimum is None:
        return {"skipped": "DEVKB_VECTOR_APPROX_MIN_CHUNKS is unset (always exact)"}
    store = SQLiteGraphStore(db_path, text_index_min_chunks=None, vector_approx_min_chunks=minimum)
    try:
        store.vector_search(qvecs[0], TOP_K)  # loads the matrix and starts the partition
        t = time.perf_counter()
        if not store._vectors.wait_partition(1800):  # a benchmark reads the index's state
            return {"error": "the partition was not built"}
        build_s = time.perf_counter() - t
        latency = p95_of(lambda v: store.vector_search(v, TOP_K), qvecs, repeats)
        recall = [
            len(
                {h.chunk.id for h in store.vector_search(v, TOP_K)}
                & {h.chunk.id for h in exact.vector_search(v, TOP_K)}
            )
            / TOP_K
            for v in qvecs
        ]
        part = store._vectors._partition
        assert part is not None
        return {
            "min_chunks": minimum,
            "lists": int(part.offsets.size - 1),
            "probe": store._vectors.probe,
            "partition_seconds_after_first_search": build_s,
            "vector_search": latency,
            "recall_at_50": float(np.mean(recall)),
            "recall_at_50_min": float(np.min(recall)),
        }
    finally:
        store.close()


def matrix_variants(store: SQLiteGraphStore, queries: list[list[float]]) -> dict[str, Any]:
    """The exact-search kernel on the loaded matrix: float32 as stored (the lower bound of a full
    scan) against float16 storage converted block by block (half the memory)."""
    index = store._vectors
    m = index._vectors[: index._count]
    qs = [np.asarray(q, dtype=np.float32) for q in queries]
    f32 = timed_calls(lambda q: m @ q, qs)
    half = m.astype(np.float16)
    block = 65_536
    f16 = timed_calls(
        lambda q: np.concatenate(
            [half[i : i + block].astype(np.float32) @ q for i in range(0, half.shape[0], block)]
        ),
        qs,
    )
    return {
        "float32_matvec_p50_ms": 1000 * float(np.median(f32)),
        "float16_blocked_p50_ms": 1000 * float(np.median(f16)),
        "queries": len(qs),
    }


def serve_and_ask(root: Path, questions: list[str], embedder: TextEmbedder) -> dict[str, Any]:
    """``devkb serve`` on the big store: time to the first answer (it loads what ``/ask`` holds in
    memory: the vector matrix, and ``RelatedSearch``'s snapshot below its document limit), then sequential
    POST /ask latency and the server's memory. A first answer slower than FIRST_ASK_TIMEOUT is
    recorded as such, with the server's memory at that moment."""
    empty = root / "no-sources.yaml"
    empty.write_text("sources: []\n")
    with ServerProcess(root / "data", empty, env=embedder_env(embedder)) as server:
        try:
            first = server.ask(questions[0], timeout=FIRST_ASK_TIMEOUT)
        except httpx.TimeoutException:
            return {
                "first_ask_seconds": None,
                "first_ask_timeout_seconds": FIRST_ASK_TIMEOUT,
                **server.memory(),
            }
        latencies = [server.ask(q) for q in questions]
        memory = server.memory()
    from devkb.config.settings import Settings

    return {
        "first_ask_seconds": first,
        "ask": latency_figures(latencies),
        **memory,
        "related_search_max_documents": Settings().related_search_max_documents,
    }


def snapshot_cost(db_path: Path) -> dict[str, Any]:
    """What ``RelatedSearch`` (the ranking behind /ask) costs to build over the store as it is:
    its in-memory corpus snapshot — every document, chunk text tokens and vectors."""
    from devkb.agent.retrieval.snapshot import SnapshotLoader

    store = SQLiteGraphStore(db_path)
    try:
        before = rss_bytes() or 0
        with RssSampler() as sampler:
            start = time.perf_counter()
            snapshot = SnapshotLoader(store, DIM).load(None)
            seconds = time.perf_counter() - start
        out = {
            "documents": snapshot.n,
            "chunks": len(snapshot.vectors),
            "seconds": seconds,
            "rss_growth_bytes": (rss_bytes() or 0) - before,
            "peak_rss_growth_bytes": sampler.peak - before,
        }
    finally:
        store.close()
    log.info("scale: RelatedSearch snapshot %s", out)
    return out
