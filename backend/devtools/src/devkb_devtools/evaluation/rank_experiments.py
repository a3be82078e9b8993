"""Issue 62, fourth round: general habit features, neighbour evidence and non-linear rankers,
measured on the cached pools of ``adaptation_experiments`` (anchor mode).

    python -m devkb_devtools.evaluation.rank_experiments --cache POOLS [--only linear|bins|gbt] [--json FILE]

The pools hold, for every fit, validation and test query, the candidates of a 1,000-deep
``RelatedSearch.rank`` with the shipped features. Here each candidate gets further columns,
computed from the snapshot alone (no label of any set):

    rep_hour      same reporter (known) and exp(−hours between the creation times)
    any_hour      exp(−hours between the creation times), any reporter
    key_gap       same project and exp(−|issue number difference| / 3)
    prefix        the summaries' shared leading words (0–3) / 3, and shared [bracket] tags
    people        Jaccard of the issues' people (reporter, assignee, commenters)
    cross         the query's reporter is the candidate's assignee or the other way round
    same_type     the same issue type
    rev_rank      1 / (1 + how many of the top-100 candidates (by the shipped score) are closer to
                  the candidate than the query is): mutual-nearest-neighbour evidence
    csls          cos(q, c) − mean cosine of c with its 10 nearest Jira issues (hubness corrected)

and each ranker is fitted on the *fit* pools (issues of the fit period asking for their partners)
and judged on the *validation* pools (issue links only, as ``adapt`` decides) with the gain over
the shipped weights and its standard error, and on the test pools beside it (docs/evaluation.md,
"General habits, neighbour evidence and non-linear rankers"): ``linear`` adds each feature to the
refit; ``bins`` a piecewise-linear model (quantile-bin indicators); ``gbt`` scikit-learn's
gradient-boosted trees, alone and blended with the shipped score (a ceiling, devtools only).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from devkb.agent.retrieval import ranker_fit
from devkb.agent.retrieval.fields import summary_of
from devkb.agent.retrieval.related_search import load_weights
from devkb.agent.retrieval.snapshot import CorpusSnapshot, SnapshotLoader
from devkb.store.models import SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.evaluation.adaptation_experiments import FEATURES, SETS, Pool, load_pools, ndcg_of

NEW = ("rep_hour", "any_hour", "key_gap", "prefix", "people", "cross", "same_type", "rev_rank", "csls")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class DocFacts:
    """Per-document arrays the new features read."""

    def __init__(self, s: CorpusSnapshot) -> None:
        self.s = s
        jira = np.asarray([d.type == SourceType.JIRA for d in s.documents])
        self.jira = jira
        numbers = np.full(s.n, -1, np.int64)
        words: list[tuple[str, ...]] = []
        tags: list[frozenset[str]] = []
        people: list[frozenset[str]] = []
        types: list[str] = []
        for i, d in enumerate(s.documents):
            m = d.metadata or {}
            key = str(m.get("key") or "")
            if jira[i] and "-" in key and key.rsplit("-", 1)[1].isdigit():
                numbers[i] = int(key.rsplit("-", 1)[1])
            summary = summary_of(d) if jira[i] else ""
            words.append(tuple(summary.lower().split()[:3]))
            found = set()
            rest = summary
            while "[" in rest and "]" in rest.split("[", 1)[1]:
                inner, rest = rest.split("[", 1)[1].split("]", 1)
                found.add(inner.strip().lower())
            tags.append(frozenset(found))
            ps = {str(p) for p in (m.get("people") or [])}
            ps |= {str(m[k]) for k in ("reporter", "assignee") if m.get(k)}
            ps |= {str(c.get("by")) for c in (m.get("comments") or []) if isinstance(c, dict) and c.get("by")}
            people.append(frozenset(ps))
            types.append(str(m.get("issue_type") or "") if jira[i] else "")
        # reporter and assignee on one code table (the snapshot codes each field on its own)
        table: dict[str, int] = {}
        self.reporter, self.assignee = (
            np.asarray(
                [
                    table.setdefault(str(v), len(table)) if (v := (d.metadata or {}).get(f)) else -1
                    for d in s.documents
                ],
                np.int64,
            )
            for f in ("reporter", "assignee")
        )
        self.numbers = numbers
        self.words = words
        self.tags = tags
        self.people = people
        self.types = types
        # each document's first-chunk vector (zeros without chunks)
        first = np.zeros((s.n, s.vectors.shape[1]), np.float32)
        has = s.chunk_count > 0
        first[has] = s.vectors[s.chunk_start[has]]
        self.first = first
        # hubness: mean cosine of each document's first chunk with its 10 nearest Jira issues
        idx = np.flatnonzero(jira & has)
        J = first[idx]
        radius = np.zeros(s.n, np.float32)
        for a in range(0, len(idx), 1024):
            block = first[idx[a : a + 1024]] @ J.T
            block[np.arange(block.shape[0]), np.arange(a, a + block.shape[0])] = -1.0  # itself
            k = min(10, len(idx) - 1)
            if k > 0:
                radius[idx[a : a + 1024]] = np.partition(block, -k, axis=1)[:, -k:].mean(axis=1)
        self.radius = radius

    def features(self, q: int, docs: np.ndarray, qvec: np.ndarray, base_score: np.ndarray) -> np.ndarray:
        s = self.s
        hours = np.abs(s.created[docs] - s.created[q]) / 3600.0
        hours = np.nan_to_num(hours, nan=1e6)
        any_hour = np.exp(-hours)
        same_rep = (s.reporter[docs] == s.reporter[q]) & (s.reporter[q] >= 0)
        rep_hour = same_rep * any_hour
        same_proj = (s.project[docs] == s.project[q]) & (s.project[q] >= 0)
        gap = np.abs(self.numbers[docs] - self.numbers[q]).astype(np.float64)
        key_gap = np.where(
            same_proj & (self.numbers[docs] >= 0) & (self.numbers[q] >= 0), np.exp(-gap / 3), 0
        )
        wq, tq, pq, ty = self.words[q], self.tags[q], self.people[q], self.types[q]
        prefix = np.zeros(len(docs))
        people = np.zeros(len(docs))
        same_type = np.zeros(len(docs))
        for n, j in enumerate(docs):
            wj = self.words[j]
            k = 0
            while k < min(len(wq), len(wj)) and wq[k] == wj[k]:
                k += 1
            prefix[n] = k / 3 + (1.0 if tq and tq & self.tags[j] else 0.0)
            pj = self.people[j]
            if pq and pj:
                people[n] = len(pq & pj) / len(pq | pj)
            same_type[n] = 1.0 if ty and ty == self.types[j] else 0.0
        cross = ((self.reporter[docs] == self.assignee[q]) & (self.assignee[q] >= 0)) | (
            (self.assignee[docs] == self.reporter[q]) & (self.reporter[q] >= 0)
        )
        # neighbour evidence
        V = self.first[docs]
        qn = qvec / max(float(np.linalg.norm(qvec)), 1e-9)
        cq = V @ qn
        top = np.argsort(-base_score, kind="stable")[:100]
        S = V @ V[top].T  # candidates × top candidates
        S[top, np.arange(len(top))] = -2.0  # a candidate is not its own neighbour
        closer = (S > cq[:, None]).sum(axis=1)
        rev_rank = 1.0 / (1.0 + closer)
        csls = cq - self.radius[docs]
        return np.column_stack(
            [rep_hour, any_hour, key_gap, prefix, people, cross, same_type, rev_rank, csls]
        ).astype(np.float32)


def extend(
    cache: Path, facts: DocFacts, pools: Mapping[str, Sequence[Pool]], w0: np.ndarray
) -> dict[str, list[np.ndarray]]:
    out: dict[str, list[np.ndarray]] = {}
    for name in SETS:
        vectors = np.load(cache / f"{name}_vectors.npy")
        rows = []
        for n, p in enumerate(pools[name]):
            q = facts.s.position[p.query]
            rows.append(
                np.column_stack([p.features, facts.features(q, p.positions, vectors[n], p.features @ w0)])
            )
        out[name] = rows
    return out


def per_query(pools: Sequence[Pool], scores: Sequence[np.ndarray]) -> np.ndarray:
    return np.asarray([ndcg_of(p, sc) for p, sc in zip(pools, scores, strict=True)])


def gain_line(base: np.ndarray, new: np.ndarray) -> dict[str, float]:
    g = new - base
    se = float(g.std(ddof=1) / math.sqrt(len(g))) if len(g) > 1 else 0.0
    return {
        "mean": round(float(new.mean()), 4),
        "gain": round(float(g.mean()), 4),
        "se": round(se, 4),
        "bound": round(float(g.mean()) - 2 * se, 4),
    }


def project_of(doc_id: str) -> str:
    return doc_id.split(":", 1)[1].rsplit("-", 1)[0]


class Judge:
    """Scores a ranker (a function of one pool's extended feature matrix) on validation and test,
    against the shipped weights."""

    def __init__(
        self, sets: Mapping[str, tuple[Sequence[Pool], Sequence[np.ndarray]]], w0: np.ndarray
    ) -> None:
        self.sets = sets
        self.w0 = w0
        self.base = {s: per_query(P, [x[:, : len(w0)] @ w0 for x in Xs]) for s, (P, Xs) in sets.items()}
        self.report: dict[str, Any] = {}
        log("defaults: " + ", ".join(f"{s} {v.mean():.4f} ({len(v)})" for s, v in self.base.items()))

    def __call__(self, name: str, score: Any, test: bool = True) -> dict[str, Any]:
        row: dict[str, Any] = {}
        for s, (P, Xs) in self.sets.items():
            if s == "test" and not test:
                continue
            got = per_query(P, [score(x) for x in Xs])
            row[s] = gain_line(self.base[s], got)
            if s == "test":
                projects: dict[str, list[int]] = {}
                for n, q in enumerate(P):
                    projects.setdefault(project_of(q.query), []).append(n)
                row["test_projects"] = {
                    k: [round(float(self.base[s][v].mean()), 4), round(float(got[v].mean()), 4), len(v)]
                    for k, v in projects.items()
                    if len(v) >= 2
                }
        self.report[name] = row
        log(
            f"{name}: val {row['validation']}"
            + (f" | test {row['test']} {row.get('test_projects')}" if "test" in row else "")
        )
        return row


def pairwise_rows(
    fit: Sequence[Pool], Xf: Sequence[np.ndarray], w0: np.ndarray, cols: Sequence[int]
) -> np.ndarray:
    pools = [Pool(x[:, cols], p.grades) for p, x in zip(fit, Xf, strict=True)]
    prior = np.concatenate([w0, np.zeros(len(cols) - len(w0))])
    return ranker_fit.pairwise_differences(pools, prior)


def experiments(
    fit: Sequence[Pool],
    Xf: Sequence[np.ndarray],
    sets: Mapping[str, tuple[Sequence[Pool], Sequence[np.ndarray]]],
    w0: np.ndarray,
    only: Sequence[str],
) -> dict[str, Any]:
    judge = Judge(sets, w0)
    m = len(w0)
    base_cols = list(range(m))
    if not only or "linear" in only:
        D = pairwise_rows(fit, Xf, w0, base_cols)
        for strength in (10.0, 100.0):
            w = ranker_fit.fit_logistic(D, w0, strength)
            judge(f"refit_s{strength:g}", lambda x, w=w: x[:, :m] @ w)
        for k, name in enumerate(NEW):
            cols = base_cols + [m + k]
            D = pairwise_rows(fit, Xf, w0, cols)
            prior = np.concatenate([w0, [0.0]])
            for strength in (10.0, 100.0):
                w = ranker_fit.fit_logistic(D, prior, strength)
                judge(f"plus_{name}_s{strength:g}", lambda x, w=w, cols=cols: x[:, cols] @ w)
                judge.report[f"plus_{name}_s{strength:g}"]["weight"] = round(float(w[-1]), 3)
        cols = list(range(m + len(NEW)))
        D = pairwise_rows(fit, Xf, w0, cols)
        prior = np.concatenate([w0, np.zeros(len(NEW))])
        for strength in (1.0, 10.0, 100.0):
            w = ranker_fit.fit_logistic(D, prior, strength)
            judge(f"plus_all_s{strength:g}", lambda x, w=w: x @ w)
            judge.report[f"plus_all_s{strength:g}"]["weights"] = dict(
                zip(NEW, np.round(w[m:], 3).tolist(), strict=True)
            )
    if "bins" in only:
        # piecewise-linear: each feature also as indicators of its quantile bins (from the fit rows),
        # and crosses of same_project with the others — still a linear model, numpy only
        allx = np.concatenate(list(Xf))
        total = m + len(NEW)
        edges = []
        for j in range(total):
            col = allx[:, j]
            qs = np.unique(
                np.quantile(col[col != 0] if (col != 0).any() else col, [0.5, 0.75, 0.9, 0.97, 0.99])
            )
            edges.append(qs)
        sp = FEATURES.index("same_project")

        def expand(x: np.ndarray, cols: Sequence[int], crosses: bool) -> np.ndarray:
            parts = [x[:, cols]]
            for j in cols:
                parts.append((x[:, [j]] > edges[j][None, :]).astype(np.float32))
            if crosses:
                parts.append(x[:, cols] * x[:, [sp]])
            return np.column_stack(parts)

        for cols_name, cols in (("base", base_cols), ("all", list(range(total)))):
            for crosses in (False, True):
                pools_e = [Pool(expand(x, cols, crosses), p.grades) for p, x in zip(fit, Xf, strict=True)]
                width = pools_e[0].features.shape[1]
                prior = np.zeros(width)
                prior[:m] = w0
                D = ranker_fit.pairwise_differences(pools_e, prior)
                for strength in (1.0, 10.0, 100.0):
                    w = ranker_fit.fit_logistic(D, prior, strength)
                    judge(
                        f"bins_{cols_name}{'_cross' if crosses else ''}_s{strength:g}",
                        lambda x, w=w, cols=cols, crosses=crosses: expand(x, cols, crosses) @ w,
                    )
    if "gbt" in only:
        from sklearn.ensemble import HistGradientBoostingClassifier

        rng = np.random.default_rng(0)
        rows, ys = [], []
        for p, x in zip(fit, Xf, strict=True):
            if not p.grades.size or p.grades.max() <= 0:
                continue
            order = np.argsort(-(x[:, :m] @ w0), kind="stable")
            pos = np.flatnonzero(p.grades > 0)
            neg = order[p.grades[order] == 0]
            pick = np.concatenate(
                [pos, neg[:100], rng.choice(neg[100:], min(100, max(0, len(neg) - 100)), replace=False)]
            )
            base = x[pick, :m] @ w0
            rows.append(np.column_stack([x[pick], base]))
            ys.append((p.grades[pick] > 0).astype(int))
        R, Y = np.concatenate(rows), np.concatenate(ys)
        log(f"gbt rows {R.shape}, positives {Y.sum()}")
        for cols_name, cols in (("base", base_cols), ("all", list(range(m + len(NEW))))):
            use = cols + [m + len(NEW)]  # the shipped score as a column too
            clf = HistGradientBoostingClassifier(
                max_leaf_nodes=15,
                max_iter=150,
                learning_rate=0.05,
                min_samples_leaf=50,
                l2_regularization=1.0,
                random_state=0,
            )
            t = time.perf_counter()
            clf.fit(R[:, use], Y)
            log(f"gbt {cols_name} fitted in {time.perf_counter() - t:.0f} s")
            # every pool scored in one call (one call per pool costs seconds of thread start-up)
            logits: dict[int, np.ndarray] = {}
            for _, Xs in sets.values():
                full = np.concatenate([np.column_stack([x, x[:, :m] @ w0]) for x in Xs])
                out = clf.decision_function(full[:, use])
                ends = np.cumsum([len(x) for x in Xs])
                for x, part in zip(Xs, np.split(out, ends[:-1]), strict=True):
                    logits[id(x)] = part
            judge(f"gbt_{cols_name}", lambda x, lg=logits: lg[id(x)])
            for alpha in (0.5, 1.0, 2.0):
                judge(
                    f"gbt_{cols_name}_blend{alpha:g}",
                    lambda x, a=alpha, lg=logits: x[:, :m] @ w0 + a * lg[id(x)],
                )
    return judge.report


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cache", type=Path, required=True)
    p.add_argument("--json", type=Path)
    p.add_argument("--only", action="append", default=[], choices=["linear", "bins", "gbt"])
    args = p.parse_args(argv)
    cache = args.cache
    meta = json.loads((cache / "meta.json").read_text(encoding="utf-8"))
    t = time.perf_counter()
    snapshot = SnapshotLoader(SQLiteGraphStore(Path(meta["store"])), 384).load()
    facts = DocFacts(snapshot)
    log(f"snapshot + facts {time.perf_counter() - t:.0f} s")
    w0 = np.asarray([load_weights()["anchor"].get(f, 0.0) for f in FEATURES])
    pools = {s: load_pools(cache / f"{s}_anchor.npz") for s in SETS}
    kinds = {s: json.loads((cache / f"{s}_anchor.json").read_text(encoding="utf-8"))["kinds"] for s in SETS}
    stored = cache / "extended_features.npz"
    t = time.perf_counter()
    if stored.exists():
        with np.load(stored) as npz:
            X = {s: [npz[f"{s}_{n}"] for n in range(len(pools[s]))] for s in SETS}
    else:
        X = extend(cache, facts, pools, w0)
        arrays: dict[str, Any] = {f"{s}_{n}": x for s in SETS for n, x in enumerate(X[s])}
        np.savez(stored, **arrays)
    log(f"features {time.perf_counter() - t:.0f} s")
    ids = meta["ids"]
    # validation on issue links only, as adapt decides: the grades of the other partners dropped
    val_pools, val_X = [], []
    for n, q in enumerate(pools["validation"]):
        rel = {d: g for d, g in q.relevant.items() if kinds["validation"][q.query].get(d) == "jira-issuelink"}
        if rel:
            grades = np.asarray([rel.get(ids[int(j)], 0) for j in q.positions], np.int8)
            val_pools.append(Pool(q.features, grades, q.query, q.positions, rel))
            val_X.append(X["validation"][n])
    log(f"validation queries with issue links: {len(val_pools)}")
    sets = {"validation": (val_pools, val_X), "test": (pools["test"], X["test"])}
    report = experiments(pools["fit"], X["fit"], sets, w0, args.only)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
