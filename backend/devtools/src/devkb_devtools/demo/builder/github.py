"""GitHub records: commit history with real shas, commits, pull requests, tree and repository."""

from __future__ import annotations

import difflib
from typing import Any

from ..content import repo_files, repo_history
from ..content.common import EMAIL, GITHUB_API, GITHUB_HTML, GITHUB_REPO, PEOPLE, page_url, pr_url, render
from ..content.permissions import REPO_PRIVATE
from .gitobjects import Files, _name, _parent, blob_sha, build_trees, commit_object


def file_content(path: str, flags: frozenset[str]) -> bytes:
    return render(repo_files.TEMPLATES[path], flags).encode()


def build_history() -> tuple[dict[str, dict[str, frozenset[str]]], dict[str, str], dict[str, str]]:
    """File states (path -> flags) per commit id, commit shas and root tree shas."""
    specs = {c.id: c for c in repo_history.COMMITS}
    states: dict[str, dict[str, frozenset[str]]] = {}
    shas: dict[str, str] = {}
    trees: dict[str, str] = {}
    for c in repo_history.COMMITS:
        if not c.parents:
            state: dict[str, frozenset[str]] = {}
        elif len(c.parents) == 1:
            state = dict(states[c.parents[0]])
        else:
            ours, theirs = states[c.parents[0]], states[c.parents[1]]
            base = states[_merge_base(specs, c.parents[0], c.parents[1])]
            state = {}
            for path in set(ours) | set(theirs):
                if path in ours and path in theirs:
                    state[path] = ours[path] | theirs[path]
                elif path not in base:  # added on one side
                    state[path] = ours.get(path) or theirs[path]
        for new, old in c.renames.items():
            state[new] = state.pop(old)
        for path, flags in c.changes.items():
            if flags is None:
                del state[path]
            else:
                state[path] = state.get(path, frozenset()) | flags
        states[c.id] = state
        files = {p: file_content(p, fl) for p, fl in state.items()}
        trees[c.id] = build_trees(files)[""]
        author = PEOPLE[c.author].display
        committer = c.committer or author
        shas[c.id] = commit_object(
            trees[c.id],
            [shas[p] for p in c.parents],
            author,
            committer,
            c.date,
            c.commit_date or c.date,
            c.message,
        )
    return states, shas, trees


def _ancestors(specs: dict[str, Any], cid: str) -> set[str]:
    seen, todo = set(), [cid]
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(specs[x].parents)
    return seen


def _merge_base(specs: dict[str, Any], a: str, b: str) -> str:
    common = _ancestors(specs, a) & _ancestors(specs, b)
    order = [c.id for c in repo_history.COMMITS]
    return max(common, key=order.index)


