"""Issue 62's adaptation judged on a time split of the Fluid corpus: the query adapter is
learnt from the graph's edges made before a date and scored on the issue links made after it,
against the shipped defaults on the same queries.

    python -m devkb_devtools.evaluation.adaptation_eval --store DIR/graph.sqlite [--engine onnx-int8] [--json OUT]

The store is the corpus indexed with links stripped (``corpus.build_corpus``, as ``make eval``
builds it), so the texts never name a linked issue. A deployment's graph holds its issue links;
here they come from the raw ``jira/issues.jsonl.gz`` (``issuelinks``), each link's time being the
later of its two issues' creation times. The other edges (commits, pull requests, pages, key
mentions) are the store's own.

- **Cut**: the time leaving the last ``--test-share`` (20 %) of the issue links after it.
- **Adaptation** (``devkb.agent.retrieval.adaptation.adapt``, the product's code): every pair
  before the cut; it fits each candidate (query adapter, refitted ranking weights) on the earlier
  80 % of them and decides on the later 20 % (its validation slice) — the test links are never
  seen, by the fits or by the decision.
- **Test**: every issue with a link after the cut asks for those links (both directions, grade 2
  for a duplicate); its links from before the cut are left out of the ranking (the graph gives
  them). The query is the issue's summary and description (links stripped, normalised as
  RAGSearch normalises it), embedded as a question is; the ranking is ``RelatedSearch.rank``, as
  ``RAGSearch`` runs it, with the query issue as anchor and text only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.adaptation import Pair, QueryAdapter, adapt, cut_by_time, graph_pairs, queries_of
from devkb.sources.jira.convert import jira_doc_id
from devkb.store.models import Reference, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.emulators.link_stripping import strip_issue_links
from devkb_devtools.evaluation.corpus import DEFAULT_CACHE_DIR, DEFAULT_FLUID_DIR, make_embedder
from devkb_devtools.evaluation.metrics import score_run
from devkb_devtools.evaluation.queries import linked_keys, load_issues, query_text
from devkb_devtools.evaluation.related import normalise

K = 10


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def link_references(issues: dict[str, dict[str, Any]]) -> list[Reference]:
    """The corpus's issue links as the Jira loader stores them (``jira-issuelink``, evidence
    "A <outward phrase> B"; "duplicates" for a duplicate)."""
    out = []
    for key, issue in issues.items():
        for link in (issue.get("fields") or {}).get("issuelinks") or []:
            other = (link.get("outwardIssue") or {}).get("key")
            if not other or other not in issues:
                continue
            ltype = link.get("type") or {}
            phrase = ltype.get("outward") or ltype.get("name") or "relates to"
            out.append(
                Reference(jira_doc_id(key), jira_doc_id(other), "jira-issuelink", f"{key} {phrase} {other}")
            )
    return out


def links_per_project(pairs: Sequence[Pair]) -> Counter[str]:
    """Issue links per project (a link between two projects counts for both)."""
    out: Counter[str] = Counter()
    for p in pairs:
        for project in {p.a.split(":", 1)[1].split("-")[0], p.b.split(":", 1)[1].split("-")[0]}:
            out[project] += 1
    return out


def run(
    store_path: Path,
    fluid_dir: Path,
    engine: str,
    cache_dir: Path,
    test_share: float,
    min_pairs: int,
    project_min_links: int,
    model_dir: Path | None = None,
    all_pairs: bool = True,
    adapting: bool = True,
) -> dict[str, Any]:
    embedder = make_embedder(cache_dir, engine=engine, model_dir=model_dir)  # type: ignore[arg-type]
    store = SQLiteGraphStore(store_path)
    timings: dict[str, float] = {}
    try:
        t = time.perf_counter()
        related = RelatedSearch(store, embedder, unrestricted=True)
        snapshot = related.snapshot()
        timings["snapshot_s"] = time.perf_counter() - t
        issues = load_issues(fluid_dir)
        t = time.perf_counter()
        pairs = graph_pairs([*store.all_references(), *link_references(issues)], snapshot)
        timings["pairs_s"] = time.perf_counter() - t
        links = [p for p in pairs if p.kind == "jira-issuelink"]
        _, _, at = cut_by_time(links, test_share)
        train = [p for p in pairs if p.time < at]
        test = [p for p in links if p.time >= at]
        log(
            f"{len(pairs)} pairs ({dict(Counter(p.kind for p in pairs))}); cut {at:.0f}: "
            f"{len(train)} before (adaptation), {len(test)} issue links after (test)"
        )

        adapter: QueryAdapter | None = None
        decision = None
        if adapting:
            t = time.perf_counter()
            adapter, decision = adapt(
                related, snapshot, train, min_pairs=min_pairs, progress=lambda s, d, n: log(f"  {s} {d}/{n}")
            )
            timings["adaptation_s"] = time.perf_counter() - t
            log(f"adaptation: {decision.status} in {timings['adaptation_s']:.1f} s; {decision.validation}")

        queries = queries_of(test, train)
        stripped = linked_keys(issues)
        texts = {}
        for q in queries:
            key = q.doc_id.split(":", 1)[1]
            texts[q.doc_id] = normalise(query_text(strip_issue_links(issues[key], stripped.get(key, set()))))
        t = time.perf_counter()
        vectors = dict(zip(texts, embedder.embed(list(texts.values())), strict=True))
        timings["query_embedding_s"] = time.perf_counter() - t

        def ranked(adapted: QueryAdapter | None, anchored: bool) -> dict[str, list[str]]:
            out = {}
            for q in queries:
                vector = np.asarray(vectors[q.doc_id], dtype=np.float32)
                project = q.doc_id.split(":", 1)[1].split("-")[0]
                if adapted is not None and adapted.used(anchored, project):
                    vector = adapted.apply(vector)
                snap, docs, _, _, _ = related.rank(
                    texts[q.doc_id],
                    q.doc_id if anchored else None,
                    [SourceType.JIRA],
                    snapshot=snapshot,
                    vector=vector,
                    weights=adapted.model(anchored, project) if adapted is not None else None,
                )
                ids = [snap.ids[i] for i in docs]
                out[q.doc_id] = [d for d in ids if d != q.doc_id and d not in q.known][:K]
            return out

        qrels = {q.doc_id: q.relevant for q in queries}
        per_project_links = links_per_project(links)
        projects = sorted(p for p, n in per_project_links.items() if n >= project_min_links)
        results: dict[str, Any] = {}
        for mode, anchored in (("anchor", True), ("text", False)):
            row: dict[str, Any] = {}
            arms = (("defaults", None), ("adapted", adapter)) if adapting else (("defaults", None),)
            for arm, adapted in arms:
                t = time.perf_counter()
                rankings = ranked(adapted, anchored)
                ms = (time.perf_counter() - t) * 1000 / max(len(queries), 1)
                scored = {k: round(v, 4) for k, v in score_run(rankings, qrels, K).items() if k != "queries"}
                by_project = {}
                for project in projects:
                    keys = [k for k in rankings if k.split(":", 1)[1].split("-")[0] == project]
                    if keys:
                        s = score_run({k: rankings[k] for k in keys}, {k: qrels[k] for k in keys}, K)
                        by_project[project] = {"queries": len(keys), "ndcg@10": round(s["ndcg@10"], 4)}
                row[arm] = {**scored, "mean_ms": round(ms, 2), "per_project": by_project}
            results[mode] = row
            log(
                f"{mode}: defaults nDCG@10 {row['defaults']['ndcg@10']:.4f} → adapted "
                f"{row.get('adapted', row['defaults'])['ndcg@10']:.4f} ({len(queries)} queries)"
            )

        # The production run: every pair (no test held out), timed — what a deployment pays.
        full = None
        if all_pairs and adapting:
            t = time.perf_counter()
            _, full = adapt(related, snapshot, pairs, min_pairs=min_pairs)
            timings["adaptation_all_pairs_s"] = time.perf_counter() - t
    finally:
        store.close()
    return {
        "store": str(store_path),
        "engine": engine,
        "model_dir": str(model_dir) if model_dir else None,
        "embedding_model": embedder.model_name,
        "documents": snapshot.n,
        "chunks": int(len(snapshot.vectors)),
        "pairs": len(pairs),
        "pairs_by_kind": dict(Counter(p.kind for p in pairs)),
        "issue_links": len(links),
        "test_from": time.strftime("%Y-%m-%d", time.gmtime(at)),
        "train_pairs": len(train),
        "test_links": len(test),
        "test_queries": len(queries),
        "links_per_project": dict(per_project_links),
        "decision": decision.to_json() if decision is not None else None,
        "decision_all_pairs": full.to_json() if full is not None else None,
        "results": results,
        "timings": {k: round(v, 2) for k, v in timings.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--store", type=Path, required=True, help="graph.sqlite of the corpus indexed with links stripped"
    )
    p.add_argument("--fluid-dir", type=Path, default=DEFAULT_FLUID_DIR)
    p.add_argument("--engine", default="onnx-int8", choices=["onnx-int8", "onnx-fp32", "torch"])
    p.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    p.add_argument(
        "--model-dir", type=Path, help="fine-tuned weights the store was embedded with (finetune_eval)"
    )
    p.add_argument("--no-all-pairs", action="store_true", help="skip the timed adaptation on every pair")
    p.add_argument(
        "--no-adapt", action="store_true", help="the shipped defaults only (no adaptation, no second arm)"
    )
    p.add_argument("--test-share", type=float, default=0.2)
    p.add_argument("--min-pairs", type=int, default=200)
    p.add_argument("--project-min-links", type=int, default=50)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if not args.store.is_file():
        p.error(f"{args.store} is not a store file")
    if not 0 < args.test_share < 1:
        p.error("--test-share must be between 0 and 1")
    report = run(
        args.store,
        args.fluid_dir,
        args.engine,
        args.cache_dir,
        args.test_share,
        args.min_pairs,
        args.project_min_links,
        args.model_dir,
        not args.no_all_pairs,
        not args.no_adapt,
    )
    text = json.dumps(report, indent=2)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
