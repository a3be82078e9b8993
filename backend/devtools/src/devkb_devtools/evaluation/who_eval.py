"""Who to ask: "who knows about X" answered with the people who worked on the documents about X.

Questions (``tests/eval/who_questions.jsonl``: ``id, issue, question``): 32 Jira issues of the
Fluid corpus drawn at random (seed 264) among those with an assignee and a summary of five words or
more; each question asks one of five ways ("who knows about …", "who should I ask about …", "who
can help with …", "who is the expert on …", "who owns …") about the issue's summary, lower-cased.
Gold, from the raw issue JSON: the issue's assignee and reporter. A question scores when a gold
person is among the first three people the answer names and the issue is cited.

    python -m devkb_devtools.evaluation.who_eval --fluid-slice ../shared/data/fluid
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devkb_devtools.evaluation.answer_eval import EVAL_DIR

QUESTIONS = EVAL_DIR / "who_questions.jsonl"
_PERSON = re.compile(r"(?:: |; )([^;]+?) — ")


@dataclass
class WhoResult:
    id: str
    question: str
    gold: tuple[str, ...]
    named: list[str]
    cited: bool
    hit: bool


def load(fluid: Path) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    wanted = {r["issue"] for r in rows}
    people: dict[str, tuple[str, ...]] = {}
    with gzip.open(fluid / "jira/issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            issue = json.loads(line)
            if issue["key"] in wanted:
                fields = issue["fields"]
                names = [(fields.get(k) or {}).get("displayName") for k in ("assignee", "reporter")]
                people[issue["key"]] = tuple(n for n in names if n)
    return [(r, people[r["issue"]]) for r in rows]


def named_people(answer: str) -> list[str]:
    """The people an answer names, in order ("…: A — assignee of …; B — …")."""
    return [m.group(1).strip() for m in _PERSON.finditer(answer)]


def evaluate(service: Any, rows: Sequence[tuple[dict[str, Any], tuple[str, ...]]]) -> list[WhoResult]:
    out = []
    for row, gold in rows:
        a = service.ask(row["question"])
        named = named_people(a.answer)
        cited = f"jira:{row['issue']}" in a.document_ids
        out.append(
            WhoResult(
                row["id"], row["question"], gold, named, cited, cited and bool(set(named[:3]) & set(gold))
            )
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.who_eval", description=__doc__.split("\n\n")[0]
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
    tmp = tempfile.TemporaryDirectory(prefix="devkb-who-eval-")
    try:
        container.settings.override(providers.Object(Settings(data_dir=Path(tmp.name), store="sqlite")))
        store = prepare_store(container)
        keys = fluid_project_keys(args.fluid_slice)
        container.project_keys.override(providers.Object(lambda: keys))
        slice_rows = [{"question": r["issue"], "gold": [f"jira:{r['issue']}"]} for r, _ in rows]
        build_slice(args.fluid_slice, slice_rows, store, container.embedder(), distractors=args.distractors)
        results = evaluate(AskService(container.planner()), rows)
    finally:
        shutdown(container)
        tmp.cleanup()
    hits = sum(r.hit for r in results)
    print(
        f"who to ask: {hits}/{len(results)} = {hits / len(results):.3f} (a gold person among the first 3, the issue cited)"
    )
    print(f"issue cited: {sum(r.cited for r in results)}/{len(results)}")
    if args.verbose:
        for r in results:
            if not r.hit:
                print(
                    f"- {r.id} {r.question!r}: gold {r.gold}, named {r.named[:3]}, cited {r.cited}",
                    file=sys.stderr,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