def line_changes(old: bytes, new: bytes) -> tuple[int, int]:
    adds = dels = 0
    sm = difflib.SequenceMatcher(None, old.decode().splitlines(), new.decode().splitlines(), autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag in ("replace", "delete"):
            dels += i2 - i1
        if tag in ("replace", "insert"):
            adds += j2 - j1
    return adds, dels


def build_commits(states, shas, trees) -> list[dict[str, Any]]:
    out = []
    # newest first; committer dates increase along every parent edge, so this order is topological
    for c in sorted(repo_history.COMMITS, key=lambda c: c.commit_date or c.date, reverse=True):
        sha = shas[c.id]
        new_state = states[c.id]
        old_state = states[c.parents[0]] if c.parents else {}
        renamed_from = dict(c.renames)
        files = []
        for path in sorted(set(old_state) | set(new_state)):
            if path in renamed_from.values():
                continue
            old_path = renamed_from.get(path, path)
            old = file_content(old_path, old_state[old_path]) if old_path in old_state else None
            new = file_content(path, new_state[path]) if path in new_state else None
            if old == new:
                continue
            if old is None:
                status, content = "added", new
            elif new is None:
                status, content = "removed", old
            else:
                status, content = ("renamed" if old_path != path else "modified"), new
            adds, dels = line_changes(old or b"", new or b"")
            entry = {
                "sha": blob_sha(content or b""),
                "filename": path,
                "status": status,
                "additions": adds,
                "deletions": dels,
                "changes": adds + dels,
                "blob_url": f"{GITHUB_HTML}/blob/{sha}/{path}",
                "raw_url": f"{GITHUB_HTML}/raw/{sha}/{path}",
                "contents_url": f"{GITHUB_API}/contents/{path}?ref={sha}",
            }
            if status == "renamed":
                entry["previous_filename"] = old_path
            files.append(entry)
        author = {"name": PEOPLE[c.author].display, "email": EMAIL, "date": c.date}
        committer = {
            "name": c.committer or PEOPLE[c.author].display,
            "email": EMAIL,
            "date": c.commit_date or c.date,
        }
        adds = sum(f["additions"] for f in files)
        dels = sum(f["deletions"] for f in files)
        out.append(
            {
                "sha": sha,
                "url": f"{GITHUB_API}/commits/{sha}",
                "html_url": f"{GITHUB_HTML}/commit/{sha}",
                "comments_url": f"{GITHUB_API}/commits/{sha}/comments",
                "commit": {
                    "url": f"{GITHUB_API}/git/commits/{sha}",
                    "author": author,
                    "committer": committer,
                    "message": c.message,
                    "tree": {"sha": trees[c.id], "url": f"{GITHUB_API}/git/trees/{trees[c.id]}"},
                    "comment_count": 0,
                },
                "author": None,
                "committer": None,
                "parents": [
                    {
                        "sha": shas[p],
                        "url": f"{GITHUB_API}/commits/{shas[p]}",
                        "html_url": f"{GITHUB_HTML}/commit/{shas[p]}",
                    }
                    for p in c.parents
                ],
                "stats": {"total": adds + dels, "additions": adds, "deletions": dels},
                "files": files,
            }
        )
    return out


def build_pulls(shas: dict[str, str]) -> list[dict[str, Any]]:
    owner = GITHUB_REPO.split("/")[0]
    out = []
    for p in repo_history.PULLS:
        login = PEOPLE[p.user].login
        merged = p.merge_commit is not None
        out.append(
            {
                "url": f"{GITHUB_API}/pulls/{p.number}",
                "id": 900000000 + p.number,
                "html_url": pr_url(p.number),
                "diff_url": f"{pr_url(p.number)}.diff",
                "patch_url": f"{pr_url(p.number)}.patch",
                "issue_url": f"{GITHUB_API}/issues/{p.number}",
                "commits_url": f"{GITHUB_API}/pulls/{p.number}/commits",
                "number": p.number,
                "state": "closed" if p.closed_at else "open",
                "locked": False,
                "title": p.title,
                "user": {"login": login, "type": "User", "html_url": f"https://github.com/{login}"},
                "body": p.body,
                "created_at": p.created_at,
                "updated_at": p.updated_at,
                "closed_at": p.closed_at,
                "merged_at": p.closed_at if merged else None,
                "merge_commit_sha": shas[p.merge_commit] if p.merge_commit else None,
                "merged": merged,
                "head": {
                    "label": f"{owner}:{p.branch}",
                    "ref": p.branch,
                    "sha": shas[p.head],
                    "repo": {"full_name": GITHUB_REPO},
                },
                "base": {
                    "label": f"{owner}:main",
                    "ref": "main",
                    "sha": shas[p.base],
                    "repo": {"full_name": GITHUB_REPO},
                },
                "commits": p.commits,
                **discussion(p.number),
            }
        )
    return out


def _gh_user(name: str) -> dict[str, Any]:
    login = PEOPLE[name].login
    return {
        "login": login,
        "id": 1000 + sorted(PEOPLE).index(name),
        "type": "User",
        "html_url": f"https://github.com/{login}",
    }


def _comment(number: int, pos: int, user: str, when: str, body: str) -> dict[str, Any]:
    cid = 700000 + number * 100 + pos
    return {
        "id": cid,
        "url": f"{GITHUB_API}/issues/comments/{cid}",
        "html_url": f"{GITHUB_HTML}/issues/{number}#issuecomment-{cid}",
        "issue_url": f"{GITHUB_API}/issues/{number}",
        "body": body,
        "user": _gh_user(user),
        "created_at": when,
        "updated_at": when,
        "author_association": "MEMBER",
    }


def discussion(number: int) -> dict[str, Any]:
    """A pull request's conversation, reviews and inline review comments (bookkeeping keys the
    emulator serves from their own endpoints; never part of the pull request JSON)."""
    spec = repo_history.PULL_DISCUSSION.get(number)
    if not spec:
        return {}
    reviews = []
    for pos, (user, when, state, body) in enumerate(spec["reviews"], 1):
        rid = 800000 + number * 100 + pos
        reviews.append(
            {
                "id": rid,
                "user": _gh_user(user),
                "body": body,
                "state": state,
                "html_url": f"{pr_url(number)}#pullrequestreview-{rid}",
                "pull_request_url": f"{GITHUB_API}/pulls/{number}",
                "submitted_at": when,
                "author_association": "MEMBER",
            }
        )
    inline = []
    for pos, (user, when, path, body) in enumerate(spec["review_comments"], 1):
        cid = 600000 + number * 100 + pos
        inline.append(
            {
                "id": cid,
                "url": f"{GITHUB_API}/pulls/comments/{cid}",
                "html_url": f"{pr_url(number)}#discussion_r{cid}",
                "pull_request_url": f"{GITHUB_API}/pulls/{number}",
                "path": path,
                "body": body,
                "user": _gh_user(user),
                "created_at": when,
                "updated_at": when,
                "author_association": "MEMBER",
            }
        )
    return {
        "_comments": [_comment(number, pos, *c) for pos, c in enumerate(spec["comments"], 1)],
        "_reviews": reviews,
        "_review_comments": inline,
    }


def build_issues() -> list[dict[str, Any]]:
    """The repository's GitHub issues, each with its comments (``_comments``)."""
    out = []
    for spec in repo_history.GH_ISSUES:
        number = int(str(spec["number"]))
        comments = list(spec["comments"])  # type: ignore[call-overload]
        out.append(
            {
                "url": f"{GITHUB_API}/issues/{number}",
                "id": 950000000 + number,
                "html_url": f"{GITHUB_HTML}/issues/{number}",
                "number": number,
                "state": spec["state"],
                "title": spec["title"],
                "body": spec["body"],
                "user": _gh_user(str(spec["user"])),
                "labels": [],
                "comments": len(comments),
                "created_at": spec["created_at"],
                "updated_at": spec["updated_at"],
                "closed_at": spec["updated_at"] if spec["state"] == "closed" else None,
                "author_association": "MEMBER",
                "_comments": [_comment(number, pos, *c) for pos, c in enumerate(comments, 1)],
            }
        )
    return out


def build_tree_json(files: Files, root_sha: str) -> dict[str, Any]:
    tree_shas = build_trees(files)
    dirs = sorted(d for d in tree_shas if d)
    children: dict[str, list[str]] = {}
    for p in list(files) + dirs:
        children.setdefault(_parent(p), []).append(p)

    def key(p: str) -> bytes:
        return (_name(p) + "/" if p in tree_shas else _name(p)).encode()

    entries: list[dict[str, Any]] = []

    def walk(d: str) -> None:
        for p in sorted(children.get(d, []), key=key):
            if p in tree_shas:
                sha = tree_shas[p]
                entries.append(
                    {
                        "path": p,
                        "mode": "040000",
                        "type": "tree",
                        "sha": sha,
                        "url": f"{GITHUB_API}/git/trees/{sha}",
                    }
                )
                walk(p)
            else:
                sha = blob_sha(files[p])
                entries.append(
                    {
                        "path": p,
                        "mode": "100644",
                        "type": "blob",
                        "sha": sha,
                        "size": len(files[p]),
                        "url": f"{GITHUB_API}/git/blobs/{sha}",
                    }
                )

    walk("")
    return {"sha": root_sha, "url": f"{GITHUB_API}/git/trees/{root_sha}", "tree": entries, "truncated": False}


def build_repo_json(commits: list[dict[str, Any]]) -> dict[str, Any]:
    owner, name = GITHUB_REPO.split("/")
    dates = [c["commit"]["committer"]["date"] for c in commits]
    return {
        "id": 900000001,
        "name": name,
        "full_name": GITHUB_REPO,
        "private": REPO_PRIVATE,
        "owner": {
            "login": owner,
            "type": "Organization",
            "url": f"https://api.github.com/users/{owner}",
            "html_url": f"https://github.com/{owner}",
        },
        "html_url": GITHUB_HTML,
        "description": "Payment orchestration between merchants, the ledger and the Meridian PSP",
        "fork": False,
        "url": GITHUB_API,
        "commits_url": f"{GITHUB_API}/commits{{/sha}}",
        "pulls_url": f"{GITHUB_API}/pulls{{/number}}",
        "trees_url": f"{GITHUB_API}/git/trees{{/sha}}",
        "contents_url": f"{GITHUB_API}/contents/{{+path}}",
        "created_at": min(dates),
        "updated_at": max(dates),
        "pushed_at": max(dates),
        "git_url": f"git://github.com/{GITHUB_REPO}.git",
        "clone_url": f"{GITHUB_HTML}.git",
        "homepage": page_url("arch"),
        "language": "Python",
        "archived": False,
        "disabled": False,
        "visibility": "private",
        "license": None,
        "topics": ["payments", "psp"],
        "default_branch": "main",
    }
