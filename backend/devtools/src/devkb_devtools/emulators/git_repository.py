"""One recorded GitHub repository: commits, pull requests, the file tree at HEAD, and new commits.

A repository directory holds ``repo.json``, ``commits.jsonl[.gz]`` (newest first),
``pulls.jsonl[.gz]``, optionally ``issues.jsonl[.gz]``, ``tree.json`` (the recursive tree at HEAD)
and ``tree/`` (the files at their paths). Trees and file contents exist for HEAD and for every
commit created through :meth:`GitRepository.add_commit`; older recorded commits have metadata
and file lists only.

HEAD of the default branch is, in order of preference: the ``head_hint`` passed by the dataset
(``manifest.json`` ``sources.github.commit``), else the branch tip with the most ancestors after
leaving out GitHub's synthetic pull-request merge commits (``Merge <sha> into <sha>``).

Records are copy-on-write: a mutation replaces the affected dicts instead of editing them, so a
reader holding an older record never sees it change. All access goes through the dataset lock.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from devkb_devtools.emulators.git_changes import Comparison, FileChange, compose_file_changes, diff_contents
from devkb_devtools.emulators.git_objects import EMPTY_TREE, Snapshot, TreeFile, git_blob_sha, hash_tree
from devkb_devtools.emulators.jsonl import read_json, read_jsonl
from devkb_devtools.emulators.timestamps import as_utc, format_github
from devkb_devtools.emulators.url_rewriting import origin_of

_SYNTHETIC_MERGE = re.compile(r"^Merge [0-9a-f]{40} into [0-9a-f]{40}")
_HEX = re.compile(r"^[0-9a-f]{4,40}$")


@dataclass
class _TreeRef:
    snapshot: Snapshot
    directory: str


class GitRepository:
    """Commits, pulls, issues and tree snapshots of one repository, with a mutation API."""

    def __init__(
        self,
        *,
        repo: dict[str, Any],
        commits: list[dict[str, Any]],
        pulls: list[dict[str, Any]],
        issues: list[dict[str, Any]],
        head_sha: str,
        head_snapshot: Snapshot,
        blobs: dict[str, bytes],
        lock: threading.RLock,
    ) -> None:
        self._lock = lock
        self.repo = repo
        self._commits: dict[str, dict[str, Any]] = {c["sha"]: c for c in commits}
        self._rank: dict[str, int] = {c["sha"]: i for i, c in enumerate(commits)}
        self._ancestors: dict[str, frozenset[str]] = {}  # sha -> ancestors, until a commit is added
        self._pulls: dict[int, dict[str, Any]] = {int(p["number"]): p for p in pulls}
        self._issues: dict[int, dict[str, Any]] = {int(i["number"]): i for i in issues}
        self._blobs = blobs
        self._branches: dict[str, str] = {self.default_branch: head_sha}
        self._snapshots: dict[str, Snapshot] = {}
        self._trees: dict[str, _TreeRef] = {}
        self._add_snapshot(head_sha, head_snapshot)
        recorded_tree = self._commits.get(head_sha, {}).get("commit", {}).get("tree", {}).get("sha")
        if recorded_tree and recorded_tree not in self._trees:
            # The recorded commit names the tree of the full repository; serve the exported tree for it.
            self._trees[recorded_tree] = _TreeRef(head_snapshot, "")

    # ----------------------------------------------------------------- loading

    @classmethod
    def load(cls, directory: Path, lock: threading.RLock, head_hint: str | None = None) -> GitRepository:
        """Load one repository directory (see the module docstring for the layout)."""
        repo = read_json(directory / "repo.json")
        commits = read_jsonl(directory, "commits")
        pulls = read_jsonl(directory, "pulls")
        issues = read_jsonl(directory, "issues")
        head_sha = _detect_head(commits, head_hint)
        tree_path = directory / "tree.json"
        tree: dict[str, Any] = read_json(tree_path) if tree_path.exists() else {"sha": EMPTY_TREE, "tree": []}
        blobs: dict[str, bytes] = {}
        files: dict[str, TreeFile] = {}
        dirs: dict[str, str] = {}
        for entry in tree.get("tree", []):
            if entry["type"] == "tree":
                dirs[entry["path"]] = entry["sha"]
                continue
            source = directory / "tree" / entry["path"]
            if source.is_file():
                blobs[entry["sha"]] = source.read_bytes()
            files[entry["path"]] = TreeFile(
                entry["path"], entry["sha"], int(entry.get("size", 0)), entry["mode"]
            )
        snapshot = Snapshot(tree["sha"], files, dirs, recorded_entries=list(tree.get("tree", [])))
        return cls(
            repo=repo,
            commits=commits,
            pulls=pulls,
            issues=issues,
            head_sha=head_sha,
            head_snapshot=snapshot,
            blobs=blobs,
            lock=lock,
        )

    def clone(self, lock: threading.RLock) -> GitRepository:
        """An independent copy sharing the (immutable) records; used to isolate test mutations."""
        twin = object.__new__(GitRepository)
        twin._lock = lock
        twin.repo = self.repo
        twin._commits = dict(self._commits)
        twin._rank = dict(self._rank)
        twin._ancestors = {}
        twin._pulls = dict(self._pulls)
        twin._issues = dict(self._issues)
        twin._blobs = dict(self._blobs)
        twin._branches = dict(self._branches)
        twin._snapshots = dict(self._snapshots)
        twin._trees = dict(self._trees)
        return twin

    # ----------------------------------------------------------------- identity

    @property
    def full_name(self) -> str:
        return str(self.repo["full_name"])

    @property
    def default_branch(self) -> str:
        return str(self.repo.get("default_branch") or "main")

    @property
    def head_sha(self) -> str:
        with self._lock:
            return self._branches[self.default_branch]

    @property
    def api_origin(self) -> str:
        """Origin of the recorded API URLs (``https://api.github.com``)."""
        return origin_of(self.repo.get("url")) or "https://api.github.com"

    @property
    def html_origin(self) -> str:
        return origin_of(self.repo.get("html_url")) or "https://github.com"

    @property
    def api_url(self) -> str:
        return f"{self.api_origin}/repos/{self.full_name}"

    @property
    def html_url(self) -> str:
        return f"{self.html_origin}/{self.full_name}"

    # ----------------------------------------------------------------- reads

    def branches(self) -> dict[str, str]:
        with self._lock:
            return dict(self._branches)

    def resolve(self, ref: str | None) -> str | None:
        """Commit sha for a branch name (``main``, ``heads/main``, ``refs/heads/main``) or a (short) sha."""
        with self._lock:
            if not ref:
                return self._branches[self.default_branch]
            name = ref.removeprefix("refs/").removeprefix("heads/")
            if name in self._branches:
                return self._branches[name]
            if ref in self._commits:
                return ref
            if _HEX.match(ref) and len(ref) >= 7:
                matches = [sha for sha in self._commits if sha.startswith(ref)]
                if len(matches) == 1:
                    return matches[0]
            return None

    def commit(self, sha: str) -> dict[str, Any] | None:
        with self._lock:
            return self._commits.get(sha)

    def ancestors(self, sha: str) -> frozenset[str]:
        """``sha`` and every commit reachable from it through parents (remembered until a commit
        is added: a pull request's commits are two of these per request)."""
        with self._lock:
            known = self._ancestors.get(sha)
            if known is not None:
                return known
            seen: set[str] = set()
            stack = [sha]
            while stack:
                current = stack.pop()
                if current in seen or current not in self._commits:
                    continue
                seen.add(current)
                stack.extend(p["sha"] for p in self._commits[current]["parents"])
            found = self._ancestors[sha] = frozenset(seen)
            return found

    def reachable_only_from(self, head: str, base: str) -> frozenset[str]:
        """``ancestors(head) - ancestors(base)`` (``git rev-list base..head``), walking from
        ``head`` only as far as ``base``'s history: a pull request's few commits, not the
        repository's whole history once per pull request."""
        excluded = self.ancestors(base)
        with self._lock:
            seen: set[str] = set()
            stack = [head]
            while stack:
                current = stack.pop()
                if current in seen or current in excluded or current not in self._commits:
                    continue
                seen.add(current)
                stack.extend(p["sha"] for p in self._commits[current]["parents"])
            return frozenset(seen)

    def log(self, sha: str) -> list[dict[str, Any]]:
        """Commits reachable from ``sha``, newest first (recorded topological order)."""
        reachable = self.ancestors(sha)
        with self._lock:
            return [self._commits[s] for s in sorted(reachable, key=self._rank.__getitem__)]

    def ordered(self, shas: Iterable[str]) -> list[dict[str, Any]]:
        """The given commits, newest first."""
        with self._lock:
            return [self._commits[s] for s in sorted(set(shas), key=self._rank.__getitem__)]

    def snapshot(self, commit_sha: str) -> Snapshot | None:
        """The tree snapshot of a commit, when the emulator has one (HEAD or created commits)."""
        with self._lock:
            return self._snapshots.get(commit_sha)

    def tree(self, tree_or_commit: str) -> tuple[Snapshot, str, str] | None:
        """``(snapshot, directory, tree_sha)`` for a tree sha, a commit sha or a branch name."""
        with self._lock:
            ref = self._trees.get(tree_or_commit)
            if ref is not None:
                return ref.snapshot, ref.directory, tree_or_commit
            commit_sha = self.resolve(tree_or_commit)
            snap = self._snapshots.get(commit_sha) if commit_sha else None
            return (snap, "", snap.tree_sha) if snap else None

    def blob(self, sha: str) -> bytes | None:
        with self._lock:
            return self._blobs.get(sha)

    def pulls(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._pulls.values())

    def pull(self, number: int) -> dict[str, Any] | None:
        with self._lock:
            return self._pulls.get(number)

    def issues(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._issues.values())

    def issue(self, number: int) -> dict[str, Any] | None:
        with self._lock:
            return self._issues.get(number)

    def compare(self, base_sha: str, head_sha: str) -> Comparison:
        """What ``head`` has that ``base`` has not: commits, counts and the composed file changes.

        ``files`` composes the recorded per-commit file lists along the first-parent chain from
        ``head`` down to the first commit ``base`` already contains (merge commits list their diff
        against the first parent, so this is exact when ``base`` is on that chain).
        """
        head_ancestors, base_ancestors = self.ancestors(head_sha), self.ancestors(base_sha)
        common = head_ancestors & base_ancestors
        with self._lock:
            merge_base = min(common, key=self._rank.__getitem__) if common else None
            chain: list[dict[str, Any]] = []
            current: str | None = head_sha
            while current and current in self._commits and current not in base_ancestors:
                commit = self._commits[current]
                chain.append(commit)
                parents = commit["parents"]
                current = parents[0]["sha"] if parents else None
        ahead = self.ordered(head_ancestors - base_ancestors)
        ahead.reverse()
        return Comparison(
            commits=ahead,
            ahead_by=len(ahead),
            behind_by=len(base_ancestors - head_ancestors),
            merge_base=self._commits.get(merge_base) if merge_base else None,
            files=compose_file_changes(reversed(chain)),
        )

    # ----------------------------------------------------------------- mutations

    def add_commit(
        self,
        message: str,
        changes: Mapping[str, str | bytes | None] | None = None,
        renames: Mapping[str, str] | None = None,
        *,
        author_name: str = "Emulator User",
        author_email: str = "user@example.invalid",
        date: datetime | None = None,
    ) -> dict[str, Any]:
        """Create a commit on the default branch and move the branch to it.

        ``changes`` maps a path to its new text (added or modified) or None (removed);
        ``renames`` maps old path to new path (content from ``changes[new]`` when given, else
        unchanged). Returns the new commit record (shaped like ``GET /commits/{sha}``).
        """
        changes = dict(changes or {})
        renames = dict(renames or {})
        when = as_utc(date)
        with self._lock:
            parent_sha = self.head_sha
            base = self._snapshots[parent_sha]
            files = dict(base.files)
            file_changes: list[FileChange] = []
            for old, new in renames.items():
                if old not in files:
                    raise KeyError(f"cannot rename {old!r}: no such file at HEAD")
                if new in files and new not in renames:
                    raise ValueError(f"cannot rename {old!r} to {new!r}: target exists")
                before = self._blobs.get(files.pop(old).sha, b"")
                content = changes.get(new)
                after = _as_bytes(content) if content is not None else before
                files[new] = self._store_blob(new, after)
                file_changes.append(
                    diff_contents(new, "renamed", before, after, files[new].sha, previous=old)
                )
            for path, text in changes.items():
                if path in renames.values():
                    continue
                if text is None:
                    if path not in files:
                        raise KeyError(f"cannot remove {path!r}: no such file at HEAD")
                    before = self._blobs.get(files.pop(path).sha, b"")
                    file_changes.append(diff_contents(path, "removed", before, b"", None))
                    continue
                after = _as_bytes(text)
                if path in files:
                    before = self._blobs.get(files[path].sha, b"")
                    if before == after:
                        continue
                    files[path] = self._store_blob(path, after)
                    file_changes.append(diff_contents(path, "modified", before, after, files[path].sha))
                else:
                    files[path] = self._store_blob(path, after)
                    file_changes.append(diff_contents(path, "added", b"", after, files[path].sha))
            tree_sha, dirs = hash_tree(files)
            snapshot = Snapshot(tree_sha, files, dirs)
            signature = f"{author_name} <{author_email}> {int(when.timestamp())} +0000"
            raw = f"tree {tree_sha}\nparent {parent_sha}\nauthor {signature}\ncommitter {signature}\n\n{message}"
            sha = hashlib.sha1(b"commit %d\0" % len(raw.encode()) + raw.encode()).hexdigest()
            record = self._commit_record(sha, parent_sha, tree_sha, message, author_name, author_email, when)
            record["files"] = [self._file_record(sha, change) for change in file_changes]
            additions = sum(c.additions for c in file_changes)
            deletions = sum(c.deletions for c in file_changes)
            record["stats"] = {"total": additions + deletions, "additions": additions, "deletions": deletions}
            self._commits[sha] = record
            self._ancestors.clear()
            self._rank[sha] = min(self._rank.values(), default=0) - 1
            self._branches[self.default_branch] = sha
            self._add_snapshot(sha, snapshot)
            return record

    def add_pull(
        self,
        title: str,
        *,
        body: str | None = None,
        head_sha: str | None = None,
        head_ref: str | None = None,
        base_ref: str | None = None,
        state: str = "open",
        number: int | None = None,
        user_login: str | None = None,
        created_at: datetime | None = None,
        merged_at: datetime | None = None,
        merge_commit_sha: str | None = None,
    ) -> dict[str, Any]:
        """Add a pull request (default: open, head = current HEAD) and return its record."""
        with self._lock:
            if number is None:
                number = max([*self._pulls, *self._issues, 0]) + 1
            if number in self._pulls:
                raise ValueError(f"pull request #{number} already exists")
            created = format_github(created_at)
            merged = format_github(merged_at) if merged_at else None
            closed = merged if merged else (created if state == "closed" else None)
            base_ref = base_ref or self.default_branch
            owner = self.full_name.split("/")[0]
            user = {"login": user_login, "type": "User", "html_url": f"{self.html_origin}/{user_login}"}
            record = {
                "url": f"{self.api_url}/pulls/{number}",
                "id": 900000000 + number,
                "html_url": f"{self.html_url}/pull/{number}",
                "diff_url": f"{self.html_url}/pull/{number}.diff",
                "patch_url": f"{self.html_url}/pull/{number}.patch",
                "issue_url": f"{self.api_url}/issues/{number}",
                "commits_url": f"{self.api_url}/pulls/{number}/commits",
                "number": number,
                "state": state,
                "locked": False,
                "title": title,
                "user": user if user_login else None,
                "body": body,
                "created_at": created,
                "updated_at": created,
                "closed_at": closed,
                "merged_at": merged,
                "merge_commit_sha": merge_commit_sha,
                "merged": merged is not None,
                "head": {
                    "label": f"{owner}:{head_ref}" if head_ref else None,
                    "ref": head_ref,
                    "sha": head_sha or self.head_sha,
                    "repo": {"full_name": self.full_name},
                },
                "base": {
                    "label": f"{owner}:{base_ref}",
                    "ref": base_ref,
                    "sha": self._branches.get(base_ref, self.head_sha),
                    "repo": {"full_name": self.full_name},
                },
                "commits": 1,
            }
            self._pulls[number] = record
            return record

    def update_pull(
        self, number: int, changes: Mapping[str, Any], *, updated_at: datetime | None = None
    ) -> dict[str, Any]:
        """Replace fields of pull request ``number`` and bump ``updated_at`` (now by default)."""
        with self._lock:
            if number not in self._pulls:
                raise KeyError(f"no pull request #{number}")
            record = {**self._pulls[number], **changes, "updated_at": format_github(updated_at)}
            if record.get("state") == "closed" and not record.get("closed_at"):
                record["closed_at"] = record["updated_at"]
            self._pulls[number] = record
            return record

    # ----------------------------------------------------------------- internals

    def _add_snapshot(self, commit_sha: str, snapshot: Snapshot) -> None:
        self._snapshots[commit_sha] = snapshot
        self._trees[snapshot.tree_sha] = _TreeRef(snapshot, "")
        for directory, sha in snapshot.dirs.items():
            self._trees.setdefault(sha, _TreeRef(snapshot, directory))

    def _store_blob(self, path: str, data: bytes) -> TreeFile:
        sha = git_blob_sha(data)
        self._blobs[sha] = data
        return TreeFile(path, sha, len(data))

    def _commit_record(
        self, sha: str, parent: str, tree_sha: str, message: str, name: str, email: str, when: datetime
    ) -> dict[str, Any]:
        signature = {"name": name, "email": email, "date": format_github(when)}
        return {
            "sha": sha,
            "url": f"{self.api_url}/commits/{sha}",
            "html_url": f"{self.html_url}/commit/{sha}",
            "comments_url": f"{self.api_url}/commits/{sha}/comments",
            "commit": {
                "url": f"{self.api_url}/git/commits/{sha}",
                "author": signature,
                "committer": dict(signature),
                "message": message,
                "tree": {"sha": tree_sha, "url": f"{self.api_url}/git/trees/{tree_sha}"},
                "comment_count": 0,
            },
            "author": None,
            "committer": None,
            "parents": [
                {
                    "sha": parent,
                    "url": f"{self.api_url}/commits/{parent}",
                    "html_url": f"{self.html_url}/commit/{parent}",
                }
            ],
        }

    def _file_record(self, commit_sha: str, change: FileChange) -> dict[str, Any]:
        record: dict[str, Any] = {
            "sha": change.sha,
            "filename": change.filename,
            "status": change.status,
            "additions": change.additions,
            "deletions": change.deletions,
            "changes": change.additions + change.deletions,
            "blob_url": f"{self.html_url}/blob/{commit_sha}/{change.filename}",
            "raw_url": f"{self.html_url}/raw/{commit_sha}/{change.filename}",
            "contents_url": f"{self.api_url}/contents/{change.filename}?ref={commit_sha}",
        }
        if change.patch is not None:
            record["patch"] = change.patch
        if change.previous_filename is not None:
            record["previous_filename"] = change.previous_filename
        return record


def _detect_head(commits: list[dict[str, Any]], hint: str | None) -> str:
    by_sha = {c["sha"]: c for c in commits}
    if hint and hint in by_sha:
        return hint
    if not commits:
        raise ValueError("repository has no commits")
    real = {s: c for s, c in by_sha.items() if not _SYNTHETIC_MERGE.match(c["commit"]["message"])}
    parents = {p["sha"] for c in real.values() for p in c["parents"]}
    tips = [c["sha"] for c in commits if c["sha"] in real and c["sha"] not in parents]

    def ancestor_count(sha: str) -> int:
        seen: set[str] = set()
        stack = [sha]
        while stack:
            current = stack.pop()
            if current in seen or current not in by_sha:
                continue
            seen.add(current)
            stack.extend(p["sha"] for p in by_sha[current]["parents"])
        return len(seen)

    return max(tips or [commits[0]["sha"]], key=ancestor_count)


def _as_bytes(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8")
