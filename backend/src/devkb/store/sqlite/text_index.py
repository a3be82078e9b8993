"""A BM25 impact index beside the SQLite store, for full-text search on big stores.

Why: FTS5 OR-s the query words and calls ``bm25()`` on every chunk holding any of them, so at a
million chunks a question costs 400-600 ms (docs/benchmarks.md, Scale). Here each term's BM25
contribution to each chunk is computed once, at build time, and stored column by column
(term → the chunks holding it and their impacts). A query adds up its terms' columns into one
score array and takes the top k: the cost is the query terms' posting lengths, not a function
call per row. Scores are FTS5's own BM25 (k1 1.2, b 0.75, the same idf, the same Porter stemmer
and unicode61-like tokens), so the ranking matches the exact FTS5 query — with every word kept,
where the FTS5 path has to leave out the commonest above 100k chunks (``term_pruning.py``).

Files (``<store>.text-index/``, written to a temporary directory and renamed into place):
``meta.json`` (watermark rowid, row count, average length, parameters), ``vocab.json`` (term →
column), ``indptr.npy``, ``positions.npy`` (int32 row positions), ``impacts.npy`` (float32),
``rowids.npy`` and ``doc_rowids.npy`` (int64 per row). The arrays are memory-mapped: start-up
reads only ``vocab.json``, and memory is the page cache of the columns queries touch.

Consistency with writes, without rebuilding on every write: chunk rowids only grow (the table
is AUTOINCREMENT), so

- rows written after the build (rowid > watermark) are found through FTS5 restricted to that
  rowid range and scored here with the index's statistics (same formula, same tokens);
- deleted rows are read from ``chunk_tombstones`` and masked out;
- when the rows written or deleted since the build exceed ``stale_share`` of the index, the
  store rebuilds it in a background thread and swaps it in (until then the delta path keeps
  answers exact, only slower). While no index exists yet, FTS5 answers.
"""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import Stemmer
from scipy import sparse

log = logging.getLogger(__name__)

K1 = 1.2
B = 0.75
FORMAT = 1
_BATCH = 20_000


# ASCII as unicode61 sees it: letters lower-cased, every other non-alphanumeric character separates
_ASCII = {i: (chr(i).lower() if chr(i).isalnum() else " ") for i in range(128)}


class Unicode61Words:
    """A text's words as FTS5's ``unicode61`` tokenizer (its defaults: case folded, diacritics
    removed) makes them. ASCII is a fixed table; every other character is looked up once in SQLite's
    own tokenizer (an in-memory FTS5 table) — whether it separates words, is dropped (a combining
    mark) or what it folds to (``É`` → ``e``, ``İ`` → ``i``) — so the index's terms are FTS5's."""

    def __init__(self) -> None:
        self._table: dict[int, str] = dict(_ASCII)
        self._lock = threading.Lock()

    def __call__(self, text: str) -> list[str]:
        if not text.isascii():
            new = {c for c in text if ord(c) >= 128 and ord(c) not in self._table}
            if new:  # a lone surrogate (only a question can hold one) cannot reach SQLite: it separates
                self._learn(sorted(c for c in new if not 0xD800 <= ord(c) <= 0xDFFF))
                with self._lock:
                    self._table.update((ord(c), " ") for c in new if 0xD800 <= ord(c) <= 0xDFFF)
        return text.translate(self._table).split()

    def _learn(self, chars: list[str]) -> None:
        if not chars:
            return
        conn = sqlite3.connect(":memory:")
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61')")
            conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
            conn.executemany(
                "INSERT INTO t(rowid, x) VALUES (?, ?)", [(i, f"q{c}q") for i, c in enumerate(chars)]
            )
            found: dict[int, list[str]] = {}
            for term, doc in conn.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
                found.setdefault(int(doc), []).append(str(term))
        finally:
            conn.close()
        learnt = {}
        for i, c in enumerate(chars):
            terms = found.get(i, [])
            one = (
                len(terms) == 1 and terms[0].startswith("q") and terms[0].endswith("q") and len(terms[0]) >= 2
            )
            folded = terms[0][1:-1] if one else " "
            learnt[ord(c)] = folded if not folded.isspace() else " "
        with self._lock:
            self._table.update(learnt)


