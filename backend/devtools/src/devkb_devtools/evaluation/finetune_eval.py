"""Issue 62's last candidate: fine-tune the embedding model on the deployment's own pairs before
a time cut and measure related-issue retrieval after it (``adaptation_eval``'s split).

    python -m devkb_devtools.evaluation.finetune_eval store --out DIR
    python -m devkb_devtools.evaluation.finetune_eval embed --store DIR/graph.sqlite --into OUT [--onnx-dir D]
    python -m devkb_devtools.evaluation.finetune_eval train --store DIR/graph.sqlite --out MODEL [...]

The related-issue ranking (``RelatedSearch.rank`` with ``types=[JIRA]``) and the adaptation's
pairs read the vectors of Jira issues' chunks only: the other documents' chunks are candidates of
no query there, and the anchor and co-citation features read edges, not vectors. So ``store``
indexes the whole corpus (links stripped, every document, chunk and edge as ``make eval`` builds
it) with a zero embedder, and ``embed`` writes the real vectors of the Jira chunks only into a
copy of it — half the chunks, the same figures (``adaptation_eval`` on the copy reproduces the
full build's baseline). The same ``embed`` re-embeds with a fine-tuned export.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.adaptation import (
    LINK_KINDS,
    MIN_LINK_QUERIES,
    VALIDATION_SHARE,
    Figures,
    Pair,
    Query,
    cut_by_time,
    gain_bound,
    graph_pairs,
    judge,
    queries_of,
    query_text,
)
from devkb.agent.retrieval.snapshot import CorpusSnapshot
from devkb.indexing.embedders.local_minilm import DIMENSION
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.evaluation.adaptation_eval import link_references
from devkb_devtools.evaluation.corpus import DEFAULT_CACHE_DIR, DEFAULT_FLUID_DIR, build_corpus, make_embedder
from devkb_devtools.evaluation.queries import load_issues


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class ZeroEmbedder:
    """Indexes without a model: every chunk a zero vector (``embed`` writes the ones read)."""

    model_name = "none#zero"
    dimension = DIMENSION

    def warm_up(self) -> None:
        return None

    def check(self) -> str | None:
        return None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), DIMENSION), dtype=np.float32)


def cmd_store(args: argparse.Namespace) -> int:
    t = time.perf_counter()
    built = build_corpus(args.fluid_dir, args.out, ZeroEmbedder())
    log(
        f"store {built.store_path}: {built.documents} documents, {built.chunks} chunks, {time.perf_counter() - t:.0f} s"
    )
    print(
        json.dumps(
            {
                "documents": built.documents,
                "chunks": built.chunks,
                "by_type": built.documents_by_type,
                "references": built.references_by_kind,
                "seconds": round(built.seconds, 1),
            },
            indent=2,
        )
    )
    return 0


def jira_chunks(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT c.id, c.content FROM chunks c JOIN documents d ON d.id = c.document_id "
        "WHERE d.type = 'JIRA' ORDER BY c.rowid"
    ).fetchall()


def cmd_embed(args: argparse.Namespace) -> int:
    """A copy of the store with the Jira chunks' vectors from the given engine (resumable: the
    vector cache keeps what was embedded)."""
    embedder = make_embedder(args.cache_dir, engine=args.engine, model_dir=args.model_dir)
    args.into.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(args.store)
    try:
        src.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        src.execute("VACUUM INTO ?", (str(args.into) + ".tmp",))
    finally:
        src.close()
    conn = sqlite3.connect(str(args.into) + ".tmp")
    started, cpu = time.perf_counter(), time.process_time()
    try:
        rows = jira_chunks(conn)
        for start in range(0, len(rows), args.batch):
            part = rows[start : start + args.batch]
            vectors = embedder.embed([c for _, c in part])
            conn.executemany(
                "UPDATE chunks SET embedding = ? WHERE id = ?",
                [
                    (np.asarray(v, dtype=np.float32).tobytes(), cid)
                    for (cid, _), v in zip(part, vectors, strict=True)
                ],
            )
            conn.commit()
            done = start + len(part)
            rate = done / max(time.perf_counter() - started, 1e-9)
            log(f"  {done}/{len(rows)} Jira chunks ({rate:.1f}/s, cache hits {embedder.hits})")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_model'", (embedder.model_name,))
        conn.commit()
    finally:
        conn.close()
    shutil.move(str(args.into) + ".tmp", args.into)
    wall, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    log(
        f"embedded {len(rows)} Jira chunks with {embedder.model_name} in {wall:.0f} s wall, {cpu_s:.0f} s CPU"
    )
    print(
        json.dumps(
            {
                "model": embedder.model_name,
                "chunks": len(rows),
                "wall_s": round(wall, 1),
                "cpu_s": round(cpu_s, 1),
            }
        )
    )
    return 0


def split(
    store_path: Path, fluid_dir: Path, test_share: float = 0.2
) -> tuple[Any, Any, list[Pair], list[Pair], list[Pair], float]:
    """The time split of ``adaptation_eval`` (the test: the last ``test_share`` of the issue links)
    and, inside the training period, ``adapt``'s own: (search, snapshot, fit, validation, test,
    cut). The fine-tuning sees ``fit`` only; the setting is chosen on ``validation``."""
    store = SQLiteGraphStore(store_path)
    related = RelatedSearch(store, ZeroEmbedder(), unrestricted=True)
    snapshot = related.snapshot()
    issues = load_issues(fluid_dir)
    pairs = graph_pairs([*store.all_references(), *link_references(issues)], snapshot)
    links = [p for p in pairs if p.kind == "jira-issuelink"]
    _, _, at = cut_by_time(links, test_share)
    train = [p for p in pairs if p.time < at]
    test = [p for p in links if p.time >= at]
    fit, validation, _ = cut_by_time(train, VALIDATION_SHARE)
    return related, snapshot, fit, validation, test, at


def training_examples(snapshot: CorpusSnapshot, pairs: Sequence[Pair]) -> list[tuple[str, str, str, str]]:
    """Both directions of each pair: (asking id, the issue as pasted — summary and description —,
    other id, the other's first chunk as indexed)."""
    out = []
    for p in pairs:
        for x, y in ((p.a, p.b), (p.b, p.a)):
            i, j = snapshot.position.get(x), snapshot.position.get(y)
            if i is None or j is None or not snapshot.entries[j].chunks:
                continue
            out.append((x, query_text(snapshot, i), y, snapshot.entries[j].chunks[0].content))
    return out


def no_duplicate_batches(
    examples: Sequence[tuple[str, str, str, str]], size: int, rng: random.Random
) -> list[list[int]]:
    """Shuffled batches in which no issue appears twice (an in-batch negative must not be a positive)."""
    order = list(range(len(examples)))
    rng.shuffle(order)
    batches: list[list[int]] = []
    while order:
        seen: set[str] = set()
        batch: list[int] = []
        rest: list[int] = []
        for k in order:
            a, _, b, _ = examples[k]
            if len(batch) < size and a not in seen and b not in seen:
                batch.append(k)
                seen.update((a, b))
            else:
                rest.append(k)
        batches.append(batch)
        order = rest
    return batches


def cmd_train(args: argparse.Namespace) -> int:
    """MultipleNegativesRankingLoss (in-batch negatives) on the fit pairs, torch CPU, seeded."""
    import torch
    from sentence_transformers import SentenceTransformer

    from devkb.indexing.embedders.local_minilm import bundled_model_dir

    _, snapshot, fit, validation, test, at = split(args.store, args.fluid_dir)
    pairs = fit if not args.all_before_cut else [*fit, *validation]
    if args.links_only:
        pairs = [p for p in pairs if p.kind != "cocited"]
    examples = training_examples(snapshot, pairs)
    log(
        f"cut {at:.0f}: {len(fit)} fit + {len(validation)} validation pairs; training on {len(pairs)} pairs, {len(examples)} examples"
    )
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model = SentenceTransformer(str(bundled_model_dir()), device="cpu")
    model.max_seq_length = args.max_seq_len
    model.train()
    bert: Any = model[0].auto_model  # the BertModel under the sentence-transformers module
    frozen = [bert.embeddings, *bert.encoder.layer[: args.freeze_layers]]
    for module in frozen if args.freeze_layers >= 0 else []:
        for parameter in module.parameters():
            parameter.requires_grad = False
    rng = random.Random(args.seed)
    batches = [b for _ in range(args.epochs) for b in no_duplicate_batches(examples, args.batch, rng)]
    trained = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trained, lr=args.lr, weight_decay=0.01)
    warmup = max(1, int(0.1 * len(batches)))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda step: min((step + 1) / warmup, max(0.0, (len(batches) - step) / (len(batches) - warmup))),
    )
    started, cpu = time.perf_counter(), time.process_time()
    for step, batch in enumerate(batches):
        qs = model.tokenize([examples[k][1] for k in batch])
        ds = model.tokenize([examples[k][3] for k in batch])
        q = model(qs)["sentence_embedding"]
        d = model(ds)["sentence_embedding"]
        q = torch.nn.functional.normalize(q, dim=-1)
        d = torch.nn.functional.normalize(d, dim=-1)
        scores = q @ d.T * args.scale
        loss = torch.nn.functional.cross_entropy(scores, torch.arange(len(batch)))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        if step % 10 == 0 or step == len(batches) - 1:
            log(
                f"  step {step + 1}/{len(batches)} loss {loss.item():.3f} ({time.perf_counter() - started:.0f} s)"
            )
    model.eval()
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(str(args.out))
    wall, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    report = {
        "pairs": len(pairs),
        "examples": len(examples),
        "steps": len(batches),
        "lr": args.lr,
        "batch": args.batch,
        "epochs": args.epochs,
        "max_seq_len": args.max_seq_len,
        "seed": args.seed,
        "freeze_layers": args.freeze_layers,
        "threads": args.threads,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu_s, 1),
    }
    (args.out / "training.json").write_text(json.dumps(report, indent=2) + "\n")
    log(f"trained in {wall:.0f} s wall, {cpu_s:.0f} s CPU -> {args.out}")
    print(json.dumps(report))
    return 0


