"""GitHub loader parts that need no server: path filters, cursor, conversion, rate-limit guard."""

from __future__ import annotations

import time

from devkb.sources.github.convert import commit_to_document, pull_to_document
from devkb.sources.github.cursor import GitHubCursor
from devkb.sources.github.paths import PathFilter, glob_to_regex
from devkb.sources.github.rate_limit import RateLimitGuard


def test_globs_follow_gitignore_like_rules():
    assert glob_to_regex("**/*.md").match("README.md")
    assert glob_to_regex("**/*.md").match("docs/a/b.md")
    assert not glob_to_regex("*.md").match("docs/b.md")
    assert glob_to_regex("docs/**").match("docs/a/b.txt")
    assert not glob_to_regex("src/?.py").match("src/ab.py")


def test_path_filter_include_exclude_size_and_binary():
    f = PathFilter(["**/*.md", "**/*.py"], ["vendor/**"], max_bytes=10)
    assert f.wanted("a/b.md", 5) and not f.wanted("a/b.md", 11) and not f.wanted("a.png", 1)
    assert not f.wanted("vendor/x.py", 1)
    assert f.decode(b"hello") == "hello"
    assert f.decode(b"\x89PNG\x00\x01") is None and f.decode(b"\xff\xfe") is None


def test_cursor_round_trip_and_unreadable_cursor_means_full_load():
    c = GitHubCursor.parse(None)
    st = c.repo("acme/x")
    st.head, st.pulls, st.pending = (
        "abc",
        "2026-01-01T00:00:00+00:00",
        {"head": "def", "phase": "commits", "done": 7},
    )
    again = GitHubCursor.parse(c.dump())
    assert again.repo("acme/x") == st
    assert GitHubCursor.parse("2026-01-01T00:00:00+00:00").repos == {}


def test_commit_document_is_small_and_keeps_renames():
    commit = {
        "sha": "a" * 40,
        "html_url": "https://github.com/acme/x/commit/" + "a" * 40,
        "commit": {
            "message": "PAY-1: move docs\n\nLonger body",
            "author": {"name": "Ann", "date": "2026-01-02T03:04:05Z"},
            "committer": {"date": "2026-01-02T03:04:05Z"},
        },
        "parents": [{"sha": "b" * 40}],
        "files": [{"filename": f"f{i}.md", "status": "modified"} for i in range(40)]
        + [{"filename": "new.md", "previous_filename": "old.md", "status": "renamed"}],
    }
    doc = commit_to_document("acme/x", commit)
    assert doc.id == f"github:acme/x:commit:{'a' * 40}" and doc.title == "aaaaaaa PAY-1: move docs"
    assert doc.metadata["renames"] == [["old.md", "new.md"]] and doc.metadata["files_changed"] == 41
    assert "… and 11 more" in doc.content and len(doc.content) < 1500
    assert doc.reference_text == {"message": "PAY-1: move docs\n\nLonger body"}


def test_pull_document_fields_scanned_for_keys():
    pull = {
        "number": 3,
        "title": "PAY-12: keys",
        "body": "Fixes it",
        "state": "closed",
        "merged_at": "2026-02-01T00:00:00Z",
        "merge_commit_sha": "c" * 40,
        "head": {"ref": "pay-12"},
        "base": {"ref": "main"},
        "user": {"login": "mchen"},
        "html_url": "https://github.com/acme/x/pull/3",
        "updated_at": "2026-02-01T00:00:00Z",
    }
    doc = pull_to_document("acme/x", pull, [{"body": "nit", "user": {"login": "ann"}, "path": "a.py"}])
    assert doc.metadata["state"] == "merged" and doc.metadata["head"] == "pay-12"
    assert doc.reference_text == {"title": "PAY-12: keys", "head_ref": "pay-12", "body": "Fixes it"}
    assert "## Review comments\n### ann on a.py\nnit" in doc.content


class _Requester:
    def __init__(self, remaining: int, reset: float) -> None:
        self.rate_limiting = (remaining, 5000)
        self.rate_limiting_resettime = reset


class _Gh:
    def __init__(self, requester: _Requester) -> None:
        self.requester = requester


def test_rate_limit_guard_sleeps_until_reset_only_when_nothing_is_left():
    slept: list[float] = []
    notes: list[str] = []
    guard = RateLimitGuard(_Gh(_Requester(10, time.time() + 30)), 60, notes.append, slept.append)
    assert guard.wait() == 0 and slept == []
    guard = RateLimitGuard(_Gh(_Requester(0, time.time() + 30)), 60, notes.append, slept.append)
    assert 29 <= guard.wait() <= 32 and len(slept) == 1 and notes
    guard = RateLimitGuard(_Gh(_Requester(0, time.time() + 9999)), 60, notes.append, slept.append)
    assert guard.wait() == 60  # capped
