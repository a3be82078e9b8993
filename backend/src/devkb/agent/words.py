"""Words: the one tokeniser of ``devkb.agent`` and the one matcher of word patterns over its
output (a leaf module: every layer of the agent reads text through it).

**The tokeniser.** A word is a run of letters and digits; the joiners named in ``keep`` (any of
``-``, ``_``, ``'``, ``’``, ``.``, ``/``) hold two runs together as one word. Every reader of text
in the agent is one setting of it:

- a question's words (:func:`words_of`, :func:`tokens_of`): ``_`` kept, so "PAY-12" is "pay", "12"
  and "Marcus's" is "marcus", "s";
- a passage's or a question's keywords (``tools/filter_docs.keywords``, ``extractive.terms``):
  ``-`` and ``_`` kept, so "FLUID-5327" stays one word;
- a person's name (:func:`name_words`): nothing kept, accents folded ("Tomás O'Brien" → tomas, o,
  brien); BM25 (``retrieval/lexical``) reads the same setting;
- a phrase a question quotes (``kinds/mentions``): apostrophes kept ("don't");
- dates and versions (``history/when``): ``-``, ``.`` and ``/`` kept ("2026-05-07", "05/07/2026",
  "4.7", "2011-W05" are one word each).

**The matcher.** A word pattern is a string of elements separated by spaces, matched against a
sequence of words (what spaCy's ``Matcher`` does with token patterns, written as text so a table
row stays one line):

- ``a|b|c`` one of these words; ``pre*`` a word starting with ``pre``; ``<class>`` a word the
  named predicate accepts (``<num>`` and the classes a caller passes);
- a trailing ``?`` makes an element optional (``is?``); ``_`` is any one word; ``...`` any number
  of words;
- ``{A}`` one of the anchor's word sequences, given at match time (the identifiers a question
  names);
- ``!w|v`` (zero width) the next word is none of these (``!a+b``: the next words are not ``a``
  then ``b``); ``~w|v`` (zero width) the word before is none of these;
- ``^`` first, the pattern must start at the first word; ``name=`` before an element captures the
  word it matched.

Patterns are compiled once (:func:`compile_pattern`, cached); :func:`find`, :func:`search` and
:func:`finditer` run one pattern or a table of them over a text's words.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

# -- the words no question is about (the extractive answer, FilterDocs, the frame) ----------------
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
        # what is left of a negative contraction ("won't" → won): a negation, no topic
        "won",
        "don",
        "doesn",
        "didn",
        "isn",
        "aren",
        "wasn",
        "weren",
        "hasn",
        "haven",
        "hadn",
        "shouldn",
        "wouldn",
        "couldn",
        "mustn",
        "needn",
    ]
)


# -- the tokeniser -----------------------------------------------------------------------------
JOINERS = "-_'’./"
QUESTION = "_"  # a question's words: "PAY-12" → pay, 12; "Marcus's" → marcus, s
KEYWORD = "-_"  # keywords: "FLUID-5327" stays one word
NAME = ""  # names and BM25: letters and digits only
QUOTE = "_'’"  # a quoted phrase: "don't" stays one word
NUMERIC = "-_./"  # dates and versions: "2026-05-07", "05/07/2026", "4.7", "2011-W05"


@functools.cache
def word_pattern(keep: str = QUESTION) -> re.Pattern[str]:
    """The tokeniser: runs of letters and digits, held together by the joiners in ``keep``
    (one compiled pattern per setting)."""
    if set(keep) - set(JOINERS):
        raise ValueError(f"not a joiner: {sorted(set(keep) - set(JOINERS))}")
    joined = "(?:[" + re.escape(keep) + r"][^\W_]+)*" if keep else ""
    return re.compile(r"[^\W_]+" + joined)


def words(text: str, keep: str = QUESTION, *, lower: bool = True) -> tuple[str, ...]:
    """The words of ``text`` (lower-cased unless ``lower`` is False)."""
    return tuple(word_pattern(keep).findall(text.lower() if lower else text))


def spans(text: str, keep: str = QUESTION) -> tuple[tuple[int, int], ...]:
    """Where each word of :func:`words` (same ``keep``) is in ``text``."""
    return tuple(m.span() for m in word_pattern(keep).finditer(text))


def words_of(text: str) -> tuple[str, ...]:
    """A question's words, lower-cased, in order (the phrase tables are written in them)."""
    return words(text)


