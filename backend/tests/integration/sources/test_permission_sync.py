"""Permission sync against the emulators and the demo workspace: the gates each loader writes into
``metadata["acl"]`` and the ``(principal, email)`` pairs ``fetch_permissions`` returns, for both
Jira deployments, both Confluence deployments and GitHub. Every emulator response whose path a
vendor description has is validated by the autouse fixture (``vendor_check``)."""

from __future__ import annotations

import logging

import pytest

from devkb.sources.acl import account, group, scope
from devkb.sources.base import PermissionSource
from devkb.sources.confluence import ConfluenceLoader, ConfluenceLoaderConfig
from devkb.sources.github import GitHubLoader, GitHubLoaderConfig
from devkb.sources.jira import JiraLoader, JiraLoaderConfig
from devkb.sources.registry import build_loader
from devkb_devtools.demo.content.permissions import ACCOUNTS
from devkb_devtools.demo.workspace import demo_sources
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.emulators.confluence_cloud import account_id as confluence_account_id
from devkb_devtools.emulators.jira_cloud import _account_id as jira_account_id
from devkb_devtools.emulators.vendor_check import SESSION_CHECK, description_available
from tests.demo_workspace import DEMO_DATA

pytestmark = pytest.mark.integration

ALICE, BOB, CAROL, DAVE = "alice@acme.example", "bob@acme.example", "carol@acme.example", "dave@acme.example"
REPO = "acme/payments-service"
LEVEL = "10100"  # "Incident responders"

EXPECTED_JIRA = {
    *((scope("jira", "project", "PAY"), e) for e in (ALICE, BOB, DAVE)),
    *((scope("jira", "project", "WEB"), e) for e in (ALICE, BOB, CAROL, DAVE)),
    *((scope("jira", "security", LEVEL), e) for e in (ALICE, DAVE)),
}
EXPECTED_GITHUB = {(scope("code", "repo", REPO), e) for e in (ALICE, BOB, DAVE)}


def expected_wiki(dave_account: str) -> set[tuple[str, str]]:
    return {
        *((scope("wiki", "space", "PAY"), e) for e in (ALICE, BOB, DAVE)),
        *((group("wiki", "payments"), e) for e in (ALICE, BOB, DAVE)),
        *((group("wiki", "payments-team"), e) for e in (ALICE, DAVE)),
        *((group("wiki", "payments-security"), e) for e in (ALICE, DAVE)),
        (account("wiki", dave_account), DAVE),
    }


def usernames() -> dict[str, str]:
    return {a.name: a.email for a in ACCOUNTS.values()}


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return Dataset.load(DEMO_DATA)


def jira_loader(url: str, **extra: object) -> JiraLoader:
    return JiraLoader(JiraLoaderConfig(name="jira", url=url, projects=["PAY", "WEB"], backoff=0.05, **extra))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------ Jira


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_jira_permissions_and_gates(dataset: Dataset, deployment: str) -> None:
    with EmulatorSuite(dataset.clone(), jira_deployment=deployment) as suite:
        loader = jira_loader(suite.jira_url)
        assert isinstance(loader, PermissionSource)
        pairs = loader.fetch_permissions()
        docs = {d.id: d for d in loader.fetch(["jira:PAY-90", "jira:PAY-12", "jira:WEB-1", "jira:PAY-18"])}
    assert set(pairs) == EXPECTED_JIRA and len(pairs) == len(EXPECTED_JIRA)
    secure = [[scope("jira", "project", "PAY")], [scope("jira", "security", LEVEL)]]
    assert docs["jira:PAY-90"].metadata["acl"] == secure
    assert docs["jira:PAY-90"].title == "PAY-90: Card data exposure incident postmortem"
    assert docs["jira:PAY-90"].metadata["security_level"] == "Incident responders"
    assert docs["jira:PAY-18"].metadata["acl"] == secure
    assert docs["jira:PAY-12"].metadata["acl"] == [[scope("jira", "project", "PAY")]]
    assert docs["jira:WEB-1"].metadata["acl"] == [[scope("jira", "project", "WEB")]]


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_jira_people_mapping_overrides_the_source(dataset: Dataset, deployment: str) -> None:
    bob = "bob.payments" if deployment == "datacenter" else jira_account_id("bob.payments")
    dave = "dave.security" if deployment == "datacenter" else jira_account_id("dave.security")
    with EmulatorSuite(dataset.clone(), jira_deployment=deployment) as suite:
        pairs = set(
            jira_loader(
                suite.jira_url, people={bob: "Robert@Acme.Example", dave: "d@acme.example"}
            ).fetch_permissions()
        )
    assert (scope("jira", "project", "PAY"), "robert@acme.example") in pairs
    assert (scope("jira", "project", "WEB"), "robert@acme.example") in pairs
    assert (scope("jira", "security", LEVEL), "d@acme.example") in pairs
    assert not any(e in (BOB, DAVE) for _, e in pairs)