def validation_queries(fit: Sequence[Pair], validation: Sequence[Pair], limit: int = 400) -> list[Query]:
    """``adapt``'s validation queries: the issue links of the validation slice when enough."""
    links = queries_of([p for p in validation if p.kind in LINK_KINDS], fit)
    queries = links if len(links) >= MIN_LINK_QUERIES else queries_of(validation, fit)
    step = max(1, len(queries) / limit) if len(queries) > limit else 1
    return [queries[int(k * step)] for k in range(min(limit, len(queries)))]


def cmd_validate(args: argparse.Namespace) -> int:
    """The shipped ranking on the validation slice with the base store's vectors and with each
    candidate store's (the query: the issue's stored first-chunk vector, as ``adapt`` judges)."""
    related, snapshot, fit, validation, _, _ = split(args.base, args.fluid_dir)
    queries = validation_queries(fit, validation)
    report: dict[str, Any] = {"queries": len(queries)}
    base: dict[str, Figures] = {}
    for path in [args.base, *args.candidates]:
        store = SQLiteGraphStore(path)
        search = RelatedSearch(store, ZeroEmbedder(), unrestricted=True)
        snap = search.snapshot()
        row: dict[str, Any] = {}
        for mode, anchored in (("anchor", True), ("text", False)):
            got = judge(search, snap, queries, None, anchored)
            row[mode] = {"ndcg": round(got.ndcg, 4), "per_project": got.per_project}
            if path == args.base:
                base[mode] = got
            else:
                gain, bound = gain_bound(base[mode], got)
                row[mode].update(gain=round(gain, 4), bound=round(bound, 4))
            log(f"{path}: {mode} {row[mode]}")
        report[str(path)] = row
        store.close()
    text = json.dumps(report, indent=2)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("store", help="index the corpus (links stripped) with zero vectors")
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--fluid-dir", type=Path, default=DEFAULT_FLUID_DIR)
    s.set_defaults(func=cmd_store)
    e = sub.add_parser("embed", help="a copy of the store with the Jira chunks embedded")
    e.add_argument("--store", type=Path, required=True)
    e.add_argument("--into", type=Path, required=True)
    e.add_argument("--engine", default="onnx-int8", choices=["onnx-int8", "onnx-fp32"])
    e.add_argument("--model-dir", type=Path, help="fine-tuned weights (default: the bundled model)")
    e.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    e.add_argument("--batch", type=int, default=512)
    e.set_defaults(func=cmd_embed)
    t = sub.add_parser("train", help="fine-tune the model on the pairs of the fit period")
    t.add_argument("--store", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--fluid-dir", type=Path, default=DEFAULT_FLUID_DIR)
    t.add_argument("--lr", type=float, default=2e-5)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--max-seq-len", type=int, default=128)
    t.add_argument("--scale", type=float, default=20.0)
    t.add_argument("--seed", type=int, default=62)
    t.add_argument("--threads", type=int, default=1, help="torch threads (1: no spinning on shared cores)")
    t.add_argument(
        "--freeze-layers",
        type=int,
        default=-1,
        help="freeze the token embeddings and this many lower layers (default -1: train everything)",
    )
    t.add_argument("--links-only", action="store_true", help="no co-cited pairs")
    t.add_argument("--all-before-cut", action="store_true", help="fit and validation pairs (after choosing)")
    t.set_defaults(func=cmd_train)
    v = sub.add_parser("validate", help="the validation slice with each store's vectors")
    v.add_argument("--base", type=Path, required=True)
    v.add_argument("--candidates", type=Path, nargs="+", required=True)
    v.add_argument("--fluid-dir", type=Path, default=DEFAULT_FLUID_DIR)
    v.add_argument("--json", type=Path)
    v.set_defaults(func=cmd_validate)
    args = p.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
