"""File-level changes of commits: diffing two versions and composing a range of commits."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass
class FileChange:
    """One entry of a created commit's ``files[]``."""

    filename: str
    status: str
    sha: str | None
    additions: int = 0
    deletions: int = 0
    patch: str | None = None
    previous_filename: str | None = None


@dataclass
class Comparison:
    """Result of :meth:`GitRepository.compare`; ``commits`` oldest first."""

    commits: list[dict[str, Any]]
    ahead_by: int
    behind_by: int
    merge_base: dict[str, Any] | None
    files: list[dict[str, Any]]


def compose_file_changes(commits: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Net ``files[]`` of applying ``commits`` (oldest first) one after another.

    Statuses combine as git would report the overall diff: added-then-modified is added,
    added-then-removed disappears, renamed-then-modified stays renamed from the original path,
    removed-then-added is modified. Additions and deletions are summed.
    """
    state: dict[str, dict[str, Any]] = {}
    for commit in commits:
        for change in commit.get("files") or []:
            path, status = change["filename"], change["status"]
            previous = state.get(path)
            if status == "renamed":
                origin = state.pop(change.get("previous_filename", ""), None)
                entry = {**change}
                if origin is not None and origin["status"] == "added":
                    entry["status"] = "added"
                    entry.pop("previous_filename", None)
                elif origin is not None and origin.get("previous_filename"):
                    entry["previous_filename"] = origin["previous_filename"]
                if entry.get("previous_filename") == path:
                    entry["status"] = "modified"
                    entry.pop("previous_filename", None)
                _add_counts(entry, origin)
                state[path] = entry
            elif status == "removed":
                if previous is not None and previous["status"] == "added":
                    del state[path]
                    continue
                entry = {**change}
                if previous is not None and previous.get("previous_filename"):
                    entry["filename"] = previous["previous_filename"]
                    entry.pop("previous_filename", None)
                    del state[path]
                    path = entry["filename"]
                _add_counts(entry, previous)
                state[path] = entry
            else:
                entry = {**change}
                if previous is not None:
                    if previous["status"] in ("added", "renamed"):
                        entry["status"] = previous["status"]
                        if previous.get("previous_filename"):
                            entry["previous_filename"] = previous["previous_filename"]
                    else:
                        entry["status"] = "modified"
                _add_counts(entry, previous)
                state[path] = entry
    return list(state.values())


def _add_counts(entry: dict[str, Any], earlier: dict[str, Any] | None) -> None:
    if earlier is None:
        return
    entry["additions"] = entry.get("additions", 0) + earlier.get("additions", 0)
    entry["deletions"] = entry.get("deletions", 0) + earlier.get("deletions", 0)
    entry["changes"] = entry["additions"] + entry["deletions"]
    entry.pop("patch", None)


def diff_contents(
    path: str, status: str, before: bytes, after: bytes, sha: str | None, previous: str | None = None
) -> FileChange:
    try:
        old_lines = before.decode("utf-8").splitlines()
        new_lines = after.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return FileChange(path, status, sha, previous_filename=previous)
    hunks = list(difflib.unified_diff(old_lines, new_lines, lineterm="", n=3))[2:]
    additions = sum(1 for line in hunks if line.startswith("+"))
    deletions = sum(1 for line in hunks if line.startswith("-"))
    return FileChange(path, status, sha, additions, deletions, "\n".join(hunks) or None, previous)
