"""The Jira loader end to end: the real atlassian-python-api client against the Jira emulator
serving a slice of the Fluid corpus, the real pipeline and embedder, the embedded store.

The slice is the KETTLE project (90 issues): small enough to embed in seconds, with issue links
inside and outside the slice."""

from __future__ import annotations

import gzip
import json

import pytest

from devkb.errors import SourceError
from devkb.indexing.components.splitter import KindAwareSplitter
from devkb.indexing.pipeline import to_haystack
from devkb.sources.jira import JiraLoader, JiraLoaderConfig
from devkb.sources.jira.convert import issue_to_document
from devkb.store.models import SourceType
from devkb_devtools.emulators import Dataset, EmulatorSuite
from tests.support import build_indexer

pytestmark = [pytest.mark.integration, pytest.mark.corpus]

PROJECT = "KETTLE"
BROWSE = "https://jira.example.test"


@pytest.fixture(scope="module")
def fluid_dataset(fluid_dir):
    return Dataset.load(fluid_dir)


@pytest.fixture
def suite(fluid_dataset):
    with EmulatorSuite(fluid_dataset.clone()) as s:
        yield s


def loader_for(suite, page_size: int = 25, **kw) -> JiraLoader:
    cfg = JiraLoaderConfig(
        name="jira",
        url=suite.jira_url,
        projects=[PROJECT],
        browse_url=BROWSE,
        page_size=page_size,
        backoff=0.05,
        **kw,
    )
    return JiraLoader(cfg)


def expected_graph(dataset: Dataset, fluid_dir) -> dict:
    """Documents, chunks and issue-link edges the slice must produce, computed independently of
    the sync (conversion + splitting of the emulator's current issues; edges from ground truth)."""
    issues = [i for i in dataset.issues() if i["fields"]["project"]["key"] == PROJECT]
    docs = [issue_to_document(i, BROWSE) for i in issues]
    chunks = KindAwareSplitter().run([to_haystack(d, "jira") for d in docs])["chunks"]
    keys = {i["key"] for i in issues}
    with gzip.open(fluid_dir / "eval" / "edges.jsonl.gz", "rt") as f:
        truth = [json.loads(line) for line in f]
    links = {
        (e["from"], e["to"])
        for e in truth
        if e["kind"] == "jira-issuelink" and e["from"][5:] in keys and e["to"][5:] in keys
    }
    return {
        "documents": len(docs),
        "chunks": len(chunks),
        "links": links,
        "hashes": {d.id: d.content_hash for d in docs},
    }


def visible_links(store) -> set[tuple[str, str]]:
    return {(r.from_id, r.to_id) for r in store.references() if r.kind == "jira-issuelink"}


def assert_graph(store, expected) -> None:
    stats = store.stats()
    assert stats.documents == expected["documents"]
    assert stats.chunks == expected["chunks"]
    assert visible_links(store) == expected["links"]
    assert store.content_hashes(list(expected["hashes"])) == expected["hashes"]


def test_full_sync_paginates_and_matches_ground_truth(suite, embedder, tmp_path, fluid_dir):
    loader = loader_for(suite)
    idx = build_indexer(tmp_path, embedder, [loader])
    status = idx.runs.run("jira")
    expected = expected_graph(suite.dataset, fluid_dir)
    assert status.state == "succeeded"
    assert status.documents_indexed == expected["documents"] == 90
    assert_graph(idx.store, expected)
    assert expected["links"], "the slice has issue links inside it"
    # pagination: 90 issues at 25 per page → 4 search pages for the load, 4 for the id listing,
    # and one for the issues with a security level (none here)
    searches = suite.faults.log.count(service="jira", path_prefix="/rest/api/2/search")
    assert searches == 9
    # every document is of the right type and cites the public browse URL
    doc = idx.store.get_document(f"jira:{PROJECT}-1")
    assert doc.document.type is SourceType.JIRA and doc.document.url == f"{BROWSE}/browse/{PROJECT}-1"


