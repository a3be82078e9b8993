"""Confluence Cloud through the emulator's Cloud mode (under ``/wiki``, the REST API v2 for spaces,
pages and labels; every v2 response validated against Atlassian's published description): the
loader tells Cloud from Data Center by the site URL and builds the same documents, chunks and
edges as a Data Center sync of the same data — citations aside, which point at each deployment's
own page URLs."""

from __future__ import annotations

import json

import httpx
import pytest

from devkb.sources.confluence import ConfluenceLoader, ConfluenceLoaderConfig
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.emulators.vendor_check import SESSION_CHECK, description_available
from tests.demo_workspace import DEMO_DATA
from tests.hashing_embedder import HashingEmbedder
from tests.support import build_indexer

pytestmark = pytest.mark.integration
SPACE = "PAY"


def graph_of(url: str, tmp_path, page_size: int = 4) -> dict[str, object]:
    config = ConfluenceLoaderConfig(name="wiki", url=url, spaces=[SPACE], page_size=page_size, backoff=0.05)
    indexer = build_indexer(tmp_path, HashingEmbedder(), [ConfluenceLoader(config)])
    try:
        assert indexer.runs.run("wiki").state == "succeeded"
        store = indexer.store
        full = [store.get_document(i) for i in sorted(store.document_ids())]
        full = [f for f in full if f is not None]
        return {
            "documents": sorted(
                (
                    f.document.id,
                    f.document.title,
                    f.document.updated_at,
                    repr({k: v for k, v in f.document.metadata.items() if k not in ("url_paths", "acl")}),
                )
                for f in full
            ),
            "chunks": sorted((f.document.id, c.chunk_index, c.content) for f in full for c in f.chunks),
            "edges": sorted((r.from_id, r.to_id, r.kind) for r in store.references()),
        }
    finally:
        indexer.store.close()


def test_cloud_is_served_under_wiki_with_the_v2_api() -> None:
    with EmulatorSuite(Dataset.load(DEMO_DATA), confluence_deployment="cloud") as suite:
        assert suite.confluence_url.endswith("/wiki")
        spaces = httpx.get(f"{suite.confluence_url}/api/v2/spaces", params={"keys": SPACE}).json()
        assert [s["key"] for s in spaces["results"]] == [SPACE]
        assert (
            httpx.get(f"{suite.confluence.base_url}/rest/api/space").status_code == 404
        )  # nothing outside /wiki
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=[SPACE])
        )
        assert loader.cloud and loader.describe()["deployment"] == "cloud"


def test_cloud_and_data_center_syncs_build_the_same_graph(tmp_path) -> None:
    with EmulatorSuite(Dataset.load(DEMO_DATA), confluence_deployment="cloud") as suite:
        before = dict(SESSION_CHECK.checked)
        cloud = graph_of(suite.confluence_url, tmp_path / "cloud")
        checked = {
            p
            for (svc, _m, p), n in SESSION_CHECK.checked.items()
            if svc == "confluence" and n > before.get((svc, _m, p), 0)
        }
    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        dc = graph_of(suite.confluence_url, tmp_path / "dc")
    assert cloud["documents"] and cloud["chunks"] and cloud["edges"]
    assert cloud == dc
    if description_available("confluence-cloud-v2"):
        assert any(p.endswith("/pages") for p in checked) and any(p.endswith("/labels") for p in checked), (
            checked
        )


def test_an_incremental_cloud_sync_picks_up_an_edited_page(tmp_path) -> None:
    dataset = Dataset.load(DEMO_DATA)
    with EmulatorSuite(dataset, confluence_deployment="cloud") as suite:
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=[SPACE])
        )
        batches = list(loader.load(None))
        cursor = batches[-1].cursor
        page = next(p for p in dataset.pages() if (p.get("space") or {}).get("key") == SPACE)
        dataset.update_page(str(page["id"]), body="<p>Edited on the Cloud site.</p>")
        again = [d for b in loader.load(cursor) for d in b.documents]
    edited = [d for d in again if d.id == f"confluence:page:{page['id']}"]
    assert edited and "Edited on the Cloud site." in edited[0].content
    # besides the edit, only what sits in the minute of overlap before the cursor (CQL-like minute
    # precision; unchanged pages are then skipped by content hash)
    newest = max(json.loads(cursor).values())
    assert all(d.updated_at >= newest[:16] for d in again if d not in edited), [
        (d.id, d.updated_at) for d in again
    ]


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_page_comments_and_blog_posts_are_read_in_both_deployments(deployment: str) -> None:
    with EmulatorSuite(Dataset.load(DEMO_DATA), confluence_deployment=deployment) as suite:
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=[SPACE])
        )
        docs = {d.id: d for b in loader.load(None) for d in b.documents}
        listed = loader.list_ids()
    blog = docs["confluence:page:2100001"]
    assert (
        blog.kind == "blogpost"
        and blog.metadata["kind"] == "blogpost"
        and blog.title == "Idempotency keys are live"
    )
    assert "PAY-12" in blog.reference_text["body"]
    postmortem = next(d for d in docs.values() if d.title == "Postmortem 2026-04-14 Double Charges")
    assert "## Comments" in postmortem.content
    assert "Daniel Okafor (2026-04-25)" in postmortem.content and "tracked in PAY-15" in postmortem.content
    assert postmortem.metadata["comment_count"] == 2
    assert "PAY-15" in postmortem.reference_text["comment-1"]
    assert "confluence:page:2100001" in listed


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_read_restrictions_are_stored_with_the_page_own_and_inherited(deployment: str) -> None:
    """Enforcement is issue #17's; here the restrictions must arrive intact: a restricted page
    carries its own, and a page under a restricted one carries its ancestor's."""
    dataset = Dataset.load(DEMO_DATA)
    ops = next(p for p in dataset.pages() if p["title"] == "Operations")
    ops["_restrictions"] = {"users": [], "groups": [{"type": "group", "name": "ops-only"}]}
    with EmulatorSuite(dataset, confluence_deployment=deployment) as suite:
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=[SPACE])
        )
        docs = {d.title: d for b in loader.load(None) for d in b.documents}
    pci = docs["PCI Compliance Notes"].metadata["read_restrictions"]
    assert {
        "page_id": str(next(p["id"] for p in dataset.pages() if p["title"] == "PCI Compliance Notes")),
        "users": ["Aisha Khan"],
        "groups": ["payments-security"],
    } in pci
    assert {"page_id": str(ops["id"]), "users": [], "groups": ["ops-only"]} in pci  # inherited
    assert docs["Payment Outage Runbook"].metadata["read_restrictions"] == [
        {"page_id": str(ops["id"]), "users": [], "groups": ["ops-only"]}
    ]
    assert "read_restrictions" not in docs["Idempotency Keys Design"].metadata
