"""History questions scored extractively (docs/evaluation.md, "History").

    python -m devkb_devtools.evaluation.history_eval [--fluid ../shared/data/fluid] [--split heldout|dev|all]
        [--questions tests/eval/history_*.jsonl] [--json OUT]

Indexes, through the emulators and with history on, the demo workspace (Jira changelogs, the
PAY space, the payments repository) and the Fluid handbook space and documentation repository
(721 page versions, 10,415 diffs); then asks every question through ``devkb.agent.history``
(recognise, then answer from the reader's store) with the question file's ``today``. A question
scores 1 when every expected value is in the answer (case and spacing ignored) and its document
is among the citations. The questions were generated from the raw data by
``history_questions.py`` (never from devkb's output).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

from devkb.agent import history
from devkb.agent.question import parse_question
from devkb.sources.confluence import ConfluenceLoader, ConfluenceLoaderConfig
from devkb.sources.github import GitHubLoader, GitHubLoaderConfig
from devkb.sources.registry import build_loader
from devkb_devtools.demo.workspace import DEMO_DATA, demo_sources
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.testkit import build_indexer
from devkb_devtools.testkit.hashing_embedder import HashingEmbedder

HERE = Path(__file__).resolve()
QUESTIONS = sorted((HERE.parents[4] / "tests" / "eval").glob("history_*.jsonl"))
FLUID = HERE.parents[6] / "shared" / "data" / "fluid"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("“", '"').replace("”", '"')).strip().lower()


def score(question: dict[str, Any], text: str, cited: list[str]) -> tuple[bool, list[str]]:
    missing = [v for v in question["expect"] if _norm(v) not in _norm(text)]
    if question.get("document") and question["document"] not in cited:
        missing.append(f"cite {question['document']}")
    return not missing, missing


def build_workspace(data_dir: Path, demo: EmulatorSuite, corpus: EmulatorSuite) -> Any:
    loaders = [build_loader(c) for c in demo_sources(demo)]
    loaders.append(
        ConfluenceLoader(ConfluenceLoaderConfig(name="handbook", url=corpus.confluence_url, spaces=["ILDH"]))
    )
    loaders.append(
        GitHubLoader(
            GitHubLoaderConfig(
                name="infusion-docs",
                repos=["fluid-project/infusion-docs"],
                url=corpus.github_url,
                include_issues=False,
            )
        )
    )
    indexer = build_indexer(data_dir, HashingEmbedder(), loaders)
    for loader in loaders:
        status = indexer.runs.run(loader.name)
        if status.state != "succeeded":
            raise RuntimeError(f"sync of {loader.name} failed: {status.errors}")
    return indexer


def run(questions: list[dict[str, Any]], fluid: Path) -> dict[str, Any]:
    with (
        EmulatorSuite(Dataset.load(DEMO_DATA)) as demo,
        EmulatorSuite(Dataset.load(fluid)) as corpus,
        tempfile.TemporaryDirectory() as tmp,
    ):
        started = time.perf_counter()
        indexer = build_workspace(Path(tmp), demo, corpus)
        index_s = time.perf_counter() - started
        try:
            store = indexer.store
            keys = {d.metadata.get("project") for d in store.find_documents(types=None, limit=100_000)} - {
                None
            }
            rows = []
            for q in questions:
                today = date.fromisoformat(q.get("today", "2026-11-25"))
                parsed = parse_question(q["question"], [str(k) for k in keys], today=today)
                intent = history.recognise(parsed, today)
                if intent is None:
                    text, cited, kind = "", [], None
                else:
                    found = history.answer(intent, store, today)
                    text, cited, kind = found.text, [d.document.id for d in found.evidence], intent.kind
                ok, missing = score(q, text, cited)
                rows.append({**q, "recognised": kind, "ok": ok, "missing": missing, "answer": text})
        finally:
            indexer.close()
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r["ok"])
    table = {k: {"questions": len(v), "score": round(sum(v) / len(v), 3)} for k, v in sorted(by_kind.items())}
    return {"index_seconds": round(index_s, 1), "by_kind": table, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fluid", type=Path, default=FLUID)
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default="heldout")
    ap.add_argument("--questions", type=Path, nargs="*", default=QUESTIONS)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show-failures", action="store_true")
    args = ap.parse_args(argv)
    if not (args.fluid / "confluence" / "versions.jsonl.gz").is_file():
        print(f"the Fluid corpus is not at {args.fluid}", file=sys.stderr)
        return 2
    questions = [
        json.loads(line) for p in args.questions for line in p.read_text().splitlines() if line.strip()
    ]
    if args.split != "all":
        questions = [q for q in questions if q["split"] == args.split]
    result = run(questions, args.fluid)
    print(f"{'kind':<10} {'questions':>9} {'score':>6}")
    for kind, row in result["by_kind"].items():
        print(f"{kind:<10} {row['questions']:>9} {row['score']:>6.3f}")
    if args.show_failures:
        for r in result["rows"]:
            if not r["ok"]:
                print(
                    f"\n✗ [{r['kind']}→{r['recognised']}] {r['question']}\n  missing {r['missing']}\n  {r['answer'][:600]}"
                )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return 0 if all(row["score"] >= 0.95 for row in result["by_kind"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
