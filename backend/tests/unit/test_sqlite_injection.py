"""Hostile values reach the embedded store only as SQL parameters, never as SQL or FTS5 syntax.

Every statement the store sends is recorded (a proxy around its connection) and checked: no
value appears in any SQL text. The results are checked too: a hostile value matches exactly the
document that literally contains it and nothing else, and the tables are intact afterwards.
(The Neo4j backend's builders are covered the same way in ``test_cypher_builders.py``.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from devkb.errors import InvalidQueryError
from devkb.store.models import FIND_FIELDS, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from tests.contract.store_contract import chunks, doc, seed

HOSTILE = [
    "'",
    '"',
    "x' OR '1'='1",
    'x" OR "1"="1',
    "'; DROP TABLE documents; --",
    "1; DELETE FROM chunks",
    "') UNION SELECT id, content, 1, 1, 1, 1, 1, 1 FROM chunks --",
    "%",
    "_",
    "%_%",
    "\\",
    "*",
    "NEAR(ledger refunds)",
    "ledger AND NOT webhook",
    "content:ledger",
    "^ledger",
    "ledger*",
    '"ledger"',
    "-ledger",
    "$.status",
    "$[0]",
    "$.a') OR 1=1 --",
    "x\x00y",
    "\u202e\u200f",
    "😀",
    "MATCH (n) DETACH DELETE n",
]
MARKER = "zq"  # every hostile value is wrapped in it, so "not in the SQL text" cannot be a coincidence


class RecordingConnection:
    """Delegates to a sqlite3 connection and records every statement with its parameters."""

    def __init__(self, conn, log: list[tuple[str, Any]]) -> None:
        self._conn = conn
        self._log = log

    def execute(self, sql: str, params: Any = ()):
        self._log.append((sql, params))
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows):
        rows = list(rows)
        self._log.append((sql, rows))
        return self._conn.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@pytest.fixture
def store(tmp_path):
    s = SQLiteGraphStore(tmp_path / "graph.sqlite")
    seed(s)
    yield s
    s.close()


@pytest.fixture
def recorded(store):
    """The SQL texts the store sends from now on."""
    log: list[tuple[str, Any]] = []
    real = store._conn
    store._conn = lambda: RecordingConnection(real(), log)  # type: ignore[method-assign]
    return log


def texts(log) -> str:
    return "\n".join(sql for sql, _ in log)


def baseline(store) -> tuple:
    s = store.stats()
    return s.documents, s.chunks, s.references, sorted(store.document_ids())


@pytest.mark.parametrize("raw", HOSTILE, ids=repr)
def test_query_paths_send_values_only_as_parameters(store, recorded, raw):
    value = f"{MARKER}{raw}{MARKER}"
    before = baseline(store)
    for field in sorted(FIND_FIELDS):
        assert store.find_documents({field: value}) == []
        assert store.find_documents({field: [value, "also-" + value]}) == []
    assert store.find_documents(types=[SourceType.JIRA], title_contains=value, updated_from=value) == []
    assert store.keyword_search(value, top_k=5, types=[SourceType.JIRA], document_ids=[value]) == []
    assert store.vector_search([1, 0, 0, 0], top_k=3, document_ids=[value]) == []
    assert store.neighbors([value], "both", kinds=[value], types=[SourceType.JIRA]) == []
    assert store.neighbors(["jira:PAY-1"], "out", kinds=[value]) == []
    page = store.graph_page(limit=10, kinds=[value], around=[value])
    assert page.nodes == [] and page.edges == []
    assert store.graph_page(limit=10, kinds=[value]).edges == []
    assert store.get_document(value) is None and store.get_documents([value]) == []
    assert store.content_hashes([value]) == {} and store.get_sync_state(value) is None
    assert store.document_ids(source=value) == set()
    assert MARKER not in texts(recorded), [sql for sql, _ in recorded if MARKER in sql]
    assert any(MARKER in str(params) for _, params in recorded)  # they did go to SQLite, as parameters
    assert baseline(store) == before


@pytest.mark.parametrize("raw", HOSTILE, ids=repr)
def test_a_hostile_value_matches_exactly_the_document_that_contains_it(store, recorded, raw):
    value = f"{MARKER}{raw}{MARKER}"
    d = doc("jira:EVIL-1", title=f"Title with {value} inside", status=value, component=[value, "api"])
    store.write_documents([(d, chunks(d, (f"body mentions {value} and ledger", [0, 0, 0, 1])))])
    # SQLite's JSON functions end a text value at NUL: such a metadata value cannot be matched
    # (never an error, never another document)
    expected = [] if "\x00" in value else ["jira:EVIL-1"]
    assert [x.id for x in store.find_documents({"status": value})] == expected
    assert [x.id for x in store.find_documents({"status": value.upper()})] == expected  # case-insensitive
    assert [x.id for x in store.find_documents({"component": [value]})] == expected
    assert [x.id for x in store.find_documents(title_contains=value)] == ["jira:EVIL-1"]
    assert store.find_documents({"status": value + "x"}) == []
    assert [h.document.id for h in store.keyword_search(value)][:1] in ([], ["jira:EVIL-1"])
    assert MARKER not in texts(recorded)
    assert store.stats().documents == 5


@pytest.mark.parametrize("wildcard", ["%", "_", "%%", "_%_"])
def test_like_wildcards_in_title_search_are_literal(store, wildcard):
    assert store.find_documents(title_contains=wildcard) == []
    d = doc("jira:PAY-9", title=f"100{wildcard} done")
    store.write_documents([(d, [])])
    assert [x.id for x in store.find_documents(title_contains=wildcard)] == ["jira:PAY-9"]


@pytest.mark.parametrize(
    "text", HOSTILE + ["ledger OR", "(", ")", '"unbalanced', "a:b:c", "NOT", "AND OR NOT"]
)
def test_keyword_search_never_sees_fts5_syntax(store, text):
    query = SQLiteGraphStore.fts_query(text)
    assert query == "" or re.fullmatch(r'"[^"]+"( OR "[^"]+")*', query), query
    store.keyword_search(text)  # never an fts5 syntax error
    hits = store.keyword_search(text + " ledger")
    assert "jira:PAY-1" in {h.document.id for h in hits}


@pytest.mark.parametrize(
    "field",
    [
        "content) OR 1=1 --",
        "status') --",
        "metadata",
        "rowid",
        "",
        "Status",
        5,
        None,
        "status; DROP TABLE documents",
    ],
)
def test_unknown_filter_fields_are_refused_before_any_sql(store, recorded, field):
    with pytest.raises(InvalidQueryError):
        store.find_documents({field: "x"})
    assert recorded == []


def test_direction_is_a_whitelist(store):
    with pytest.raises(InvalidQueryError):
        store.neighbors(["jira:PAY-1"], "out' OR 1=1 --")  # type: ignore[arg-type]
