"""GitHub as teams use it: a pull request's whole discussion (the conversation, review verdicts and
summaries, inline review comments), issues indexed by default with their comments, and GitHub
Enterprise Server (the REST API under ``/api/v3`` of the company's host) — PyGithub against the
GitHub emulator on loopback, the demo workspace's repository."""

from __future__ import annotations

import httpx
import pytest

from devkb.config.sources_file import SourceConfig
from devkb.sources.github import GitHubLoader, GitHubLoaderConfig
from devkb_devtools.emulators import Dataset, EmulatorSuite
from tests.demo_workspace import DEMO_DATA

pytestmark = pytest.mark.integration
REPO = "acme/payments-service"


def load(url: str) -> dict[str, object]:
    loader = GitHubLoader(
        GitHubLoaderConfig(name="code", repos=[REPO], url=url, backoff=0.05, include=["**/*.md"])
    )
    return {d.id: d for b in loader.load(None) for d in b.documents}


@pytest.fixture(scope="module")
def documents():
    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        yield load(suite.github_url)


def test_a_pull_request_carries_its_conversation_reviews_and_inline_comments(documents) -> None:
    pr = documents[f"github:{REPO}:pull:3"]
    assert "## Conversation" in pr.content and "top priority; see PAY-13" in pr.content
    assert "## Reviews" in pr.content
    assert "changes requested" in pr.content and "the TTL must outlive Meridian's retry window" in pr.content
    assert "approved" in pr.content and "409 semantics match the design page" in pr.content
    assert "## Review comments" in pr.content and "48-hour TTL" in pr.content
    assert pr.metadata["approved_by"] == ["praman"]
    assert set(pr.metadata["people"]) >= {"mchen", "praman", "dokafor"}
    # keys named in the discussion are found like keys in the description
    assert "PAY-13" in pr.reference_text["comment-1"]


def test_issues_are_indexed_by_default_with_their_comments(documents) -> None:
    assert SourceConfig(name="code", type="github", repos=[REPO]).include_issues is True
    issue = documents[f"github:{REPO}:issue:10"]
    assert "answers 500 instead of 400" in issue.content
    assert "rejects only missing headers" in issue.content
    assert f"github:{REPO}:issue:11" in documents


def test_github_enterprise_server_under_api_v3_gives_the_same_documents(documents) -> None:
    with EmulatorSuite(Dataset.load(DEMO_DATA), github_enterprise=True) as suite:
        assert suite.github_url.endswith("/api/v3")
        ghes = load(suite.github_url)
        loader = GitHubLoader(GitHubLoaderConfig(name="code", repos=[REPO], url=suite.github_url))
        assert loader.html_base() == suite.github.base_url  # https://HOST for citations and URL matching
    assert sorted(ghes) == sorted(documents)
    assert all(ghes[i].content == documents[i].content for i in documents)


def test_a_configured_branch_beyond_the_default_has_its_commits_indexed() -> None:
    branch = "PAY-20-api-v2-amounts"  # the open pull request #9's branch, not merged into main
    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        config = GitHubLoaderConfig(
            name="code", repos=[REPO], url=suite.github_url, include=["**/*.md"], branches=[branch]
        )
        loader = GitHubLoader(config)
        docs = [d for b in loader.load(None) for d in b.documents]
        listed = loader.list_ids()
        api = f"{suite.github_url}/repos/{REPO}"
        main_sha, branch_sha = (
            httpx.get(f"{api}/branches/{b}").json()["commit"]["sha"] for b in ("main", branch)
        )
        ahead = httpx.get(f"{api}/compare/{main_sha}...{branch_sha}").json()["commits"]
    expected = {f"github:{REPO}:commit:{c['sha']}" for c in ahead}
    on_branch = {d.id for d in docs if d.metadata.get("branch") == branch}
    assert expected and on_branch == expected  # exactly the commits the branch has beyond main
    assert expected <= listed


@pytest.mark.parametrize("enterprise", [False, True])
def test_lists_are_read_as_json_page_by_page_following_the_link_header(
    documents, monkeypatch, enterprise: bool
) -> None:
    """The loader reads lists (commits, pull requests, their discussions, issues) as the JSON
    GitHub sent, following each response's ``Link: rel="next"``: with two items per page the same
    documents come out as with a hundred, on github.com and under GHES's ``/api/v3``."""
    import devkb.sources.github.loader as github_loader

    monkeypatch.setattr(github_loader, "PAGE_SIZE", 2)
    with EmulatorSuite(Dataset.load(DEMO_DATA), github_enterprise=enterprise) as suite:
        loader = GitHubLoader(GitHubLoaderConfig(name="code", repos=[REPO], url=suite.github_url))
        commits = list(loader._listing(REPO, "/commits", "sha"))
        assert len(commits) > 2 and len({c["sha"] for c in commits}) == len(commits)
        paged = load(suite.github_url)
    assert sorted(paged) == sorted(documents)
    assert all(paged[i].content == documents[i].content for i in documents)


def test_pull_requests_are_listed_among_the_issues_with_their_conversation_counts() -> None:
    """As on GitHub, ``/issues`` lists pull requests too (each with a ``pull_request`` key), and
    ``comments`` counts a pull request's conversation — so the loader asks for the conversation
    only of the pull requests someone commented on, and still indexes every discussion."""
    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        listed = httpx.get(f"{suite.github_url}/repos/{REPO}/issues", params={"state": "all"}).json()
        pulls = {i["number"]: i for i in listed if "pull_request" in i}
        assert sorted(pulls) == list(range(1, 10))
        assert (pulls[3]["comments"], pulls[4]["comments"], pulls[5]["comments"]) == (2, 1, 0)
        single = httpx.get(f"{suite.github_url}/repos/{REPO}/issues/3").json()
        assert single["comments"] == 2 and single["pull_request"]["url"].endswith("/pulls/3")
        assert {i["number"] for i in listed} - set(pulls) >= {10, 11}  # the issues themselves

        suite.faults.log.clear()
        docs = load(suite.github_url)
        asked = {
            int(r.path.split("/")[-2])
            for r in suite.faults.log.records(service="github")
            if r.path.startswith(f"/repos/{REPO}/issues/") and r.path.endswith("/comments")
        }
    assert asked == {3, 4, 10}  # the commented pull requests and the commented issue
    assert "## Conversation" in docs[f"github:{REPO}:pull:4"].content
    assert "## Conversation" not in docs[f"github:{REPO}:pull:5"].content
