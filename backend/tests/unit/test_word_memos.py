"""The per-word memos behind ``keywords`` (FilterDocs, confidence) and ``terms`` (extractive
answers) give exactly what the words give without them, also after the memo is emptied."""

from __future__ import annotations

from devkb.agent import extractive
from devkb.agent.extractive import STOPWORDS, terms
from devkb.agent.tools import filter_docs
from devkb.agent.tools.filter_docs import EXTRA_STOPWORDS, keywords, stem

TEXT = "Which commits fixed the Uploader's progress-bar? The uploader, UPLOADER and FLUID-5327 linked it: a x"


def expected_keywords(text: str) -> set[str]:
    words = {w.lower() for w in filter_docs._WORD.findall(text)}
    return {stem(w) for w in words if len(w) > 1 and w not in STOPWORDS and w not in EXTRA_STOPWORDS}


def test_keywords_and_terms_match_the_words_memo_or_not(monkeypatch):
    for _ in range(2):  # first fills the memo, then reads it
        assert keywords(TEXT) == expected_keywords(TEXT) and "" not in keywords(TEXT)
        assert terms(TEXT) == {
            w.lower() for w in extractive._WORD.findall(TEXT) if len(w) > 1 and w.lower() not in STOPWORDS
        }
    assert {"commit", "uploader", "progress-bar", "fluid-5327", "link"} <= keywords(TEXT)
    monkeypatch.setattr(filter_docs, "_KEYWORD_MEMO_SIZE", 1)
    monkeypatch.setattr(extractive, "_TERM_MEMO_SIZE", 1)
    want_terms = terms(TEXT)
    extractive._TERM_OF.clear()
    filter_docs._KEYWORD_OF.clear()
    assert keywords(TEXT) == expected_keywords(TEXT)  # emptied on every new word: same answer
    assert terms(TEXT) == want_terms
    assert len(filter_docs._KEYWORD_OF) == 1 and len(extractive._TERM_OF) == 1  # the bound holds
