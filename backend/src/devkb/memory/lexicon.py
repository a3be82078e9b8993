"""Words people use for one another: one folding table and WordNet (docs/memory.md, "Verified answers").

Two questions mean the same with other words ("lowest" for "minimum", "turned on" for "enabled")
and another thing with an opposite ("disabled" for "enabled", "maximum" for "minimum"); an
embedding puts both kinds of pair equally close. This module tells them apart, for the comparison
of questions (``agent/same_question.py``) and the verified answers' own (``memory/verified.py``):

- :data:`SAME` — the small table of abbreviations and team words that no dictionary holds
  ("k8s", "prod", "db", "on-call"), folded to one Snowball stem (:func:`fold`);
- :class:`WordNet` — Princeton WordNet 3.0 (Debian's ``wordnet-base``, read with NLTK's reader):
  two words are **alike** when one's base form is among the other's near senses' lemmas, their
  derivational forms or, for adjectives, the adjectives similar to them; **opposite** when one is
  a WordNet antonym of the other (of a lemma of its near senses). Loaded on first use (a few
  seconds, about 150 MB), answers cached. Without the data or NLTK it says so once in the log and
  knows no pair: the comparison then falls back to the folding table alone.
"""

from __future__ import annotations

import io
import logging
import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

import Stemmer

log = logging.getLogger(__name__)
_stem = Stemmer.Stemmer("english").stemWord

# Debian's wordnet-base installs the WordNet 3.0 database here
DEFAULT_DIR = Path("/usr/share/wordnet")

# words and abbreviations people use for one another that WordNet does not hold (or holds with
# another sense first): stems → one stem, and a few words as said
SAME = {
    "begin": "start",
    "commenc": "start",
    "commence": "start",
    "requir": "need",
    "retain": "keep",
    "retent": "keep",
    "store": "keep",
    "db": "databas",
    "k8s": "kubernet",
    "prod": "product",
    "app": "applic",
    "maximum": "limit",
    "max": "limit",
    "cap": "limit",
    "amount": "limit",
    "new": "chang",
    "frozen": "freez",
    "on-cal": "call",
    "oncal": "call",
    "releas": "version",
    "pr": "pull",
    "prs": "pull",
    "instal": "set",
    "configur": "set",
    "owner": "own",
    "maintain": "own",
    "responsible": "own",
    "deliv": "ship",
    "obtain": "get",
    "request": "get",
    "decis": "decid",
    "upcom": "next",
    "sign": "approv",
    "approv": "approv",
    "repo": "repositori",
}


def stem(word: str) -> str:
    return str(_stem(word))


def fold(word: str) -> str:
    """``word``'s Snowball stem, or the stem the folding table gives it."""
    s = stem(word)
    return SAME.get(s, SAME.get(word, s))


# how many of a word's senses (WordNet orders them by frequency) count for each part of speech:
# the rare senses make near everything alike ("get" is "catch", "become", "arrive", "start" …)
SENSES = 3


