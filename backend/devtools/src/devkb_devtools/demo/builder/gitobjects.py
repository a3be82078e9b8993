"""Git object ids computed exactly as git computes them (blob, tree, commit)."""

from __future__ import annotations

import calendar
import functools
import hashlib
import re

from ..content.common import EMAIL

Files = dict[str, bytes]


def git_hash(kind: str, body: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).hexdigest()


def blob_sha(content: bytes) -> str:
    return git_hash("blob", content)


def build_trees(files: Files) -> dict[str, str]:
    """Tree sha of every directory ("" is the root), computed as ``git write-tree`` would."""
    dirs: dict[str, dict[str, tuple[str, str]]] = {"": {}}  # dir -> name -> (mode, sha)
    for path in files:
        parts = path.split("/")
        for i in range(1, len(parts)):
            dirs.setdefault("/".join(parts[:i]), {})
    shas: dict[str, str] = {}
    for d in sorted(dirs, key=lambda p: -p.count("/") if p else 1):  # deepest first, root last
        entries = {_name(p): ("100644", blob_sha(c)) for p, c in files.items() if _parent(p) == d}
        entries.update({_name(s): ("40000", shas[s]) for s in dirs if s and _parent(s) == d})
        # git sorts directories as if their name ended in "/"
        names = sorted(entries, key=functools.partial(_git_tree_order, entries))
        body = b"".join(f"{entries[n][0]} {n}\0".encode() + bytes.fromhex(entries[n][1]) for n in names)
        shas[d] = git_hash("tree", body)
    return shas


def _git_tree_order(entries: dict[str, tuple[str, str]], name: str) -> bytes:
    """git sorts directories as if their name ended in "/"."""
    return (name + "/" if entries[name][0] == "40000" else name).encode()


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def unix_time(github_date: str) -> int:
    y, mo, d, h, mi, s = (int(x) for x in re.findall(r"\d+", github_date)[:6])
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))


def commit_object(
    tree: str,
    parents: list[str],
    author: str,
    committer: str,
    author_date: str,
    commit_date: str,
    message: str,
) -> str:
    lines = [f"tree {tree}"] + [f"parent {p}" for p in parents]
    lines += [
        f"author {author} <{EMAIL}> {unix_time(author_date)} +0000",
        f"committer {committer} <{EMAIL}> {unix_time(commit_date)} +0000",
    ]
    return git_hash("commit", ("\n".join(lines) + "\n\n" + message + "\n").encode())
