"""History through the emulators (docs/history.md): every version of every Fluid handbook page
is read on both Confluence deployments (Cloud v2 responses validated against Atlassian's
description), equals the recorded ``versions.jsonl.gz``, and a resync fetches only what is new;
commit diffs and Jira transitions come with the requests the loaders make anyway."""

from __future__ import annotations

import gzip
import json
import re
from datetime import UTC, datetime

import pytest

from devkb.indexing.references.context import LinkContext
from devkb.sources.confluence import ConfluenceLoader, ConfluenceLoaderConfig
from devkb.sources.confluence.storage_format import storage_to_text
from devkb.sources.timestamps import to_utc_iso
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.emulators.vendor_check import SESSION_CHECK, description_available
from tests.hashing_embedder import HashingEmbedder
from tests.support import build_indexer

pytestmark = pytest.mark.integration


def recorded_versions(fluid_dir) -> dict[tuple[str, int], dict]:
    with gzip.open(fluid_dir / "confluence" / "versions.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return {(f"confluence:page:{r['id']}", int(r["version"]["number"])): r for r in rows}


def version_requests(suite) -> list[str]:
    return [
        r.path
        for r in suite.faults.log.records(service="confluence")
        if re.search(r"(^|&)version=", r.query) or r.path.endswith("/versions")
    ]


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_every_page_version_is_read_once_and_equals_the_record(fluid_dir, tmp_path, deployment):
    recorded = recorded_versions(fluid_dir)
    dataset = Dataset.load(fluid_dir)
    with EmulatorSuite(dataset, confluence_deployment=deployment) as suite:
        before = dict(SESSION_CHECK.checked)
        config = ConfluenceLoaderConfig(
            name="handbook", url=suite.confluence_url, spaces=["ILDH"], backoff=0.05
        )
        keys = LinkContext(project_keys={"FLUID", "ILDH"})  # what a Jira source of the corpus would tell
        indexer = build_indexer(tmp_path, HashingEmbedder(), [ConfluenceLoader(config)], link_context=keys)
        try:
            assert indexer.runs.run("handbook").state == "succeeded"
            store = indexer.store
            stored = {
                (v.document_id, v.seq): v for i in store.document_ids() for v in store.versions(i, ["page"])
            }
            assert set(stored) == set(recorded)  # 721 versions of 115 pages
            for key, row in recorded.items():
                v = stored[key]
                assert v.valid_from == to_utc_iso(row["version"]["when"])
                assert v.message == row["version"]["message"]
                assert v.author == row["version"]["by"]["displayName"]
                assert v.body == storage_to_text(row["body"]["storage"]["value"]).text
            for doc_id in {k[0] for k in recorded}:
                # chained by number (a handbook page's git history is not always in date order)
                chain = sorted(store.versions(doc_id, ["page"]), key=lambda v: v.seq)
                assert [v.valid_until for v in chain] == [v.valid_from for v in chain[1:]] + [""]
            # keys named in edit messages are edges (FLUID-5493 in the handbook's first commits)
            assert any(r.kind == "jira-key-in-version-message" for r in store.all_references())
            # a version with its diff to the current one, as the API serves it
            from devkb.api.routers.documents import version as version_route

            changed = next(
                i
                for i in sorted({k[0] for k in recorded})
                if stored[(i, 1)].body
                != max((v for (d, _), v in stored.items() if d == i), key=lambda v: v.seq).body
            )
            detail = version_route(changed, 1, store, "page")
            assert detail.current_seq == max(n for d, n in recorded if d == changed)
            assert detail.diff_to_current.startswith(f"--- version 1\n+++ version {detail.current_seq}")
            first = len(version_requests(suite))
            assert first > 0

            suite.faults.log.clear()
            assert indexer.runs.run("handbook").state == "succeeded"
            assert version_requests(suite) == []  # unchanged: no version fetched

            dataset.update_page(
                "1000001", body="<p>Rewritten.</p>", when=datetime(2030, 1, 2, tzinfo=UTC), by="Ann Editor"
            )
            assert indexer.runs.run("handbook").state == "succeeded"
            again = version_requests(suite)
            # the new version is the page the search returned; Cloud lists versions for its message
            assert len(again) == (0 if deployment == "datacenter" else 1), again
            chain = sorted(store.versions("confluence:page:1000001", ["page"]), key=lambda v: v.seq)
            assert chain[-1].body.strip() == "Rewritten." and chain[-1].author == "Ann Editor"
            assert chain[-2].valid_until == chain[-1].valid_from == "2030-01-02T00:00:00+00:00"
        finally:
            indexer.close()
        if deployment == "cloud" and description_available("confluence-cloud-v2"):
            checked = {
                p
                for (svc, _m, p), n in SESSION_CHECK.checked.items()
                if svc == "confluence" and n > before.get((svc, _m, p), 0)
            }
            assert any(p.endswith("/versions") for p in checked), checked
