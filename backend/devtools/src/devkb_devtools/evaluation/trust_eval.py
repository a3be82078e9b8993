"""Trust: does the answer say "not found" when the sources don't say, keep answering when they
do, and does its confidence mean what it says?

Questions:

- ``tests/eval/trust_questions_{tuning,heldout}.jsonl``: **answerable** topic questions (a page of
  the Confluence handbook asked about in other words; gold: that page, found in the raw corpus) and
  **unanswerable** ones (topics the corpus never covers; each row names the words of its topic in
  ``absent``, and the raw corpus — every Jira issue, commit, pull request, repository file and page —
  is checked to contain none of them as a word);
- the answer evaluation's questions of the same split (``answer_questions_*.jsonl``): anchored
  answerable questions, and the unknown identifiers as unanswerable ones.

Scores per split: the share of unanswerable questions answered ``not_found``; the share of
answerable questions still answered (today every one is); right vs wrong separated by the
confidence (AUROC) and its expected calibration error (10 equal-width bins). An answer is *right*
when it is answered and cites the gold document, or says ``not_found`` for an unanswerable question.

    python -m devkb_devtools.evaluation.trust_eval --fluid-slice ../shared/data/fluid --store-dir /tmp/t
    python -m devkb_devtools.evaluation.trust_eval --fluid-slice ../shared/data/fluid --store-dir /tmp/t --split tuning --fit

``--fit`` (tuning split only) fits the topic model (logistic regression, scikit-learn) on the
questions answered from search results and chooses the "not found" threshold: the highest that
keeps ≥ 0.97 of the answerable tuning questions answered. It prints the constants for
``devkb/agent/confidence.py``; the held-out split is never used to choose them.

``--llama`` asks through the language-model path instead, with a real local model (llama.cpp's
``llama-server`` and SmolLM2-135M from PyPI, ``scripts/build_llm.sh``, cached) behind the
``openai`` provider; the table then adds how many answers carried token probabilities and the
confidence before they were pooled in (evidence only), for comparison.
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
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from devkb.agent.ask_service import AskService
from devkb.agent.confidence import EXACT_KINDS, signals
from devkb.agent.evidence import Scope
from devkb.agent.kinds.base import exact_kind
from devkb_devtools.evaluation.answer_eval import (
    EVAL_DIR,
    AnswerQuestion,
    CorpusGold,
    Gold,
    load_questions,
    score,
    slice_questions,
)

TRUST_SPLITS = {s: EVAL_DIR / f"trust_questions_{s}.jsonl" for s in ("tuning", "heldout")}


@dataclass(frozen=True)
class TrustQuestion:
    id: str
    question: str
    split: str
    answerable: bool
    anchor: str = ""  # answerable: the handbook page's title
    absent: tuple[str, ...] = ()  # unanswerable: words of the topic the corpus never contains
    source: str = "trust"  # trust | answer (the answer evaluation's questions)
    intent: str = "handbook"


@dataclass
class Result:
    id: str
    split: str
    source: str
    answerable: bool
    question: str
    status: str
    probability: float
    level: str
    reason: str
    right: bool
    retrievable: bool  # answerable and the gold document among the sources
    topic: bool  # assessed from search results (not exact)
    features: dict[str, float]
    exact_kind: str  # confidence.EXACT_KINDS, "" for a search-based answer
    answer: str
    mode: str = "extractive"
    evidence_probability: float | None = None  # LLM mode: before the token probabilities
    token_probability: float | None = None  # LLM mode: their geometric mean, None when none


def load_trust(splits: Sequence[str]) -> list[TrustQuestion]:
    out: list[TrustQuestion] = []
    for split in splits:
        for row in _jsonl(TRUST_SPLITS[split]):
            out.append(
                TrustQuestion(
                    row["id"],
                    row["question"],
                    split,
                    row["kind"] == "answerable",
                    row.get("anchor", ""),
                    tuple(row.get("absent", ())),
                )
            )
    for q in load_questions(list(splits)):
        out.append(
            TrustQuestion(
                q.id, q.question, q.split, q.intent != "unknown", q.anchor, source="answer", intent=q.intent
            )
        )
    return out


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def corpus_words_present(fluid_dir: Path, phrases: Sequence[str]) -> set[str]:
    """Which of ``phrases`` occur as words anywhere in the raw corpus (case-insensitive).

    A phrase matched at word boundaries has each of its runs of word characters as a whole word
    of the text, so a text is searched only for the phrases whose first such word it holds (one
    tokenisation per text instead of one search per phrase and text: minutes → seconds)."""
    patterns = {p: re.compile(rf"(?<![\w]){re.escape(p.lower())}(?![\w])") for p in phrases}
    by_word: dict[str, list[str]] = {}
    always: list[str] = []
    for p in patterns:
        words = _WORD.findall(p.lower())
        if words:
            by_word.setdefault(words[0], []).append(p)
        else:
            always.append(p)
    found: set[str] = set()
    for text in _raw_texts(fluid_dir):
        low = text.lower()
        held = set(_WORD.findall(low))
        candidates = [p for w in held & by_word.keys() for p in by_word[w]] + always
        for p in candidates:
            if p not in found and patterns[p].search(low):
                found.add(p)
    return found


_WORD = re.compile(r"\w+")


def _raw_texts(fluid_dir: Path) -> Iterator[str]:
    for path in sorted(fluid_dir.rglob("*")):
        if not path.is_file() or path.parts[-2:] == ("fluid", "README.md") or "LICENSES" in path.parts:
            continue
        if "eval" in path.relative_to(fluid_dir).parts[:1]:
            continue  # the retrieval evaluation's files, not the corpus
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
                yield from f
        elif path.suffix in (
            ".json",
            ".jsonl",
            ".md",
            ".txt",
            ".html",
            ".yml",
            ".yaml",
            ".js",
            ".css",
            ".json5",
        ):
            yield path.read_text(encoding="utf-8", errors="replace")


def check_questions(fluid_dir: Path, questions: Sequence[TrustQuestion]) -> list[str]:
    """Problems with the question files: an unanswerable topic the corpus mentions after all, an
    answerable one whose page does not exist."""
    problems: list[str] = []
    phrases = sorted({a for q in questions for a in q.absent})
    present = corpus_words_present(fluid_dir, phrases)
    for q in questions:
        if not q.answerable and q.source == "trust":
            if not q.absent:
                problems.append(f"{q.id}: an unanswerable question names no absent words")
            hit = [a for a in q.absent if a in present]
            if hit:
                problems.append(f"{q.id}: the corpus mentions {hit}")
    gold = CorpusGold(fluid_dir)
    for q in questions:
        if q.answerable and q.source == "trust":
            try:
                gold.gold(_as_answer_question(q))
            except Exception as e:  # a page that does not exist
                problems.append(f"{q.id}: {e}")
    return problems


def _as_answer_question(q: TrustQuestion) -> AnswerQuestion:
    return AnswerQuestion(q.id, q.intent if q.answerable else "unknown", q.anchor, q.question, q.split)


def evaluate(
    service: AskService,
    questions: Sequence[TrustQuestion],
    golds: dict[str, Gold],
    features_from: AskService | None = None,
) -> list[Result]:
    out: list[Result] = []
    for i, q in enumerate(questions, 1):
        a = service.ask(q.question)
        conf = a.confidence
        assert conf is not None
        features, kind = _features(features_from or service, a.question or q.question)
        if q.answerable:
            o = score(
                _as_answer_question(q),
                golds[q.id],
                a.answer,
                a.document_ids,
                "extractive",
                service.max_sources,
            )
            retrievable = o.doc_hit
            right = a.status != "not_found" and o.doc_hit
        elif q.source == "answer":  # an unknown identifier
            o = score(
                _as_answer_question(q),
                golds[q.id],
                a.answer,
                a.document_ids,
                "extractive",
                service.max_sources,
            )
            retrievable, right = False, a.status == "not_found" and bool(o.not_found_ok)
        else:
            retrievable, right = False, a.status == "not_found"
        out.append(
            Result(
                q.id,
                q.split,
                q.source,
                q.answerable,
                q.question,
                a.status,
                conf.probability,
                conf.level,
                conf.reason,
                right,
                retrievable,
                kind is None,
                features,
                kind or "",
                a.answer,
                a.mode,
                a.evidence_probability,
                a.token_probability,
            )
        )
        if a.mode == "llm" or a.note:  # the slow real-model runs: one line per answer as it comes
            r = out[-1]
            print(
                f"  {i}/{len(questions)} {r.id} {r.mode} {r.status} right={r.right} p={r.probability} "
                f"evidence={r.evidence_probability} tokens={r.token_probability}",
                file=sys.stderr,
            )
    return out


def _features(service: AskService, question: str) -> tuple[dict[str, float], str | None]:
    """The topic model's features as the rules path sees them, and the exact kind the answer
    rests on (``None``: search results)."""
    planner = service.planner
    scope = Scope.for_sources(None)
    outcome = planner.execute(scope, planner.parse(question))
    docs = outcome.sources(scope.selection, service.max_sources)
    return signals(question, docs).features(), exact_kind(outcome)


def metrics(results: Sequence[Result]) -> dict[str, Any]:
    unans = [r for r in results if not r.answerable and r.source == "trust"]
    unknown = [r for r in results if not r.answerable and r.source == "answer"]
    ans = [r for r in results if r.answerable]
    topic_ans = [r for r in ans if r.source == "trust"]
    return {
        "questions": len(results),
        "unanswerable": len(unans),
        "unanswerable_not_found": _share(r.status == "not_found" for r in unans),
        "unknown_ids_not_found": _share(r.status == "not_found" for r in unknown),
        "answerable": len(ans),
        "answerable_answered": _share(r.status != "not_found" for r in ans),
        "topic_answerable_answered": _share(r.status != "not_found" for r in topic_ans),
        "right": _share(r.right for r in results),
        "auroc": auroc([r.probability for r in results], [r.right for r in results]),
        "ece": ece([r.probability for r in results], [r.right for r in results]),
        "auroc_topic": auroc(
            [r.probability for r in results if r.topic], [r.right for r in results if r.topic]
        ),
        "ece_topic": ece([r.probability for r in results if r.topic], [r.right for r in results if r.topic]),
    }


def llm_metrics(results: Sequence[Result]) -> dict[str, Any]:
    """LLM mode: how many answers were the model's, how many carried token probabilities, and the
    confidence before they were pooled in (evidence only) against after."""
    llm = [r for r in results if r.mode == "llm"]
    pooled = [r for r in llm if r.token_probability is not None]
    evidence = [
        r.evidence_probability if r.evidence_probability is not None else r.probability for r in results
    ]
    labels = [r.right for r in results]
    tokens = [r.token_probability for r in pooled if r.token_probability is not None]
    return {
        "llm_answers": len(llm),
        "with_token_probabilities": len(pooled),
        "mean_token_probability": round(sum(tokens) / len(tokens), 3) if tokens else None,
        "auroc_evidence_only": auroc(evidence, labels),
        "ece_evidence_only": ece(evidence, labels),
        "auroc_tokens_alone": auroc([r.token_probability or 0.0 for r in pooled], [r.right for r in pooled]),
    }


def _share(xs: Any) -> float | None:
    xs = list(xs)
    return round(sum(xs) / len(xs), 3) if xs else None


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Probability that a right answer has a higher confidence than a wrong one (ties count half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 3)


def ece(scores: Sequence[float], labels: Sequence[bool], bins: int = 10) -> float | None:
    """Expected calibration error: |accuracy − mean confidence| per equal-width bin, weighted."""
    if not scores:
        return None
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, s in enumerate(scores) if lo <= s < hi or (b == bins - 1 and s == 1.0)]
        if idx:
            acc = sum(labels[i] for i in idx) / len(idx)
            conf = sum(scores[i] for i in idx) / len(idx)
            total += len(idx) / len(scores) * abs(acc - conf)
    return round(total, 3)


EXACT_PRIOR = 10.0


def fit(results: Sequence[Result]) -> dict[str, Any]:
    """The topic model and the threshold, from the tuning split's results."""
    from sklearn.linear_model import LogisticRegression

    from devkb.agent.confidence import Signals

    names = list(Signals(1, 0, 0, (), 0).features())
    topic = [r for r in results if r.topic]
    x = [[r.features[n] for n in names] for r in topic]
    y = [int(r.retrievable) for r in topic]
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    weights = {"bias": round(float(model.intercept_[0]), 3)} | {
        n: round(float(w), 3) for n, w in zip(names, model.coef_[0], strict=True)
    }
    probs = [float(p) for p in model.predict_proba(x)[:, 1]]
    answerable = sorted(p for p, r in zip(probs, topic, strict=True) if r.answerable)
    # keep ≥ 0.97 of the answerable topic questions answered: the threshold sits under them
    keep = answerable[int(len(answerable) * 0.03)] if answerable else 0.5
    threshold = round(max(0.05, min(0.5, keep - 0.005)), 3)
    # per exact kind: the share right, shrunk toward the pooled (Laplace-smoothed) share of all
    # exact answers with the weight of EXACT_PRIOR answers — a kind seen a few times on the
    # tuning split keeps close to the pooled rate instead of a noisy rate of its own
    exact = [r for r in results if r.exact_kind]
    pooled = (sum(r.right for r in exact) + 1) / (len(exact) + 2)
    exact_right = {}
    exact_n = {}
    for kind in EXACT_KINDS:
        mine = [r for r in exact if r.exact_kind == kind]
        exact_right[kind] = round(
            (sum(r.right for r in mine) + EXACT_PRIOR * pooled) / (len(mine) + EXACT_PRIOR), 3
        )
        exact_n[kind] = len(mine)
    return {
        "WEIGHTS": weights,
        "NOT_FOUND_BELOW": threshold,
        "EXACT_RIGHT": exact_right,
        "topic_n": len(topic),
        "exact_n": exact_n,
    }


