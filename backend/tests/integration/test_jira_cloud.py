"""Jira Cloud as it is today, through the emulator's Cloud mode (every response validated against
Atlassian's published OpenAPI description and the ADF schema by ``vendor_check``):

- the loader tells Cloud from Data Center by ``serverInfo.deploymentType`` and searches with
  ``/rest/api/3/search/jql`` and ``nextPageToken`` — the removed ``/rest/api/{2,3}/search`` answers 410
  and is never called;
- ADF descriptions and comments become the same text the Data Center API gives, so a Cloud sync and a
  Data Center sync of the same data build the same documents, chunks and edges;
- JQL dates are written in the bot account's time zone: in UTC−8, an issue edited a minute before the
  cursor is not lost.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from devkb.sources.jira import JiraLoader, JiraLoaderConfig
from devkb.sources.jira.convert import issue_to_document
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.emulators.jira import FIELD_NAMES
from devkb_devtools.emulators.vendor_check import SESSION_CHECK, description_available
from tests.demo_workspace import DEMO_DATA
from tests.hashing_embedder import HashingEmbedder
from tests.support import build_indexer

pytestmark = pytest.mark.integration


def loader(suite: EmulatorSuite, **kw) -> JiraLoader:
    config = JiraLoaderConfig(
        name="jira", url=suite.jira_url, browse_url="https://jira.example", page_size=7, backoff=0.05, **kw
    )
    return JiraLoader(config)


def graph_of(suite: EmulatorSuite, tmp_path, **kw) -> dict[str, object]:
    """Documents (id, title, text, metadata), chunk texts and edges after a full Jira sync."""
    indexer = build_indexer(tmp_path, HashingEmbedder(), [loader(suite, **kw)])
    try:
        assert indexer.runs.run("jira").state == "succeeded"
        store = indexer.store
        full = [store.get_document(i) for i in sorted(store.document_ids())]
        return {
            "documents": sorted(
                (
                    f.document.id,
                    f.document.title,
                    f.document.url,
                    f.document.updated_at,
                    repr(f.document.metadata),
                )
                for f in full
                if f is not None
            ),
            "chunks": sorted(
                (f.document.id, c.chunk_index, c.section, c.content)
                for f in full
                if f is not None
                for c in f.chunks
            ),
            "edges": sorted((r.from_id, r.to_id, r.kind, r.evidence) for r in store.all_references()),
        }
    finally:
        indexer.store.close()


@pytest.fixture
def cloud():
    with EmulatorSuite(Dataset.load(DEMO_DATA), jira_deployment="cloud") as suite:
        yield suite


def test_the_loader_detects_cloud_and_uses_search_jql_with_page_tokens(cloud) -> None:
    jira = loader(cloud)
    assert jira.deployment == "cloud"
    batches = list(jira.load(None))
    keys = [d.metadata["key"] for b in batches for d in b.documents]
    assert len(keys) == len(set(keys)) > 7  # more than one page of 7
    log = httpx.get(f"{cloud.jira_url}/_emulator/requests", params={"service": "jira"}).json()["requests"]
    searches = [r for r in log if "/search" in r["path"]]
    assert searches and all(r["path"] == "/rest/api/3/search/jql" for r in searches), searches
    assert any("nextPageToken=" in r["query"] for r in searches)
    assert all(r["status"] == 200 for r in log)


def test_the_removed_search_endpoints_answer_410(cloud) -> None:
    for version in ("2", "3"):
        r = httpx.get(f"{cloud.jira_url}/rest/api/{version}/search", params={"jql": "project = PAY"})
        assert r.status_code == 410
        assert "/rest/api/3/search/jql" in r.json()["errorMessages"][0]


def test_descriptions_and_comments_arrive_as_adf_and_index_as_the_data_center_text(cloud) -> None:
    issue = httpx.get(
        f"{cloud.jira_url}/rest/api/3/issue/PAY-12", params={"expand": "names,changelog"}
    ).json()
    assert issue["fields"]["description"]["type"] == "doc"
    assert all(c["body"]["type"] == "doc" for c in issue["fields"]["comment"]["comments"])
    assert "name" not in issue["fields"]["reporter"] and issue["fields"]["reporter"]["accountId"]
    raw = Dataset.load(DEMO_DATA).issue("PAY-12")
    assert raw is not None
    cloud_doc = issue_to_document(issue, "https://jira.example")
    dc_doc = issue_to_document(
        {**raw, "names": FIELD_NAMES}, "https://jira.example"
    )  # as search expand=names gives
    assert cloud_doc.content == dc_doc.content


@pytest.mark.skipif(not description_available("jira-cloud-platform"), reason="no vendor description here")
def test_every_cloud_response_was_checked_against_the_vendor_description(cloud) -> None:
    before = dict(SESSION_CHECK.checked)
    jira = loader(cloud)
    cursor = list(jira.load(None))[-1].cursor
    list(jira.load(cursor))  # incremental: asks /myself for the zone of its JQL dates
    jira.project_keys()
    checked = {k: n - before.get(k, 0) for k, n in SESSION_CHECK.checked.items() if n > before.get(k, 0)}
    paths = {path for (service, _method, path) in checked if service == "jira"}
    assert {"/rest/api/3/search/jql", "/rest/api/3/myself", "/rest/api/3/project/search"} <= paths, paths


def test_cloud_and_data_center_syncs_build_the_same_graph(tmp_path) -> None:
    with EmulatorSuite(Dataset.load(DEMO_DATA), jira_deployment="cloud") as suite:
        cloud_graph = graph_of(suite, tmp_path / "cloud")
    with EmulatorSuite(Dataset.load(DEMO_DATA), jira_deployment="datacenter") as suite:
        dc_graph = graph_of(suite, tmp_path / "dc")
    assert cloud_graph["documents"] and cloud_graph["chunks"] and cloud_graph["edges"]
    assert cloud_graph == dc_graph


@pytest.mark.parametrize("deployment", ["cloud", "datacenter"])
def test_a_bot_in_utc_minus_8_loses_no_issue_edited_just_before_the_cursor(deployment: str) -> None:
    """Jira reads JQL date literals in the caller's zone. Written in UTC, the cursor would be read
    eight hours late, and an issue edited between cursor and cursor + 8 h would be skipped."""
    dataset = Dataset.load(DEMO_DATA)
    with EmulatorSuite(dataset, jira_deployment=deployment, jira_time_zone="America/Los_Angeles") as suite:
        jira = loader(suite, deployment="auto")
        batches = list(jira.load(None))
        cursor = batches[-1].cursor
        assert cursor is not None
        assert str(jira.user_zone()) == "America/Los_Angeles"
        # an edit a minute after the newest update the first sync saw — before the next sync
        edited_at = datetime.fromisoformat(cursor).astimezone(UTC) + timedelta(minutes=1)
        dataset.update_issue("PAY-3", {"summary": "Edited just after the cursor"}, updated=edited_at)
        again = [d for b in jira.load(cursor) for d in b.documents]
        assert "jira:PAY-3" in {d.id for d in again}
        assert any(d.title.endswith("Edited just after the cursor") for d in again)


def test_a_long_history_is_read_whole_beyond_the_40_cloud_returns_with_an_issue() -> None:
    dataset = Dataset.load(DEMO_DATA)
    issue = dataset.issue("PAY-20")
    assert issue is not None
    author = issue["changelog"]["histories"][0]["author"]
    issue["changelog"]["histories"] = [
        {
            "id": str(90000 + i),
            "author": author,
            "created": f"2026-09-{1 + i // 24:02d}T{i % 24:02d}:00:00.000+0000",
            "items": [
                {"field": "status", "fieldtype": "jira", "fromString": "Open", "toString": "In Progress"}
            ],
        }
        for i in range(45)
    ]
    with EmulatorSuite(dataset, jira_deployment="cloud") as suite:
        searched = httpx.get(
            f"{suite.jira_url}/rest/api/3/search/jql",
            params={"jql": "key = PAY-20", "fields": "summary", "expand": "changelog"},
        ).json()["issues"][0]["changelog"]
        assert len(searched["histories"]) == 40 and searched["total"] == 45
        docs = [d for b in loader(suite).load(None) for d in b.documents if d.id == "jira:PAY-20"]
        log = httpx.get(f"{suite.jira_url}/_emulator/requests", params={"service": "jira"}).json()["requests"]
    assert len(docs[-1].metadata["history"]) == 45
    assert any(r["path"] == "/rest/api/3/issue/PAY-20/changelog" for r in log)
