"""The remembered keywords of documents' texts and terms of sentences answer as the plain functions."""

from __future__ import annotations

from devkb.agent.extractive import sentence_terms, terms
from devkb.agent.tools.filter_docs import document_keywords, keywords

TEXTS = [
    "Retries of webhook deliveries use exponential back-off with jitter (PAY-7).",
    "The ledger's double-entry postings are idempotent: a replayed request writes nothing twice.",
    "",
    "the and of",
]


def test_remembered_answers_equal_the_plain_functions_and_stay_bounded():
    document_keywords.cache_clear()
    sentence_terms.cache_clear()
    for _ in range(3):  # the first call computes, the later ones read the memo
        for text in TEXTS:
            assert document_keywords(text) == keywords(text)
            assert sentence_terms(text) == terms(text)
    for memo in (document_keywords, sentence_terms):
        info = memo.cache_info()
        assert (info.hits, info.misses) == (2 * len(TEXTS), len(TEXTS))
        assert info.maxsize is not None and info.currsize <= info.maxsize
    assert {"retry", "delivery", "webhook"} <= document_keywords(TEXTS[0])