class WordNet:
    """WordNet's synonyms and antonyms of English words, read from ``directory`` on first use."""

    def __init__(self, directory: Path | None = DEFAULT_DIR, senses: int = SENSES) -> None:
        self.directory = directory
        self.senses = senses
        self._lock = threading.Lock()
        self._reader: Any = None
        self._tried = False
        self.alike = lru_cache(maxsize=65536)(self._alike)
        self.opposite = lru_cache(maxsize=65536)(self._opposite)
        self._related = lru_cache(maxsize=16384)(self._related_uncached)

    @property
    def available(self) -> bool:
        return self._load() is not None

    def _load(self) -> Any:
        if self._tried:
            return self._reader
        with self._lock:
            if not self._tried:
                self._reader = _open(self.directory)
                self._tried = True
        return self._reader

    def known(self, word: str) -> bool:
        """Whether WordNet holds ``word`` (in any base form)."""
        wn = self._load()
        return wn is not None and any(wn.synsets(f) for f in self.forms(word))

    def phrasal(self, word: str, particle: str) -> str | None:
        """The phrasal verb ``word`` ``particle`` make when WordNet holds it ("gave" "up" →
        "give_up", "turned" "on" → "turn_on"), else None."""
        wn = self._load()
        if wn is None:
            return None
        for base in sorted(self.forms(word)):
            name = f"{base}_{particle}"
            if wn.synsets(name, "v"):
                return name
        return None

    def forms(self, word: str) -> frozenset[str]:
        """``word`` and its base forms ("lowest" → "low", "got" → "get"), lower case."""
        wn = self._load()
        w = word.lower()
        if wn is None:
            return frozenset({w})
        out = {w}
        for pos in "nvar":
            base = wn.morphy(w, pos)
            if base:
                out.add(base)
        return frozenset(out)

    def _related_uncached(self, word: str) -> tuple[frozenset[str], frozenset[str]]:
        """(lemmas alike, lemmas opposite) of ``word``'s near senses."""
        wn = self._load()
        if wn is None:
            return frozenset(), frozenset()
        alike: set[str] = set()
        opposite: set[str] = set()
        for form in self.forms(word):
            for pos in "nvar":
                for synset in wn.synsets(form, pos)[: self.senses]:
                    near = [synset]
                    if synset.pos() in "as":  # "similar to": the adjective cluster around a head
                        near += synset.similar_tos()
                    for s in near:
                        for lemma in s.lemmas():
                            alike.add(lemma.name().lower())
                            if s is synset:
                                alike.update(d.name().lower() for d in lemma.derivationally_related_forms())
                                opposite.update(a.name().lower() for a in lemma.antonyms())
        return frozenset(alike), frozenset(opposite - alike)

    def _alike(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are the same word or WordNet synonyms (either way round)."""
        fa, fb = self.forms(a), self.forms(b)
        if fa & fb:
            return True
        if self._opposite(a, b):
            return False
        return bool(self._related(a)[0] & fb) or bool(self._related(b)[0] & fa)

    def _opposite(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are WordNet antonyms ("enabled" / "disabled", "minimum" / "maximum")."""
        fa, fb = self.forms(a), self.forms(b)
        if fa & fb:
            return False
        return bool(self._related(a)[1] & fb) or bool(self._related(b)[1] & fa)


def _open(directory: Path | None) -> Any:
    """NLTK's reader of the WordNet database in ``directory``, or None (logged) when it cannot be read."""
    if directory is None:
        log.info("WordNet disabled: questions are compared with the folding table alone")
        return None
    if not (directory / "data.noun").is_file():
        log.warning(
            "WordNet not found at %s (Debian package wordnet-base): verified answers are matched "
            "with the folding table alone, without synonyms and antonyms",
            directory,
        )
        return None
    try:
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
    except ImportError:
        log.warning(
            "NLTK is not installed: verified answers are matched without WordNet's synonyms and antonyms"
        )
        return None

    class Reader(WordNetCorpusReader):  # type: ignore[misc]
        """The reader on Debian's files: they hold no ``lexnames`` (the names of the lexicographer
        files, which nothing here reads: numbered stand-ins), and no mapping to another WordNet
        version is wanted (NLTK would look for its own downloaded copy)."""

        def open(self, fileid: str) -> Any:
            if fileid == "lexnames":
                return io.StringIO("".join(f"{i:02d}\tlex{i}\t0\n" for i in range(64)))
            return super().open(fileid)

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    root = str(directory.resolve())
    if root not in nltk.data.path:  # NLTK reads only below the paths it is given
        nltk.data.path.append(root)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "multilingual functions are not available": not used
            reader = Reader(root, None)
        reader.synsets("test")
    except Exception as e:  # a damaged or foreign database: the product runs on without it
        log.warning(
            "WordNet at %s could not be read (%s): verified answers are matched without it", directory, e
        )
        return None
    log.info("WordNet %s read from %s", reader.get_version(), directory)
    return reader
