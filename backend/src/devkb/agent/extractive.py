"""Extractive answers: the sentences of the retrieved chunks that best match the question, each
with the citation number of its document. Used when no LLM is reachable."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from devkb.agent.answer import Citation

if TYPE_CHECKING:
    from devkb.agent.evidence import EvidenceDoc

_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "that",
        "the",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "about",
        "into",
        "any",
        "there",
        "their",
        "them",
        "then",
        "than",
        "these",
        "those",
        "there's",
        "what's",
        "me",
        "my",
        "tell",
        "show",
        "give",
        "list",
        "find",
    ]
)

NO_ANSWER = "The knowledge base does not contain an answer to this question."


def terms(text: str) -> set[str]:
    # distinct words first: texts repeat words, and this runs for every sentence of every passage
    return {lw for w in set(_WORD.findall(text)) if len(w) > 1 and (lw := w.lower()) not in STOPWORDS}


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


_FIELD_WORDS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"\bstatus|state\b|\bopen\b|\bclosed\b|\bdone\b", re.IGNORECASE), "status", "status"),
    (re.compile(r"\bresol(?:ution|ved)\b", re.IGNORECASE), "resolution", "resolution"),
    (re.compile(r"\bassign|\bwho (?:is|was) working|\bowner\b", re.IGNORECASE), "assignee", "assignee"),
    (
        re.compile(r"\breport(?:er|ed)\b|\bwho (?:filed|opened|created)\b", re.IGNORECASE),
        "reporter",
        "reporter",
    ),
    (re.compile(r"\bpriority\b|\burgent\b", re.IGNORECASE), "priority", "priority"),
    (re.compile(r"\bfix ?versions?\b|\brelease\b|\bfixed in\b", re.IGNORECASE), "fix_version", "fix version"),
    (re.compile(r"\bcomponents?\b", re.IGNORECASE), "component", "component"),
    (re.compile(r"\b(?:issue )?type\b|\bkind of issue\b", re.IGNORECASE), "issue_type", "type"),
    (re.compile(r"\bwhen\b|\bcreated\b|\bdate\b", re.IGNORECASE), "created", "created"),
    (re.compile(r"\bauthor|\bwho (?:wrote|made|committed)\b", re.IGNORECASE), "author", "author"),
)


def fact_sentence(question: str, number: int, label: str, metadata: dict[str, Any]) -> str | None:
    """ "FLUID-5327: status Closed, resolution Fixed [1]." for the fields a question asks about."""
    parts = []
    for pattern, key, name in _FIELD_WORDS:
        value = metadata.get(key)
        if value in (None, "", []) or not pattern.search(question):
            continue
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts.append(f"{name} {shown}")
    return f"{label}: {'; '.join(parts)} [{number}]." if parts else None


def compose_from_evidence(
    question: str, docs: Sequence[EvidenceDoc], identifiers: set[str] | None = None, max_sentences: int = 3
) -> str:
    """An extractive answer over ``docs`` (``EvidenceDoc``s, cited by position): facts a question
    asks about for the documents it names, how the other documents connect, then the best
    supporting sentences."""
    if not docs:
        return NO_ANSWER
    lines: list[str] = []
    named = identifiers or set()
    for i, doc in enumerate(docs, 1):
        meta = doc.document.metadata
        ident = str(meta.get("key") or meta.get("sha", "")[:10] or meta.get("path") or "")
        if doc.found_by == "GraphQuery" and (not named or ident.upper() in named or doc.document.id in named):
            fact = fact_sentence(question, i, ident or doc.document.title, meta)
            if fact:
                lines.append(fact)
    related = [(i, doc) for i, doc in enumerate(docs, 1) if doc.relation]
    if related:
        shown = "; ".join(f"{doc.document.title} [{i}]" for i, doc in related[:8])
        lines.append(f"Connected documents: {shown}.")
    passages = [
        (i, _without_title(p, doc.document.title)) for i, doc in enumerate(docs, 1) for p in doc.passages[:2]
    ]
    body = compose_extractive(question, passages, max_sentences=max_sentences)
    if body != NO_ANSWER:
        lines.append(body)
    return " ".join(lines) if lines else NO_ANSWER


def _without_title(text: str, title: str) -> str:
    first, sep, rest = text.partition("\n")
    return rest if sep and title and first.strip().startswith(title.strip()) else text
