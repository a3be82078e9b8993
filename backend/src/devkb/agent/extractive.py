"""Extractive answers: the sentences of the retrieved chunks that best match the question, each
with the citation number of its document. Used when no LLM is reachable."""

from __future__ import annotations

import re
from collections.abc import Sequence

from devkb.agent.answer import Citation

_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*")
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how i in is it its of on or our that the this to "
    "was we what when where which who why will with you your about into any there their them then than these "
    "those there's what's me my tell show give list find".split()
)

NO_ANSWER = "The knowledge base does not contain an answer to this question."


def terms(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 1}


def compose_extractive(question: str, passages: Sequence[tuple[int, str]], max_sentences: int = 4) -> str:
    """``passages``: (citation number, text), best first → an answer of cited sentences."""
    q = terms(question)
    scored: list[tuple[float, int, int, str]] = []
    for order, (n, text) in enumerate(passages):
        for j, raw in enumerate(_SENT.split(text)):
            s = raw.strip(" #*-\t")
            if len(s) < 25 or len(s) > 600:
                continue
            overlap = len(q & terms(s))
            if overlap == 0:
                continue
            scored.append((overlap - 0.15 * order - 0.01 * j, n, order, s))
    if not scored:
        if passages:
            n, text = passages[0]
            first = next((s.strip() for s in _SENT.split(text) if len(s.strip()) >= 25), text[:300])
            return f"{first} [{n}]"
        return NO_ANSWER
    best = sorted(scored, key=lambda t: -t[0])[:max_sentences]
    best.sort(key=lambda t: (t[2], t[1]))
    out, seen = [], set()
    for _, n, _, s in best:
        if s in seen:
            continue
        seen.add(s)
        out.append(f"{s} [{n}]")
    return " ".join(out)


def snippet(text: str, question: str, width: int = 240) -> str:
    q = terms(question)
    body = text.split("\n", 1)[1] if "\n" in text else text
    best, best_score = body[:width], -1
    for s in _SENT.split(body):
        sc = len(q & terms(s))
        if sc > best_score and len(s.strip()) > 20:
            best, best_score = s.strip(), sc
    return best[:width] + ("…" if len(best) > width else "")


def citations_text(citations: Sequence[Citation]) -> str:
    return "\n".join(f"[{i + 1}] {c.title} — {c.url}" for i, c in enumerate(citations))
