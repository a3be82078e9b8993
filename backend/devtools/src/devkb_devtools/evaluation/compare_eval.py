"""Comparison: "compare A and B" answered with cited similarities and differences.

Questions (``tests/eval/compare_questions.jsonl``: ``id, a, b, question``): 32 pairs of Fluid Jira
issues linked "relates to", drawn at random (seed 265), each asked one of six ways ("compare A and
B", "what is the difference between A and B?", "A vs B", "how does A differ from B?", …; every
third key lower-cased). Gold, from the raw issue JSON: both issues, and their status and issue type
(when the two differ, both values must be named; when equal, the value). A question scores when
both issues are the first two sources, the answer cites each side ([1] and [2]) and names the gold
values.

    python -m devkb_devtools.evaluation.compare_eval --fluid-slice ../shared/data/fluid
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from devkb_devtools.evaluation.answer_eval import EVAL_DIR

QUESTIONS = EVAL_DIR / "compare_questions.jsonl"


def load(fluid: Path) -> list[tuple[dict[str, Any], list[str]]]:
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    keys = {r["a"] for r in rows} | {r["b"] for r in rows}
    fields: dict[str, dict[str, Any]] = {}
    with gzip.open(fluid / "jira/issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            issue = json.loads(line)
            if issue["key"] in keys:
                fields[issue["key"]] = issue["fields"]
    out = []
    for r in rows:
        facts = []
        for name in ("status", "issuetype"):
            va, vb = fields[r["a"]][name]["name"], fields[r["b"]][name]["name"]
            facts += [va, vb] if va != vb else [va]
        out.append((r, facts))
    return out


def score(
    row: dict[str, Any], facts: Sequence[str], answer: str, ids: Sequence[str]
) -> tuple[bool, list[str]]:
    problems = []
    if set(ids[:2]) != {f"jira:{row['a']}", f"jira:{row['b']}"}:
        problems.append(f"sources {list(ids[:2])}")
    if "[1]" not in answer or "[2]" not in answer:
        problems.append("not both sides cited")
    problems += [f"missing {f!r}" for f in facts if f not in answer]
    return not problems, problems


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.compare_eval", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--fluid-slice", type=Path, required=True, metavar="FLUID_DIR")
    p.add_argument("--distractors", type=int, default=200)
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)

    from dependency_injector import providers

    from devkb.agent.ask_service import AskService
    from devkb.config.settings import Settings
    from devkb.container import Container, prepare_store, shutdown
    from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys

    rows = load(args.fluid_slice)
    container = Container()
    tmp = tempfile.TemporaryDirectory(prefix="devkb-compare-eval-")
    hits = 0
    try:
        container.settings.override(providers.Object(Settings(data_dir=Path(tmp.name), store="sqlite")))
        store = prepare_store(container)
        keys = fluid_project_keys(args.fluid_slice)
        container.project_keys.override(providers.Object(lambda: keys))
        slice_rows = [
            {"question": f"{r['a']} {r['b']}", "gold": [f"jira:{r['a']}", f"jira:{r['b']}"]} for r, _ in rows
        ]
        build_slice(args.fluid_slice, slice_rows, store, container.embedder(), distractors=args.distractors)
        service = AskService(container.planner())
        for row, facts in rows:
            a = service.ask(row["question"])
            ok, problems = score(row, facts, a.answer, a.document_ids)
            hits += ok
            if args.verbose and not ok:
                print(f"- {row['id']} {row['question']!r}: {problems} | {a.answer[:200]}", file=sys.stderr)
    finally:
        shutdown(container)
        tmp.cleanup()
    print(
        f"comparison: {hits}/{len(rows)} = {hits / len(rows):.3f} (both sides cited, gold status and type named)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
