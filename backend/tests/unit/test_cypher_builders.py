"""Hostile values reach Neo4j only as parameters; only whitelisted names reach the query text."""

from __future__ import annotations

import re

import pytest

from devkb.errors import InvalidQueryError
from devkb.store.models import FIND_FIELDS, SourceType
from devkb.store.neo4j import queries as q

HOSTILE = [
    "'",
    '"',
    "}) DETACH DELETE n //",
    "x' OR '1'='1",
    '") MATCH (n) DETACH DELETE n RETURN 1 //',
    "\\",
    "\\' }) //",
    "$limit",
    "`Document`",
    "a\nMATCH (n) DELETE n",
    '+-&&||!(){}[]^"~*?:\\/',
    "title:secret AND NOT x*",
    "/* comment */",
    "\u202e unicode ✓",
]


def _absent(text: str, value: str, benign_text: str) -> bool:
    """The value did not get into the text (``$limit`` or ``'`` may be there legitimately)."""
    return text == benign_text and (value not in text or value in benign_text)


def _in_params(params: dict, needle: str) -> bool:
    def walk(v):
        if isinstance(v, str):
            yield v
        elif isinstance(v, (list, tuple)):
            for x in v:
                yield from walk(x)

    return any(needle in s for v in params.values() for s in walk(v))


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("field", sorted(FIND_FIELDS))
def test_find_filter_values_only_in_parameters(field, value):
    benign, _ = q.find_documents_query({field: "x"}, None, None, None, None, 5)
    for filt in ({field: value}, {field: [value, "ok"]}):
        stmt, params = q.find_documents_query(filt, None, None, None, None, 5)
        assert _absent(stmt.text, value, benign.text)  # the text depends on the shape, never on values
        assert _in_params(params, value.lower())
        assert set(params) == stmt.params


@pytest.mark.parametrize("value", HOSTILE)
def test_find_other_arguments_only_in_parameters(value):
    benign, _ = q.find_documents_query(None, ["JIRA"], "t", "a", "b", 5)
    stmt, params = q.find_documents_query(None, [value], value, value, value, 5)
    assert _absent(stmt.text, value, benign.text) and _in_params(params, value)


@pytest.mark.parametrize(
    "field",
    ["content) MATCH (n", "meta_status", "", "id ", "1abc", "title`", "__class__", "status\n", 5, None],
)
def test_unknown_filter_fields_raise(field):
    with pytest.raises(InvalidQueryError):
        q.find_documents_query({field: "x"}, None, None, None, None, 5)


@pytest.mark.parametrize("name", ["a b", "a-b", "a.b", "x`y", "1a", "", "é"])
def test_safe_name_rejects(name):
    with pytest.raises(InvalidQueryError):
        q.safe_name(name)


def test_meta_property_only_for_metadata_fields():
    assert q.meta_property("status") == "meta_status"
    for field in ("title", "nope", "status) DELETE n"):
        with pytest.raises(InvalidQueryError):
            q.meta_property(field)


def _other_builders(value: str) -> list:
    kw = q.keyword_search_query(value + " ledger", 5, [value], [value])
    assert kw is not None
    return [
        q.document_ids_query(value, value),
        q.vector_search_query([0.1, 0.2], 5, [value], [value], None),
        q.vector_search_query([0.1, 0.2], 5, [value], None, 50),
        q.neighbors_query([value], "both", [value], [value], 10),
        q.graph_nodes_query(10, [value], [value]),
        q.graph_edges_query([value], [value]),
        kw,
    ]


@pytest.mark.parametrize("value", HOSTILE)
def test_other_builders_keep_values_out_of_text(value):
    for (stmt, params), (benign, _) in zip(_other_builders(value), _other_builders("x"), strict=True):
        assert _absent(stmt.text, value, benign.text), stmt.text
        assert set(params) == stmt.params


def test_invalid_direction_raises():
    with pytest.raises(InvalidQueryError):
        q.neighbors_query(["a"], "out) DELETE n //", None, None, 10)


@pytest.mark.parametrize(
    "value", HOSTILE + ['ledger" OR "x', "NEAR(a b)", "a AND OR NOT", "*", "-ledger", ""]
)
def test_lucene_query_is_plain_terms(value):
    query = q.lucene_query(value)
    assert query == "" or re.fullmatch(r"\w+( OR \w+)*", query), query
    assert not re.search(r"\b(AND|NOT)\b", query)


def test_lucene_escape_escapes_every_metacharacter():
    escaped = q.lucene_escape('+-&|!(){}[]^"~*?:\\/')
    assert re.fullmatch(r"(\\.)+", escaped)


def test_keyword_query_without_terms_is_none():
    assert q.keyword_search_query("*** ---", 5, None, None) is None


def test_statement_bind_rejects_wrong_parameters():
    stmt, params = q.document_ids_query("jira", str(SourceType.JIRA))
    with pytest.raises(RuntimeError):
        stmt.bind({**params, "extra": 1})
    with pytest.raises(RuntimeError):
        stmt.bind({})
