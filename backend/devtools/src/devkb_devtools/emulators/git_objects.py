"""Git object model for tree snapshots: files, directories, object ids and listing order.

Object ids are real git hashes (``sha1("<type> <size>\\0" + content)``), so trees and blobs the
emulator creates look like GitHub's. Recorded snapshots keep their recorded ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FILE_MODE = "100644"
TREE_MODE = "040000"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@dataclass(frozen=True)
class TreeFile:
    """A file (blob) in a tree snapshot."""

    path: str
    sha: str
    size: int
    mode: str = FILE_MODE


@dataclass
class Snapshot:
    """The exported files of one commit plus the shas of their directories.

    ``recorded_entries`` keeps ``tree.json``'s entry list verbatim for the recorded HEAD, so the
    emulator serves exactly what was recorded; snapshots of created commits generate theirs.
    """

    tree_sha: str
    files: dict[str, TreeFile]
    dirs: dict[str, str]
    recorded_entries: list[dict[str, Any]] | None = None

    def entries(self, under: str = "", recursive: bool = True) -> list[dict[str, Any]]:
        """Tree entries below directory ``under`` (paths relative to it), in git order."""
        if self.recorded_entries is not None:
            entries = [dict(e) for e in self.recorded_entries]
        else:
            entries = [self._entry(path) for path in git_order(self.files, self.dirs)]
        prefix = f"{under}/" if under else ""
        selected = []
        for entry in entries:
            if not entry["path"].startswith(prefix):
                continue
            relative = entry["path"][len(prefix) :]
            if not recursive and "/" in relative:
                continue
            selected.append({**entry, "path": relative})
        return selected

    def _entry(self, path: str) -> dict[str, Any]:
        if path in self.dirs:
            return {"path": path, "mode": TREE_MODE, "type": "tree", "sha": self.dirs[path]}
        f = self.files[path]
        return {"path": path, "mode": f.mode, "type": "blob", "sha": f.sha, "size": f.size}

    def children(self, directory: str) -> list[str]:
        """Paths of the direct children (files and dirs) of ``directory`` ("" for the root)."""
        prefix = f"{directory}/" if directory else ""
        found = {p for p in [*self.files, *self.dirs] if p.startswith(prefix) and "/" not in p[len(prefix) :]}
        return sorted(found, key=lambda p: p.lower())


def git_blob_sha(data: bytes) -> str:
    """The git object id of a blob with content ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_order(files: Mapping[str, TreeFile], dirs: Mapping[str, str]) -> list[str]:
    """All paths in the depth-first order GitHub lists a recursive tree."""
    children: dict[str, list[str]] = {}
    for path in [*files, *dirs]:
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        children.setdefault(parent, []).append(path)

    def key(path: str) -> bytes:
        name = path.rsplit("/", 1)[-1]
        return (name + "/" if path in dirs else name).encode()

    ordered: list[str] = []

    def walk(directory: str) -> None:
        for path in sorted(children.get(directory, []), key=key):
            ordered.append(path)
            if path in dirs:
                walk(path)

    walk("")
    return ordered


def hash_tree(files: Mapping[str, TreeFile]) -> tuple[str, dict[str, str]]:
    """Git tree object ids for the root and every directory of ``files``."""
    dirs: set[str] = set()
    for path in files:
        parts = path.split("/")[:-1]
        dirs.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    shas: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    for path in [*files, *dirs]:
        children.setdefault(path.rsplit("/", 1)[0] if "/" in path else "", []).append(path)

    def tree_sha(directory: str) -> str:
        entries = []
        for path in children.get(directory, []):
            name = path.rsplit("/", 1)[-1]
            if path in dirs:
                entries.append(
                    (name + "/", b"40000 " + name.encode() + b"\0" + bytes.fromhex(tree_sha(path)))
                )
            else:
                f = files[path]
                entries.append((name, f.mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(f.sha)))
        body = b"".join(raw for _, raw in sorted(entries, key=lambda e: e[0].encode()))
        sha = hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()
        if directory:
            shas[directory] = sha
        return sha

    root = tree_sha("")
    return root, shas
