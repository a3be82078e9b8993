"""Real data has shapes the emulators never served: one test per shape, each through the real
loader (atlassian-python-api) against the Jira emulator on loopback, into the embedded store.

Invalid UTF-8 (in the emulator's data files and on the wire), nulls in every optional field, a
25,000-character stack trace, wiki markup and HTML, custom fields of every shape, a link visible only
from its inward side, and a link to an issue outside the synced scope."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from devkb.sources.jira import JiraLoader, JiraLoaderConfig
from devkb.sources.jira.convert import issue_to_document
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.emulators.jsonl import REPLACED_LINES
from tests.hashing_embedder import HashingEmbedder
from tests.support import build_indexer

pytestmark = pytest.mark.integration
STACK = "java.lang.IllegalStateException: boom\n" + "\n".join(
    f"\tat org.fluid.Component{i}.method{i}(Component{i}.java:{i})" for i in range(600)
)


def issue(key: str, summary: str, **fields: Any) -> dict[str, Any]:
    base = {
        "summary": summary,
        "description": f"{summary}.",
        "status": {"name": "Open"},
        "project": {"id": "1", "key": key.split("-")[0], "name": "Robust"},
        "issuetype": {"name": "Bug", "subtask": False},
        "created": "2026-01-01T10:00:00.000+0000",
        "updated": "2026-01-02T10:00:00.000+0000",
    }
    return {"id": str(abs(hash(key)) % 10**6), "key": key, "fields": {**base, **fields}}


def link(kind: str, side: str, other: str) -> dict[str, Any]:
    ltype = {"id": "1", "name": "Dependence", "inward": "is depended on by", "outward": "depends on"}
    return {
        "id": "9",
        "type": ltype,
        f"{side}Issue": {"key": other, "fields": {"summary": f"{other} summary"}},
    }


ISSUES = [
    issue(
        "ROB-1",
        "All optional fields null",
        description=None,
        environment=None,
        assignee=None,
        reporter=None,
        priority=None,
        resolution=None,
        resolutiondate=None,
        components=None,
        fixVersions=None,
        versions=None,
        labels=None,
        issuelinks=None,
        attachment=None,
        comment=None,
        parent=None,
        subtasks=None,
    ),
    issue("ROB-2", "Stack trace", description=STACK),
    issue(
        "ROB-3",
        "Wiki markup and HTML",
        description="h2. Steps\n# open [the runbook|https://wiki.example.com/display/PAY/Runbook]\n"
        '{code:java}int x = 1;{code}\n<b>bold</b> &amp; <a href="https://github.com/acme/payments/pull/7">PR</a>',
    ),
    issue(
        "ROB-4",
        "Custom fields of every shape",
        customfield_10100={"value": "Gold", "id": "3"},
        customfield_10101=[{"value": "a"}, {"value": None}],
        customfield_10102=None,
        customfield_10103=7.5,
        customfield_10104={"nested": {"deeper": [1, {"x": None}]}},
    ),
    # ROB-5 depends on ROB-6, but only ROB-6's record shows the link (its inward side)
    issue("ROB-5", "Depends, but its record does not say so", issuelinks=[]),
    issue("ROB-6", "Depended on", issuelinks=[link("Dependence", "inward", "ROB-5")]),
    # a link to an issue of a project that is not synced
    issue("ROB-7", "Depends on another team's issue", issuelinks=[link("Dependence", "outward", "OTHER-1")]),
    issue("ROB-8", "Bad bytes in the export", description="caf\u00e9 PLACEHOLDER_BAD_BYTES"),
]


def write_dataset(root: Path) -> Path:
    (root / "jira").mkdir(parents=True)
    (root / "jira" / "projects.json").write_text(json.dumps([{"id": "1", "key": "ROB", "name": "Robust"}]))
    lines = [json.dumps(i).encode() for i in ISSUES]
    lines = [line.replace(b"PLACEHOLDER_BAD_BYTES", b"\xff\xfe broken \xc3(") for line in lines]
    with gzip.open(root / "jira" / "issues.jsonl.gz", "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    return root


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    root = write_dataset(tmp_path_factory.mktemp("robust-data"))
    dataset = Dataset.load(root)
    with EmulatorSuite(dataset) as suite:
        config = JiraLoaderConfig(name="jira", url=suite.jira_url, projects=["ROB"], backoff=0.05)
        indexer = build_indexer(tmp_path_factory.mktemp("robust"), HashingEmbedder(), [JiraLoader(config)])
        run = indexer.runs.run("jira")
        assert run.state == "succeeded", run
        yield indexer.store, root
        indexer.store.close()


def test_invalid_utf8_in_the_data_is_replaced_and_counted_not_a_crash(graph) -> None:
    store, root = graph
    assert REPLACED_LINES[str(root / "jira" / "issues.jsonl.gz")] == 1
    text = "\n".join(c.content for c in store.get_document("jira:ROB-8").chunks)
    assert "café" in text and "\ufffd" in text and "broken" in text


def test_invalid_utf8_on_the_wire_is_replaced_not_a_crash(tmp_path) -> None:
    dataset = Dataset.load(write_dataset(tmp_path / "data"))
    with EmulatorSuite(dataset) as suite:
        suite.faults.inject("invalid_utf8", times=20, path_prefix="/rest/api/2/search")
        loader = JiraLoader(JiraLoaderConfig(name="jira", url=suite.jira_url, projects=["ROB"], backoff=0.05))
        docs = [d for b in loader.load(None) for d in b.documents]
    assert len({d.id for d in docs}) == len(ISSUES)
    assert any(d.title.startswith("ROB-") and "\ufffd" in d.title for d in docs)  # a summary took the bytes


def test_nulls_in_every_optional_field(graph) -> None:
    store, _ = graph
    doc = store.get_document("jira:ROB-1")
    assert doc is not None and doc.document.title == "ROB-1: All optional fields null"
    assert doc.document.metadata["status"] == "Open"


def test_a_25000_character_stack_trace_is_indexed_in_several_chunks(graph) -> None:
    store, _ = graph
    assert len(STACK) > 25_000
    doc = store.get_document("jira:ROB-2")
    assert len(doc.chunks) > 10
    assert "Component599.java:599" in "".join(c.content for c in doc.chunks)


def test_wiki_markup_and_html_keep_their_text_and_references(graph) -> None:
    store, _ = graph
    text = "\n".join(c.content for c in store.get_document("jira:ROB-3").chunks)
    assert "the runbook" in text and "int x = 1;" in text and "bold" in text
    assert "https://github.com/acme/payments/pull/7" in text


def test_custom_fields_of_every_shape_are_ignored_without_harm(graph) -> None:
    store, _ = graph
    assert store.get_document("jira:ROB-4").document.metadata["key"] == "ROB-4"


def test_a_link_seen_only_from_its_inward_side_is_an_edge(graph) -> None:
    store, _ = graph
    edges = {(r.from_id, r.to_id, r.kind) for r in store.references()}
    assert ("jira:ROB-5", "jira:ROB-6", "jira-issuelink") in edges
    # and one edge, not two, when both sides show it
    both = issue_to_document(
        issue("A-1", "a", issuelinks=[link("Dependence", "outward", "A-2")]), "https://x"
    )
    other = issue_to_document(
        issue("A-2", "b", issuelinks=[link("Dependence", "inward", "A-1")]), "https://x"
    )
    assert {(r.from_id, r.to_id, r.evidence) for r in both.references} == {
        (r.from_id, r.to_id, r.evidence) for r in other.references
    }


def test_a_link_to_an_issue_outside_the_synced_scope_waits_for_its_endpoint_and_is_not_quoted(
    graph,
) -> None:
    """Another project's issue may have other readers: its summary is not written into ROB-7's
    text (Jira shows a link only to whoever may browse both ends); the edge waits for it."""
    store, _ = graph
    text = "\n".join(c.content for c in store.get_document("jira:ROB-7").chunks)
    assert "OTHER-1" not in text
    assert ("jira:ROB-7", "jira:OTHER-1") in {(r.from_id, r.to_id) for r in store.all_references()}
    assert ("jira:ROB-7", "jira:OTHER-1") not in {(r.from_id, r.to_id) for r in store.references()}
