"""Issue 62's candidates measured on cached candidate pools, so each experiment takes seconds.

    python -m devkb_devtools.evaluation.adaptation_experiments collect --store DIR/graph.sqlite --cache OUT
    python -m devkb_devtools.evaluation.adaptation_experiments run --cache OUT [--json FILE]

``collect`` (minutes, once): the time split of ``adaptation_eval`` (the cut leaving the last 20 %
of the issue links after it) and, inside the training period, the adaptation's own split (fit on
the earlier 80 % of the pairs, validation on the later 20 %). For every query of the three sets —
*fit* (each issue asking for its fit-period partners; the pair itself left out of the
co-citation: a pair must not describe itself), *validation* (each issue with a pair in the
validation slice, its fit-period partners known and left out of the ranking) and *test* (each issue
with an issue link after the cut) — and both modes (the issue as anchor, text only) it runs
``RelatedSearch.rank`` with a deep first stage (``--depth``) and keeps every candidate's features
(``features.ANCHOR_FEATURES`` …) as numpy arrays in ``OUT/*.npz``.

``run``: re-ranks the pools with each candidate (the shipped weights; weights refitted on the fit
queries by a pairwise logistic regression, regularised towards the shipped ones; an expansion
feature from word associations of the fit pairs) and prints nDCG@10 on validation and test. The
pools were selected with the shipped first stage, so the figures approximate a real ranking with
other weights; what is chosen is confirmed with the real ranking by ``adaptation_eval``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from devkb.agent.retrieval import RelatedSearch, ranker_fit
from devkb.agent.retrieval.adaptation import (
    VALIDATION_SHARE,
    Pair,
    Query,
    cut_by_time,
    graph_pairs,
    queries_of,
    query_text,
)
from devkb.agent.retrieval.features import ANCHOR_FEATURES, TEXT_FEATURES
from devkb.agent.retrieval.snapshot import CorpusSnapshot
from devkb.store.models import SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.emulators.link_stripping import strip_issue_links
from devkb_devtools.evaluation.adaptation_eval import link_references
from devkb_devtools.evaluation.corpus import DEFAULT_CACHE_DIR, DEFAULT_FLUID_DIR, make_embedder
from devkb_devtools.evaluation.queries import linked_keys, load_issues
from devkb_devtools.evaluation.queries import query_text as raw_query_text
from devkb_devtools.evaluation.related import normalise

K = 10
FEATURES = TEXT_FEATURES + ANCHOR_FEATURES
SETS = ("fit", "validation", "test")
MODES = {"anchor": True, "text": False}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- collect ------------------------------------------------------------------------------------
def split(
    pairs: Sequence[Pair], test_share: float
) -> tuple[list[Pair], list[Pair], list[Pair], list[Pair], float, float]:
    """(fit, validation, train, test, test cut, validation cut) — the time split of
    ``adaptation_eval`` and, inside its training period, the adaptation's own."""
    links = [p for p in pairs if p.kind == "jira-issuelink"]
    _, _, at = cut_by_time(links, test_share)
    train = [p for p in pairs if p.time < at]
    test = [p for p in links if p.time >= at]
    fit, validation, at_v = cut_by_time(train, VALIDATION_SHARE)
    return fit, validation, train, test, at, at_v


def pair_kinds(pairs: Sequence[Pair]) -> dict[tuple[str, str], str]:
    out = {}
    for p in pairs:
        out[(p.a, p.b)] = out[(p.b, p.a)] = p.kind
    return out


@dataclass
class Pool(ranker_fit.Pool):
    """One query's candidates: snapshot positions, features (columns: ``FEATURES``) and grades."""

    query: str = ""
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    relevant: dict[str, int] = field(default_factory=dict)


def collect_pool(
    related: RelatedSearch,
    snapshot: CorpusSnapshot,
    q: Query,
    text: str,
    vector: np.ndarray | None,
    anchored: bool,
    depth: int,
    leave_out: frozenset[str],
) -> Pool:
    snap, docs, cand, _, _ = related.rank(
        text,
        q.doc_id if anchored else None,
        [SourceType.JIRA],
        snapshot=snapshot,
        vector=vector,
        depth=depth,
        leave_out=leave_out,
    )
    keep = np.asarray([snap.ids[j] != q.doc_id and snap.ids[j] not in q.known for j in docs], dtype=bool)
    names = FEATURES if anchored else TEXT_FEATURES
    X = np.stack([cand[f][keep] for f in names], axis=1).astype(np.float32)
    positions = np.asarray(docs, dtype=np.int64)[keep]
    grades = np.asarray([q.relevant.get(snap.ids[j], 0) for j in positions], dtype=np.int8)
    return Pool(X, grades, q.doc_id, positions, q.relevant)