def table(rows: dict[str, dict[str, Any]]) -> str:
    keys = [
        ("unanswerable", "unanswerable n"),
        ("unanswerable_not_found", "unanswerable → not found"),
        ("unknown_ids_not_found", "unknown ids → not found"),
        ("answerable", "answerable n"),
        ("answerable_answered", "answerable answered"),
        ("topic_answerable_answered", "topic answerable answered"),
        ("right", "right"),
        ("auroc", "AUROC"),
        ("ece", "ECE"),
        ("auroc_topic", "AUROC (search-based)"),
        ("ece_topic", "ECE (search-based)"),
    ]
    lines = ["| split | " + " | ".join(label for _, label in keys) + " |", "|---" * (len(keys) + 1) + "|"]
    for split, m in rows.items():
        lines.append(f"| {split} | " + " | ".join("" if m[k] is None else str(m[k]) for k, _ in keys) + " |")
    return "\n".join(lines)


def llm_table(rows: dict[str, dict[str, Any]]) -> str:
    keys = list(next(iter(rows.values())))
    lines = [
        "| split | " + " | ".join(k.replace("_", " ") for k in keys) + " |",
        "|---" * (len(keys) + 1) + "|",
    ]
    for split, m in rows.items():
        lines.append(f"| {split} | " + " | ".join("" if m[k] is None else str(m[k]) for k in keys) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.trust_eval", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--fluid-slice", type=Path, required=True, metavar="FLUID_DIR")
    p.add_argument("--split", action="append", choices=sorted(TRUST_SPLITS))
    p.add_argument("--store-dir", type=Path, help="Keep the slice's store here and reuse it when it exists.")
    p.add_argument("--fit", action="store_true", help="fit the topic model and threshold (tuning split only)")
    p.add_argument("--json", type=Path)
    p.add_argument("-v", "--verbose", action="store_true", help="print every wrong answer")
    p.add_argument(
        "--every",
        type=int,
        default=1,
        metavar="K",
        help="ask every K-th question of each split only (the real-model run answers ~3 a minute here)",
    )
    p.add_argument(
        "--llama",
        action="store_true",
        help="answer in LLM mode with a real local model: llama.cpp's llama-server and SmolLM2-135M "
        "from PyPI (scripts/build_llm.sh, cached), through the openai provider",
    )
    args = p.parse_args(argv)
    splits = args.split or ["tuning", "heldout"]
    if args.fit and splits != ["tuning"]:
        p.error("--fit uses the tuning split only: pass --split tuning")
    if args.fit and args.llama:
        p.error("--fit fits the evidence model on extractive answers: leave out --llama")
    with contextlib.ExitStack() as stack:
        llm_settings: dict[str, Any] = {}
        if args.llama:
            from devkb_devtools.testkit.llama_server import started_llama_settings

            llm_settings = started_llama_settings(stack)
        return _run(args, splits, llm_settings)


