"""Speed and quality of all-MiniLM-L6-v2 on torch vs ONNX Runtime fp32 vs ONNX int8.

    python -m devkb_devtools.bench.onnx_speed speed       # chunks/s + cosine agreement, 500 texts
    python -m devkb_devtools.bench.onnx_speed retrieval   # Recall@10 / nDCG@10, 300 linked-issue queries
    python -m devkb_devtools.bench.onnx_speed all

Data: the Fluid Jira issues (summary + description, first 1,000 characters) and
eval/linked_issues_dev.jsonl from shared/data/fluid (``--data`` or DEVKB_FLUID_DATA). Speed runs the
engines interleaved (torch, fp32, int8, torch, ...) so machine noise hits them alike, and reports
the median of the runs. Retrieval embeds the 10,052-issue corpus once per engine and caches the
vectors in ``--vectors`` (default /tmp/devkb-onnx-eval). Results: docs/embedding-speed.md.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Literal

import numpy as np

ENGINES = ("torch", "onnx-fp32", "onnx-int8")


def find_data_dir() -> Path:
    if os.environ.get("DEVKB_FLUID_DATA"):
        return Path(os.environ["DEVKB_FLUID_DATA"])
    for base in (Path.cwd(), *Path.cwd().parents, *Path(__file__).resolve().parents):
        candidate = base / "shared" / "data" / "fluid"
        if candidate.is_dir():
            return candidate
    raise SystemExit("shared/data/fluid not found: pass --data or set DEVKB_FLUID_DATA")


def load_issues(data: Path, max_chars: int = 1000) -> dict[str, str]:
    """key → (summary + blank line + description)[:max_chars], in file order."""
    issues: dict[str, str] = {}
    with gzip.open(data / "jira" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            fields = record["fields"]
            text = f"{fields.get('summary') or ''}\n\n{fields.get('description') or ''}".strip()
            issues[record["key"]] = text[:max_chars]
    return issues


def make_engine(name: str, cache_dir: Path, batch_size: int, onnx_batch_size: int | None = None):
    """``batch_size`` is torch's (sentence-transformers) batch; the ONNX engines run their own
    defaults (micro-batches over one session per core) unless ``onnx_batch_size`` is given."""
    if name == "torch":
        from devkb.indexing.embedders.local_minilm import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder(batch_size=batch_size)
    from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder

    precision: Literal["int8", "fp32"] = "int8" if name == "onnx-int8" else "fp32"
    if onnx_batch_size:
        return OnnxMiniLMEmbedder(cache_dir=cache_dir, precision=precision, batch_size=onnx_batch_size)
    return OnnxMiniLMEmbedder(cache_dir=cache_dir, precision=precision)


def agreement(a: np.ndarray, b: np.ndarray) -> str:
    cos = np.sum(a * b, axis=1)
    return f"mean {cos.mean():.4f}  min {cos.min():.4f}  p1 {np.percentile(cos, 1):.4f}"


def run_speed(args: argparse.Namespace) -> None:
    """Each run embeds all texts with every engine, in interleaved blocks of two batches
    (torch, fp32, int8, torch, ...) so that load from other processes hits the engines alike.
    Texts are pre-sorted by token count, so the blocks pad like one sorted call would."""
    from tokenizers import Tokenizer

    from devkb.indexing.embedders.local_minilm import bundled_model_dir

    issues = load_issues(args.data)
    texts = [t for t in issues.values() if len(t) >= 1000][: args.n]
    tokenizer = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=256)
    tokens = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    texts = [t for _, t in sorted(zip(tokens, texts, strict=True), key=lambda p: -p[0])]
    block = 2 * args.batch_size
    print(
        f"speed: {len(texts)} texts of {statistics.mean(map(len, texts)):.0f} chars "
        f"({statistics.mean(tokens):.0f} tokens), torch batch {args.batch_size}, ONNX "
        f"{'batch ' + str(args.onnx_batch_size) if args.onnx_batch_size else 'default micro-batches'}, {args.runs} runs, "
        f"engines interleaved every {block} texts, {os.cpu_count()} cores"
    )
    engines = {
        name: make_engine(name, args.cache_dir, args.batch_size, args.onnx_batch_size) for name in ENGINES
    }
    for engine in engines.values():
        engine.warm_up()
        engine.embed(texts[: args.batch_size])  # first-call allocations
    times: dict[str, list[float]] = {name: [] for name in engines}
    vectors: dict[str, np.ndarray] = {}
    for run in range(args.runs):
        spent = dict.fromkeys(engines, 0.0)
        parts: dict[str, list[np.ndarray]] = {name: [] for name in engines}
        for start in range(0, len(texts), block):
            for name, engine in engines.items():
                t = time.perf_counter()
                parts[name].append(engine.embed(texts[start : start + block]))
                spent[name] += time.perf_counter() - t
        for name in engines:
            times[name].append(spent[name])
            vectors[name] = np.concatenate(parts[name])
        print(
            f"  run {run + 1}: "
            + "  ".join(f"{n} {len(texts) / spent[n]:.1f}/s" for n in engines)
            + f"  (int8/torch {spent['torch'] / spent['onnx-int8']:.2f}x)",
            flush=True,
        )
    print(f"\n{'engine':10s} {'chunks/s':>9s} {'x torch':>8s}  cosine to torch (these texts)")
    for name in engines:
        rate = len(texts) / statistics.median(times[name])
        ratio = statistics.median(
            t / s for t, s in zip(times["torch"], times[name], strict=True)
        )  # same-run ratios
        print(f"{name:10s} {rate:9.1f} {ratio:8.2f}  {agreement(vectors[name], vectors['torch'])}")
    print("chunks/s: median over runs; x torch: median of the per-run ratios")


def corpus_vectors(name: str, texts: list[str], args: argparse.Namespace) -> np.ndarray:
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:12]
    engine = make_engine(name, args.cache_dir, args.batch_size, args.onnx_batch_size)
    # int8 activations are quantised per batch tensor, so its vectors depend on the batch size
    variant = f"-b{engine.batch_size}" if name == "onnx-int8" else ""
    path = args.vectors / f"{name}{variant}-{digest}.npy"
    if path.exists():
        return np.load(path)
    engine.warm_up()
    t = time.perf_counter()
    vecs = engine.embed(texts)
    dt = time.perf_counter() - t
    print(f"  embedded {len(texts)} texts with {name} in {dt:.0f} s ({len(texts) / dt:.1f}/s)", flush=True)
    args.vectors.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs)
    return vecs


def retrieval_metrics(
    query_vecs: np.ndarray,
    corpus: np.ndarray,
    query_rows: list[int],
    relevant: list[dict[int, int]],
    k: int = 10,
) -> tuple[float, float]:
    """Mean Recall@k and nDCG@k (gain = the graded relevance 1/2, log2 discount); the query issue
    itself is excluded from the ranking."""
    scores = query_vecs @ corpus.T
    scores[np.arange(len(query_rows)), query_rows] = -np.inf
    top = np.argsort(-scores, axis=1)[:, :k]
    recalls, ndcgs = [], []
    for ranked, rel in zip(top, relevant, strict=True):
        hits = [rel.get(int(doc), 0) for doc in ranked]
        recalls.append(sum(1 for h in hits if h) / len(rel))
        dcg = sum(g / np.log2(i + 2) for i, g in enumerate(hits))
        ideal = sum(g / np.log2(i + 2) for i, g in enumerate(sorted(rel.values(), reverse=True)[:k]))
        ndcgs.append(dcg / ideal)
    return float(np.mean(recalls)), float(np.mean(ndcgs))


def run_retrieval(args: argparse.Namespace) -> None:
    issues = load_issues(args.data)
    keys, texts = list(issues), list(issues.values())
    row = {k: i for i, k in enumerate(keys)}
    with (args.data / "eval" / "linked_issues_dev.jsonl").open(encoding="utf-8") as f:
        queries = [json.loads(line) for line in f]
    queries = random.Random(args.seed).sample(queries, min(args.queries, len(queries)))
    query_rows = [row[q["query_key"]] for q in queries]
    relevant = [{row[k]: g for k, g in q["relevant"].items() if k in row} for q in queries]
    print(
        f"retrieval: {len(queries)} queries (seed {args.seed}), corpus {len(texts)} issues "
        f"(summary + description, first 1,000 chars); query text = the query issue's corpus text"
    )
    vecs = {name: corpus_vectors(name, texts, args) for name in ENGINES}
    results = {}
    print(f"\n{'engine':22s} {'Recall@10':>9s} {'nDCG@10':>8s}  corpus cosine to torch")
    for name in ENGINES:
        results[name] = retrieval_metrics(vecs[name][query_rows], vecs[name], query_rows, relevant)
        r, n = results[name]
        print(f"{name:22s} {r:9.4f} {n:8.4f}  {agreement(vecs[name], vecs['torch'])}")
    r, n = retrieval_metrics(vecs["onnx-int8"][query_rows], vecs["torch"], query_rows, relevant)
    print(f"{'int8 query/torch corpus':22s} {r:9.4f} {n:8.4f}  (mixed engines)")
    tr, tn = results["torch"]
    for name in ENGINES[1:]:
        r, n = results[name]
        print(f"{name}: Recall@10 {100 * (r - tr) / tr:+.2f}%  nDCG@10 {100 * (n - tn) / tn:+.2f}% vs torch")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devkb_devtools.bench.onnx_speed", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("what", choices=["speed", "retrieval", "all"])
    parser.add_argument("--data", type=Path, default=None, help="shared/data/fluid (default: found upwards)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path("/tmp/devkb-onnx-cache"),
        help="ONNX export cache (default /tmp/devkb-onnx-cache)",
    )
    parser.add_argument("--vectors", type=Path, default=Path("/tmp/devkb-onnx-eval"))
    parser.add_argument("--n", type=int, default=500, help="texts for the speed test")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32, help="torch's batch (its default)")
    parser.add_argument(
        "--onnx-batch-size",
        type=int,
        default=None,
        help="texts per ONNX Runtime call (default: the embedder's own, 2)",
    )
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.data = args.data or find_data_dir()
    if args.what in ("speed", "all"):
        run_speed(args)
    if args.what in ("retrieval", "all"):
        run_retrieval(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