def save_pools(path: Path, pools: Sequence[Pool], extra: Mapping[str, Any]) -> None:
    counts = np.asarray([len(p.positions) for p in pools], dtype=np.int64)
    np.savez(
        path,
        positions=np.concatenate([p.positions for p in pools]) if pools else np.zeros(0, np.int64),
        features=np.concatenate([p.features for p in pools]) if pools else np.zeros((0, 0), np.float32),
        grades=np.concatenate([p.grades for p in pools]) if pools else np.zeros(0, np.int8),
        counts=counts,
    )
    meta = {"queries": [{"doc_id": p.query, "relevant": p.relevant} for p in pools], **extra}
    path.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")


def load_pools(path: Path) -> list[Pool]:
    with np.load(path) as npz:  # each access of an npz member reads it again: once each
        data = {k: npz[k] for k in npz.files}
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    ends = np.cumsum(data["counts"])
    starts = ends - data["counts"]
    return [
        Pool(
            data["features"][s:e],
            data["grades"][s:e],
            m["doc_id"],
            data["positions"][s:e],
            {k: int(v) for k, v in m["relevant"].items()},
        )
        for m, s, e in zip(meta["queries"], starts, ends, strict=True)
    ]


def collect(
    store_path: Path,
    fluid_dir: Path,
    cache: Path,
    engine: str,
    embedding_cache: Path,
    depth: int,
    test_share: float,
    max_fit: int,
    modes: Sequence[str],
) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    embedder = make_embedder(embedding_cache, engine=engine)  # type: ignore[arg-type]
    store = SQLiteGraphStore(store_path)
    related = RelatedSearch(store, embedder, unrestricted=True)
    t = time.perf_counter()
    snapshot = related.snapshot()
    log(f"snapshot {snapshot.n} documents in {time.perf_counter() - t:.1f} s")
    issues = load_issues(fluid_dir)
    pairs = graph_pairs([*store.all_references(), *link_references(issues)], snapshot)
    fit, validation, train, test, at, at_v = split(pairs, test_share)
    kinds = pair_kinds(pairs)
    log(
        f"{len(pairs)} pairs {dict(Counter(p.kind for p in pairs))}; test from {at:.0f}: {len(train)} before, "
        f"{len(test)} links after; validation from {at_v:.0f}: {len(fit)} fit, {len(validation)} validation"
    )
    fit_queries = queries_of(fit, [])
    if len(fit_queries) > max_fit:  # evenly over time
        fit_queries = [fit_queries[int(k * len(fit_queries) / max_fit)] for k in range(max_fit)]
    sets = {
        "fit": fit_queries,
        "validation": queries_of(validation, fit),
        "test": queries_of(test, train),
    }
    # the test queries as adaptation_eval asks them: raw text, links stripped, embedded
    stripped = linked_keys(issues)
    test_texts = {}
    for q in sets["test"]:
        key = q.doc_id.split(":", 1)[1]
        test_texts[q.doc_id] = normalise(
            raw_query_text(strip_issue_links(issues[key], stripped.get(key, set())))
        )
    test_vectors = dict(zip(test_texts, embedder.embed(list(test_texts.values())), strict=True))
    for name, queries in sets.items():
        texts, vectors = [], []
        for q in queries:
            i = snapshot.position[q.doc_id]
            if name == "test":
                texts.append(test_texts[q.doc_id])
                vectors.append(np.asarray(test_vectors[q.doc_id], dtype=np.float32))
            else:
                texts.append(query_text(snapshot, i))
                vectors.append(
                    snapshot.vectors[int(snapshot.chunk_start[i])]
                    if snapshot.chunk_count[i]
                    else np.zeros(snapshot.vectors.shape[1], np.float32)
                )
        np.save(cache / f"{name}_vectors.npy", np.asarray(vectors, dtype=np.float32))
        (cache / f"{name}_texts.json").write_text(json.dumps(texts), encoding="utf-8")
        for mode, anchored in MODES.items():
            if mode not in modes:
                continue
            t = time.perf_counter()
            pools = []
            for n, (q, text, vector) in enumerate(zip(queries, texts, vectors, strict=True)):
                leave = frozenset(q.relevant) if name == "fit" else frozenset()
                pools.append(collect_pool(related, snapshot, q, text, vector, anchored, depth, leave))
                if n % 500 == 0:
                    log(f"  {name} {mode} {n}/{len(queries)}")
            kind_of = {p.query: {d: kinds.get((p.query, d), "") for d in p.relevant} for p in pools}
            save_pools(cache / f"{name}_{mode}.npz", pools, {"kinds": kind_of})
            log(f"{name} {mode}: {len(pools)} queries in {time.perf_counter() - t:.0f} s")
    meta = {
        "store": str(store_path),
        "test_from": at,
        "validation_from": at_v,
        "pairs": len(pairs),
        "ids": snapshot.ids,
        "depth": depth,
        "pairs_fit": [[p.a, p.b, p.kind] for p in fit],
        "pairs_validation": [[p.a, p.b, p.kind] for p in validation],
    }
    (cache / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    store.close()


# -- run ----------------------------------------------------------------------------------------
def ndcg_of(pool: Pool, scores: np.ndarray, k: int = K) -> float:
    ideal = sorted(pool.relevant.values(), reverse=True)[:k]
    best = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    if best <= 0:
        return 0.0
    top = np.argsort(-scores, kind="stable")[:k]
    return float(sum(pool.grades[j] / math.log2(r + 2) for r, j in enumerate(top)) / best)


def evaluate(pools: Sequence[Pool], weights: np.ndarray, extra: Sequence[np.ndarray] | None = None) -> float:
    out = []
    for n, p in enumerate(pools):
        X = p.features if extra is None else np.column_stack([p.features, extra[n]])
        out.append(ndcg_of(p, X @ weights))
    return float(np.mean(out)) if out else 0.0


# -- expansion terms learnt from the fit pairs ----------------------------------------------------
def term_sets(snapshot: CorpusSnapshot, texts: Sequence[str]) -> list[np.ndarray]:
    vocab = snapshot.text_index.vocab
    tok = snapshot.tokenizer
    return [np.unique(np.asarray([vocab[t] for t in tok(x) if t in vocab], dtype=np.int64)) for x in texts]


def associations(
    snapshot: CorpusSnapshot, pairs: Sequence[tuple[int, int]], min_count: int, target: str
) -> Any:
    """PMI between a word of one end of a linked pair and a word of the other (both directions),
    for co-occurrences seen at least ``min_count`` times: a V × V sparse matrix."""
    from scipy import sparse

    v = len(snapshot.text_index.vocab)
    texts = {i: query_text(snapshot, i) for p in pairs for i in p}
    terms = dict(zip(texts, term_sets(snapshot, list(texts.values())), strict=True))
    if target == "text":
        vocab = snapshot.text_index.vocab
        whole = {
            i: np.unique(
                np.asarray([vocab[t] for t in snapshot.entries[i].text_tokens if t in vocab], np.int64)
            )
            for i in texts
        }
    else:
        whole = terms
    rows_s, cols_s, rows_t, cols_t = [], [], [], []
    n = 0
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            rows_s.append(np.full(len(terms[x]), n))
            cols_s.append(terms[x])
            rows_t.append(np.full(len(whole[y]), n))
            cols_t.append(whole[y])
            n += 1
    S = sparse.csr_matrix(
        (np.ones(sum(map(len, cols_s)), np.float32), (np.concatenate(rows_s), np.concatenate(cols_s))),
        shape=(n, v),
    )
    T = sparse.csr_matrix(
        (np.ones(sum(map(len, cols_t)), np.float32), (np.concatenate(rows_t), np.concatenate(cols_t))),
        shape=(n, v),
    )
    C = (S.T @ T).tocoo()
    keep = C.data >= min_count
    r, c, d = C.row[keep], C.col[keep], C.data[keep]
    ns = np.asarray(S.sum(axis=0)).ravel()
    nt = np.asarray(T.sum(axis=0)).ravel()
    pmi = np.log(d * n / (ns[r] * nt[c]))
    pos = pmi > 0
    return sparse.csr_matrix((pmi[pos].astype(np.float32), (r[pos], c[pos])), shape=(v, v))


def expansion_scores(snapshot: CorpusSnapshot, assoc: Any, query_terms: np.ndarray, k: int) -> np.ndarray:
    """BM25 of every document for the ``k`` words most associated with the query's words (the
    query's own words left out), weighted by their summed PMI, / the best score."""
    if query_terms.size == 0:
        return np.zeros(snapshot.n, np.float32)
    weight = np.asarray(assoc[query_terms].sum(axis=0)).ravel()
    weight[query_terms] = 0.0
    nz = np.flatnonzero(weight > 0)
    if nz.size == 0:
        return np.zeros(snapshot.n, np.float32)
    top = nz[np.argsort(-weight[nz])[:k]]
    field = snapshot.text_index.fields["text"]
    scores = field.scores(top, (weight[top] / weight[top].max()).astype(np.float32))
    best = float(scores.max())
    return (scores / best).astype(np.float32) if best > 0 else scores


# -- metadata pair associations learnt from the fit pairs ---------------------------------------
CATEGORICAL = ("issue_type", "priority", "reporter", "assignee", "component", "label")


def doc_values(snapshot: CorpusSnapshot, name: str) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for d in snapshot.documents:
        v = (d.metadata or {}).get(name) if d.type == SourceType.JIRA else None
        if v is None or v == "":
            out.append(())
        elif isinstance(v, (list, tuple)):
            out.append(tuple(dict.fromkeys(str(x) for x in v if x)))
        else:
            out.append((str(v),))
    return out


@dataclass
class PairLift:
    """log((n(a, b) + 1) / (E(a, b) + 1)): how much more often an issue with value ``a`` is paired
    with one with value ``b`` than value frequencies predict (both directions counted)."""

    codes: dict[str, int]
    doc_codes: list[np.ndarray]
    counts: np.ndarray  # V × V pair counts
    expected_scale: np.ndarray  # per value: its share of the Jira issues
    pairs: int

    @classmethod
    def learn(
        cls, values: Sequence[tuple[str, ...]], jira: np.ndarray, pairs: Sequence[tuple[int, int]]
    ) -> PairLift:
        codes: dict[str, int] = {}
        doc_codes = [np.asarray([codes.setdefault(v, len(codes)) for v in vs], np.int64) for vs in values]
        v = max(1, len(codes))
        freq = np.zeros(v)
        for i in np.flatnonzero(jira):
            for c in doc_codes[i]:
                freq[c] += 1
        counts = np.zeros((v, v))
        for a, b in pairs:
            for x in doc_codes[a]:
                for y in doc_codes[b]:
                    counts[x, y] += 1
                    counts[y, x] += 1
        return cls(codes, doc_codes, counts, freq / max(1, int(jira.sum())), len(pairs))

    def row(self, q: int, leave: Sequence[int] = ()) -> np.ndarray:
        """Best lift of any of ``q``'s values against every value (``leave``: ``q``'s partners
        whose pairs with it are taken out of the counts)."""
        v = len(self.expected_scale)
        out = np.full(v, -np.inf)
        mine = self.doc_codes[q]
        if not mine.size:
            return np.zeros(v)
        for x in mine:
            n = self.counts[x].copy()
            for p in leave:
                for y in self.doc_codes[p]:
                    n[y] -= 1
                    if y == x:
                        n[y] -= 1
            expected = 2 * self.pairs * self.expected_scale[x] * self.expected_scale
            out = np.maximum(out, np.log((np.maximum(n, 0) + 1) / (expected + 1)))
        return out

    def feature(self, q: int, docs: np.ndarray, leave: Sequence[int] = ()) -> np.ndarray:
        """The best lift between any value of ``q`` and any value of each of ``docs``."""
        row = self.row(q, leave)
        if not hasattr(self, "_indptr"):
            lengths = np.asarray([len(c) for c in self.doc_codes], np.int64)
            self._indptr = np.concatenate([[0], np.cumsum(lengths)])
            self._flat = np.concatenate(self.doc_codes) if lengths.sum() else np.zeros(0, np.int64)
        starts, ends = self._indptr[docs], self._indptr[docs + 1]
        out = np.zeros(len(docs), np.float32)
        has = ends > starts
        if has.any():
            idx = np.concatenate([np.arange(a, b) for a, b in zip(starts[has], ends[has], strict=True)])
            vals = row[self._flat[idx]]
            offsets = np.concatenate([[0], np.cumsum((ends - starts)[has])[:-1]])
            out[has] = np.maximum.reduceat(vals, offsets)
        return out


def habit_features(
    cache: Path, pools: Mapping[str, Sequence[Pool]], snapshot: CorpusSnapshot, fields: Sequence[str]
) -> dict[str, list[np.ndarray]]:
    """Per set, per pool: one column per field — the lift of the query's value against each
    candidate's, learnt from the fit pairs (the fit queries' own pairs left out) for the fit and
    validation sets, and from every training pair for the test."""
    meta = json.loads((cache / "meta.json").read_text(encoding="utf-8"))
    pos = snapshot.position
    fit = [(pos[a], pos[b]) for a, b, k in meta["pairs_fit"] if k != "cocited"]
    train = fit + [(pos[a], pos[b]) for a, b, k in meta["pairs_validation"] if k != "cocited"]
    jira = np.asarray([d.type == SourceType.JIRA for d in snapshot.documents])
    out: dict[str, list[np.ndarray]] = {
        s: [np.zeros((len(p.positions), 0), np.float32) for p in pools[s]] for s in SETS
    }
    for name in fields:
        values = doc_values(snapshot, name)
        lifts = {"fit": PairLift.learn(values, jira, fit)}
        lifts["validation"] = lifts["fit"]
        lifts["test"] = PairLift.learn(values, jira, train)
        for s in SETS:
            for n, p in enumerate(pools[s]):
                q = pos[p.query]
                leave = [pos[d] for d in p.relevant] if s == "fit" else []
                col = lifts[s].feature(q, p.positions, leave)
                out[s][n] = np.column_stack([out[s][n], col])
    return out


def habit_rows(
    cache: Path, pools: Mapping[str, Sequence[Pool]], w0: np.ndarray, mode: str, snapshot: CorpusSnapshot
) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for fields in (CATEGORICAL, ("issue_type", "priority"), ("reporter", "assignee"), ("component", "label")):
        t = time.perf_counter()
        extra = habit_features(cache, pools, snapshot, fields)
        prior = np.concatenate([w0, np.zeros(len(fields))])
        D = ranker_fit.pairwise_differences(
            [
                Pool(np.column_stack([p.features, extra["fit"][n]]), p.grades)
                for n, p in enumerate(pools["fit"])
            ],
            prior,
        )
        for strength in (0.1, 1.0, 10.0):
            w = ranker_fit.fit_logistic(D, prior, strength)
            got = {s: round(evaluate(pools[s], w, extra[s]), 4) for s in ("validation", "test")}
            key = f"habits_{'+'.join(fields)}_s{strength:g}"
            rows[key] = {**got, "weights": np.round(w, 3).tolist()}
            log(
                f"{mode} {key}: {got} w_extra {np.round(w[len(w0) :], 3).tolist()} ({time.perf_counter() - t:.0f} s)"
            )
    return rows


def refit_rows(
    pools: Mapping[str, Sequence[Pool]],
    kinds: Mapping[str, Any],
    names: Sequence[str],
    w0: np.ndarray,
    mode: str,
) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for positives in ("direct", "links"):
        fit_pools = list(pools["fit"])
        if positives == "links":
            fit_pools = []
            for p in pools["fit"]:
                k = kinds["fit"][p.query]
                rel = {d: g for d, g in p.relevant.items() if k.get(d) == "jira-issuelink"}
                if rel:
                    grades = np.asarray([rel.get(ID[int(j)], 0) for j in p.positions], np.int8)
                    fit_pools.append(Pool(p.features, grades, p.query, p.positions, rel))
        D = ranker_fit.pairwise_differences(fit_pools, w0)
        for strength in (0.01, 0.1, 1.0, 10.0):
            w = ranker_fit.fit_logistic(D, w0, strength)
            got = {s: round(evaluate(pools[s], w), 4) for s in ("validation", "test")}
            rows[f"refit_{positives}_s{strength:g}"] = {
                **got,
                "weights": dict(zip(names, np.round(w, 3).tolist(), strict=True)),
            }
            log(f"{mode} refit {positives} strength {strength:g} ({len(D)} rows, {len(fit_pools)} q): {got}")
        w = ranker_fit.fit_logistic(D, np.zeros_like(w0), 1.0)
        got = {s: round(evaluate(pools[s], w), 4) for s in ("validation", "test")}
        rows[f"refit_{positives}_zero"] = got
        log(f"{mode} refit {positives} towards 0: {got}")
    return rows


def expansion_rows(
    cache: Path, pools: Mapping[str, Sequence[Pool]], w0: np.ndarray, mode: str, snapshot: CorpusSnapshot
) -> dict[str, Any]:
    meta = json.loads((cache / "meta.json").read_text(encoding="utf-8"))
    pos = snapshot.position
    fit = [(pos[a], pos[b]) for a, b, k in meta["pairs_fit"] if k != "cocited"]
    train = fit + [(pos[a], pos[b]) for a, b, k in meta["pairs_validation"] if k != "cocited"]
    texts = {
        s: json.loads((cache / f"{s}_texts.json").read_text(encoding="utf-8")) for s in ("validation", "test")
    }
    terms = {s: term_sets(snapshot, texts[s]) for s in texts}
    rows: dict[str, Any] = {}
    for min_count in (2, 3, 5):
        for target in ("query", "text"):
            assoc = {"validation": associations(snapshot, fit, min_count, target)}
            assoc["test"] = associations(snapshot, train, min_count, target)
            for k in (10, 30):
                extra = {
                    s: [
                        expansion_scores(snapshot, assoc[s], terms[s][n], k)[p.positions]
                        for n, p in enumerate(pools[s])
                    ]
                    for s in ("validation", "test")
                }
                for weight in (0.5, 1.0, 2.0, 4.0):
                    w = np.concatenate([w0, [weight]])
                    got = {s: round(evaluate(pools[s], w, extra[s]), 4) for s in extra}
                    rows[f"expansion_m{min_count}_{target}_k{k}_w{weight:g}"] = got
                log(
                    f"{mode} expansion m{min_count} {target} k{k} nnz {assoc['validation'].nnz}: "
                    + ", ".join(
                        f"w{wt:g} {rows[f'expansion_m{min_count}_{target}_k{k}_w{wt:g}']}"
                        for wt in (0.5, 1.0, 2.0, 4.0)
                    )
                )
    return rows


def run(cache: Path, out: Path | None, only: Sequence[str]) -> dict[str, Any]:
    from devkb.agent.retrieval.related_search import load_weights
    from devkb.agent.retrieval.snapshot import SnapshotLoader

    shipped = load_weights()
    meta = json.loads((cache / "meta.json").read_text(encoding="utf-8"))
    snapshot = None
    if "expansion" in only or "habits" in only:
        store = SQLiteGraphStore(Path(meta["store"]))
        snapshot = SnapshotLoader(store, 384).load()
    report: dict[str, Any] = {}
    for mode in MODES:
        if not (cache / f"fit_{mode}.npz").exists():
            continue
        names = FEATURES if mode == "anchor" else TEXT_FEATURES
        w0 = np.asarray([shipped[mode].get(f, 0.0) for f in names])
        pools = {s: load_pools(cache / f"{s}_{mode}.npz") for s in SETS}
        kinds = {
            s: json.loads((cache / f"{s}_{mode}.json").read_text(encoding="utf-8"))["kinds"] for s in SETS
        }
        rows: dict[str, Any] = {
            "defaults": {s: round(evaluate(pools[s], w0), 4) for s in ("validation", "test")}
        }
        log(f"{mode} defaults: {rows['defaults']}")
        if "refit" in only:
            rows.update(refit_rows(pools, kinds, names, w0, mode))
        if "expansion" in only and snapshot is not None:
            rows.update(expansion_rows(cache, pools, w0, mode, snapshot))
        if "habits" in only and snapshot is not None:
            rows.update(habit_rows(cache, pools, w0, mode, snapshot))
        report[mode] = rows
    if out is not None:
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


ID: list[str] = []


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["collect", "run"])
    p.add_argument("--store", type=Path)
    p.add_argument("--cache", type=Path, required=True, help="where the pools are kept")
    p.add_argument("--fluid-dir", type=Path, default=DEFAULT_FLUID_DIR)
    p.add_argument("--engine", default="onnx-int8", choices=["onnx-int8", "onnx-fp32", "torch"])
    p.add_argument("--embedding-cache", type=Path, default=DEFAULT_CACHE_DIR)
    p.add_argument("--depth", type=int, default=1000)
    p.add_argument("--test-share", type=float, default=0.2)
    p.add_argument("--json", type=Path)
    p.add_argument("--fit-queries", type=int, default=2000, help="fit queries kept (evenly spaced)")
    p.add_argument("--mode", action="append", choices=list(MODES))
    p.add_argument("--only", action="append", choices=["refit", "expansion", "habits"])
    args = p.parse_args(argv)
    if args.command == "collect":
        if args.store is None:
            p.error("collect needs --store")
        collect(
            args.store,
            args.fluid_dir,
            args.cache,
            args.engine,
            args.embedding_cache,
            args.depth,
            args.test_share,
            args.fit_queries,
            args.mode or list(MODES),
        )
        return 0
    ID.extend(json.loads((args.cache / "meta.json").read_text(encoding="utf-8"))["ids"])
    report = run(args.cache, args.json, args.only or ["refit"])
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
