from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.extractor import ReferenceExtractor, issue_keys
from devkb.sources.jira.convert import issue_to_document, to_utc_iso
from devkb.store.models import SourceType

ISSUE = {
    "key": "PAY-7",
    "fields": {
        "summary": "Retry webhooks on 503",
        "description": "See PAY-3 and https://jira.example.com/browse/WEB-2. Not UTF-8 or ABC-1.",
        "environment": None,
        "issuetype": {"name": "Bug"},
        "status": {"name": "Closed"},
        "priority": {"name": "Major"},
        "resolution": {"name": "Fixed"},
        "project": {"key": "PAY", "name": "Payments"},
        "created": "2026-03-02T10:15:00.000+0000",
        "updated": "2026-03-04T12:00:00.000-0400",
        "assignee": {"name": "ana", "displayName": "Ana Diaz"},
        "reporter": None,
        "labels": [],
        "components": [{"name": "webhooks"}],
        "fixVersions": [{"name": "1.2"}],
        "versions": [],
        "issuelinks": [
            {
                "id": "1",
                "type": {"name": "Duplicate", "inward": "is duplicated by", "outward": "duplicates"},
                "outwardIssue": {"key": "PAY-1", "fields": {"summary": "Webhooks fail"}},
            },
            {
                "id": "2",
                "type": {"name": "Dependence", "inward": "is depended on by", "outward": "depends on"},
                "inwardIssue": {"key": "PAY-9"},
            },
        ],
        "comment": {
            "comments": [
                {
                    "author": {"displayName": "Bo"},
                    "body": "Fixed in PAY-3 follow-up",
                    "created": "2026-03-03T00:00:00.000+0000",
                }
            ]
        },
    },
}


def test_issue_to_document_fields_and_text():
    d = issue_to_document(ISSUE, "https://jira.example.com/")
    assert d.id == "jira:PAY-7" and d.type is SourceType.JIRA and d.kind == "issue"
    assert d.url == "https://jira.example.com/browse/PAY-7"
    assert d.updated_at == "2026-03-04T16:00:00+00:00"
    assert d.metadata["status"] == "Closed" and d.metadata["component"] == ["webhooks"]
    assert "reporter" not in d.metadata
    assert "## Description" in d.content and "## Comments" in d.content and "duplicates PAY-1" in d.content
    assert "is depended on by PAY-9" in d.content
    # each side gives the link's one edge, read from its outward side ("PAY-9 depends on PAY-7" is
    # PAY-9's outward link, seen here from the inward side), so a one-sided link is not lost
    assert [(r.from_id, r.to_id, r.kind, r.evidence) for r in d.references] == [
        ("jira:PAY-7", "jira:PAY-1", "jira-issuelink", "PAY-7 duplicates PAY-1"),
        ("jira:PAY-9", "jira:PAY-7", "jira-issuelink", "PAY-9 depends on PAY-7"),
    ]


def test_content_hash_stable_and_sensitive():
    a = issue_to_document(ISSUE, "https://jira.example.com")
    b = issue_to_document(ISSUE, "https://jira.example.com")
    assert a.content_hash == b.content_hash
    changed = {**ISSUE, "fields": {**ISSUE["fields"], "summary": "other"}}
    assert issue_to_document(changed, "https://jira.example.com").content_hash != a.content_hash


def test_key_mentions_use_learned_projects_only():
    d = issue_to_document(ISSUE, "https://jira.example.com")
    refs = ReferenceExtractor().extract(d, LinkContext(project_keys={"PAY", "WEB"}))
    got = {(r.to_id, r.kind) for r in refs}
    assert got == {
        ("jira:PAY-1", "jira-issuelink"),
        ("jira:PAY-7", "jira-issuelink"),  # PAY-9's link, seen from PAY-7's inward side
        ("jira:PAY-3", "jira-key-mention"),
        ("jira:WEB-2", "jira-key-mention"),
    }
    assert issue_keys("UTF-8 ABC-1 PAY-0 xPAY-2 PAY-22", {"PAY", "ABC"}) == ["ABC-1", "PAY-22"]


def test_to_utc_iso_handles_offsets():
    assert to_utc_iso("2016-10-26T16:31:23.194-0400") == "2016-10-26T20:31:23+00:00"
    assert to_utc_iso(None) == ""
