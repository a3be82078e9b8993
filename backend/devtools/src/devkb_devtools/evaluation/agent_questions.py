"""Evaluate the agent on a question set: gold-document hit rate per category and tool choice.

Each question (JSONL: ``id, question, category, expected_tools, gold``) is asked through
``AskService.ask``. A question is a *hit* when every gold document id is among the answer's
``sources``; *recall* is the share of gold ids found. Tool choice is *correct* when the
retrieval tools called (FilterDocs aside, it is an optional last step) are exactly the expected
ones.

    python -m devkb_devtools.evaluation.agent_questions                       # the configured store (after `devkb index`)
    python -m devkb_devtools.evaluation.agent_questions --fluid-slice ../shared/data/fluid   # build a Fluid slice first
    python -m devkb_devtools.evaluation.agent_questions --json report.json --only-indexed
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from devkb.agent.ask_service import AskService

DEFAULT_QUESTIONS = Path(__file__).resolve().parents[4] / "tests" / "eval" / "agent_questions.jsonl"
OPTIONAL_TOOLS = frozenset({"FilterDocs"})


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    category: str
    expected_tools: tuple[str, ...]
    gold: tuple[str, ...]


@dataclass
class Outcome:
    id: str
    category: str
    question: str
    hit: bool
    recall: float
    tools: list[str]
    tools_ok: bool
    missing: list[str]
    mode: str
    seconds: float


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def rate(self, category: str | None = None) -> float:
        xs = [o for o in self.outcomes if category is None or o.category == category]
        return sum(o.hit for o in xs) / len(xs) if xs else 0.0

    def tool_accuracy(self, category: str | None = None) -> float:
        xs = [o for o in self.outcomes if category is None or o.category == category]
        return sum(o.tools_ok for o in xs) / len(xs) if xs else 0.0

    def summary(self) -> dict[str, Any]:
        cats = sorted({o.category for o in self.outcomes})
        per = {}
        for c in cats:
            xs = [o for o in self.outcomes if o.category == c]
            per[c] = {
                "questions": len(xs),
                "hit_rate": round(self.rate(c), 4),
                "recall": round(sum(o.recall for o in xs) / len(xs), 4),
                "tool_accuracy": round(self.tool_accuracy(c), 4),
            }
        return {
            "questions": len(self.outcomes),
            "hit_rate": round(self.rate(), 4),
            "tool_accuracy": round(self.tool_accuracy(), 4),
            "categories": per,
            "skipped": self.skipped,
            "modes": sorted({o.mode for o in self.outcomes}),
        }

    def to_text(self) -> str:
        s = self.summary()
        lines = [f"{'category':<14} {'n':>3} {'hit rate':>9} {'recall':>7} {'tools ok':>9}"]
        for c, v in s["categories"].items():
            lines.append(
                f"{c:<14} {v['questions']:>3} {v['hit_rate']:>9.1%} {v['recall']:>7.1%} {v['tool_accuracy']:>9.1%}"
            )
        lines.append(
            f"{'all':<14} {s['questions']:>3} {s['hit_rate']:>9.1%} {'':>7} {s['tool_accuracy']:>9.1%}"
        )
        misses = [o for o in self.outcomes if not o.hit]
        if misses:
            lines.append("misses:")
            lines += [f"  {o.id} {o.question!r} tools={o.tools} missing={o.missing}" for o in misses]
        wrong = [o for o in self.outcomes if not o.tools_ok]
        if wrong:
            lines.append("tool choice differs from expected:")
            lines += [f"  {o.id} {o.question!r} tools={o.tools}" for o in wrong]
        if self.skipped:
            lines.append(f"skipped (gold not indexed): {', '.join(self.skipped)}")
        return "\n".join(lines)


def load_questions(path: Path = DEFAULT_QUESTIONS) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(
                Question(d["id"], d["question"], d["category"], tuple(d["expected_tools"]), tuple(d["gold"]))
            )
    return out


def tools_match(called: Iterable[str], expected: Iterable[str]) -> bool:
    return set(called) - OPTIONAL_TOOLS == set(expected) - OPTIONAL_TOOLS


def evaluate(service: AskService, questions: Sequence[Question], indexed: set[str] | None = None) -> Report:
    """Ask every question; with ``indexed``, skip questions whose gold is not all in the store."""
    report = Report()
    for q in questions:
        if indexed is not None and not set(q.gold) <= indexed:
            report.skipped.append(q.id)
            continue
        start = time.perf_counter()
        answer = service.ask(q.question)
        found = set(answer.document_ids)
        missing = [g for g in q.gold if g not in found]
        tools = [c.tool for c in answer.tool_calls]
        report.outcomes.append(
            Outcome(
                q.id,
                q.category,
                q.question,
                not missing,
                1 - len(missing) / len(q.gold) if q.gold else 1.0,
                tools,
                tools_match(tools, q.expected_tools),
                missing,
                answer.mode,
                time.perf_counter() - start,
            )
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.agent_questions", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    p.add_argument(
        "--fluid-slice",
        type=Path,
        metavar="FLUID_DIR",
        help="Build a Fluid slice (gold + neighbours + distractors) in a temporary store and use it.",
    )
    p.add_argument("--distractors", type=int, default=200)
    p.add_argument(
        "--only-indexed", action="store_true", help="Skip questions whose gold documents are not indexed."
    )
    p.add_argument("--category", action="append", help="Only these categories (repeatable).")
    p.add_argument("--json", type=Path, help="Also write the report as JSON to this file.")
    args = p.parse_args(argv)

    from devkb.container import Container, prepare_store, shutdown

    questions = [
        q for q in load_questions(args.questions) if not args.category or q.category in args.category
    ]
    container = Container()
    tmp = None
    try:
        if args.fluid_slice is not None:
            from dependency_injector import providers

            from devkb.config.settings import Settings
            from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys

            tmp = tempfile.TemporaryDirectory(prefix="devkb-eval-")
            container.settings.override(providers.Object(Settings(data_dir=Path(tmp.name), store="sqlite")))
            store = prepare_store(container)
            keys = fluid_project_keys(args.fluid_slice)
            container.project_keys.override(providers.Object(lambda: keys))
            started = time.perf_counter()
            stats = build_slice(
                args.fluid_slice,
                [asdict(q) for q in questions],
                store,
                container.embedder(),
                distractors=args.distractors,
            )
            print(
                f"slice: {stats.documents} documents, {stats.chunks} chunks {stats.by_type} "
                f"in {time.perf_counter() - started:.0f}s",
                file=sys.stderr,
            )
        else:
            store = prepare_store(container)
        indexed = store.document_ids() if args.only_indexed else None
        report = evaluate(container.ask(), questions, indexed)
        print(report.to_text())
        if args.json:
            args.json.write_text(
                json.dumps(
                    {"summary": report.summary(), "outcomes": [asdict(o) for o in report.outcomes]}, indent=2
                )
                + "\n"
            )
    finally:
        shutdown(container)
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
