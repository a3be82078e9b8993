"""``FilterDocs``: score the selected documents by keyword overlap with the question, drop those
that share no keyword with it, sort the rest by score (best first).

A document's words are its title, id, metadata values, passages and — for neighbours — how it
is connected, so a commit reached from FLUID-5327 matches a question naming FLUID-5327. Words
are lower-cased and lightly stemmed (commits → commit, linked → link).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Annotated, Any

from haystack.tools.from_function import create_tool_from_function
from haystack.tools.tool import Tool

from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.tools.rendering import render_documents
from devkb.agent.words import KEYWORD, STOPWORDS, word_pattern

NAME = "FilterDocs"
MAX_KEEP = 20
_WORD = word_pattern(KEYWORD)  # the one tokeniser (words.py), "FLUID-5327" one word
EXTRA_STOPWORDS = frozenset(
    [
        "did",
        "does",
        "doing",
        "done",
        "say",
        "says",
        "said",
        "about",
        "please",
        "know",
        "also",
        "other",
        "else",
    ]
)

DESCRIPTION = (
    "Keep only the documents found so far that share keywords with the question, best first. "
    "Use it last, to cut noise before answering."
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    return w


# a word as written → its keyword ("" for a stopword): the vocabulary's, not the questions';
# bounded so a stream of new words cannot grow it without end (it starts again when full)
_KEYWORD_OF: dict[str, str] = {}
_KEYWORD_MEMO_SIZE = 500_000


def _keyword_of(word: str) -> str:
    lw = word.lower()
    kw = stem(lw) if len(lw) > 1 and lw not in STOPWORDS and lw not in EXTRA_STOPWORDS else ""
    if len(_KEYWORD_OF) >= _KEYWORD_MEMO_SIZE:
        _KEYWORD_OF.clear()
    _KEYWORD_OF[word] = kw
    return kw


def keywords(text: str) -> set[str]:
    """The text's distinct keywords: lower-cased, stopwords dropped, lightly stemmed."""
    memo = _KEYWORD_OF
    # get, not `in` then [], so another thread emptying the memo in between cannot raise
    out = {kw if (kw := memo.get(w)) is not None else _keyword_of(w) for w in set(_WORD.findall(text))}
    out.discard("")
    return out


# a document's text (its fields, its passages) → its keywords: the same documents come back
# question after question, and reading a long text's words is most of what scoring one costs.
# Documents' texts only — never a question's —, the 2,048 most recently used.
@functools.lru_cache(maxsize=2_048)
def document_keywords(text: str) -> frozenset[str]:
    """:func:`keywords` of a text taken from stored documents, remembered."""
    return frozenset(keywords(text))


# words people use for a kind of document ("which commits", "the handbook page", "a PR")
DESCRIPTORS = {
    "issue": "jira issue ticket",
    "pull": "github pull request pr merge",
    "commit": "github commit change",
    "file": "github file documentation doc docs",
    "page": "confluence page wiki handbook",
    "gh-issue": "github issue",
}


def _metadata_text(metadata: dict[str, Any]) -> str:
    parts: list[str] = []
    for v in metadata.values():
        parts.extend(str(x) for x in v) if isinstance(v, list) else parts.append(str(v))
    return " ".join(parts)


class FilterDocs:
    name = NAME

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep

    def score(self, question: str, doc: EvidenceDoc, q: set[str] | None = None) -> float:
        q = keywords(question) if q is None else q
        if not q:
            return 0.0
        d = doc.document
        kind = str(d.metadata.get("kind") or ("issue" if d.type.value == "JIRA" else "page"))
        strong = keywords(f"{d.title} {d.id} {doc.relation} {DESCRIPTORS.get(kind, '')}")
        body = document_keywords(" ".join(doc.passages)) | document_keywords(_metadata_text(d.metadata))
        return len(q & (strong | body)) + 0.5 * len(q & strong)

    def run(
        self, scope: Scope, question: str, keep: int | None = None, pinned: Collection[str] = ()
    ) -> list[EvidenceDoc]:
        """Keep the ``keep`` documents of the selection that share most keywords with ``question``;
        ``pinned``: ids of documents the question is about (named by identifier, or carried over
        from the previous turn), kept even when they share no keyword with it — "who is assigned
        to it?" asks about the carried issue, whose text need not say "assigned"."""
        k = max(1, min(int(keep or self.keep), MAX_KEEP))
        before = scope.selection
        q = keywords(question)
        scored = [(self.score(question, doc, q), i, doc) for i, doc in enumerate(before)]
        ranked = [
            doc for s, _, doc in sorted(scored, key=lambda t: (-t[0], t[1])) if s > 0 or doc.id in pinned
        ]
        # the pinned documents and the best of the rest, up to k, in rank order
        chosen = {id(d) for d in sorted(ranked, key=lambda d: d.id not in pinned)[:k]}
        kept = [d for d in ranked if id(d) in chosen]
        scope.replace_selection(kept)
        scope.record(ToolCall(NAME, {"question": question, "keep": k, "before": len(before)}, len(kept)))
        return kept

    def as_tool(self, scope: Scope) -> Tool:
        def filter_docs(
            question: Annotated[str, "The question to score the documents found so far against."],
            keep: Annotated[int, "Keep at most this many documents (1-20)."] = self.keep,
        ) -> str:
            return render_documents(scope, self.run(scope, question, keep), "FilterDocs kept")

        return create_tool_from_function(filter_docs, name=NAME, description=DESCRIPTION)
