"""A Confluence load's first documents reach the pipeline early: each page costs requests and
conversion of its own (its older versions), so the first page of search results is handed on in
batches of 4, 8, 16, … (``sources.base.ramp_up``) and the embedder starts after four pages
instead of a whole page of results. What a load delivers is unchanged: every page once, in the
order of the search, each batch's cursor covering the pages before it."""

from __future__ import annotations

import json

import pytest

from devkb.sources.base import RAMP_FIRST, ramp_up
from devkb.sources.confluence import ConfluenceLoader, ConfluenceLoaderConfig
from devkb_devtools.emulators import Dataset, EmulatorSuite
from tests.demo_workspace import DEMO_DATA

pytestmark = pytest.mark.integration


def test_ramp_up_doubles_from_the_first_group_and_keeps_every_item_once() -> None:
    assert [list(g) for g in ramp_up(list(range(18)))] == [
        [0, 1, 2, 3],
        [4, 5, 6, 7, 8, 9, 10, 11],
        [12, 13, 14, 15, 16, 17],
    ]
    assert [len(g) for g in ramp_up(list(range(100)))] == [4, 8, 16, 32, 40]
    assert [len(g) for g in ramp_up([1, 2], first=RAMP_FIRST)] == [2]
    assert list(ramp_up([])) == []


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_the_first_page_of_results_is_handed_on_in_growing_batches(deployment: str) -> None:
    extra = {"confluence_deployment": "cloud"} if deployment == "cloud" else {}
    with EmulatorSuite(Dataset.load(DEMO_DATA), **extra) as suite:

        def load(page_size: int) -> list:
            config = ConfluenceLoaderConfig(
                name="wiki", url=suite.confluence_url, spaces=["PAY"], page_size=page_size
            )
            return list(ConfluenceLoader(config).load(None))

        ramped = load(50)  # the demo space's 18 pages fit one page of results
        assert [len(b.documents) for b in ramped] == [4, 8, 6]
        paged = load(5)  # only the first page of results ramps up; later pages stay whole
        assert [len(b.documents) for b in paged] == [4, 1, 5, 5, 3]
    ids = [d.id for b in ramped for d in b.documents]
    assert len(ids) == len(set(ids)) == 18
    assert ids == [d.id for b in paged for d in b.documents]
    cursors = [json.loads(b.cursor)["PAY"] for b in ramped]
    assert cursors == sorted(cursors)  # each batch's cursor covers the pages before it
    for batch, cursor in zip(ramped, cursors, strict=True):
        assert max(d.updated_at for d in batch.documents) == cursor
    assert ramped[-1].cursor == paged[-1].cursor