def _run(args: argparse.Namespace, splits: list[str], llm_settings: dict[str, Any] | None = None) -> int:
    from dependency_injector import providers

    from devkb.config.settings import Settings
    from devkb.container import Container, prepare_store, shutdown
    from devkb_devtools.evaluation.fluid_slice import build_slice, fluid_project_keys

    questions = [q for s in splits for q in [q for q in load_trust(splits) if q.split == s][:: args.every]]
    every = load_trust(list(TRUST_SPLITS))
    problems = check_questions(args.fluid_slice, [q for q in every if q.source == "trust"])
    if problems:
        print("question files are not valid:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    gold_source = CorpusGold(args.fluid_slice)
    golds = {q.id: gold_source.gold(_as_answer_question(q)) for q in every}
    container = Container()
    tmp = tempfile.TemporaryDirectory(prefix="devkb-trust-eval-")
    data_dir = args.store_dir or Path(tmp.name)
    reuse = args.store_dir is not None and any(args.store_dir.glob("*"))
    try:
        container.settings.override(
            providers.Object(Settings(data_dir=data_dir, store="sqlite", **(llm_settings or {})))
        )
        store = prepare_store(container)
        keys = fluid_project_keys(args.fluid_slice)
        container.project_keys.override(providers.Object(lambda: keys))
        if not reuse:
            started = time.perf_counter()
            answer_qs = [_as_answer_question(q) for q in every if q.answerable or q.source == "answer"]
            stats = build_slice(
                args.fluid_slice,
                slice_questions(answer_qs, golds),
                store,
                container.embedder(),
                distractors=200,
            )
            print(
                f"slice: {stats.documents} documents in {time.perf_counter() - started:.0f}s", file=sys.stderr
            )
        rules = AskService(container.planner(), max_sources=container.ask().max_sources)
        service = container.ask() if llm_settings else rules
        results = evaluate(service, questions, golds, features_from=rules)
        by_split = {s: metrics([r for r in results if r.split == s]) for s in splits}
        print(table(by_split))
        if llm_settings:
            print()
            print(llm_table({s: llm_metrics([r for r in results if r.split == s]) for s in splits}))
        if args.fit:
            print(json.dumps(fit(results), indent=2))
        if args.verbose:
            for r in results:
                if not r.right:
                    print(
                        f"- {r.id} {r.status} p={r.probability} {r.question!r}: {r.reason} | {r.answer[:160]}"
                    )
        if args.json:
            args.json.write_text(
                json.dumps({"metrics": by_split, "results": [asdict(r) for r in results]}, indent=2) + "\n"
            )
    finally:
        shutdown(container)
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