def test_incremental_sync_edits_and_deletions(suite, embedder, tmp_path, fluid_dir):
    loader = loader_for(suite)
    idx = build_indexer(tmp_path, embedder, [loader])
    idx.runs.run("jira")
    embedded_first = idx.pipeline.chunk_embedder.embedded

    # nothing changed: nothing re-embedded, nothing rewritten
    again = idx.runs.run("jira")
    assert (again.documents_indexed, again.chunks_embedded, again.documents_deleted) == (0, 0, 0)

    # one edited issue, one deleted issue (which had a link inside the slice)
    suite.dataset.update_issue(f"{PROJECT}-5", {"summary": "Kettle settings are written twice"})
    expected_before = expected_graph(suite.dataset, fluid_dir)
    victim = next(iter(sorted(expected_before["links"])))[1][5:]
    suite.dataset.delete_issue(victim)
    # issues linked to the deleted one lose the link without a new `updated`: the sync re-fetches them
    neighbours = {n.document.id for n in idx.store.neighbors([f"jira:{victim}"])} - {f"jira:{PROJECT}-5"}
    assert neighbours
    status = idx.runs.run("jira")
    expected = expected_graph(suite.dataset, fluid_dir)
    assert status.documents_indexed == 1 + len(neighbours)
    assert status.documents_deleted == 1
    assert 0 < status.chunks_embedded <= 3 * (1 + len(neighbours))
    assert idx.pipeline.chunk_embedder.embedded - embedded_first == status.chunks_embedded
    assert idx.store.get_document(f"jira:{victim}") is None
    assert "written twice" in idx.store.get_document(f"jira:{PROJECT}-5").document.title
    assert expected["documents"] == 89
    assert_graph(idx.store, expected)


@pytest.mark.parametrize(
    "inject",
    [
        pytest.param(
            lambda f: f.rate_limit(times=3, retry_after=1, service="jira", path_prefix="/rest/api/2/search"),
            id="429-retry-after",
        ),
        pytest.param(lambda f: f.server_error(500, times=3, service="jira"), id="500"),
        pytest.param(
            lambda f: (
                f.server_error(503, times=1, service="jira"),
                f.server_error(502, times=1, service="jira"),
            ),
            id="502-503",
        ),
        pytest.param(
            lambda f: f.connection_reset(times=2, service="jira", path_prefix="/rest/api/2/search"),
            id="reset",
        ),
        pytest.param(
            lambda f: f.truncated_body(times=2, service="jira", path_prefix="/rest/api/2/search"),
            id="truncated-json",
        ),
        pytest.param(lambda f: f.slow(1.5, times=2, service="jira"), id="slow"),
    ],
)
def test_faults_end_in_the_exact_graph(inject, suite, embedder, tmp_path, fluid_dir):
    inject(suite.faults)
    idx = build_indexer(tmp_path, embedder, [loader_for(suite)])
    status = idx.runs.run("jira")
    assert status.state == "succeeded"
    assert_graph(idx.store, expected_graph(suite.dataset, fluid_dir))
    assert not suite.faults.pending()


def test_permanent_failure_is_reported_and_keeps_data(suite, embedder, tmp_path, fluid_dir):
    idx = build_indexer(tmp_path, embedder, [loader_for(suite, retries=1)])
    idx.runs.run("jira")
    suite.faults.server_error(500, times=50, service="jira")
    with pytest.raises(SourceError):
        idx.runs.run("jira")
    state = idx.store.get_sync_state("jira")
    assert state.last_error and "500" in state.last_error
    assert_graph(idx.store, expected_graph(suite.dataset, fluid_dir))


def test_a_refused_security_level_query_names_no_linked_issue(suite, embedder, tmp_path, caplog):
    """Jira answers the loader's query for issues with a security level with 400 (a site whose
    account may not search them): the sync goes on, every link stays an edge, and no issue text
    names a linked issue — closed, not open."""
    suite.faults.server_error(400, times=1, service="jira", path_prefix="/rest/api/2/search")
    loader = loader_for(suite)
    idx = build_indexer(tmp_path, embedder, [loader])
    status = idx.runs.run("jira")
    assert status.state == "succeeded", status.error
    assert "name no linked issue" in caplog.text
    linked = {a for a, _ in visible_links(idx.store)}
    assert linked, "the slice has issue links inside it"
    for doc_id in linked:
        text = "\n".join(c.content for c in idx.store.get_document(doc_id).chunks)
        assert "## Links" not in text, doc_id
    # a full run (`devkb sync jira --full`, as the warning says) reads the levels and every issue
    # again and names the links it may
    assert idx.runs.run("jira", full=True).state == "succeeded"
    doc_id = sorted(linked)[0]
    assert "## Links" in "\n".join(c.content for c in idx.store.get_document(doc_id).chunks)
