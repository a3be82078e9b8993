"""Leave the commonest words out of big full-text queries.

FTS5 ranks every chunk holding any word of an OR query, so at a million chunks a question with
"the", "is" or "not" in it ranks most of the table (seconds, docs/benchmarks.md, Scale). BM25
gives such words almost no weight — idf = ln(1 + (N − n + 0.5) / (n + 0.5)) is ~1.6 for a word in
a fifth of the chunks against ~10 for a rare one — so they cost nearly all the time and decide
almost nothing. :class:`TermPruner` drops the words found in more than ``max_share`` of the
chunks, keeping at least the ``keep_at_least`` rarest, and only once the table has
``min_rows`` chunks: smaller stores (every corpus the retrieval evaluation measures) keep the
exact query.

Document frequencies come from an ``fts5vocab`` table over the index (per stemmed term: the
porter stem of each word is read back from a connection-local scratch FTS5 table with the same
tokenizer) and are cached until the store's write generation changes.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

TOKENIZER = "porter unicode61"  # the chunks_fts tokenizer (schema.py)


class TermPruner:
    def __init__(self, min_rows: int = 100_000, max_share: float = 0.2, keep_at_least: int = 2) -> None:
        self.min_rows = min_rows
        self.max_share = max_share
        self.keep_at_least = keep_at_least
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._rows = 0
        self._df: dict[str, int] = {}

    def prune(self, conn: sqlite3.Connection, generation: int, words: Sequence[str]) -> list[str]:
        """``words`` without the commonest ones (order kept), or unchanged for a small table."""
        if len(words) <= self.keep_at_least:
            return list(words)
        with self._lock:
            if generation != self._generation:
                self._generation, self._df = generation, {}
                self._rows = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            rows = self._rows
        if rows < self.min_rows:
            return list(words)
        df = self.frequencies(conn, words)
        limit = self.max_share * rows
        rarest = set(sorted(words, key=lambda w: df.get(w, 0))[: self.keep_at_least])
        return [w for w in words if df.get(w, 0) <= limit or w in rarest]

    def frequencies(self, conn: sqlite3.Connection, words: Sequence[str]) -> dict[str, int]:
        """Chunks holding each word (through its stem), cached per generation."""
        with self._lock:
            known = {w: self._df[w] for w in words if w in self._df}
        todo = [w for w in words if w not in known]
        if todo:
            stems = self._stems(conn, todo)
            for w in todo:
                stem = stems.get(w)
                row = (
                    conn.execute("SELECT doc FROM temp.devkb_chunks_vocab WHERE term = ?", (stem,)).fetchone()
                    if stem
                    else None
                )
                known[w] = int(row[0]) if row else 0
            with self._lock:
                self._df.update({w: known[w] for w in todo})
        return known

    @staticmethod
    def _stems(conn: sqlite3.Connection, words: Sequence[str]) -> dict[str, str]:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.devkb_query_tokens USING fts5(w, tokenize='{TOKENIZER}')"
        )
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.devkb_query_vocab "
            "USING fts5vocab(temp, devkb_query_tokens, instance)"
        )
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.devkb_chunks_vocab USING fts5vocab(main, chunks_fts, row)"
        )
        conn.execute("DELETE FROM temp.devkb_query_tokens")
        conn.executemany(
            "INSERT INTO temp.devkb_query_tokens(rowid, w) VALUES (?, ?)",
            [(i + 1, w) for i, w in enumerate(words)],
        )
        by_row = {
            int(doc): term for doc, term in conn.execute("SELECT doc, term FROM temp.devkb_query_vocab")
        }
        conn.execute("DELETE FROM temp.devkb_query_tokens")
        return {w: by_row[i + 1] for i, w in enumerate(words) if i + 1 in by_row}
