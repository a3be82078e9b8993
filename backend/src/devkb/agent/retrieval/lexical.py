"""In-memory BM25 over documents, one inverted index per field (summary, body, comments, ...).

Why not the store's FTS5: a whole issue as the query (60+ distinct terms OR-ed) costs FTS5
0.7-1 s per query on the 22k-chunk Fluid corpus, and chunk-level scores miss terms spread over a
document's chunks. Here a query is a handful of sparse column slices: ~1-3 ms for 10k documents.

Scores are Okapi BM25 (k1, b) per field; fields are combined by weights at query time, so field
weighting needs no re-index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain

import numpy as np
from scipy import sparse

from devkb.agent.words import NAME, word_pattern

_TOKEN = word_pattern(NAME)  # the one tokeniser (words.py): letters and digits, nothing joined
# every ASCII character that is not a letter or digit separates words, as in ``_TOKEN``
_ASCII_SEPARATORS = str.maketrans({chr(i): " " for i in range(128) if not chr(i).isalnum()})


def split_words(text: str) -> list[str]:
    """``_TOKEN.findall(text.lower())``, about twice as fast: an ASCII line is split by
    ``str.translate`` and ``str.split`` (in C); only a line with other characters goes through the
    regular expression. Exact: a line break separates words, so lines tokenize independently."""
    low = text.lower()
    if low.isascii():
        return low.translate(_ASCII_SEPARATORS).split()
    out: list[str] = []
    for line in low.split("\n"):
        out += line.translate(_ASCII_SEPARATORS).split() if line.isascii() else _TOKEN.findall(line)
    return out


# A short English stop list (function words only): the remaining frequent words get a low idf anyway.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


def _stemmer() -> Callable[[list[str]], list[str]] | None:  # pragma: no cover - trivial
    try:
        import Stemmer  # PyStemmer: Snowball stemmers in C

        stem: Callable[[list[str]], list[str]] = Stemmer.Stemmer("english").stemWords
        return stem
    except ImportError:
        return None


class Tokenizer:
    """Lower-case word tokens, stop words and 1-character tokens dropped, Snowball-stemmed when
    PyStemmer is installed. Tokens longer than ``max_len`` (hashes, base64) are dropped too."""

    def __init__(self, stem: bool = True, max_len: int = 40) -> None:
        self.stem = _stemmer() if stem else None
        self.max_len = max_len
        # word → its token ("" when dropped): a query-time snapshot of candidates tokenizes
        # ~250k words per query, mostly words seen before (bounded: cleared when large)
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        words = split_words(text)
        cache = self._cache
        new = set(words).difference(cache)  # set operations and map/filter run in C
        if new:
            if len(cache) > 1_000_000:
                cache = self._cache = {}
                new = set(words)
            kept = [w for w in new if 1 < len(w) <= self.max_len and w not in STOPWORDS]
            stems = list(self.stem(kept)) if self.stem is not None else kept
            cache.update(dict.fromkeys(new, ""))
            cache.update(zip(kept, stems, strict=True))
        return list(filter(None, map(cache.__getitem__, words)))


class FieldIndex:
    """BM25 weights of one field: a documents × terms CSC matrix, so a query is a sum of columns."""

    def __init__(
        self, docs_tokens: Sequence[Sequence[str]], vocab: dict[str, int], k1: float, b: float
    ) -> None:
        # all at once in numpy: term ids through one dict lookup per token (new terms numbered in
        # order of first appearance), then (document, term) pairs counted by one sort
        counts = np.fromiter(map(len, docs_tokens), dtype=np.int64, count=len(docs_tokens))
        lengths = counts.astype(np.float32)
        new = [t for t in dict.fromkeys(chain.from_iterable(docs_tokens)) if t not in vocab]
        vocab.update(zip(new, range(len(vocab), len(vocab) + len(new)), strict=True))
        term_of = np.fromiter(
            map(vocab.__getitem__, chain.from_iterable(docs_tokens)), dtype=np.int64, count=int(counts.sum())
        )
        doc_of = np.repeat(np.arange(len(docs_tokens), dtype=np.int64), counts)
        width = max(1, len(vocab))
        pairs, tf = np.unique(doc_of * width + term_of, return_counts=True)
        rows_a, cols_a, tf_a = pairs // width, pairs % width, tf.astype(np.float32)
        self.n_docs = len(docs_tokens)
        avgdl = float(lengths.mean()) if self.n_docs and lengths.mean() > 0 else 1.0
        df = np.bincount(cols_a, minlength=len(vocab)).astype(np.float32)
        idf = np.log1p((self.n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        norm = k1 * (1 - b + b * lengths[rows_a] / avgdl)
        weights = idf[cols_a] * tf_a * (k1 + 1) / (tf_a + norm)
        self.df = df
        self.matrix = sparse.csc_matrix((weights, (rows_a, cols_a)), shape=(self.n_docs, len(vocab)))

    def resize(self, n_terms: int) -> None:
        if self.matrix.shape[1] < n_terms:
            self.matrix = sparse.csc_matrix(
                (
                    self.matrix.data,
                    self.matrix.indices,
                    np.concatenate(
                        [self.matrix.indptr, np.full(n_terms - self.matrix.shape[1], self.matrix.indptr[-1])]
                    ),
                ),
                shape=(self.n_docs, n_terms),
            )
            self.df = np.concatenate([self.df, np.zeros(n_terms - len(self.df), dtype=np.float32)])

    def scores(self, term_ids: np.ndarray, term_weights: np.ndarray) -> np.ndarray:
        if term_ids.size == 0:
            return np.zeros(self.n_docs, dtype=np.float32)
        cols = self.matrix[:, term_ids]
        return np.asarray(cols @ term_weights, dtype=np.float32).ravel()


class BM25Index:
    """BM25 over named fields of a fixed list of documents (rebuilt, not updated, on change:
    pass cached token lists to ``from_tokens`` and a rebuild costs only the matrix assembly)."""

    def __init__(
        self,
        doc_fields: Sequence[Mapping[str, str]],
        tokenizer: Tokenizer | None = None,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        tok = tokenizer or Tokenizer()
        names = sorted({name for fields in doc_fields for name in fields})
        tokens = {name: [tok(fields.get(name, "")) for fields in doc_fields] for name in names}
        self._build(tokens, len(doc_fields), tok, k1, b)

    @classmethod
    def from_tokens(
        cls,
        field_tokens: Mapping[str, Sequence[Sequence[str]]],
        tokenizer: Tokenizer,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> BM25Index:
        """``field_tokens[name][i]``: the tokens of field ``name`` of document ``i``."""
        self = cls.__new__(cls)
        n = len(next(iter(field_tokens.values()))) if field_tokens else 0
        self._build(field_tokens, n, tokenizer, k1, b)
        return self

    def _build(
        self,
        field_tokens: Mapping[str, Sequence[Sequence[str]]],
        n_docs: int,
        tokenizer: Tokenizer,
        k1: float,
        b: float,
    ) -> None:
        self.tokenizer = tokenizer
        self.vocab: dict[str, int] = {}
        self.fields: dict[str, FieldIndex] = {
            name: FieldIndex(tokens, self.vocab, k1, b) for name, tokens in sorted(field_tokens.items())
        }
        for f in self.fields.values():
            f.resize(len(self.vocab))
        self.n_docs = n_docs

    def query_terms(self, text: str, max_terms: int = 256) -> tuple[np.ndarray, np.ndarray]:
        """Term ids of the query's known terms and their weights (1 + log of the query count)."""
        counts = Counter(t for t in self.tokenizer(text) if t in self.vocab)
        items = counts.most_common(max_terms)
        ids = np.fromiter((self.vocab[t] for t, _ in items), dtype=np.int64, count=len(items))
        weights = np.fromiter((1.0 + np.log(c) for _, c in items), dtype=np.float32, count=len(items))
        return ids, weights

    def scores(
        self,
        text: str,
        field_weights: Mapping[str, float] | None = None,
        terms: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Weighted sum of the fields' BM25 scores for every document."""
        ids, weights = terms if terms is not None else self.query_terms(text)
        total = np.zeros(self.n_docs, dtype=np.float32)
        for name, f in self.fields.items():
            w = 1.0 if field_weights is None else field_weights.get(name, 0.0)
            if w:
                total += w * f.scores(ids, weights)
        return total

    def field_scores(self, text: str, names: Iterable[str]) -> dict[str, np.ndarray]:
        terms = self.query_terms(text)
        return {n: self.fields[n].scores(*terms) for n in names if n in self.fields}