def tokens_of(text: str) -> tuple[str, ...]:
    """A question's words as written (case kept), aligned with :func:`words_of`."""
    return words(text, lower=False)


def name_words(name: str) -> list[str]:
    """ "Tomás O'Brien" → ["tomas", "o", "brien"]: a name's words, accents and case aside."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return list(words(plain, NAME))


# -- the matcher -------------------------------------------------------------------------------
Predicate = Callable[[str], bool]
CLASSES: Mapping[str, Predicate] = {"num": str.isdigit}


@dataclass(frozen=True)
class _Element:
    words: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    tests: tuple[Predicate, ...] = ()
    any: bool = False  # "_"
    gap: bool = False  # "..."
    anchor: bool = False  # "{A}"
    optional: bool = False  # "?"
    not_next: tuple[_Element, ...] | None = None  # "!a|b", "!a+b": the next words are not these
    not_before: _Element | None = None  # "~a|b": the word before is none of these
    name: str = ""  # "name="

    def accepts(self, word: str) -> bool:
        return (
            self.any
            or word in self.words
            or (bool(self.prefixes) and word.startswith(self.prefixes))
            or any(t(word) for t in self.tests)
        )


@dataclass(frozen=True)
class Pattern:
    """A compiled word pattern (:func:`compile_pattern`)."""

    text: str
    elements: tuple[_Element, ...]
    at_start: bool = False


@dataclass(frozen=True)
class Found:
    """Where a pattern matched: words ``start`` to ``end`` (exclusive), and what it captured."""

    start: int
    end: int
    captured: Mapping[str, str] = field(default_factory=dict)


def compile_pattern(text: str, classes: Mapping[str, Predicate] | None = None) -> Pattern:
    """``text`` (the syntax of the module docstring) as a :class:`Pattern`; ``<name>`` elements
    are looked up in ``classes`` and then in :data:`CLASSES`."""
    known = {**CLASSES, **(classes or {})}
    specs = text.split()
    at_start = bool(specs) and specs[0] == "^"
    elements = tuple(_element(s, known, text) for s in specs[1 if at_start else 0 :])
    if not elements or all(
        e.optional or e.gap or e.not_next is not None or e.not_before is not None for e in elements
    ):
        raise ValueError(f"a word pattern must need at least one word: {text!r}")
    return Pattern(text, elements, at_start)


def _element(spec: str, classes: Mapping[str, Predicate], pattern: str) -> _Element:
    name = ""
    if "=" in spec[1:] and spec[0] not in "!~":
        name, spec = spec.split("=", 1)
    optional = len(spec) > 1 and spec.endswith("?")
    spec = spec.removesuffix("?") if optional else spec
    if spec == "...":
        return _Element(gap=True)
    if spec == "_":
        return _Element(any=True, optional=optional, name=name)
    if spec == "{A}":
        return _Element(anchor=True, optional=optional)
    if spec[0] == "!":
        return _Element(not_next=tuple(_element(part, classes, pattern) for part in spec[1:].split("+")))
    if spec[0] == "~":
        return _Element(not_before=_element(spec[1:], classes, pattern))
    plain: set[str] = set()
    prefixes: list[str] = []
    tests: list[Predicate] = []
    for alt in spec.split("|"):
        if alt.startswith("<") and alt.endswith(">"):
            if alt[1:-1] not in classes:
                raise ValueError(f"no word class {alt} in {pattern!r}")
            tests.append(classes[alt[1:-1]])
        elif alt.endswith("*") and len(alt) > 1:
            prefixes.append(alt[:-1])
        else:
            plain.add(alt)
    return _Element(frozenset(plain), tuple(prefixes), tuple(tests), optional=optional, name=name)


@functools.lru_cache(maxsize=1024)
def _compiled(text: str) -> Pattern:
    return compile_pattern(text)


def _pattern(p: Pattern | str) -> Pattern:
    return p if isinstance(p, Pattern) else _compiled(p)


def _match(
    els: tuple[_Element, ...],
    k: int,
    ws: Sequence[str],
    i: int,
    anchors: Sequence[tuple[str, ...]],
    got: dict[str, str],
) -> int:
    """The end of a match of ``els[k:]`` at word ``i`` (greedy, backtracking), or -1."""
    if k == len(els):
        return i
    el = els[k]
    if el.not_next is not None:
        if _match(el.not_next, 0, ws, i, anchors, {}) >= 0:
            return -1
        return _match(els, k + 1, ws, i, anchors, got)
    if el.not_before is not None:
        if i > 0 and el.not_before.accepts(ws[i - 1]):
            return -1
        return _match(els, k + 1, ws, i, anchors, got)
    if el.gap:
        for j in range(i, len(ws) + 1):
            end = _match(els, k + 1, ws, j, anchors, got)
            if end >= 0:
                return end
        return -1
    if el.anchor:
        for seq in anchors:
            if seq and tuple(ws[i : i + len(seq)]) == seq:
                end = _match(els, k + 1, ws, i + len(seq), anchors, got)
                if end >= 0:
                    return end
    elif i < len(ws) and el.accepts(ws[i]):
        if el.name:
            got[el.name] = ws[i]
        end = _match(els, k + 1, ws, i + 1, anchors, got)
        if end >= 0:
            return end
        got.pop(el.name, None)
    return _match(els, k + 1, ws, i, anchors, got) if el.optional else -1


def finditer(
    pattern: Pattern | str, ws: Sequence[str], anchors: Sequence[tuple[str, ...]] = ()
) -> Iterator[Found]:
    """Every match of ``pattern`` in the words ``ws``, leftmost first, not overlapping."""
    p = _pattern(pattern)
    head = p.elements[0]
    plain = not (
        head.optional
        or head.any
        or head.gap
        or head.anchor
        or head.not_next is not None
        or head.not_before is not None
    )
    i = 0
    while i < len(ws) or (i == 0 and not ws):
        if plain and not p.at_start and i < len(ws) and not head.accepts(ws[i]):
            i += 1  # a quick refusal: the pattern's first word is not here
            continue
        got: dict[str, str] = {}
        end = _match(p.elements, 0, ws, i, anchors, got)
        if end >= 0:
            yield Found(i, end, got)
            i = max(end, i + 1)
        else:
            i += 1
        if p.at_start:
            return


def search(
    pattern: Pattern | str, ws: Sequence[str], anchors: Sequence[tuple[str, ...]] = ()
) -> Found | None:
    """The first match of ``pattern`` in ``ws``, or None."""
    return next(finditer(pattern, ws, anchors), None)


def scan(
    rows: Iterable[tuple[Pattern | str, T]], ws: Sequence[str], anchors: Sequence[tuple[str, ...]] = ()
) -> Iterator[tuple[Found, T]]:
    """A table of patterns read as one alternation: at each word the first row that matches there
    (with its meaning), leftmost first, not overlapping."""
    compiled = [(_pattern(p), meaning) for p, meaning in rows]
    i = 0
    while i < len(ws) or (i == 0 and not ws):
        for p, meaning in compiled:
            if p.at_start and i > 0:
                continue
            got: dict[str, str] = {}
            end = _match(p.elements, 0, ws, i, anchors, got)
            if end >= 0:
                yield Found(i, end, got), meaning
                i = max(end, i + 1) - 1
                break
        i += 1


def first(
    rows: Iterable[tuple[Pattern | str, T]], ws: Sequence[str], anchors: Sequence[tuple[str, ...]] = ()
) -> tuple[Found, T] | None:
    """The leftmost match of any row's pattern (the earlier row when two start at one word) and
    its meaning, or None."""
    return next(scan(rows, ws, anchors), None)


def table(
    *rows: tuple[str, T], classes: Mapping[str, Predicate] | None = None
) -> tuple[tuple[Pattern, T], ...]:
    """Patterns as data: (word pattern, what it means) rows, compiled here."""
    return tuple((compile_pattern(p, classes), meaning) for p, meaning in rows)


def find_phrase(ws: Sequence[str], phrase: Sequence[str], start: int = 0) -> int:
    """Where the word sequence ``phrase`` first occurs in ``ws`` at or after ``start``, or -1."""
    n = len(phrase)
    if n == 0:
        return -1
    target = tuple(phrase)
    for i in range(start, len(ws) - n + 1):
        if tuple(ws[i : i + n]) == target:
            return i
    return -1


def has_phrase(ws: Sequence[str], phrases: Iterable[Sequence[str]]) -> bool:
    """Whether one of ``phrases`` (each a sequence of words) occurs in ``ws``."""
    return any(find_phrase(ws, p) >= 0 for p in phrases)
