"""How far the evidence supports an answer: a status (answered / partial / not found) and a
calibrated confidence with a one-line reason, computed from what retrieval found — never from how
the question is worded, never from a model rating itself.

Two kinds of evidence:

- **exact**: the answer rests on documents found by identifier or by the graph (a named issue's
  fields, a relation's list, the issues resolved in a month, identifiers that do not exist). Its
  probability is, per exact kind (``EXACT_RIGHT``: ``key_missing``, ``keys_partial``,
  ``identifier``, ``graph_list``, ``period``), the Laplace-smoothed share of such answers that were
  right on the evaluation's tuning split, times the share of the list the answer can cite when
  it cites only part of a longer list (a list of 11 with 8 cited: × 8/11 — a wanted document is
  as likely to be any of the 11). The truncation factor is evidence, not fitted.
- **topic**: the answer rests on search results. The signals are the share of the question's
  content words the best source holds and all sources hold, the number of content words no
  source holds, and how many sources agree (hold at least half of them); a logistic model fitted
  on the tuning split (``python -m devkb_devtools.evaluation.trust_eval --fit``) turns them into the
  probability that the sources answer the question. Below ``NOT_FOUND_BELOW`` the answer says
  the sources don't say; below ``PARTIAL_BELOW`` it says they only partly cover the question.

For an answer that says "not found" the confidence is the probability that *that* is right.

In LLM mode the evidence probability is combined with the model's own token probabilities where
the provider returns them (``token_signal``, ``with_tokens``): a logarithmic opinion pool —
``logit p = (1 − w)·logit p_evidence + w·logit q`` with ``q`` the geometric mean probability of
the answer's content tokens (citation markers and whitespace left out) and ``w = TOKEN_WEIGHT``, a
fixed weight, not fitted (docs/evaluation.md, "LLM mode"). The model's self-report is never used,
and the status stays the evidence's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from devkb.agent.answer import Confidence, Level, Status
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.focus import ASKING_WORDS
from devkb.agent.patterns import CITATION
from devkb.agent.tools.filter_docs import document_keywords, keywords

# Fitted on tests/eval/trust_questions_tuning.jsonl + answer_questions_tuning.jsonl
# (python -m devkb_devtools.evaluation.trust_eval --fluid-slice … --split tuning --fit); docs/evaluation.md.
WEIGHTS = {"bias": -1.166, "best": 1.563, "all": 0.862, "missing": -1.581, "agree": 1.326}
NOT_FOUND_BELOW = 0.293
PARTIAL_BELOW = 0.5
# per exact kind: share right on the tuning split, shrunk toward the pooled share of all exact
# answers (Laplace-smoothed) with the weight of 10 answers (trust_eval.EXACT_PRIOR)
EXACT_RIGHT = {
    "key_missing": 0.987,
    "keys_partial": 0.981,
    "identifier": 0.992,
    "graph_list": 0.995,
    "period": 0.981,
}
EXACT_KINDS = tuple(EXACT_RIGHT)

# words that say what kind of text is wanted, not what it is about
META_WORDS = frozenset(
    keywords(
        "handbook page doc docs documentation guidance guide guideline guidelines explain describe "
        "information info wiki anything something tip tips way ways thing things there here where "
        "should would could need needs use using make know tell show example examples written write "
        # asking for a summary is not a topic: "summarize the onboarding page" is about onboarding
        "summarize summarise summarized summarised summary summaries overview outline recap gist tldr"
        # which code, and a change to it: "which pull requests touched the webhook code?" is about webhooks
        " code touch touched touches touching"
        # "what happens when …" asks for a consequence: the words say what kind of answer, not its topic
        " happen happens"
    )
)


@dataclass(frozen=True)
class Signals:
    """What the sources hold of the question's content words."""

    terms: int  # content words in the question
    best: float  # share held by the source that holds most of them
    all: float  # share held by any source
    missing: tuple[str, ...]  # content words no source holds
    agree: int  # sources holding at least half of them

    def features(self) -> dict[str, float]:
        return {
            "best": self.best,
            "all": self.all,
            "missing": float(len(self.missing)),
            "agree": min(self.agree, 5) / 5,
        }


