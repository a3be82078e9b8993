"""The structured find's metadata and date conditions go through neo4j-haystack's Haystack-filter
to Cypher converter (``queries.haystack_where``): what the store sends through a recording driver
is that converter's expression, with exactly its parameters, and passes the offline Cypher check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devkb.errors import InvalidQueryError
from devkb.store.models import SourceType
from devkb.store.neo4j import Neo4jGraphStore
from devkb.store.neo4j import queries as q
from tests.unit.test_cypher_lint import _problems, linter  # noqa: F401 (fixture)
from tests.unit.test_cypher_store_paths import RecordingDriver


def _find(**kwargs: Any) -> tuple[str, dict[str, Any]]:
    driver = RecordingDriver()
    Neo4jGraphStore(driver, database="kb").find_documents(**kwargs)  # type: ignore[arg-type]
    assert len(driver.sent) == 1
    text, params, how = driver.sent[0]
    assert how == "r"  # a read, routed to a reader
    return text, params


def test_metadata_and_dates_are_the_converters_expression_with_exactly_its_parameters() -> None:
    text, params = _find(
        filters={"status": ["Open", "Done"], "component": "Ledger", "title": "Ledger Drift"},
        types=[SourceType.JIRA],
        updated_from="2026-01-01",
        updated_to="2026-12-31",
    )
    # a list-valued property matches when any element is among the (lower-cased) values
    assert "any(val IN d.meta_status WHERE val IN $fv_meta_status)" in text
    assert "any(val IN d.meta_component WHERE val IN $fv_meta_component)" in text
    assert "d.updated_at >= $fv_updated_at AND d.updated_at <= $fv_updated_at_1" in text
    assert "toLower(d.title) IN $f2" in text  # document fields stay devkb's own (toLower on the property)
    expected = {
        "fv_meta_status": ["open", "done"],
        "fv_meta_component": ["ledger"],
        "fv_updated_at": "2026-01-01",
        "fv_updated_at_1": "2026-12-31",
        "f2": ["ledger drift"],
        "types": ["JIRA"],
        "limit": 50,
    }
    assert params == expected
    assert set(q._PARAM.findall(text)) == set(params)


def test_what_the_store_sends_through_the_converter_passes_the_cypher_check(
    linter: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    sent = {
        _find(filters={"status": "open"})[0],
        _find(filters={"component": ["a", "b"]}, types=[SourceType.JIRA], updated_from="2026")[0],
        _find(updated_to="2027")[0],
    }
    statements = {
        f"sent {i}": q.Statement(t, frozenset(q._PARAM.findall(t))) for i, t in enumerate(sorted(sent))
    }
    problems = _problems(linter(statements, tmp_path))
    assert not problems, "\n".join(problems)


def test_a_field_outside_the_whitelist_never_reaches_the_converter() -> None:
    with pytest.raises(InvalidQueryError):
        q.find_documents_query({"status) OR true //": "x"}, None, None, None, None, 10)
    assert q.haystack_where([]) == ("", {})
