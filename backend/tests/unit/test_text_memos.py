"""The per-text memos of documents' keywords and sentences' terms answer as the plain functions."""

from __future__ import annotations

import devkb.agent.extractive as extractive
import devkb.agent.tools.filter_docs as filter_docs
from devkb.agent.extractive import sentence_terms, terms
from devkb.agent.tools.filter_docs import document_keywords, keywords

TEXTS = [
    "Retries of webhook deliveries use exponential back-off with jitter (PAY-7).",
    "The ledger's double-entry postings are idempotent: a replayed request writes nothing twice.",
    "",
    "the and of",
]


def test_remembered_answers_equal_the_plain_functions_and_stay_bounded(monkeypatch):
    monkeypatch.setattr(filter_docs, "_TEXT_MEMO_SIZE", 3)
    monkeypatch.setattr(extractive, "_SENTENCE_MEMO_SIZE", 3)
    for _ in range(3):  # the first call computes, the later ones read the memo
        for text in TEXTS:
            assert document_keywords(text) == keywords(text)
            assert sentence_terms(text) == terms(text)
    assert len(filter_docs._TEXT_KEYWORDS) <= 3 and len(extractive._SENTENCE_TERMS) <= 3
    assert {"retry", "delivery", "webhook"} <= document_keywords(TEXTS[0])
