"""A document named by its title instead of an identifier: "the checkout redesign" for WEB-1
"Checkout redesign 2026", "the double charge incident" for "Postmortem: double charges on
2026-04-14". Used by the kinds that need one document to answer about (a relation, a field).

A search's top documents are tried in order; numbers and stop words aside.
- :func:`named_by_title` (a relation, which is read again with the words that named the
  document): the title's words form a run of the question's words — two or more of them and at
  least half of the title's, stop words between allowed.
- :func:`named_in_question` (a field): two or more of the title's words among what the question
  says besides asking for the field, compared by their Snowball stems ("recalibrating the
  cameras" names "recalibrate the cameras"), and at least half of the title's or two thirds of the
  question's ("who reported the OSDPL activity logging issue?" names "OSDPL Architecture: Log
  activity on OSDPL to help determine usefulness of various sections"); or, when the question
  says one word only ("the PCI work"), the search's first document if its title holds it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

import Stemmer  # PyStemmer: Snowball stemmers in C (as the lexical index uses)

from devkb.agent.evidence import EvidenceDoc
from devkb.agent.question import ParsedQuestion, words_of
from devkb.agent.retrieval.fields import summary_of
from devkb.agent.words import STOPWORDS

TOP = 3  # how many of the search's documents may be the one named


_STEMMER = Stemmer.Stemmer("english")
# words that say what kind of thing is asked about ("the … bug"), or nothing ("yet"), not which one
_KIND_WORDS = frozenset({"bug", "issue", "ticket", "task", "story", "item", "thing", "work", "one", "yet"})


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """The word's Snowball stem: "charges" → "charg" as "charge", "recalibrating" as "recalibrate"."""
    return str(_STEMMER.stemWord(word))


def title_words(doc: EvidenceDoc, stemmed: bool = True) -> set[str]:
    """The words of a document's title that can name it (stemmed unless told)."""
    words = (
        w for w in words_of(summary_of(doc.document)) if len(w) > 2 and not w.isdigit() and w not in STOPWORDS
    )
    return {stem(w) for w in words} if stemmed else set(words)


def named_by_title(
    parsed: ParsedQuestion, found: Sequence[EvidenceDoc], top: int = TOP
) -> Iterator[tuple[EvidenceDoc, tuple[str, ...]]]:
    """Of the search's first ``top`` documents, each one the question names by its title, with
    the run of the question's words that names it."""
    asked = parsed.words
    for doc in found[:top]:
        title = title_words(doc, stemmed=False)
        run, matched = longest_run(asked, title)
        if matched >= 2 and 2 * matched >= len(title):
            yield doc, run


def named_in_question(
    parsed: ParsedQuestion, found: Sequence[EvidenceDoc], asking: frozenset[str], top: int = TOP
) -> tuple[EvidenceDoc, tuple[str, ...]] | None:
    """Of the search's first ``top`` documents, the one the question names by its title (of
    several: the one holding most of the question's words, then most of whose title the question
    holds, the first on a tie), ``asking`` being the words that ask for something (a field)
    rather than name it; with the question's words from the first to the last that named it."""
    words = parsed.words
    said = {
        stem(w)
        for w in words
        if len(w) > 2 and not w.isdigit() and w not in STOPWORDS and w not in asking and w not in _KIND_WORDS
    }
    best: tuple[tuple[int, float], EvidenceDoc, set[str]] | None = None
    for rank, doc in enumerate(found[:top]):
        title = title_words(doc)
        hit = said & title
        # one word said ("who is assigned to the PCI work?"): the search's first document, when
        # its title holds the word
        alone = len(said) == 1 and hit == said and rank == 0
        if alone or (len(hit) >= 2 and (2 * len(hit) >= len(title) or 3 * len(hit) >= 2 * len(said))):
            # most of the question's words, then most of the title's: "PSP Retry Policy" before
            # "Define the retry policy for outbound PSP calls"
            score = (len(hit), len(hit) / len(title))
            if best is None or score > best[0]:
                best = (score, doc, hit)
    if best is None:
        return None
    _, doc, hit = best
    at = [i for i, w in enumerate(words) if stem(w) in hit]
    return doc, words[at[0] : at[-1] + 1]


def longest_run(words: Sequence[str], wanted: set[str]) -> tuple[tuple[str, ...], int]:
    """The run of consecutive ``words`` holding the most distinct ``wanted`` words — stop words
    between them allowed, the run starting and ending on a wanted word — and how many it holds."""
    best: tuple[tuple[str, ...], int] = ((), 0)
    for i, first in enumerate(words):
        if first not in wanted:
            continue
        seen: set[str] = set()
        last = j = i
        while j < len(words) and ((words[j] in wanted and words[j] not in seen) or words[j] in STOPWORDS):
            if words[j] in wanted:
                seen.add(words[j])
                last = j
            j += 1
        if len(seen) > best[1]:
            best = (tuple(words[i : last + 1]), len(seen))
    return best
