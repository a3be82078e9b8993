"""Offline Cypher check: every statement the Neo4j backend can emit goes through Neo4j's own parser
and semantic analysis (``@neo4j-cypher/language-support`` via ``tools/cypher-lint/lint.mjs``).

Statements = every constant in ``queries.py`` plus every path through its builders (each filter
field, each combination of optional clauses). ``test_cypher_store_paths.py`` checks that the store
emits nothing outside this set.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from devkb.store.models import FIND_FIELDS
from devkb.store.neo4j import queries as q

ROOT = Path(__file__).resolve().parents[3]
LINT_DIR = ROOT / "tools" / "cypher-lint"
PACKAGE = LINT_DIR / "node_modules" / "@neo4j-cypher" / "language-support" / "package.json"

BOOLS = (False, True)


def gather_statements() -> dict[str, q.Statement]:
    """Name → statement for every constant and every builder path."""
    out = dict(q.declared_statements())

    def add(name: str, built: tuple[q.Statement, dict] | None) -> None:
        assert built is not None, name
        stmt, params = built
        assert set(params) == stmt.params, name
        out.setdefault(f"{name}: {stmt.text}", stmt)

    for source, type_ in itertools.product((None, "jira"), (None, "JIRA")):
        add("document_ids", q.document_ids_query(source, type_))

    # clauses are AND-ed fragments: every combination of the optional ones, every filter field
    # alone, and all of them at once (the long statements are the slow ones to analyse)
    for filters, types, title, since, until in itertools.product(*([BOOLS] * 5)):
        add(
            "find_documents",
            q.find_documents_query(
                {"status": "x"} if filters else None,
                ["JIRA"] if types else None,
                "t" if title else None,
                "2026" if since else None,
                "2027" if until else None,
                10,
            ),
        )
    for field in FIND_FIELDS:
        add(f"find_documents[{field}]", q.find_documents_query({field: "x"}, None, None, None, None, 10))
        # each field with a type filter too (the full-flow test found this path missing)
        add(
            f"find_documents[{field}, types]",
            q.find_documents_query({field: "x"}, ["JIRA"], None, None, None, 10),
        )
    every_field = {f: ["a", "b"] for f in FIND_FIELDS}
    add("find_documents[all]", q.find_documents_query(every_field, ["JIRA"], "t", "2026", "2027", 10))

    emb = [0.1, 0.2]
    for types in (None, ["JIRA"]):
        add("vector_search[ann]", q.vector_search_query(emb, 5, types, None, 50))
        add("vector_search[exact ids]", q.vector_search_query(emb, 5, types, ["d"], None))
    add("vector_search[exact types]", q.vector_search_query(emb, 5, ["JIRA"], None, None))

    for types, ids in itertools.product((None, ["JIRA"]), (None, ["d"])):
        add("keyword_search", q.keyword_search_query("ledger drift", 5, types, ids))

    for direction, kinds, types in itertools.product(("out", "in", "both"), (None, ["k"]), (None, ["JIRA"])):
        add("neighbors", q.neighbors_query(["d"], direction, kinds, types, 10))

    for types, kinds in itertools.product((None, ["JIRA"]), (None, ["k"])):
        add("graph_nodes", q.graph_nodes_query(10, types, kinds))
    for kinds in (None, ["k"]):
        add("graph_edges", q.graph_edges_query(["d"], kinds))
    return out


def lint_schema() -> dict:
    return {
        "defaultLanguage": "CYPHER 5",
        "labels": list(q.LABELS),
        "relationshipTypes": list(q.RELATIONSHIP_TYPES),
        "propertyKeys": q.property_keys(),
        "graphSchema": [{"from": a, "to": b, "relType": t} for a, b, t in q.GRAPH_SCHEMA],
    }


@pytest.fixture(scope="module")
def linter():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: install Node.js 20+ to run the offline Cypher check")
    if not PACKAGE.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm not found: run `npm ci --prefix tools/cypher-lint` once")
        done = subprocess.run(
            [npm, "ci", "--prefix", str(LINT_DIR), "--no-audit", "--no-fund"],
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0 or not PACKAGE.exists():
            pytest.fail(
                "could not install @neo4j-cypher/language-support (offline?); with network access run "
                f"`npm ci --prefix tools/cypher-lint`:\n{done.stderr[-2000:]}"
            )

    def run(statements: dict[str, q.Statement], tmp: Path, cache: bool = True) -> dict:
        path = tmp / "statements.json"
        payload = {
            "schema": lint_schema(),
            "statements": [
                {"name": n, "query": s.text, "parameters": sorted(s.params)} for n, s in statements.items()
            ],
        }
        path.write_text(json.dumps(payload))
        flags = [] if cache else ["--no-cache"]
        done = subprocess.run(
            [node, str(LINT_DIR / "lint.mjs"), *flags, str(path)],
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode not in (0, 1) or not done.stdout:
            pytest.fail(f"lint.mjs failed ({done.returncode}): {done.stderr[-2000:]}")
        report = json.loads(done.stdout)
        assert report["checked"] == len(statements)
        return report

    return run


def _problems(report: dict) -> list[str]:
    return [
        f"{r['name']}\n    {d['severity']}: {d['message']} at {d['text']!r}"
        for r in report["results"]
        for d in r["diagnostics"]
    ]


def test_every_statement_passes_neo4j_parser_and_semantic_analysis(linter, tmp_path):
    statements = gather_statements()
    assert len(statements) > 80
    report = linter(statements, tmp_path)
    # warnings count too: an undeclared label, property or relationship direction is a typo here
    problems = _problems(report)
    assert not problems, "\n".join(problems)


def test_linter_catches_broken_statements(linter, tmp_path):
    broken = {
        "syntax": q.Statement("MATCH (d:Document {id: $id}) RETRN d", frozenset({"id"})),
        "undeclared parameter": q.Statement("MATCH (d:Document {id: $idz}) RETURN d", frozenset({"id"})),
        "undefined variable": q.Statement("MATCH (d:Document) RETURN c.id AS id", frozenset()),
        "unknown procedure": q.Statement(
            "CALL db.index.vector.queryNode('chunk_embeddings', 3, $e) YIELD node RETURN node",
            frozenset({"e"}),
        ),
        "typo in property": q.Statement("MATCH (d:Document) RETURN d.titel AS t", frozenset()),
    }
    report = linter(broken, tmp_path, cache=False)
    flagged = {r["name"]: r["diagnostics"] for r in report["results"]}
    for name in ("syntax", "undeclared parameter", "undefined variable", "unknown procedure"):
        assert any(d["severity"] == "error" for d in flagged[name]), name
    assert flagged["typo in property"], "an undeclared property key is reported"


def test_declared_parameters_are_all_used():
    for name, stmt in gather_statements().items():
        used = set(q._PARAM.findall(stmt.text))
        assert used == set(stmt.params), f"{name}: uses {sorted(used)}, declares {sorted(stmt.params)}"