def test_jira_without_permission_records_every_project_is_browsable_by_the_people_it_names(
    dataset: Dataset,
) -> None:
    bare = Dataset(projects=dataset.projects(), issues=dataset.issues())  # no permissions.json
    with EmulatorSuite(bare) as suite:
        pairs = jira_loader(suite.jira_url).fetch_permissions()
    assert (scope("jira", "project", "PAY"), "aisha.khan@example.invalid") in pairs
    assert (scope("jira", "project", "WEB"), "aisha.khan@example.invalid") in pairs
    assert not any(p.startswith(scope("jira", "security", "")) for p, _ in pairs)  # levels have no members


# ------------------------------------------------------------------------------ Confluence


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_confluence_permissions_and_gates(dataset: Dataset, deployment: str, caplog) -> None:
    dave = (
        "dave.security"
        if deployment == "datacenter"
        else confluence_account_id({"username": "dave.security"})
    )
    # Data Center's REST API shows no e-mails: they come from the people mapping (user names)
    people = usernames() if deployment == "datacenter" else {}
    with EmulatorSuite(dataset.clone(), confluence_deployment=deployment) as suite:
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=["PAY"], people=people)
        )
        assert isinstance(loader, PermissionSource)
        with caplog.at_level(logging.WARNING):
            pairs = loader.fetch_permissions()
        docs = {d.title: d for b in loader.load(None) for d in b.documents}
    assert set(pairs) == expected_wiki(dave) and len(pairs) == len(expected_wiki(dave))
    # team members named in restrictions without any e-mail are skipped and counted
    assert "2 accounts have no e-mail" in caplog.text
    space = [scope("wiki", "space", "PAY")]
    restricted = [account("wiki", dave)]
    assert docs["Fraud rule thresholds (restricted)"].metadata["acl"] == [space, restricted]
    assert docs["Fraud rule tuning log"].metadata["acl"] == [space, restricted]  # inherited
    pci = docs["PCI Compliance Notes"].metadata["acl"]
    aisha = "aisha.khan" if deployment == "datacenter" else confluence_account_id({"username": "aisha.khan"})
    assert pci == [space, [account("wiki", aisha), group("wiki", "payments-security")]]
    assert docs["Payments Engineering Home"].metadata["acl"] == [space]
    assert docs["Idempotency keys are live"].metadata["acl"] == [space]  # a blog post


def test_confluence_datacenter_without_people_mapping_skips_every_account(dataset: Dataset, caplog) -> None:
    with EmulatorSuite(dataset.clone()) as suite:
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=["PAY"])
        )
        with caplog.at_level(logging.WARNING):
            assert loader.fetch_permissions() == []
    assert "5 accounts have no e-mail" in caplog.text


def test_confluence_cloud_people_mapping_overrides_the_source(dataset: Dataset) -> None:
    dave = confluence_account_id({"username": "dave.security"})
    with EmulatorSuite(dataset.clone(), confluence_deployment="cloud") as suite:
        loader = ConfluenceLoader(
            ConfluenceLoaderConfig(
                name="wiki", url=suite.confluence_url, spaces=["PAY"], people={dave: "dsec@acme.example"}
            )
        )
        pairs = set(loader.fetch_permissions())
    assert (account("wiki", dave), "dsec@acme.example") in pairs
    assert (group("wiki", "payments"), "dsec@acme.example") in pairs
    assert not any(e == DAVE for _, e in pairs)