def signals(question: str, docs: Sequence[EvidenceDoc]) -> Signals:
    # the words that say what the answer must hold ("how come", "what happens if") are no topic
    q = keywords(question) - META_WORDS - ASKING_WORDS
    if not q:
        return Signals(0, 1.0 if docs else 0.0, 1.0 if docs else 0.0, (), len(docs))
    held = [q & _doc_words(d) for d in docs]
    union = set().union(*held) if held else set()
    best = max((len(h) for h in held), default=0)
    agree = sum(1 for h in held if len(h) * 2 >= len(q))
    return Signals(len(q), best / len(q), len(union) / len(q), tuple(sorted(q - union)), agree)


def _doc_words(doc: EvidenceDoc) -> frozenset[str]:
    """:func:`text_words` of the document's title, fields and passages (remembered per text)."""
    d = doc.document
    meta = " ".join(str(v) for v in d.metadata.values() if isinstance(v, (str, int, float)))
    text = f"{d.title} {meta} {' '.join(doc.passages)}"
    return document_keywords(text) | document_keywords(text.replace("-", " "))


def text_words(text: str) -> set[str]:
    """A text's content words, hyphenated words also as their parts ("high-fidelity" holds
    "high" and "fidelity"), so a question that splits them still finds them."""
    return keywords(text) | keywords(text.replace("-", " "))


def topic_probability(s: Signals, weights: dict[str, float] | None = None) -> float:
    w = weights or WEIGHTS
    z = w["bias"] + sum(w[k] * v for k, v in s.features().items())
    return 1.0 / (1.0 + math.exp(-z))


def level(probability: float) -> Level:
    return "high" if probability >= 0.8 else "medium" if probability >= 0.5 else "low"


def topic_status(probability: float) -> Status:
    if probability < NOT_FOUND_BELOW:
        return "not_found"
    return "partial" if probability < PARTIAL_BELOW else "answered"


def topic_confidence(s: Signals, probability: float, docs: Sequence[EvidenceDoc]) -> Confidence:
    status = topic_status(probability)
    shown = probability if status != "not_found" else 1.0 - probability
    if status == "not_found":
        missing = ", ".join(s.missing[:3])
        reason = (
            f"no source mentions {missing}" if missing else "no source holds most of the question's words"
        )
    else:
        agree = (
            f"{s.agree} sources agree" if s.agree > 1 else "1 source" if s.agree == 1 else "no source agrees"
        )
        newest = newest_date(docs)
        reason = f"{agree}; the question's words found: {round(s.all * s.terms)} of {s.terms}"
        if s.missing:
            reason += f" (not {', '.join(s.missing[:3])})"
        if newest:
            reason += f"; the newest is from {newest}"
    return Confidence(round(shown, 3), level(shown), reason)


def exact_probability(kind: str, shown: int | None = None, total: int | None = None) -> float:
    """The exact kind's tuning rate, times the share of a longer list the answer cites."""
    p = EXACT_RIGHT.get(kind, min(EXACT_RIGHT.values()))
    if total and shown is not None and total > shown:
        p *= shown / total
    return round(p, 3)


def exact_confidence(
    reason: str,
    docs: Iterable[EvidenceDoc] = (),
    kind: str = "identifier",
    shown: int | None = None,
    total: int | None = None,
) -> Confidence:
    p = exact_probability(kind, shown, total)
    if total and shown is not None and total > shown:
        reason += f" ({shown} of {total} cited)"
    newest = newest_date(list(docs))
    if newest:
        reason += f"; the newest is from {newest}"
    return Confidence(p, level(p), reason)


def newest_date(docs: Sequence[EvidenceDoc]) -> str:
    """ "March 2024" for the most recently updated source ("" when none has a date)."""
    dates = [d.document.updated_at[:10] for d in docs if d.document.updated_at]
    if not dates:
        return ""
    try:
        return datetime.strptime(max(dates), "%Y-%m-%d").strftime("%B %Y")
    except ValueError:
        return ""