class TextTokenizer:
    """Tokens as FTS5's ``porter unicode61`` makes them: ``unicode61`` words, Porter-stemmed."""

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("porter")
        self._cache: dict[str, str] = {}
        self._lock = threading.Lock()
        self.words = Unicode61Words()

    def __call__(self, text: str) -> list[str]:
        words = self.words(text)
        cache = self._cache
        todo = [w for w in set(words) if w not in cache]
        if todo:
            stems = self._stemmer.stemWords(todo)
            with self._lock:
                if len(cache) > 2_000_000:
                    cache.clear()
                cache.update(zip(todo, stems, strict=True))
        return [cache.get(w) or self._stemmer.stemWord(w) for w in words]

    def stems(self, words: list[str]) -> list[str]:
        """Each word's stem (as ``__call__`` gives it)."""
        return [str(s) for s in self._stemmer.stemWords(words)]


def idf(rows: int, df: np.ndarray) -> np.ndarray:
    """FTS5's idf: ln((N − n + 0.5) / (n + 0.5)), at least 1e-6."""
    values = np.log((rows - df + 0.5) / (df + 0.5))
    return np.where(values <= 0, 1e-6, values).astype(np.float32)


@dataclass
class _Loaded:
    path: Path
    build_id: str
    watermark: int
    rows: int
    avgdl: float
    vocab: dict[str, int]
    df: np.ndarray
    indptr: np.ndarray
    positions: np.ndarray
    impacts: np.ndarray
    rowids: np.ndarray
    doc_rowids: np.ndarray


def index_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".text-index")


