"""Offline tests of the emulators' building blocks: JQL/CQL subsets, link stripping, git objects."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from devkb_devtools.emulators.cql import CqlError, compile_cql
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import FaultSwitches
from devkb_devtools.emulators.git_changes import compose_file_changes
from devkb_devtools.emulators.git_objects import EMPTY_TREE, TreeFile, git_blob_sha, hash_tree
from devkb_devtools.emulators.jql import JqlError, compile_jql
from devkb_devtools.emulators.link_stripping import strip_issue_links, strip_mentions
from devkb_devtools.emulators.url_rewriting import UrlRewriter

NOW = datetime(2024, 3, 10, 12, 0, tzinfo=UTC)


def issue(key: str, updated: str, **fields: Any) -> dict[str, Any]:
    project = key.split("-")[0]
    return {
        "id": str(abs(hash(key)) % 10**6),
        "key": key,
        "fields": {
            "project": {"key": project, "name": project.title()},
            "updated": updated,
            "created": updated,
            **fields,
        },
    }


ISSUES = [
    issue("FLUID-10", "2024-03-10T08:30:45.000-0400", status={"name": "Open"}),  # 12:30:45 UTC
    issue("FLUID-9", "2024-03-10T12:29:59.000+0000", status={"name": "Closed"}),
    issue("VP-1", "2024-03-01T00:00:00.000+0000", status={"name": "Open"}),
]


def keys(jql: str, **options: Any) -> list[str]:
    query = compile_jql(jql, now=NOW, **options)
    return [i["key"] for i in query.sort([i for i in ISSUES if query.predicate(i)])]


def test_jql_filters_and_default_key_order() -> None:
    assert keys("") == ["FLUID-9", "FLUID-10", "VP-1"]
    assert keys("project = fluid") == ["FLUID-9", "FLUID-10"]
    assert keys("project in (VP, FLUID) AND status = Open") == ["FLUID-10", "VP-1"]
    assert keys("key in (FLUID-9, VP-1) OR status != Open") == ["FLUID-9", "VP-1"]
    assert keys("project = FLUID ORDER BY updated DESC") == ["FLUID-10", "FLUID-9"]
    assert keys("resolution is EMPTY and project not in (VP)") == ["FLUID-9", "FLUID-10"]


def test_jql_dates_compare_at_minute_precision_in_utc() -> None:
    assert keys('updated >= "2024-03-10 12:30"') == ["FLUID-10"]
    assert keys("updated >= '2024/03/10 12:29'") == ["FLUID-9", "FLUID-10"]
    assert keys('updated > "2024-03-10 12:30"') == []  # 12:30:45 truncates to 12:30
    assert keys('updated = "2024-03-10 12:30"') == ["FLUID-10"]
    assert keys("updated >= -1d") == ["FLUID-9", "FLUID-10"]
    assert keys('updated < "2024-03-02"') == ["VP-1"]


@pytest.mark.parametrize(
    "jql",
    [
        'summary ~ "x"',
        "project = FLUID OR",
        "foo = 1",
        "updated >= yesterday",
        "issue in linkedIssues(X-1)",
        "NOT project = X",
        "project = X ORDER BY rank",
    ],
)
def test_jql_rejects_what_it_does_not_support(jql: str) -> None:
    with pytest.raises(JqlError):
        compile_jql(jql, now=NOW)


def test_jql_validates_projects_and_keys_strictly_or_with_warnings() -> None:
    exists = {"FLUID"}.__contains__
    with pytest.raises(JqlError, match="does not exist for the field 'project'"):
        compile_jql("project = NOPE", project_exists=exists)
    query = compile_jql("key in (FLUID-1, X-2)", issue_exists={"FLUID-1"}.__contains__, strict=False)
    assert query.warnings == ["An issue with key 'X-2' does not exist for field 'key'."]


PAGES = [
    {
        "id": "2",
        "title": "B",
        "type": "page",
        "space": {"key": "ILDH"},
        "ancestors": [{"id": "1"}],
        "version": {"when": "2024-03-09T10:00:30.000Z"},
    },
    {
        "id": "1",
        "title": "A",
        "type": "page",
        "space": {"key": "ILDH"},
        "ancestors": [],
        "version": {"when": "2024-03-10T11:59:00.000Z"},
    },
    {
        "id": "3",
        "title": "C",
        "type": "page",
        "space": {"key": "OTHER"},
        "ancestors": [{"id": "1"}, {"id": "2"}],
        "version": {"when": "2020-01-01T00:00:00.000Z"},
    },
]


def page_ids(cql: str) -> list[str]:
    query = compile_cql(cql, now=NOW)
    return [p["id"] for p in query.sort([p for p in PAGES if query.predicate(p)])]


def test_cql_subset() -> None:
    assert page_ids('space = "ILDH" and type = page') == ["1", "2"]
    assert page_ids("space = ILDH and lastmodified >= '2024/03/09 10:00' order by lastmodified asc") == [
        "2",
        "1",
    ]
    assert page_ids('lastmodified > "2024-03-09 10:00"') == ["1"]  # 10:00:30 truncates to 10:00
    assert page_ids('lastmodified >= now("-1d")') == ["1"]
    assert page_ids("ancestor = 1 order by title desc") == ["3", "2"]
    assert page_ids("parent = 2 or space in (ILDH)") == ["1", "2", "3"]
    for bad in ('text ~ "x"', "space = ", "creator = bob", "type = page order by rank", ""):
        with pytest.raises(CqlError):
            compile_cql(bad, now=NOW)


def test_strip_mentions_handles_urls_markdown_and_bare_keys() -> None:
    text = (
        "Dupe of <https://fluidproject.atlassian.net/browse/FLUID-12#icft=FLUID-12>, see [the bug]"
        "(http://issues.fluidproject.org/browse/FLUID-12) and FLUID-12. Keep FLUID-123 and XFLUID-12."
    )
    assert strip_mentions(text, ["FLUID-12"]) == "Dupe of , see the bug and . Keep FLUID-123 and XFLUID-12."
    assert strip_mentions("fluid-12 in lower case", ["FLUID-12"]) == " in lower case"
    assert strip_mentions(None, ["FLUID-12"]) is None


def test_strip_issue_links_covers_every_text_field() -> None:
    original = {
        "key": "A-1",
        "fields": {
            "summary": "Like B-2",
            "description": "B-2",
            "environment": None,
            "issuelinks": [{"outwardIssue": {"key": "B-2"}}],
            "comment": {"comments": [{"body": "see B-2"}], "total": 1},
        },
    }
    stripped = strip_issue_links(original, {"B-2"})
    assert stripped["fields"]["issuelinks"] == [] and stripped["fields"]["summary"] == "Like "
    assert stripped["fields"]["comment"]["comments"][0]["body"] == "see "
    assert original["fields"]["summary"] == "Like B-2"  # the record is not modified


def test_git_object_ids_match_git() -> None:
    assert git_blob_sha(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert hash_tree({}) == (EMPTY_TREE, {})
    contents = {"README.md": b"hello\n", "docs/a/b.md": b"x\n", "docs/c.md": b"y\n", "docs-x.md": b"z\n"}
    files = {path: TreeFile(path, git_blob_sha(data), len(data)) for path, data in contents.items()}
    root, dirs = hash_tree(files)  # expected values from `git write-tree` on the same files
    assert root == "b2fc8272ca7b14458250100c8d682ad7f2ecc098"
    assert dirs == {
        "docs": "421a4466d6a46c38f8d693dd13f489f879703bf7",
        "docs/a": "e75943456cb2a97dfba74bc079c787d4ab5408a4",
    }


def change(filename: str, status: str, previous: str | None = None) -> dict[str, Any]:
    entry = {"filename": filename, "status": status, "additions": 1, "deletions": 0, "changes": 1}
    return {**entry, "previous_filename": previous} if previous else entry


def test_compose_file_changes_nets_out_a_range() -> None:
    commits = [
        {
            "files": [
                change("new.md", "added"),
                change("a.md", "renamed", "old.md"),
                change("gone.md", "modified"),
            ]
        },
        {
            "files": [
                change("new.md", "modified"),
                change("b.md", "renamed", "a.md"),
                change("gone.md", "removed"),
            ]
        },
        {"files": [change("tmp.md", "added")]},
        {"files": [change("tmp.md", "removed")]},
    ]
    composed = {
        c["filename"]: (c["status"], c.get("previous_filename"), c["additions"])
        for c in compose_file_changes(commits)
    }
    assert composed == {
        "new.md": ("added", None, 2),
        "b.md": ("renamed", "old.md", 2),
        "gone.md": ("removed", None, 2),
    }


def test_url_rewriter_touches_only_api_url_fields() -> None:
    rewriter = UrlRewriter({"https://api.github.com": "http://127.0.0.1:9"})
    data = {
        "url": "https://api.github.com/repos/o/r",
        "html_url": "https://github.com/o/r",
        "commits_url": "https://api.github.com/repos/o/r/commits{/sha}",
        "body": "https://api.github.com/repos/o/r is mentioned in text",
        "parents": [{"url": "https://api.github.com/repos/o/r/commits/1"}],
    }
    rewritten = rewriter.rewrite(data)
    assert rewritten["url"] == "http://127.0.0.1:9/repos/o/r"
    assert rewritten["commits_url"] == "http://127.0.0.1:9/repos/o/r/commits{/sha}"
    assert rewritten["parents"][0]["url"] == "http://127.0.0.1:9/repos/o/r/commits/1"
    assert rewritten["html_url"] == data["html_url"] and rewritten["body"] == data["body"]


def test_dataset_links_and_deletion_keep_both_ends_consistent() -> None:
    projects = [
        {"id": "10000", "key": "A", "name": "A", "self": "http://jira.local/rest/api/2/project/10000"}
    ]
    dataset = Dataset(projects=projects)
    first = dataset.add_issue("A", "First")
    second = dataset.add_issue("A", "Second", created=datetime(2020, 1, 1, tzinfo=UTC))
    assert (first["key"], second["key"], second["id"]) == ("A-1", "A-2", "100002")
    dataset.link_issues("A-1", "A-2", "Duplicate", updated=datetime(2021, 1, 1, tzinfo=UTC))
    assert dataset.linked_keys("A-2") == {"A-1"}
    assert dataset.issue("A-2")["fields"]["updated"] == "2021-01-01T00:00:00.000+0000"
    assert dataset.issue("A-2")["fields"]["issuelinks"][0]["inwardIssue"]["key"] == "A-1"
    twin = dataset.clone()
    dataset.delete_issue("A-1")
    assert dataset.issue("A-2")["fields"]["issuelinks"] == [] and dataset.linked_keys("A-2") == frozenset()
    assert twin.issue("A-1") is not None and twin.linked_keys("A-2") == {"A-1"}


def test_fault_queue_consumes_in_order_and_respects_scope() -> None:
    faults = FaultSwitches()
    faults.server_error(503, times=2, service="jira", path_prefix="/rest/api/2/search")
    faults.slow(1.0)
    assert faults.take("confluence", "/rest/api/space").kind == "delay"
    assert faults.take("jira", "/rest/api/2/search").status == 503
    assert faults.take("jira", "/rest/api/2/project") is None
    assert faults.take("jira", "/rest/api/2/search").status == 503
    assert faults.take("jira", "/rest/api/2/search") is None
    with pytest.raises(ValueError):
        faults.inject("status", status=200)
    faults.configure({"strip_links": True, "kind": "reset"})
    assert faults.strip_links and faults.pending()[0].kind == "reset"
    faults.reset()
    assert not faults.strip_links and faults.pending() == []
