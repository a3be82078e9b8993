"""Related-issue retrieval on an indexed store: the baselines and RAGSearch, on the same queries.

The query is the issue's summary and description (links stripped), normalised as the RAGSearch
tool normalises every query (whitespace collapsed, at most ``MAX_QUERY_CHARS`` characters); the
candidates are the Jira issues; the query issue itself never counts. Methods:

- baselines on the issue text only (summary + description of every issue, as in the issue's
  orientation table): BM25 (bm25s); dense all-MiniLM-L6-v2 and RRF of the two on request
  (``issue_text_dense``: ~10,000 more texts to embed);
- baselines on the indexed text (the stored documents: fields, description, comments):
  BM25 (bm25s), dense chunk max-sim over the stored chunk vectors, RRF of the two;
- ``HybridSearch`` as shipped before this work (FTS5 + vector RRF over chunks), on a sample:
  ~0.7 s a query with a whole issue as the query;
- the ``RAGSearch`` tool over ``RelatedSearch``, without and with the anchor (the query issue).

Latency is per query, in process, with the query vector already computed (the embedding cache
is warm); the cost of embedding a query cold is measured apart on a sample.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from devkb.agent.evidence import Scope
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.fields import document_fields
from devkb.agent.tools.rag_search import MAX_QUERY_CHARS, RAGSearch
from devkb.indexing.embedders.base import TextEmbedder
from devkb.sources.jira.convert import jira_doc_id
from devkb.store.models import SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.emulators.link_stripping import strip_issue_links
from devkb_devtools.evaluation.baselines import BM25sRanker, DenseRanker, rrf
from devkb_devtools.evaluation.metrics import mean, percentile, score_run
from devkb_devtools.evaluation.queries import RelatedQuery, linked_keys, load_issues, query_text

K = 10


def normalise(text: str) -> str:
    """What ``RAGSearch.run`` does to a query before searching."""
    return " ".join(text.split())[:MAX_QUERY_CHARS]


@dataclass
class MethodResult:
    name: str
    group: str
    metrics: dict[str, float]
    latency_ms: dict[str, float]
    queries: int
    note: str = ""
    rankings: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("rankings")
        return d


@dataclass
class RelatedReport:
    queries: int
    relevant_pairs: int
    methods: list[MethodResult]
    timings: dict[str, float]
    query_embedding_ms: dict[str, float]

    def best(self, name: str) -> MethodResult | None:
        return next((m for m in self.methods if m.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": self.queries,
            "relevant_pairs": self.relevant_pairs,
            "methods": [m.to_json() for m in self.methods],
            "timings_s": {k: round(v, 2) for k, v in self.timings.items()},
            "query_embedding_ms": self.query_embedding_ms,
        }


def _latency(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "mean": round(mean(values), 2),
    }


def _run(
    name: str,
    group: str,
    queries: Sequence[RelatedQuery],
    fn: Callable[[RelatedQuery], list[str]],
    note: str = "",
) -> MethodResult:
    rankings, lat = {}, []
    for q in queries:
        t = time.perf_counter()
        ranking = fn(q)
        lat.append((time.perf_counter() - t) * 1000)
        rankings[q.key] = [d for d in ranking if d != q.doc_id][:K]
    metrics = {
        k: round(v, 4)
        for k, v in score_run(rankings, {q.key: q.relevant for q in queries}, K).items()
        if k != "queries"
    }
    return MethodResult(name, group, metrics, _latency(lat), len(queries), note, rankings)


def issue_texts(fluid_dir: Path, keys: Sequence[str] | None = None) -> dict[str, str]:
    """Summary + description of every issue (or of ``keys``), links stripped, normalised."""
    issues = load_issues(fluid_dir)
    links = linked_keys(issues)
    wanted = issues.keys() if keys is None else [k for k in keys if k in issues]
    return {
        jira_doc_id(k): normalise(query_text(strip_issue_links(issues[k], links.get(k, set()))))
        for k in wanted
    }


def run_related(
    store_path: Path,
    queries: Sequence[RelatedQuery],
    embedder: TextEmbedder,
    fluid_dir: Path,
    hybrid_sample: int = 100,
    embed_sample: int = 50,
    issue_text_dense: bool = False,
    log: Callable[[str], None] = print,
) -> RelatedReport:
    """``issue_text_dense``: also the dense and RRF baselines on the issue text, which embed the
    summary + description of every issue (~10,000 texts, ~10 minutes cold on two cores)."""
    timings: dict[str, float] = {}
    store = SQLiteGraphStore(store_path)
    try:
        t = time.perf_counter()
        related = RelatedSearch(store, embedder, unrestricted=True)
        related.warm_up()
        snap = related.snapshot()
        timings["snapshot"] = time.perf_counter() - t
        log(f"snapshot: {snap.n} documents, {len(snap.vectors)} chunks in {timings['snapshot']:.1f} s")

        texts = {q.key: normalise(q.text) for q in queries}
        t = time.perf_counter()
        qvec = dict(zip(texts, embedder.embed(list(texts.values())), strict=True))
        timings["query_embedding"] = time.perf_counter() - t

        jira = [i for i, d in enumerate(snap.documents) if d.type == SourceType.JIRA]
        ids = [snap.ids[i] for i in jira]
        indexed = [
            "\n".join(document_fields(snap.documents[i], snap.entries[i].chunks).values()) for i in jira
        ]
        rows, _ = snap.chunk_rows(np.asarray(jira, dtype=np.int64))
        groups = np.repeat(np.arange(len(jira)), snap.chunk_count[jira])

        corpus_issue = issue_texts(fluid_dir, [d.split(":", 1)[1] for d in ids])
        issue_ids = list(corpus_issue)
        dense_issue = None
        if issue_text_dense:
            t = time.perf_counter()
            dense_issue = DenseRanker(issue_ids, embedder.embed(list(corpus_issue.values())))
            timings["issue_text_embedding"] = time.perf_counter() - t

        methods: list[MethodResult] = []
        t = time.perf_counter()
        bm25_issue = BM25sRanker(issue_ids, list(corpus_issue.values()))
        bm25_indexed = BM25sRanker(ids, indexed)
        dense_indexed = DenseRanker(ids, snap.vectors[rows], groups)
        timings["baseline_indexes"] = time.perf_counter() - t

        cache: dict[tuple[str, str], list[str]] = {}

        def remember(
            kind: str, fn: Callable[[RelatedQuery], list[str]]
        ) -> Callable[[RelatedQuery], list[str]]:
            def run(q: RelatedQuery) -> list[str]:
                cache[(kind, q.key)] = fn(q)
                return cache[(kind, q.key)]

            return run

        specs = [
            ("BM25 (bm25s)", "issue text", "bm25-issue", lambda q: bm25_issue.rank(texts[q.key], q.doc_id))
        ]
        if dense_issue is not None:
            specs.append(
                (
                    "dense all-MiniLM-L6-v2",
                    "issue text",
                    "dense-issue",
                    lambda q: dense_issue.rank(qvec[q.key], q.doc_id),
                )
            )
        specs += [
            (
                "BM25 (bm25s)",
                "indexed text",
                "bm25-indexed",
                lambda q: bm25_indexed.rank(texts[q.key], q.doc_id),
            ),
            (
                "dense chunk max-sim",
                "indexed text",
                "dense-indexed",
                lambda q: dense_indexed.rank(qvec[q.key], q.doc_id),
            ),
        ]
        for name, group, kind, fn in specs:
            methods.append(_run(name, group, queries, remember(kind, fn)))
            log(_line(methods[-1]))
        fusions = [("indexed text", "bm25-indexed", "dense-indexed")]
        if dense_issue is not None:
            fusions.insert(0, ("issue text", "bm25-issue", "dense-issue"))
        for group, a, b in fusions:
            methods.append(
                _run(
                    "RRF(BM25, dense)",
                    group,
                    queries,
                    functools.partial(_fused, cache, a, b),
                    note="fusion only; the two rankings' latencies add",
                )
            )
            log(_line(methods[-1]))

        hybrid = HybridSearch(store, embedder)
        step = max(1, len(queries) // hybrid_sample) if hybrid_sample else 1
        sample = list(queries[::step][:hybrid_sample]) if hybrid_sample else []
        if sample:
            methods.append(
                _run(
                    "HybridSearch (FTS5 + vector RRF, as shipped)",
                    "devkb",
                    sample,
                    lambda q: [
                        h.document.id
                        for h in hybrid.search(texts[q.key], top_k=K + 1, types=[SourceType.JIRA])
                    ],
                    note=f"every {step}th query, {len(sample)} in all (slow: FTS5 with a whole issue as the query)",
                )
            )
            log(_line(methods[-1]))

        rag = RAGSearch(related)

        def rag_run(q: RelatedQuery, anchor: str | None) -> list[str]:
            # without the anchor the query issue itself comes back (and is dropped): ask for one more
            scope = Scope.for_sources([SourceType.JIRA])
            return [d.id for d in rag.run(scope, q.text, top_k=K if anchor else K + 1, anchor=anchor)]

        methods.append(
            _run("RAGSearch → RelatedSearch, text only", "devkb", queries, lambda q: rag_run(q, None))
        )
        log(_line(methods[-1]))
        methods.append(
            _run(
                "RAGSearch → RelatedSearch, anchor = query issue",
                "devkb",
                queries,
                lambda q: rag_run(q, q.doc_id),
            )
        )
        log(_line(methods[-1]))

        # The same model above DEVKB_RELATED_SEARCH_MAX_DOCUMENTS: no whole-store snapshot; the
        # candidates come from the store's indexes (full text from the BM25 impact index, as a
        # store of that size uses, and vectors) and the features are computed on them only.
        big_store = SQLiteGraphStore(store_path, text_index_min_chunks=0)
        assert big_store.text_index is not None
        big_store.text_index.build_now()
        big = RelatedSearch(big_store, embedder, unrestricted=True, max_documents=0)
        big_rag = RAGSearch(big)

        def big_run(q: RelatedQuery, anchor: str | None) -> list[str]:
            scope = Scope.for_sources([SourceType.JIRA])
            return [d.id for d in big_rag.run(scope, q.text, top_k=K if anchor else K + 1, anchor=anchor)]

        try:
            for label, with_anchor in (("text only", False), ("anchor = query issue", True)):

                def ranked(q: RelatedQuery, with_anchor: bool = with_anchor) -> list[str]:
                    return big_run(q, q.doc_id if with_anchor else None)

                methods.append(
                    _run(
                        f"RAGSearch → RelatedSearch on candidates (above max documents), {label}",
                        "devkb",
                        queries,
                        ranked,
                    )
                )
                log(_line(methods[-1]))
        finally:
            big_store.close()

        embed_ms = _cold_embedding(embedder, list(texts.values())[:embed_sample])
    finally:
        store.close()
    return RelatedReport(
        queries=len(queries),
        relevant_pairs=sum(len(q.relevant) for q in queries),
        methods=methods,
        timings=timings,
        query_embedding_ms=embed_ms,
    )


def _cold_embedding(embedder: TextEmbedder, texts: Sequence[str]) -> dict[str, float]:
    """Per-query embedding time without the cache (the inner embedder of a CachingEmbedder)."""
    inner = getattr(embedder, "inner", embedder)
    if not texts:
        return {}
    inner.embed([texts[0]])  # loaded
    lat = []
    for text in texts:
        t = time.perf_counter()
        inner.embed([text])
        lat.append((time.perf_counter() - t) * 1000)
    return {**_latency(lat), "sample": len(texts)}


def _line(m: MethodResult) -> str:
    x = m.metrics
    return (
        f"{m.name:48s} [{m.group:12s}] R@10 {x['recall@10']:.3f}  nDCG@10 {x['ndcg@10']:.3f}  "
        f"MRR@10 {x['mrr@10']:.3f}  p50 {m.latency_ms['p50']:.1f} ms  p95 {m.latency_ms['p95']:.1f} ms  "
        f"({m.queries} queries)"
    )


def _fused(cache: dict[tuple[str, str], list[str]], a: str, b: str, q: Any) -> list[str]:
    """Reciprocal-rank fusion of two cached rankings of query ``q``."""
    return rrf([cache[(a, q.key)], cache[(b, q.key)]])
