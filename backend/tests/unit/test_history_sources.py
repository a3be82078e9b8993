"""History from the sources' own payloads (docs/history.md): commit diffs per file and Jira
transitions, from the recorded Fluid commits and a changelog."""

from __future__ import annotations

import gzip
import json
from itertools import islice

from devkb.sources.github.convert import commit_to_document, cut_patch
from devkb.sources.jira.convert import issue_to_document


def test_each_file_of_a_recorded_commit_becomes_a_diff_version(fluid_dir):
    path = fluid_dir / "github" / "infusion-docs" / "commits.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        commit = next(c for c in map(json.loads, islice(f, 200)) if any(x.get("patch") for x in c["files"]))
    doc = commit_to_document("fluid-project/infusion-docs", commit, max_diff_bytes=1 << 20)
    assert [(v.field, v.body, v.ref) for v in doc.versions] == [
        (f["filename"], f.get("patch") or "", commit["sha"]) for f in commit["files"]
    ]
    assert {v.document_id for v in doc.versions} == {doc.id}
    assert commit_to_document("fluid-project/infusion-docs", commit).versions == []  # history off


def test_a_diff_is_cut_at_a_line_end():
    patch = "@@ -1,2 +1,2 @@\n-old line\n+new line\n"
    assert cut_patch(patch, 1000) == patch
    assert cut_patch(patch, 30) == "@@ -1,2 +1,2 @@\n-old line\n"
    assert cut_patch(patch, 5) == ""


def test_changelog_items_become_transitions_valid_until_the_fields_next_change():
    issue = {
        "key": "PAY-1",
        "fields": {"summary": "s", "status": {"name": "Done"}, "project": {"key": "PAY"}},
        "changelog": {
            "histories": [
                {
                    "created": "2026-01-02T10:00:00.000+0000",
                    "author": {"displayName": "Ann"},
                    "items": [
                        {"field": "status", "fromString": "Open", "toString": "In Progress"},
                        {"field": "assignee", "fromString": None, "toString": "Bob"},
                    ],
                },
                {
                    "created": "2026-01-05T10:00:00.000+0000",
                    "author": {"displayName": "Bob"},
                    "items": [{"field": "status", "fromString": "In Progress", "toString": "Done"}],
                },
            ]
        },
    }
    doc = issue_to_document(issue, "https://jira.example")
    got = [
        (v.field, v.from_value, v.to_value, v.author, v.valid_from[:10], v.valid_until[:10])
        for v in doc.versions
    ]
    assert got == [
        ("status", "Open", "In Progress", "Ann", "2026-01-02", "2026-01-05"),
        ("assignee", "", "Bob", "Ann", "2026-01-02", ""),
        ("status", "In Progress", "Done", "Bob", "2026-01-05", ""),
    ]