# ---------------------------------------------------------------------------------- GitHub


def test_github_private_repository_collaborators_and_gates(dataset: Dataset) -> None:
    with EmulatorSuite(dataset.clone()) as suite:
        loader = GitHubLoader(GitHubLoaderConfig(name="code", url=suite.github_url, repos=[REPO]))
        assert isinstance(loader, PermissionSource)
        pairs = loader.fetch_permissions()
        docs = [d for b in loader.load(None) for d in b.documents]
    assert set(pairs) == EXPECTED_GITHUB and len(pairs) == len(EXPECTED_GITHUB)
    assert {d.kind for d in docs} >= {"file", "commit", "pull"}
    assert all(d.metadata["acl"] == [[scope("code", "repo", REPO)]] for d in docs)


def test_github_people_mapping_and_public_repository(dataset: Dataset) -> None:
    with EmulatorSuite(dataset.clone()) as suite:
        config = GitHubLoaderConfig(
            name="code", url=suite.github_url, repos=[REPO], people={"bpayments": "b@x.example"}
        )
        pairs = set(GitHubLoader(config).fetch_permissions())
    assert (scope("code", "repo", REPO), "b@x.example") in pairs and (
        scope("code", "repo", REPO),
        BOB,
    ) not in pairs
    public = dataset.clone()
    repo = public.repo(REPO)
    repo.repo = {**repo.repo, "private": False, "visibility": "public"}
    with EmulatorSuite(public) as suite:
        pairs = GitHubLoader(
            GitHubLoaderConfig(name="code", url=suite.github_url, repos=[REPO])
        ).fetch_permissions()
    assert pairs == [(scope("code", "repo", REPO), "*")]


# ---------------------------------------------------------------------------- the workspace


def test_demo_workspace_sources_sync_permissions(dataset: Dataset) -> None:
    """The demo's own source configuration (the wiki maps user names to e-mails) yields every
    account's access, as the demo README describes it."""
    with EmulatorSuite(dataset.clone()) as suite:
        loaders = {cfg.name: build_loader(cfg) for cfg in demo_sources(suite)}
        pairs = {
            name: set(loader.fetch_permissions())
            for name, loader in loaders.items()
            if isinstance(loader, PermissionSource)
        }
    assert pairs["jira"] == EXPECTED_JIRA
    assert pairs["wiki"] == expected_wiki("dave.security")
    assert pairs["code"] == EXPECTED_GITHUB
    holders = {e for found in pairs.values() for _, e in found}
    assert holders == {ALICE, BOB, CAROL, DAVE}
    carol = {p for found in pairs.values() for p, e in found if e == CAROL}
    assert carol == {scope("jira", "project", "WEB")}


def test_permission_endpoints_are_validated_against_the_vendor_descriptions(dataset: Dataset) -> None:
    """The described endpoints (Jira Cloud, Confluence Cloud v2, GitHub) are checked, not skipped."""
    with EmulatorSuite(dataset.clone(), jira_deployment="cloud", confluence_deployment="cloud") as suite:
        jira_loader(suite.jira_url).fetch_permissions()
        ConfluenceLoader(
            ConfluenceLoaderConfig(name="wiki", url=suite.confluence_url, spaces=["PAY"])
        ).fetch_permissions()
        GitHubLoader(GitHubLoaderConfig(name="code", url=suite.github_url, repos=[REPO])).fetch_permissions()
    checked = {(service, template) for service, _method, template in SESSION_CHECK.checked}
    if description_available("jira-cloud-platform"):
        assert ("jira", "/rest/api/3/user/permission/search") in checked
        assert ("jira", "/rest/api/3/issuesecurityschemes/level/member") in checked
        assert ("jira", "/rest/api/3/group/member") in checked
        assert ("jira", "/rest/api/3/user") in checked
    if description_available("confluence-cloud-v2"):
        assert ("confluence", "/wiki/api/v2/spaces/{id}/permissions") in checked
    if description_available("github"):
        assert ("github", "/repos/acme/payments-service/collaborators") in checked
        assert any(s == "github" and t.startswith("/users/") for s, t in checked)
    assert not SESSION_CHECK.violations