def not_found_text(docs: Sequence[EvidenceDoc], most: int = 5) -> str:
    """The plain "the sources don't say", with the closest material named as such."""
    head = "The knowledge base does not say."
    if not docs:
        return head
    related = "; ".join(f"{d.document.title} [{i}]" for i, d in enumerate(docs[:most], 1))
    return f"{head} Related, but not an answer: {related}."


# -- LLM mode: the model's token probabilities -------------------------------------------------

# the share the model's token probabilities get in the pool; fixed (too few LLM answers to fit one:
# docs/evaluation.md, "LLM mode") and below ½, so the evidence leads
TOKEN_WEIGHT = 0.25
LOW_TOKEN = 0.5  # a token the model gave less than this probability counts as unsure
_EDGE = 1e-4  # probabilities are clipped to [_EDGE, 1 − _EDGE] before taking log-odds


@dataclass(frozen=True)
class TokenSignal:
    """How sure the model was of its answer's words, from the provider's token log-probabilities."""

    tokens: int  # content tokens counted
    mean_logprob: float  # their mean natural-log probability
    low: int  # tokens below LOW_TOKEN

    @property
    def probability(self) -> float:
        """The geometric mean probability of the content tokens."""
        return math.exp(self.mean_logprob)


def token_signal(tokens: Sequence[tuple[str, float]]) -> TokenSignal | None:
    """The signal over the answer's content tokens — ``(token text, log-probability)`` in order;
    tokens that are only whitespace or fall inside a citation marker ("[3]", "[1, 2]") are left
    out: the renumbering rewrites those, and they say nothing about the answer. ``None`` when no
    content token is left."""
    text = "".join(t for t, _ in tokens)
    markers = [m.span() for m in CITATION.finditer(text)]
    kept: list[float] = []
    at = 0
    for token, logprob in tokens:
        start, end = at, at + len(token)
        at = end
        if not token.strip() or any(s < end and start < e for s, e in markers):
            continue
        if math.isfinite(logprob):
            kept.append(min(0.0, logprob))
    if not kept:
        return None
    low = sum(1 for lp in kept if lp < math.log(LOW_TOKEN))
    return TokenSignal(len(kept), sum(kept) / len(kept), low)


def combine(evidence: float, model: float, weight: float = TOKEN_WEIGHT) -> float:
    """Logarithmic opinion pool of two probabilities: ``(1 − weight)`` on the evidence."""

    def logit(p: float) -> float:
        p = min(1 - _EDGE, max(_EDGE, p))
        return math.log(p / (1 - p))

    z = (1 - weight) * logit(evidence) + weight * logit(model)
    return 1.0 / (1.0 + math.exp(-z))


def with_tokens(evidence: Confidence, signal: TokenSignal | None) -> Confidence:
    """The evidence's confidence combined with the model's token probabilities, the reason saying
    what they were; unchanged but for the reason when the provider returned none."""
    if signal is None:
        return replace(evidence, reason=f"{evidence.reason}; no token probabilities from the provider")
    p = round(combine(evidence.probability, signal.probability), 3)
    unsure = f", {signal.low} of {signal.tokens} below {LOW_TOKEN:g}" if signal.low else ""
    reason = f"{evidence.reason}; the model's token probabilities average {signal.probability:.2f}{unsure}"
    return Confidence(p, level(p), reason)


# a condition of the question not applied: the answer is at best "low" (below the medium threshold)
CAPPED_PROBABILITY = 0.35


def capped(status: Status, confidence: Confidence, why: str) -> tuple[Status, Confidence]:
    """``confidence`` no higher than :data:`CAPPED_PROBABILITY`, with ``why`` added to its reason:
    an answer that did not do all the question asked never reads "high" (a dropped or unresolved
    condition, a side of a comparison not found, history over missing records)."""
    p = min(confidence.probability, CAPPED_PROBABILITY)
    new_status: Status = "partial" if status == "answered" else status
    return new_status, Confidence(p, level(p), f"{confidence.reason}; {why}")
