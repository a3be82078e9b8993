"""The Jira, Confluence and GitHub emulators driven by the real clients over loopback HTTP.

Clients: atlassian-python-api ``Jira(cloud=False)`` / ``Confluence`` and PyGithub
``Github(base_url=...)``; raw ``httpx`` where a fault must be observed on the wire.
Tests marked ``corpus`` serve the Fluid data package (skipped when it is absent); the others
serve a small dataset written in the demo layout (plain ``.jsonl``, two repositories).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
from atlassian import Confluence, Jira
from atlassian.errors import ApiError
from github import Github, GithubException

from devkb_devtools.emulators import Dataset, EmulatorServer, EmulatorSuite, JiraEmulator
from devkb_devtools.emulators.git_objects import git_blob_sha
from devkb_devtools.emulators.timestamps import parse_timestamp

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "fluid"
REPO = "fluid-project/infusion-docs"


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def corpus_dataset() -> Dataset:
    if not CORPUS.is_dir():
        pytest.skip(f"Fluid data package not found at {CORPUS.resolve()} (needs ../shared/data/fluid)")
    return Dataset.load(CORPUS)


@pytest.fixture
def suite(corpus_dataset: Dataset):
    """All three emulators over a private copy of the corpus (mutations stay in the test)."""
    with EmulatorSuite(corpus_dataset.clone()) as running:
        yield running


@pytest.fixture
def mini_suite(tmp_path: Path):
    """All three emulators over the small demo-layout dataset."""
    with EmulatorSuite(Dataset.load(write_mini_dataset(tmp_path / "data"))) as running:
        yield running


def github_client(url: str, **options: Any) -> Github:
    options.setdefault("retry", None)
    return Github(base_url=url, seconds_between_requests=None, **options)


# ---------------------------------------------------------------------------- Jira (corpus)


@pytest.mark.corpus
def test_jira_pages_through_a_whole_project(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    issues = jira.jql_get_list_of_tickets("project = FLUID", fields="key")
    keys = [i["key"] for i in issues]
    expected = {i["key"] for i in suite.dataset.issues() if i["key"].startswith("FLUID-")}
    assert len(keys) == len(set(keys)) == len(expected) == 6136
    assert set(keys) == expected
    # The client sends no maxResults, so Jira's default page size of 50 applies.
    assert suite.faults.log.count(service="jira", path_prefix="/rest/api/2/search") == 123
    assert issues[0]["fields"] == {} and issues[0]["self"].startswith(suite.jira_url)


@pytest.mark.corpus
def test_jira_caps_max_results_and_selects_fields(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    page = jira.jql("project = FLUID ORDER BY key ASC", fields="summary,status", limit=500)
    assert page["maxResults"] == 100 and len(page["issues"]) == 100 and page["total"] == 6136
    assert set(page["issues"][0]["fields"]) == {"summary", "status"}
    assert page["issues"][0]["key"] == "FLUID-1"
    default = jira.jql("project = BI")
    assert "comment" in default["issues"][0]["fields"]  # the client asks for fields=*all
    navigable = httpx.get(f"{suite.jira_url}/rest/api/2/search", params={"jql": "project = BI"}).json()
    assert "comment" not in navigable["issues"][0]["fields"] and "summary" in navigable["issues"][0]["fields"]


@pytest.mark.corpus
def test_jira_updated_filter_and_order(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    since = datetime(2019, 6, 1, 12, 30, tzinfo=UTC)
    expected = {
        i["key"]
        for i in suite.dataset.issues()
        if i["key"].startswith("FLUID-")
        and parse_timestamp(i["fields"]["updated"]).astimezone(UTC).replace(second=0, microsecond=0) >= since
    }
    for literal in ("2019-06-01 12:30", "2019/06/01 12:30"):
        found = jira.jql_get_list_of_tickets(
            f'project = FLUID AND updated >= "{literal}" ORDER BY updated ASC, key ASC', fields="updated"
        )
        assert {i["key"] for i in found} == expected
        stamps = [parse_timestamp(i["fields"]["updated"]) for i in found]
        assert stamps == sorted(stamps)
    newest_first = jira.jql("project in (FLUID, VP) ORDER BY updated DESC", fields="updated", limit=20)[
        "issues"
    ]
    stamps = [parse_timestamp(i["fields"]["updated"]) for i in newest_first]
    assert stamps == sorted(stamps, reverse=True)


@pytest.mark.corpus
def test_jira_rejects_unsupported_or_invalid_jql(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    with pytest.raises(requests.HTTPError) as raised:
        jira.jql('summary ~ "uploader"')
    assert raised.value.response.status_code == 400
    body = httpx.get(f"{suite.jira_url}/rest/api/2/search", params={"jql": "project = NOPE"}).json()
    assert body == {
        "errorMessages": ["The value 'NOPE' does not exist for the field 'project'."],
        "errors": {},
    }
    warned = jira.jql("key in (FLUID-1, FLUID-999999)", validate_query="warn")
    assert [i["key"] for i in warned["issues"]] == ["FLUID-1"] and warned["warningMessages"]


@pytest.mark.corpus
def test_jira_issue_comments_projects_and_post_search(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    issue = jira.get_issue("DECA-101")
    assert {
        link.get("outwardIssue", link.get("inwardIssue"))["key"] for link in issue["fields"]["issuelinks"]
    } == {
        "DECA-70",
        "DECA-119",
        "DECA-50",
        "DECA-76",
    }
    assert jira.get_issue("700101")["key"] == "DECA-101"
    assert set(jira.get_issue("DECA-101", fields="summary")["fields"]) == {"summary"}
    without_comments = jira.get_issue("DECA-101", fields="-comment")["fields"]
    assert "comment" not in without_comments and "attachment" in without_comments
    comments = jira.issue_get_comments("ACHECKER-3")
    assert comments["total"] == len(comments["comments"]) == 1
    with pytest.raises(requests.HTTPError, match="Issue Does Not Exist"):
        jira.get_issue("NOPE-1")
    assert len(jira.projects()) == 19 and jira.get_project("FLUID")["name"] == "Fluid Infusion"
    assert jira.get_server_info()["baseUrl"] == suite.jira_url
    posted = httpx.post(
        f"{suite.jira_url}/rest/api/2/search",
        json={"jql": "project = ACHECKER", "startAt": 10, "maxResults": 5, "fields": ["summary"]},
    ).json()
    assert (posted["startAt"], posted["total"], len(posted["issues"])) == (10, 16, 5)


@pytest.mark.corpus
def test_jira_mutations_are_visible(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    start = datetime.now(UTC).replace(second=0, microsecond=0)
    suite.dataset.update_issue("FLUID-6000", {"summary": "Renamed in a test"})
    created = suite.dataset.add_issue("ILDH", "A brand new issue", description="Body")
    suite.dataset.add_comment("VP-1", "A fresh comment")
    suite.dataset.delete_issue("SNOW-1")
    recent = jira.jql_get_list_of_tickets(f'updated >= "{start:%Y-%m-%d %H:%M}"', fields="summary")
    assert {i["key"] for i in recent} == {"FLUID-6000", created["key"], "VP-1"}
    assert (
        created["key"] == "ILDH-41" and jira.get_issue("ILDH-41")["fields"]["summary"] == "A brand new issue"
    )
    assert jira.issue_get_comments("VP-1")["comments"][-1]["body"] == "A fresh comment"
    with pytest.raises(requests.HTTPError):
        jira.get_issue("SNOW-1")
    assert jira.jql("project = SNOW")["total"] == 45


@pytest.mark.corpus
def test_jira_strip_links_removes_links_and_mentions(suite: EmulatorSuite) -> None:
    jira = Jira(url=suite.jira_url, cloud=False)
    before = jira.get_issue("C2LC-11")
    assert "C2LC-140" in json.dumps(before["fields"])
    httpx.post(f"{suite.jira_url}/_emulator/faults", json={"strip_links": True}).raise_for_status()
    for key in ("C2LC-11", "C2LC-140", "DECA-101"):
        issue = jira.get_issue(key)
        assert issue["fields"]["issuelinks"] == []
        text = json.dumps(issue["fields"])
        for other in suite.dataset.linked_keys(key):
            assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(other)}(?![0-9])", text, re.IGNORECASE), (
                key,
                other,
            )
    searched = jira.jql("key = C2LC-11")["issues"][0]
    assert searched["fields"]["issuelinks"] == [] and "C2LC-140" not in json.dumps(searched["fields"])


# ---------------------------------------------------------------------------- Confluence (corpus)


@pytest.mark.corpus
def test_confluence_pages_through_a_space(suite: EmulatorSuite) -> None:
    confluence = Confluence(url=suite.confluence_url)
    pages = list(confluence.get_all_pages_from_space("ILDH", limit=20))
    assert len({p["id"] for p in pages}) == len(pages) == 115
    assert "body" not in pages[0] and pages[0]["_links"]["self"].startswith(suite.confluence_url)
    assert suite.faults.log.count(service="confluence", path_prefix="/rest/api/content") == 6
    with_versions = list(confluence.get_all_pages_from_space_as_generator("ILDH", limit=50))
    assert len(with_versions) == 115 and all("version" in p for p in with_versions)


@pytest.mark.corpus
def test_confluence_cql_lastmodified(suite: EmulatorSuite) -> None:
    confluence = Confluence(url=suite.confluence_url)
    since = datetime(2022, 7, 1, 0, 0, tzinfo=UTC)
    expected = {
        p["id"]
        for p in suite.dataset.pages()
        if parse_timestamp(p["version"]["when"]).replace(second=0, microsecond=0) >= since
    }
    assert 0 < len(expected) < 115
    cql = 'space = "ILDH" AND type = page AND lastmodified >= "2022-07-01 00:00" ORDER BY lastmodified ASC'
    results = confluence.cql_all(cql, limit=10, expand="content.version")
    assert {r["content"]["id"] for r in results} == expected
    stamps = [r["content"]["version"]["when"] for r in results]
    assert stamps == sorted(stamps)
    content = httpx.get(
        f"{suite.confluence_url}/rest/api/content/search",
        params={"cql": "space = ILDH and lastmodified >= '2022/07/01 00:00'", "limit": 200},
    ).json()
    assert {c["id"] for c in content["results"]} == expected
    with pytest.raises(ApiError):
        confluence.cql('text ~ "accessibility"')


@pytest.mark.corpus
def test_confluence_page_expansions_children_labels_space(suite: EmulatorSuite) -> None:
    confluence = Confluence(url=suite.confluence_url)
    full = confluence.get_page_by_id("1000001", expand="body.storage,version,ancestors,space")
    assert full["body"]["storage"]["value"].startswith("<p>This section aims")
    assert [a["id"] for a in full["ancestors"]] == ["1000085", "1000084", "1000012"]
    assert full["space"]["key"] == "ILDH" and full["version"]["number"] == 9
    bare = confluence.get_page_by_id("1000001")
    assert "body" not in bare and {"space", "version", "history"} <= set(bare)
    assert "body" not in confluence.get_page_by_id("1000001", expand="version")
    with pytest.raises(ApiError):
        confluence.get_page_by_id("999")
    children = list(confluence.get_page_child_by_type("1000085"))
    expected = [
        p["id"] for p in suite.dataset.pages() if p["ancestors"] and p["ancestors"][-1]["id"] == "1000085"
    ]
    assert [c["id"] for c in children] == expected and expected
    assert confluence.get_page_labels("1000001")["results"] == []
    assert confluence.get_space("ILDH", expand="homepage")["homepage"]["id"] == "1000085"
    assert len(confluence.get_page_ancestors("1000001")) == 3


@pytest.mark.corpus
def test_confluence_mutations_are_visible(suite: EmulatorSuite) -> None:
    confluence = Confluence(url=suite.confluence_url)
    start = datetime.now(UTC) - timedelta(minutes=1)
    suite.dataset.update_page("1000001", body="<p>Rewritten</p>")
    added = suite.dataset.add_page("Fresh page", "<p>New</p>", parent_id="1000085")
    suite.dataset.delete_page("1000002")
    cql = f'space = ILDH and lastmodified >= "{start:%Y-%m-%d %H:%M}"'
    assert {r["content"]["id"] for r in confluence.cql(cql)["results"]} == {"1000001", added["id"]}
    page = confluence.get_page_by_id("1000001", expand="body.storage,version")
    assert page["version"]["number"] == 10 and page["body"]["storage"]["value"] == "<p>Rewritten</p>"
    assert added["id"] in [c["id"] for c in confluence.get_page_child_by_type("1000085")]
    with pytest.raises(ApiError):
        confluence.get_page_by_id("1000002")


# ---------------------------------------------------------------------------- GitHub (corpus)


@pytest.mark.corpus
def test_github_repository_tree_and_contents(suite: EmulatorSuite) -> None:
    repo = github_client(suite.github_url).get_repo(REPO)
    assert repo.url == f"{suite.github_url}/repos/{REPO}" and repo.html_url == f"https://github.com/{REPO}"
    head = repo.get_branch("main").commit
    assert head.sha == "9cd86409bf54f3acd158a882f45ff41d649e34c3"
    tree = repo.get_git_tree(head.sha, recursive=True)
    assert tree.sha == "3913ca11fc6432c30902155f5acb694df7134522" and len(tree.tree) == 150
    assert len(repo.get_git_tree(head.commit.tree.sha, recursive=True).tree) == 150
    assert {e.path for e in repo.get_git_tree(tree.sha).tree} == {"README.md", "src"}
    readme = repo.get_contents("README.md")
    on_disk = (CORPUS / "github" / "infusion-docs" / "tree" / "README.md").read_bytes()
    assert (
        readme.decoded_content == on_disk
        and readme.html_url == f"https://github.com/{REPO}/blob/main/README.md"
    )
    assert httpx.get(readme.download_url).content == on_disk
    assert repo.get_git_blob(readme.sha).size == len(on_disk)
    assert {c.path for c in repo.get_contents("src")} == {"src/_data", "src/documents"}
    with pytest.raises(GithubException) as raised:
        repo.get_contents("nope.md")
    assert raised.value.status == 404


@pytest.mark.corpus
def test_github_commits_compare_and_pulls(suite: EmulatorSuite) -> None:
    repo = github_client(suite.github_url).get_repo(REPO)
    commits = list(repo.get_commits())
    assert len(commits) == 1255 and commits[0].sha.startswith("9cd86409")
    raw = httpx.get(f"{suite.github_url}/repos/{REPO}/commits", params={"per_page": 100, "page": 2})
    assert 'rel="next"' in raw.headers["link"] and 'rel="last"' in raw.headers["link"]
    assert "files" not in raw.json()[0]
    since, until = datetime(2020, 1, 1, tzinfo=UTC), datetime(2020, 12, 31, tzinfo=UTC)
    in_2020 = list(repo.get_commits(since=since, until=until))
    assert in_2020 and all(since <= c.commit.committer.date <= until for c in in_2020)
    touching = list(repo.get_commits(path="README.md"))
    assert touching and all(any(f.filename == "README.md" for f in c.files) for c in touching[:3])
    detail = repo.get_commit(commits[1].sha)
    assert detail.files.totalCount == len(detail.raw_data["files"])
    comparison = repo.compare(commits[10].sha, commits[0].sha)
    assert comparison.status == "ahead" and comparison.ahead_by == 10 and len(list(comparison.commits)) == 10
    assert comparison.files
    pulls = list(repo.get_pulls(state="all", sort="updated", direction="desc"))
    assert len(pulls) == 223
    assert [p.updated_at for p in pulls] == sorted((p.updated_at for p in pulls), reverse=True)
    assert list(repo.get_pulls()) == []  # every recorded pull request is closed
    pull = repo.get_pull(1)
    assert pull.title == "FLUID-5327: Converting ChangeApplier doc" and pull.merged
    assert "_provenance" not in pull.raw_data
    assert list(pull.get_review_comments()) == [] and list(pull.get_issue_comments()) == []
    assert list(repo.get_issues()) == []


@pytest.mark.corpus
def test_github_created_commit_and_pull_are_visible(suite: EmulatorSuite) -> None:
    repo = github_client(suite.github_url).get_repo(REPO)
    old_head = repo.get_branch("main").commit.sha
    removed, renamed = "src/documents/APIChangesFrom1_4To1_5.md", "src/documents/APIChangesFrom1_5To2_0.md"
    created = suite.dataset.add_commit(
        "FLUID-1: rework docs",
        changes={"README.md": "# New\n", "src/new.md": "hello\n", removed: None},
        renames={renamed: "src/moved.md"},
    )
    head = repo.get_branch("main").commit
    assert head.sha == created["sha"] == next(iter(repo.get_commits())).sha
    statuses = {f.filename: (f.status, f.previous_filename) for f in repo.get_commit(head.sha).files}
    assert statuses == {
        "README.md": ("modified", None),
        "src/new.md": ("added", None),
        removed: ("removed", None),
        "src/moved.md": ("renamed", renamed),
    }
    assert {(f.filename, f.status) for f in repo.compare(old_head, "main").files} == {
        (name, status) for name, (status, _) in statuses.items()
    }
    assert repo.get_contents("README.md").decoded_content == b"# New\n"
    assert repo.get_contents("src/new.md").sha == git_blob_sha(b"hello\n")
    assert repo.get_contents("README.md", ref=old_head).decoded_content.startswith(b"# Infusion")
    paths = {e.path for e in repo.get_git_tree(head.commit.tree.sha, recursive=True).tree}
    assert {"src/new.md", "src/moved.md"} <= paths and not {removed, renamed} & paths
    suite.dataset.add_pull("Add docs", head_ref="feature/docs", user_login="alice")
    assert [(p.number, p.title) for p in repo.get_pulls()] == [(314, "Add docs")]


@pytest.mark.corpus
def test_github_rate_limit_exhaustion_and_secondary_limit(suite: EmulatorSuite) -> None:
    url = f"{suite.github_url}/repos/{REPO}"
    ok = httpx.get(url)
    assert int(ok.headers["x-ratelimit-remaining"]) == int(ok.headers["x-ratelimit-limit"]) - 1
    suite.faults.exhaust_github_rate_limit(reset_after=1.0)
    refused = httpx.get(url)
    assert refused.status_code == 403 and refused.json()["message"].startswith("API rate limit exceeded")
    assert (
        refused.headers["x-ratelimit-remaining"] == "0"
        and int(refused.headers["x-ratelimit-reset"]) >= time.time()
    )
    started = time.monotonic()
    patient = Github(base_url=suite.github_url, seconds_between_requests=None)  # PyGithub's default retry
    assert patient.get_repo(REPO).name == "infusion-docs"
    assert time.monotonic() - started >= 0.5  # PyGithub waited for X-RateLimit-Reset
    suite.faults.github_secondary_rate_limit(retry_after=2, status=403)
    secondary = httpx.get(url)
    assert secondary.status_code == 403 and secondary.headers["retry-after"] == "2"
    assert secondary.json()["message"].startswith("You have exceeded a secondary rate limit")
    suite.faults.github_secondary_rate_limit(status=429)
    assert httpx.get(url).status_code == 429 and httpx.get(url).status_code == 200
    assert github_client(suite.github_url).get_rate_limit().resources.core.limit == 5000


# ---------------------------------------------------------------------------- faults (demo layout)


def test_status_faults_with_retry_after_and_path_prefix(mini_suite: EmulatorSuite) -> None:
    jira = httpx.Client(base_url=mini_suite.jira_url)
    mini_suite.faults.rate_limit(2, retry_after=3, path_prefix="/rest/api/2/search")
    assert jira.get("/rest/api/2/project").status_code == 200
    first = jira.get("/rest/api/2/search")
    assert first.status_code == 429 and first.headers["retry-after"] == "3" and first.json()["errorMessages"]
    assert jira.get("/rest/api/2/search").status_code == 429
    assert jira.get("/rest/api/2/search").status_code == 200
    for status in (500, 502, 503):
        mini_suite.faults.server_error(status, service="confluence")
        assert httpx.get(f"{mini_suite.confluence_url}/rest/api/space").status_code == status
    assert mini_suite.faults.log.count(service="jira", path_prefix="/rest/api/2/search") == 3
    assert [r.status for r in mini_suite.faults.log.records(service="confluence")] == [500, 502, 503]


def test_slow_reset_truncated_incomplete_and_invalid_json(mini_suite: EmulatorSuite) -> None:
    url = f"{mini_suite.jira_url}/rest/api/2/project"
    mini_suite.faults.slow(0.3)
    started = time.monotonic()
    assert httpx.get(url).status_code == 200 and time.monotonic() - started >= 0.3
    mini_suite.faults.connection_reset()
    with pytest.raises(httpx.TransportError):
        httpx.get(url)
    mini_suite.faults.truncated_body()
    truncated = httpx.get(url)
    assert truncated.status_code == 200 and len(truncated.content) == int(truncated.headers["content-length"])
    with pytest.raises(json.JSONDecodeError):
        truncated.json()
    mini_suite.faults.incomplete_body()
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(url)
    mini_suite.faults.invalid_json()
    invalid = httpx.get(url)
    assert invalid.status_code == 200 and invalid.headers["content-type"].startswith("application/json")
    with pytest.raises(json.JSONDecodeError):
        invalid.json()
    assert httpx.get(url).json()[0]["key"] == "DEMO"
    faults = [r.fault for r in mini_suite.faults.log.records()]
    assert faults == ["delay", "reset", "truncate", "incomplete", "invalid_json", None]


def test_control_api_over_http(mini_suite: EmulatorSuite) -> None:
    control = httpx.Client(base_url=f"{mini_suite.github_url}/_emulator")
    state = control.post(
        "/faults", json=[{"kind": "status", "status": 502, "service": "jira"}, {"strip_links": True}]
    )
    assert (
        state.status_code == 200 and state.json()["strip_links"] is True and len(state.json()["faults"]) == 1
    )
    assert httpx.get(f"{mini_suite.jira_url}/rest/api/2/serverInfo").status_code == 502
    assert control.post("/faults", json={"kind": "bogus"}).status_code == 400
    assert control.post("/faults", json={"kind": "status", "status": 503, "oops": 1}).status_code == 400
    logged = control.get("/requests", params={"service": "jira"}).json()
    assert logged["count"] == 1 and logged["requests"][0]["status"] == 502
    assert control.post("/reset").json() == {
        "faults": [],
        "strip_links": False,
        "github_rate_limit": {"limit": 5000, "used": 0},
        "requests": 0,
    }


def test_demo_layout_with_plain_jsonl_and_two_repositories(mini_suite: EmulatorSuite) -> None:
    jira = Jira(url=mini_suite.jira_url, cloud=False)
    assert [i["key"] for i in jira.jql_get_list_of_tickets("project = DEMO ORDER BY key DESC")] == [
        "DEMO-2",
        "DEMO-1",
    ]
    mini_suite.faults.strip_links = True
    stripped = jira.get_issue("DEMO-1")["fields"]
    assert stripped["issuelinks"] == [] and "DEMO-2" not in json.dumps(stripped)
    assert stripped["description"] == "See  and . Unrelated OPS-1 stays."
    assert "DEMO-1" in jira.get_issue("OPS-1")["fields"]["description"]  # not linked: untouched
    confluence = Confluence(url=mini_suite.confluence_url)
    assert [p["title"] for p in confluence.get_all_pages_from_space("DOC")] == ["Home", "Guide", "Details"]
    assert confluence.get_page_by_id("102", expand="ancestors")["ancestors"][-1]["id"] == "101"
    gh = github_client(mini_suite.github_url)
    alpha, beta = gh.get_repo("acme/alpha"), gh.get_repo("acme/beta")
    assert alpha.get_contents("docs/guide.md").decoded_content == b"# Guide\n"
    assert [c.commit.message for c in alpha.get_commits()] == ["Add guide", "Initial commit"]
    assert beta.get_contents("README.md").decoded_content == b"beta\n"
    assert len(list(alpha.get_pulls(state="closed"))) == 1 and list(beta.get_pulls(state="all")) == []
    with pytest.raises(GithubException):
        gh.get_repo("acme/gamma")


def test_single_server_context_manager_and_clean_stop(tmp_path: Path) -> None:
    dataset = Dataset.load(write_mini_dataset(tmp_path / "data"))
    server = EmulatorServer(JiraEmulator(dataset, max_results=1))
    with server:
        url = server.base_url
        client = httpx.Client(base_url=url)  # keeps an idle keep-alive connection open
        page = client.get("/rest/api/latest/search", params={"jql": "", "maxResults": 50}).json()
        assert page["maxResults"] == 1 and page["total"] == 3
        assert server.dataset is dataset and server.faults.log.count() == 1
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/rest/api/2/serverInfo", timeout=2)


# ---------------------------------------------------------------------------- the small demo-layout dataset


def _sha(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()


def _issue(
    key: str, issue_id: str, summary: str, description: str, updated: str, **fields: Any
) -> dict[str, Any]:
    project = key.split("-")[0]
    return {
        "expand": "renderedFields",
        "id": issue_id,
        "self": f"http://jira.example/rest/api/2/issue/{issue_id}",
        "key": key,
        "fields": {
            "summary": summary,
            "description": description,
            "environment": None,
            "issuetype": {"name": "Task", "subtask": False},
            "status": {"name": "Open"},
            "project": {
                "id": "10000" if project == "DEMO" else "10001",
                "key": project,
                "name": project.title(),
            },
            "created": updated,
            "updated": updated,
            "issuelinks": [],
            "comment": {"comments": [], "maxResults": 0, "total": 0, "startAt": 0},
            **fields,
        },
    }


def _link(side: str, key: str, issue_id: str) -> dict[str, Any]:
    return {
        "id": "10001",
        "type": {"id": "10002", "name": "Duplicate", "inward": "is duplicated by", "outward": "duplicates"},
        side: {"id": issue_id, "key": key, "fields": {"summary": "other"}},
    }


def _page(page_id: str, title: str, ancestors: list[str], when: str) -> dict[str, Any]:
    return {
        "id": page_id,
        "type": "page",
        "status": "current",
        "title": title,
        "space": {"id": 1, "key": "DOC", "name": "Docs"},
        "version": {"by": {"displayName": "Ann"}, "when": when, "number": 1, "minorEdit": False},
        "ancestors": [{"id": a, "type": "page", "title": a} for a in ancestors],
        "body": {"storage": {"value": f"<p>{title}</p>", "representation": "storage"}},
        "_links": {
            "webui": f"/display/DOC/{title}",
            "self": f"http://wiki.example/rest/api/content/{page_id}",
        },
    }


def _commit(
    full_name: str, name: str, message: str, date: str, parents: list[str], files: list[str]
) -> dict[str, Any]:
    api = f"https://api.github.com/repos/{full_name}"
    return {
        "sha": _sha(name),
        "url": f"{api}/commits/{_sha(name)}",
        "html_url": f"https://github.com/{full_name}/commit/{_sha(name)}",
        "commit": {
            "author": {"name": "Ann", "email": "user@example.invalid", "date": date},
            "committer": {"name": "Ann", "email": "user@example.invalid", "date": date},
            "message": message,
            "tree": {"sha": _sha(name + "-tree")},
        },
        "author": None,
        "committer": None,
        "parents": [{"sha": _sha(p), "url": f"{api}/commits/{_sha(p)}"} for p in parents],
        "files": [
            {"filename": f, "status": "added", "additions": 1, "deletions": 0, "changes": 1} for f in files
        ],
    }


def _write_repo(root: Path, full_name: str, files: dict[str, bytes], commits: list[dict[str, Any]]) -> Path:
    directory = root / "github" / full_name.split("/")[1]
    (directory / "tree").mkdir(parents=True)
    repo = {
        "id": len(full_name),
        "name": full_name.split("/")[1],
        "full_name": full_name,
        "default_branch": "main",
        "url": f"https://api.github.com/repos/{full_name}",
        "html_url": f"https://github.com/{full_name}",
    }
    (directory / "repo.json").write_text(json.dumps(repo))
    (directory / "commits.jsonl").write_text("".join(json.dumps(c) + "\n" for c in commits))
    entries = []
    for path in sorted(
        {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)} | set(files)
    ):
        if path in files:
            (directory / "tree" / path).parent.mkdir(parents=True, exist_ok=True)
            (directory / "tree" / path).write_bytes(files[path])
            entries.append(
                {
                    "path": path,
                    "mode": "100644",
                    "type": "blob",
                    "sha": git_blob_sha(files[path]),
                    "size": len(files[path]),
                }
            )
        else:
            entries.append({"path": path, "mode": "040000", "type": "tree", "sha": _sha(path)})
    (directory / "tree.json").write_text(json.dumps({"sha": _sha(full_name + "-tree"), "tree": entries}))
    return directory


def write_mini_dataset(root: Path) -> Path:
    """A tiny dataset in the demo layout: plain .jsonl files and two repositories."""
    (root / "jira").mkdir(parents=True)
    projects = [
        {"self": f"http://jira.example/rest/api/2/project/{pid}", "id": pid, "key": key, "name": key.title()}
        for pid, key in (("10000", "DEMO"), ("10001", "OPS"))
    ]
    (root / "jira" / "projects.json").write_text(json.dumps(projects))
    issues = [
        _issue(
            "DEMO-1",
            "100001",
            "Crash on save",
            "See DEMO-2 and https://jira.example/browse/DEMO-2. Unrelated OPS-1 stays.",
            "2024-01-01T10:00:00.000+0000",
            issuelinks=[_link("outwardIssue", "DEMO-2", "100002")],
        ),
        _issue(
            "DEMO-2",
            "100002",
            "Save crashes",
            "Dup of [DEMO-1](https://jira.example/browse/DEMO-1)",
            "2024-01-02T10:00:00.000+0000",
            issuelinks=[_link("inwardIssue", "DEMO-1", "100001")],
        ),
        _issue("OPS-1", "200001", "Deploy", "Mentions DEMO-1 without a link", "2024-01-03T10:00:00.000+0000"),
    ]
    (root / "jira" / "issues.jsonl").write_text("".join(json.dumps(i) + "\n" for i in issues))
    (root / "confluence").mkdir()
    space = {
        "id": 1,
        "key": "DOC",
        "name": "Docs",
        "type": "global",
        "_links": {"self": "http://wiki.example/rest/api/space/DOC"},
    }
    (root / "confluence" / "space.json").write_text(json.dumps(space))
    pages = [
        _page("100", "Home", [], "2024-01-01T00:00:00.000Z"),
        _page("101", "Guide", ["100"], "2024-01-02T00:00:00.000Z"),
        _page("102", "Details", ["100", "101"], "2024-01-03T00:00:00.000Z"),
    ]
    (root / "confluence" / "pages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pages))
    alpha_commits = [
        _commit("acme/alpha", "a2", "Add guide", "2024-01-02T00:00:00Z", ["a1"], ["docs/guide.md"]),
        _commit("acme/alpha", "a1", "Initial commit", "2024-01-01T00:00:00Z", [], ["README.md"]),
    ]
    alpha = _write_repo(
        root, "acme/alpha", {"README.md": b"alpha\n", "docs/guide.md": b"# Guide\n"}, alpha_commits
    )
    pull = {
        "url": "https://api.github.com/repos/acme/alpha/pulls/1",
        "number": 1,
        "state": "closed",
        "title": "Guide",
    }
    pull.update(created_at="2024-01-02T00:00:00Z", updated_at="2024-01-02T00:00:00Z")
    (alpha / "pulls.jsonl").write_text(json.dumps(pull) + "\n")
    beta_commits = [_commit("acme/beta", "b1", "Initial commit", "2024-01-01T00:00:00Z", [], ["README.md"])]
    _write_repo(root, "acme/beta", {"README.md": b"beta\n"}, beta_commits)
    return root