def build(conn: sqlite3.Connection, target: Path, tokenizer: TextTokenizer | None = None) -> dict[str, Any]:
    """Build the index of every chunk in ``conn``'s store into ``target`` (replaced atomically)."""
    started = time.perf_counter()
    tok = tokenizer or TextTokenizer()
    watermark = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0])
    vocab: dict[str, int] = {}  # stem → term id
    word_ids: dict[str, int] = {}  # word → its stem's term id
    rowids: list[np.ndarray] = []
    doc_rowids: list[np.ndarray] = []
    terms: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    per_row_parts: list[np.ndarray] = []
    last = 0
    while True:
        batch = conn.execute(
            "SELECT c.rowid, d.rowid, c.content FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE c.rowid > ? AND c.rowid <= ? ORDER BY c.rowid LIMIT ?",
            (last, watermark, _BATCH),
        ).fetchall()
        if not batch:
            break
        last = int(batch[-1][0])
        rowids.append(np.fromiter((r[0] for r in batch), np.int64, len(batch)))
        doc_rowids.append(np.fromiter((r[1] for r in batch), np.int64, len(batch)))
        words = [tok.words(r[2]) for r in batch]
        lens = np.fromiter(map(len, words), np.int64, len(batch))
        # each distinct word is stemmed and given its term id once; every token is then one C-level
        # dict lookup (no Python loop per token)
        new = [
            w for w in dict.fromkeys(chain.from_iterable(words)) if w not in word_ids
        ]  # in first-use order
        for word, stem in zip(new, tok.stems(new), strict=True):
            word_ids[word] = vocab.setdefault(stem, len(vocab))
        flat = np.fromiter(map(word_ids.__getitem__, chain.from_iterable(words)), np.int64, int(lens.sum()))
        # one sort per batch: (row, term) keys → each row's distinct terms and their counts
        keys = (np.repeat(np.arange(len(batch), dtype=np.int64), lens) << 32) | flat
        uniq, cnt = np.unique(keys, return_counts=True)
        terms.append((uniq & 0xFFFFFFFF).astype(np.int32))
        counts.append(cnt.astype(np.float32))
        per_row_parts.append(np.bincount(uniq >> 32, minlength=len(batch)))
        lengths.append(lens.astype(np.int32))
    n = sum(len(r) for r in rowids)
    dl = np.concatenate(lengths).astype(np.float32) if n else np.zeros(0, np.float32)
    per_row = np.concatenate(per_row_parts).astype(np.int64) if per_row_parts else np.zeros(0, np.int64)
    indptr = np.concatenate([[0], np.cumsum(per_row)]).astype(np.int64)
    col = np.concatenate(terms) if terms else np.zeros(0, np.int32)
    tf = np.concatenate(counts) if counts else np.zeros(0, np.float32)
    del terms, counts
    avgdl = float(dl.mean()) if n and dl.sum() else 1.0
    df = np.bincount(col, minlength=len(vocab)).astype(np.int64)
    norm = np.repeat(K1 * (1 - B + B * dl / avgdl), per_row)
    impact = idf(n, df)[col] * tf * (K1 + 1) / (tf + norm)
    del tf, norm
    csc = sparse.csr_matrix((impact.astype(np.float32), col, indptr), shape=(n, max(1, len(vocab)))).tocsc()
    del impact, col
    tmp = target.with_name(target.name + f".tmp-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    np.save(tmp / "indptr.npy", csc.indptr.astype(np.int64))
    np.save(tmp / "positions.npy", csc.indices.astype(np.int32))
    np.save(tmp / "impacts.npy", csc.data.astype(np.float32))
    np.save(tmp / "rowids.npy", np.concatenate(rowids) if rowids else np.zeros(0, np.int64))
    np.save(tmp / "doc_rowids.npy", np.concatenate(doc_rowids) if doc_rowids else np.zeros(0, np.int64))
    np.save(tmp / "df.npy", df)
    (tmp / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    meta = {
        "format": FORMAT,
        "build_id": f"{time.time_ns()}-{os.getpid()}",
        "watermark": watermark,
        "rows": n,
        "avgdl": avgdl,
        "k1": K1,
        "b": B,
        "postings": int(csc.nnz),
        "seconds": time.perf_counter() - started,
    }
    (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    old = target.with_name(target.name + f".old-{os.getpid()}-{threading.get_ident()}")
    if target.exists():
        target.rename(old)
    tmp.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    log.info(
        "full-text index: %d chunks, %d terms, %d postings in %.1f s", n, len(vocab), csc.nnz, meta["seconds"]
    )
    return meta


def _load(path: Path) -> _Loaded | None:
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            return None
        vocab = json.loads((path / "vocab.json").read_text(encoding="utf-8"))

        def arr(name: str) -> np.ndarray:
            loaded: np.ndarray = np.load(path / name, mmap_mode="r")
            return loaded

        return _Loaded(
            path=path,
            build_id=str(meta["build_id"]),
            watermark=int(meta["watermark"]),
            rows=int(meta["rows"]),
            avgdl=float(meta["avgdl"]),
            vocab=vocab,
            df=np.asarray(arr("df.npy")),
            indptr=np.asarray(arr("indptr.npy")),
            positions=arr("positions.npy"),
            impacts=arr("impacts.npy"),
            rowids=arr("rowids.npy"),
            doc_rowids=arr("doc_rowids.npy"),
        )
    except (OSError, ValueError, KeyError) as e:
        log.warning("full-text index at %s unreadable (%s): not used", path, e)
        return None


class TextIndex:
    """The impact index of one store: loads it lazily, answers top-k BM25, notices writes and
    deletes through the rowid watermark and ``chunk_tombstones``, and rebuilds in the background
    when the store has ``min_rows`` chunks and the index is missing or stale."""

    def __init__(
        self, db_path: Path, min_rows: int = 100_000, stale_share: float = 0.1, auto_build: bool = True
    ) -> None:
        self.path = index_dir(db_path)
        self.db_path = db_path
        self.min_rows = min_rows
        self.stale_share = stale_share
        self.auto_build = auto_build
        self.tokenizer = TextTokenizer()
        self._lock = threading.Lock()
        self._index: _Loaded | None = None
        self._generation: int | None = None
        self._usable = False
        self._deleted = np.zeros(0, np.int64)  # positions in the index of deleted rows
        self._delta_rows = 0
        self._building: threading.Thread | None = None

    # -- state ---------------------------------------------------------------------------
    def current(self, conn: sqlite3.Connection, generation: int) -> _Loaded | None:
        """The loaded index with deletions known up to ``generation`` (None: not usable)."""
        with self._lock:
            if generation == self._generation:
                return self._index if self._usable else None
        meta_build = self._build_id_on_disk()
        index = self._index
        if meta_build is None:
            index = None
        elif index is None or index.build_id != meta_build:
            index = _load(self.path)
        rows = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        if index is not None:  # rowids only grow: a lower sequence means another database file
            seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").fetchone()
            if seq is None or int(seq[0]) < index.watermark:
                log.warning("full-text index at %s is not this database's: ignored", self.path)
                index = None
        deleted = np.zeros(0, np.int64)
        delta = 0
        if index is not None:
            gone = np.fromiter(
                (
                    r[0]
                    for r in conn.execute(
                        "SELECT chunk_rowid FROM chunk_tombstones WHERE chunk_rowid <= ?", (index.watermark,)
                    )
                ),
                np.int64,
            )
            if gone.size:  # rows deleted before the build are not in it
                pos = np.searchsorted(index.rowids, gone)
                inside = pos < len(index.rowids)
                pos, gone = pos[inside], gone[inside]
                deleted = np.unique(pos[np.asarray(index.rowids[pos]) == gone])
            delta = int(
                conn.execute("SELECT count(*) FROM chunks WHERE rowid > ?", (index.watermark,)).fetchone()[0]
            )
        usable = index is not None and (rows >= self.min_rows or not self.auto_build)
        with self._lock:
            self._index, self._generation, self._usable = index, generation, usable
            self._deleted, self._delta_rows = deleted, delta
        stale = index is None or (deleted.size + delta) > self.stale_share * max(index.rows, 1)
        if self.auto_build and rows >= self.min_rows and stale:
            self.start_build()
        return index if usable else None

    def _build_id_on_disk(self) -> str | None:
        try:
            return str(json.loads((self.path / "meta.json").read_text(encoding="utf-8"))["build_id"])
        except (OSError, ValueError, KeyError):
            return None

    def build_now(self) -> dict[str, Any]:
        """Build (or rebuild) the index from the store now, in this thread."""
        conn = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30)
        try:
            meta = build(conn, self.path, self.tokenizer)
        finally:
            conn.close()
        with self._lock:
            self._generation = None  # reload at the next query
        return meta

    def start_build(self) -> None:
        with self._lock:
            if self._building is not None and self._building.is_alive():
                return
            thread = threading.Thread(target=self._build_quietly, name="full-text-index-build", daemon=True)
            self._building = thread
        log.info("full-text index missing or stale at %s: building it in the background", self.path)
        thread.start()

    def _build_quietly(self) -> None:
        try:
            self.build_now()
        except Exception:
            log.exception("building the full-text index failed; FTS5 answers meanwhile")

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a background build (tests, benchmarks)."""
        thread = self._building
        if thread is not None:
            thread.join(timeout)

    # -- search --------------------------------------------------------------------------
    def search(
        self,
        conn: sqlite3.Connection,
        index: _Loaded,
        query: str,
        top_k: int,
        allowed_docs: np.ndarray | None = None,
    ) -> list[tuple[int, float]]:
        """``(chunk rowid, BM25)`` of the best ``top_k`` chunks, best first; ``allowed_docs``:
        document rowids the hits must belong to."""
        words = list(dict.fromkeys(self.tokenizer(query)))[:64]
        if not words or top_k <= 0:
            return []
        with self._lock:
            deleted, delta_rows = self._deleted, self._delta_rows
        cols = [index.vocab[w] for w in words if w in index.vocab]
        scores = np.zeros(index.rows, dtype=np.float32)
        for c in cols:
            lo, hi = int(index.indptr[c]), int(index.indptr[c + 1])
            scores[index.positions[lo:hi]] += index.impacts[lo:hi]
        if deleted.size:
            scores[deleted] = 0.0
        if allowed_docs is not None:
            scores[~np.isin(index.doc_rowids, allowed_docs)] = 0.0
        if top_k < scores.size:  # one partial sort of the whole array (no list of matches first)
            found = np.argpartition(scores, scores.size - top_k)[scores.size - top_k :]
        else:
            found = np.arange(scores.size)
        found = found[scores[found] > 0]
        out = [(int(index.rowids[i]), float(scores[i])) for i in found]
        if delta_rows:
            raw = list(dict.fromkeys(self.tokenizer.words(query)))[:64]  # FTS5 stems them itself
            out += self._delta(conn, index, words, raw, top_k, allowed_docs)
        out.sort(key=lambda x: (-x[1], x[0]))
        return out[:top_k]

    def _delta(
        self,
        conn: sqlite3.Connection,
        index: _Loaded,
        words: Sequence[str],
        raw: Sequence[str],
        top_k: int,
        allowed_docs: np.ndarray | None,
    ) -> list[tuple[int, float]]:
        """Rows written after the build that hold a query term, scored with the index's
        statistics (idf from its document frequencies, its average length). ``words``: the
        query's stems; ``raw``: its words as typed, for FTS5 (which stems them itself)."""
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in raw)
        rows = conn.execute(
            "SELECT c.rowid, d.rowid, c.content FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid "
            "JOIN documents d ON d.id = c.document_id WHERE chunks_fts MATCH ? AND f.rowid > ?",
            (match, index.watermark),
        ).fetchall()
        allowed = set(allowed_docs.tolist()) if allowed_docs is not None else None
        weights = {
            w: float(idf(index.rows, np.asarray([index.df[index.vocab[w]] if w in index.vocab else 0]))[0])
            for w in words
        }
        scored = []
        for rowid, doc_rowid, content in rows:
            if allowed is not None and doc_rowid not in allowed:
                continue
            tokens = self.tokenizer(content)
            norm = K1 * (1 - B + B * len(tokens) / index.avgdl)
            tf: dict[str, int] = {}
            for t in tokens:
                if t in weights:
                    tf[t] = tf.get(t, 0) + 1
            s = sum(weights[t] * f * (K1 + 1) / (f + norm) for t, f in tf.items())
            if s > 0 and not math.isnan(s):
                scored.append((int(rowid), float(s)))
        scored.sort(key=lambda x: -x[1])
        return scored[:top_k]
