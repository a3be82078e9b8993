"""The recorded data the emulators serve, held in memory, with a mutation API for tests.

Layout of a dataset directory (``.jsonl`` files may also be gzip-compressed ``.jsonl.gz``;
every part is optional)::

    jira/projects.json            GET /rest/api/2/project
    jira/issues.jsonl             one GET /rest/api/2/issue/{key} body per line
    confluence/space.json         GET /rest/api/space/{key} (an object, or a list of them)
    confluence/pages.jsonl        one GET /rest/api/content/{id}?expand=body.storage,version,ancestors,space
    github/<name>/repo.json ...   one directory per repository, see :mod:`.git_repository`
    jira/permissions.json         who may browse projects and security levels (:mod:`.permissions`)
    confluence/permissions.json   who may read spaces, users and groups (:mod:`.permissions`)
    github/<name>/permissions.json  the repository's collaborators (:mod:`.permissions`)
    manifest.json                 optional; ``sources.github.commit`` names HEAD of that repository

Thread safety: one re-entrant lock guards every collection. Records are copy-on-write — a
mutation stores a new dict and never edits a served one — so readers can use a record after
releasing the lock. Timestamps set by mutations are UTC.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

from devkb_devtools.emulators.git_repository import GitRepository
from devkb_devtools.emulators.jsonl import read_json, read_jsonl
from devkb_devtools.emulators.permissions import (
    ConfluencePermissions,
    JiraPermissions,
    RepoPermissions,
    default_confluence,
    default_jira,
    load_confluence,
    load_jira,
    load_repo,
)
from devkb_devtools.emulators.timestamps import format_confluence, format_jira
from devkb_devtools.emulators.url_rewriting import origin_of

_ISSUE_KEY = re.compile(r"^([A-Z][A-Z0-9_]*)-(\d+)$")
ISSUE_EXPAND = "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations"
DEFAULT_LINK_TYPES = {
    "Related to": ("relates to", "relates to"),
    "Dependence": ("depends on", "is depended on by"),
    "Duplicate": ("duplicates", "is duplicated by"),
    "Supersedes": ("supersedes", "is superseded by"),
}


def issue_key_order(key: str) -> tuple[str, int]:
    """Sort key of an issue key the way Jira orders keys: project key, then number."""
    match = _ISSUE_KEY.match(key)
    return (match.group(1), int(match.group(2))) if match else (key, 0)


def jira_user(display_name: str) -> dict[str, Any]:
    """A Jira user object; ``name`` derived from the display name like the recorded data does."""
    name = re.sub(r"[^a-z0-9]+", ".", display_name.lower().encode("ascii", "ignore").decode()).strip(".")
    return {"name": name, "displayName": display_name, "active": True}


class Dataset:
    """In-memory Jira, Confluence and GitHub records with copy-on-write mutations."""

    def __init__(
        self,
        *,
        projects: list[dict[str, Any]] | None = None,
        issues: list[dict[str, Any]] | None = None,
        spaces: list[dict[str, Any]] | None = None,
        pages: list[dict[str, Any]] | None = None,
        repos: list[GitRepository] | None = None,
        lock: threading.RLock | None = None,
        root: Path | None = None,
        jira_permissions: JiraPermissions | None = None,
        confluence_permissions: ConfluencePermissions | None = None,
        repo_permissions: dict[str, RepoPermissions] | None = None,
        page_versions: list[dict[str, Any]] | None = None,
    ) -> None:
        self.lock = lock or threading.RLock()
        # page id → version number → the page as it was (``confluence/versions.jsonl``); edits
        # through ``update_page`` add the version they replace
        self._page_versions: dict[str, dict[int, dict[str, Any]]] = {}
        for v in page_versions or []:
            self._page_versions.setdefault(str(v["id"]), {})[int(v["version"]["number"])] = v
        self.root = root
        self._projects: list[dict[str, Any]] = list(projects or [])
        self._issues: dict[str, dict[str, Any]] = {i["key"]: i for i in issues or []}
        self._issue_ids: dict[str, str] = {str(i["id"]): i["key"] for i in issues or []}
        self._spaces: dict[str, dict[str, Any]] = {s["key"]: s for s in spaces or []}
        self._pages: dict[str, dict[str, Any]] = {str(p["id"]): p for p in pages or []}
        self._repos: dict[str, GitRepository] = {r.full_name.lower(): r for r in repos or []}
        self._link_index: dict[str, frozenset[str]] | None = None
        self._revision = 0
        # None = the defaults of :mod:`.permissions`, computed from the records when asked
        self._jira_permissions = jira_permissions
        self._confluence_permissions = confluence_permissions
        self._repo_permissions = {k.lower(): v for k, v in (repo_permissions or {}).items()}

    @property
    def revision(self) -> int:
        """Counter bumped by every Jira or Confluence mutation (lets apps cache query results)."""
        with self.lock:
            return self._revision

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, root: Path | str) -> Dataset:
        """Load a dataset directory (see the module docstring)."""
        root = Path(root)
        if not root.is_dir():
            raise FileNotFoundError(f"dataset directory not found: {root}")
        lock = threading.RLock()
        jira_dir, confluence_dir, github_dir = root / "jira", root / "confluence", root / "github"
        projects = read_json(jira_dir / "projects.json") if (jira_dir / "projects.json").is_file() else []
        spaces: list[dict[str, Any]] = []
        if (confluence_dir / "space.json").is_file():
            loaded = read_json(confluence_dir / "space.json")
            spaces = loaded if isinstance(loaded, list) else [loaded]
        head_hints = _head_hints(root)
        repos = []
        repo_permissions: dict[str, RepoPermissions] = {}
        if github_dir.is_dir():
            for directory in sorted(p for p in github_dir.iterdir() if (p / "repo.json").is_file()):
                full_name = read_json(directory / "repo.json")["full_name"]
                repos.append(GitRepository.load(directory, lock, head_hints.get(full_name.lower())))
                found = load_repo(directory)
                if found is not None:
                    repo_permissions[full_name.lower()] = found
        return cls(
            projects=projects,
            issues=read_jsonl(jira_dir, "issues"),
            spaces=spaces,
            pages=_with_version_messages(
                read_jsonl(confluence_dir, "pages"), versions := read_jsonl(confluence_dir, "versions")
            ),
            page_versions=versions,
            repos=repos,
            lock=lock,
            root=root,
            jira_permissions=load_jira(jira_dir / "permissions.json"),
            confluence_permissions=load_confluence(confluence_dir / "permissions.json"),
            repo_permissions=repo_permissions,
        )

    def clone(self) -> Dataset:
        """An independent copy sharing the immutable records — cheap; isolates a test's mutations."""
        with self.lock:
            twin = Dataset(lock=threading.RLock(), root=self.root)
            twin._projects = list(self._projects)
            twin._issues = dict(self._issues)
            twin._issue_ids = dict(self._issue_ids)
            twin._spaces = dict(self._spaces)
            twin._pages = dict(self._pages)
            twin._page_versions = {k: dict(v) for k, v in self._page_versions.items()}
            twin._repos = {name: repo.clone(twin.lock) for name, repo in self._repos.items()}
            twin._jira_permissions = self._jira_permissions
            twin._confluence_permissions = self._confluence_permissions
            twin._repo_permissions = dict(self._repo_permissions)
            return twin

    # ------------------------------------------------------------------ permissions

    def jira_permissions(self) -> JiraPermissions:
        """Who may browse each project and who holds each security level (recorded or default)."""
        with self.lock:
            if self._jira_permissions is not None:
                return self._jira_permissions
            return default_jira(self.projects(), self.issues())

    def confluence_permissions(self) -> ConfluencePermissions:
        """Who may read each space; the users and groups restrictions name (recorded or default)."""
        with self.lock:
            if self._confluence_permissions is not None:
                return self._confluence_permissions
            return default_confluence(self.spaces(), self.pages())

    def repo_permissions(self, full_name: str) -> RepoPermissions:
        """A repository's collaborators (none recorded: none)."""
        with self.lock:
            return self._repo_permissions.get(full_name.lower()) or RepoPermissions()

    def set_permissions(
        self,
        *,
        jira: JiraPermissions | None = None,
        confluence: ConfluencePermissions | None = None,
        repo: tuple[str, RepoPermissions] | None = None,
    ) -> None:
        """Replace recorded permissions (tests)."""
        with self.lock:
            if jira is not None:
                self._jira_permissions = jira
            if confluence is not None:
                self._confluence_permissions = confluence
            if repo is not None:
                self._repo_permissions[repo[0].lower()] = repo[1]

    # ------------------------------------------------------------------ Jira reads

    @property
    def jira_origin(self) -> str:
        """Origin of the recorded Jira URLs (``http://jira.local``)."""
        with self.lock:
            sample = self._projects[0].get("self") if self._projects else None
            if sample is None and self._issues:
                sample = next(iter(self._issues.values())).get("self")
        return origin_of(sample) or "http://jira.local"

    def projects(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self._projects)

    def project(self, key_or_id: str) -> dict[str, Any] | None:
        """Project by key (case-insensitive), id or name."""
        with self.lock:
            for project in self._projects:
                if key_or_id.upper() == project["key"] or key_or_id == str(project["id"]):
                    return project
            return None

    def issues(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self._issues.values())

    def issue(self, key_or_id: str) -> dict[str, Any] | None:
        """Issue by key (case-insensitive) or numeric id."""
        with self.lock:
            key = self._issue_ids.get(key_or_id, key_or_id.upper())
            return self._issues.get(key)

    def linked_keys(self, key: str) -> frozenset[str]:
        """Keys of every issue linked to ``key``, seen from either end of the link."""
        with self.lock:
            if self._link_index is None:
                index: dict[str, set[str]] = {}
                for issue in self._issues.values():
                    for link in issue["fields"].get("issuelinks") or []:
                        other = (link.get("outwardIssue") or link.get("inwardIssue") or {}).get("key")
                        if other:
                            index.setdefault(issue["key"], set()).add(other)
                            index.setdefault(other, set()).add(issue["key"])
                self._link_index = {k: frozenset(v) for k, v in index.items()}
            return self._link_index.get(key, frozenset())

    # ------------------------------------------------------------------ Jira mutations

    def update_issue(
        self, key: str, changes: Mapping[str, Any] | None = None, *, updated: datetime | None = None
    ) -> dict[str, Any]:
        """Replace fields of an issue and set ``updated`` (to ``updated`` or now, UTC)."""
        with self.lock:
            issue = self._require_issue(key)
            fields = {**issue["fields"], **dict(changes or {}), "updated": format_jira(updated)}
            if (changes or {}).get("resolution") and "resolutiondate" not in (changes or {}):
                fields["resolutiondate"] = fields["updated"]
            return self._store_issue({**issue, "fields": fields})

    def add_comment(
        self, key: str, body: str, *, author: str = "Emulator User", created: datetime | None = None
    ) -> dict[str, Any]:
        """Append a comment to an issue (also bumps the issue's ``updated``); returns the comment."""
        with self.lock:
            issue = self._require_issue(key)
            stamp = format_jira(created)
            comments = list(issue["fields"]["comment"]["comments"])
            comment_id = str(int(issue["id"]) * 1000 + len(comments) + 1)
            user = jira_user(author)
            comment = {
                "self": f"{self.jira_origin}/rest/api/2/issue/{issue['id']}/comment/{comment_id}",
                "id": comment_id,
                "author": user,
                "body": body,
                "updateAuthor": user,
                "created": stamp,
                "updated": stamp,
            }
            comments.append(comment)
            thread = {"comments": comments, "maxResults": len(comments), "total": len(comments), "startAt": 0}
            self._store_issue({**issue, "fields": {**issue["fields"], "comment": thread, "updated": stamp}})
            return comment

    def add_issue(
        self,
        project_key: str,
        summary: str,
        *,
        description: str | None = None,
        key: str | None = None,
        issue_type: str = "Task",
        status: str = "Open",
        created: datetime | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create an issue in an existing project (next free number unless ``key`` is given)."""
        with self.lock:
            project = self.project(project_key)
            if project is None:
                raise KeyError(f"no Jira project {project_key!r}")
            numbers = [issue_key_order(k)[1] for k in self._issues if issue_key_order(k)[0] == project["key"]]
            key = key or f"{project['key']}-{max(numbers, default=0) + 1}"
            if key in self._issues:
                raise ValueError(f"issue {key} already exists")
            ordinal = sorted(p["key"] for p in self._projects).index(project["key"]) + 1
            issue_id = str(ordinal * 100000 + issue_key_order(key)[1])
            stamp = format_jira(created)
            issue = {
                "expand": ISSUE_EXPAND,
                "id": issue_id,
                "self": f"{self.jira_origin}/rest/api/2/issue/{issue_id}",
                "key": key,
                "fields": {
                    "summary": summary,
                    "description": description,
                    "environment": None,
                    "issuetype": {"name": issue_type, "subtask": False},
                    "status": {"name": status},
                    "priority": {"name": "Major"},
                    "resolution": None,
                    "project": {k: project[k] for k in ("id", "key", "name", "self") if k in project},
                    "created": stamp,
                    "updated": stamp,
                    "resolutiondate": None,
                    "assignee": None,
                    "reporter": None,
                    "labels": [],
                    "components": [],
                    "fixVersions": [],
                    "versions": [],
                    "issuelinks": [],
                    "attachment": [],
                    "comment": {"comments": [], "maxResults": 0, "total": 0, "startAt": 0},
                    **dict(fields or {}),
                },
            }
            return self._store_issue(issue)

    def link_issues(
        self,
        outward_key: str,
        inward_key: str,
        link_type: str = "Related to",
        *,
        updated: datetime | None = None,
    ) -> str:
        """Link two issues (stored on both, like Jira) and bump both ``updated``; returns the link id."""
        with self.lock:
            outward, inward = self._require_issue(outward_key), self._require_issue(inward_key)
            known = self._link_types()
            if link_type not in known:
                raise KeyError(f"unknown link type {link_type!r}; known: {sorted(known)}")
            ids = [
                int(link["id"])
                for issue in self._issues.values()
                for link in issue["fields"].get("issuelinks") or []
            ]
            link_id = str(max(ids, default=10000) + 1)
            base = {
                "id": link_id,
                "self": f"{self.jira_origin}/rest/api/2/issueLink/{link_id}",
                "type": known[link_type],
            }
            for holder, other, side in ((outward, inward, "outwardIssue"), (inward, outward, "inwardIssue")):
                reference = {
                    "id": other["id"],
                    "key": other["key"],
                    "self": other["self"],
                    "fields": {
                        k: other["fields"].get(k) for k in ("summary", "status", "priority", "issuetype")
                    },
                }
                links = [*holder["fields"].get("issuelinks", []), {**base, side: reference}]
                self._store_issue(
                    {
                        **holder,
                        "fields": {**holder["fields"], "issuelinks": links, "updated": format_jira(updated)},
                    }
                )
            return link_id

    def delete_issue(self, key: str) -> None:
        """Delete an issue; links to it disappear from the other issues (their ``updated`` is kept)."""
        with self.lock:
            issue = self._require_issue(key)
            key = issue["key"]
            del self._issues[key]
            self._issue_ids.pop(str(issue["id"]), None)
            for other in list(self._issues.values()):
                links = other["fields"].get("issuelinks") or []
                kept = [
                    link
                    for link in links
                    if (link.get("outwardIssue") or link.get("inwardIssue") or {}).get("key") != key
                ]
                if len(kept) != len(links):
                    self._store_issue({**other, "fields": {**other["fields"], "issuelinks": kept}})
            self._link_index = None
            self._revision += 1

    def _require_issue(self, key: str) -> dict[str, Any]:
        issue = self.issue(key)
        if issue is None:
            raise KeyError(f"no Jira issue {key!r}")
        return issue

    def _store_issue(self, issue: dict[str, Any]) -> dict[str, Any]:
        self._issues[issue["key"]] = issue
        self._issue_ids[str(issue["id"])] = issue["key"]
        self._link_index = None
        self._revision += 1
        return issue

    def _link_types(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for issue in self._issues.values():
            for link in issue["fields"].get("issuelinks") or []:
                found.setdefault(link["type"]["name"], link["type"])
        for position, (name, (outward, inward)) in enumerate(DEFAULT_LINK_TYPES.items()):
            type_id = str(10000 + position)
            found.setdefault(
                name,
                {
                    "id": type_id,
                    "name": name,
                    "inward": inward,
                    "outward": outward,
                    "self": f"{self.jira_origin}/rest/api/2/issueLinkType/{type_id}",
                },
            )
        return found

    # ------------------------------------------------------------------ Confluence reads

    @property
    def confluence_origin(self) -> str:
        """Origin of the recorded Confluence URLs (``http://confluence.local``)."""
        with self.lock:
            sample = next(iter(self._spaces.values()), {}).get("_links", {}).get("self")
            if sample is None and self._pages:
                sample = next(iter(self._pages.values())).get("_links", {}).get("self")
        return origin_of(sample) or "http://confluence.local"

    def spaces(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self._spaces.values())

    def space(self, key: str) -> dict[str, Any] | None:
        with self.lock:
            return self._spaces.get(key) or self._spaces.get(key.upper())

    def pages(self) -> list[dict[str, Any]]:
        """All pages, in id order."""
        with self.lock:
            return sorted(self._pages.values(), key=lambda p: int(p["id"]))

    def page(self, page_id: str) -> dict[str, Any] | None:
        with self.lock:
            return self._pages.get(str(page_id))

    def page_versions(self, page_id: str) -> list[dict[str, Any]]:
        """Every known version of a page, oldest first, the current one last (``status``
        "historical" / "current"); versions neither recorded nor edited here are missing."""
        with self.lock:
            page = self._pages.get(str(page_id))
            if page is None:
                return []
            current = int((page.get("version") or {}).get("number") or 1)
            old = self._page_versions.get(str(page_id), {})
            out = [{**old[n], "status": "historical"} for n in sorted(old) if n < current]
            return [*out, page]

    def page_version(self, page_id: str, number: int) -> dict[str, Any] | None:
        """The page as it was at version ``number`` (merged over the current page's space,
        ancestors and links, which a recorded version does not repeat)."""
        with self.lock:
            page = self._pages.get(str(page_id))
            if page is None:
                return None
            if int((page.get("version") or {}).get("number") or 0) == number:
                return page
            old = self._page_versions.get(str(page_id), {}).get(number)
            if old is None:
                return None
            return {**page, **old, "status": "historical"}

    # ------------------------------------------------------------------ Confluence mutations

    def update_page(
        self,
        page_id: str,
        *,
        title: str | None = None,
        body: str | None = None,
        when: datetime | None = None,
        by: str | None = None,
        minor_edit: bool = False,
    ) -> dict[str, Any]:
        """Edit a page: new version number, ``version.when`` = ``when`` or now (UTC)."""
        with self.lock:
            page = self._require_page(page_id)
            version = page.get("version") or {"number": 0}
            author = _confluence_user(by) if by else version.get("by") or _confluence_user("Emulator User")
            updated = {
                **page,
                "version": {
                    "by": author,
                    "when": format_confluence(when),
                    "number": int(version["number"]) + 1,
                    "minorEdit": minor_edit,
                },
            }
            if body is not None:
                updated["body"] = {"storage": {"value": body, "representation": "storage"}}
            self._page_versions.setdefault(str(page["id"]), {})[int(version["number"])] = {
                k: page[k] for k in ("id", "type", "title", "version", "body") if k in page
            }
            if title is not None and title != page["title"]:
                updated["title"] = title
                updated["_links"] = {**page.get("_links", {}), "webui": _webui(page["space"]["key"], title)}
                self._retitle_ancestor(str(page["id"]), title, updated["_links"]["webui"])
            self._pages[str(page["id"])] = updated
            self._revision += 1
            return updated

    def add_page(
        self,
        title: str,
        body: str,
        *,
        parent_id: str | None = None,
        space_key: str | None = None,
        page_id: str | None = None,
        when: datetime | None = None,
        by: str = "Emulator User",
    ) -> dict[str, Any]:
        """Create a page (version 1) under ``parent_id`` (top level when None)."""
        with self.lock:
            parent = self._require_page(parent_id) if parent_id else None
            space_key = space_key or (parent["space"]["key"] if parent else next(iter(self._spaces), None))
            space = self._spaces.get(space_key or "")
            if space is None:
                raise KeyError(f"no Confluence space {space_key!r}")
            page_id = page_id or str(max((int(i) for i in self._pages), default=1000000) + 1)
            if page_id in self._pages:
                raise ValueError(f"page {page_id} already exists")
            origin = self.confluence_origin
            ancestors = [*parent["ancestors"], _page_ref(parent)] if parent else []
            page = {
                "id": page_id,
                "type": "page",
                "status": "current",
                "title": title,
                "space": {
                    k: space[k] for k in ("id", "key", "name", "type", "status", "_links") if k in space
                },
                "version": {
                    "by": _confluence_user(by),
                    "when": format_confluence(when),
                    "number": 1,
                    "minorEdit": False,
                },
                "ancestors": ancestors,
                "body": {"storage": {"value": body, "representation": "storage"}},
                "_links": {
                    "webui": _webui(space["key"], title),
                    "tinyui": f"/x/{page_id}",
                    "self": f"{origin}/rest/api/content/{page_id}",
                    "base": origin,
                    "context": "",
                },
            }
            self._pages[page_id] = page
            self._revision += 1
            return page

    def delete_page(self, page_id: str) -> None:
        """Delete a page; its children move up to its parent, as in Confluence."""
        with self.lock:
            page = self._require_page(page_id)
            del self._pages[str(page["id"])]
            for other in list(self._pages.values()):
                ancestors = other.get("ancestors") or []
                if any(a["id"] == str(page["id"]) for a in ancestors):
                    kept = [a for a in ancestors if a["id"] != str(page["id"])]
                    self._pages[str(other["id"])] = {**other, "ancestors": kept}
            self._revision += 1

    def _require_page(self, page_id: str) -> dict[str, Any]:
        page = self.page(page_id)
        if page is None:
            raise KeyError(f"no Confluence page {page_id!r}")
        return page

    def _retitle_ancestor(self, page_id: str, title: str, webui: str) -> None:
        for other in list(self._pages.values()):
            ancestors = other.get("ancestors") or []
            if any(a["id"] == page_id for a in ancestors):
                renamed = [
                    {**a, "title": title, "_links": {**a.get("_links", {}), "webui": webui}}
                    if a["id"] == page_id
                    else a
                    for a in ancestors
                ]
                self._pages[str(other["id"])] = {**other, "ancestors": renamed}
        for key, space in list(self._spaces.items()):
            homepage = space.get("homepage")
            if homepage and homepage.get("id") == page_id:
                self._spaces[key] = {**space, "homepage": {**homepage, "title": title}}

    # ------------------------------------------------------------------ GitHub

    def repos(self) -> list[GitRepository]:
        with self.lock:
            return list(self._repos.values())

    def repo(self, full_name: str | None = None) -> GitRepository:
        """Repository by ``owner/name`` (case-insensitive); the only one when None."""
        with self.lock:
            if full_name is None:
                if len(self._repos) != 1:
                    raise KeyError(
                        f"dataset has {len(self._repos)} repositories; name one of {sorted(self._repos)}"
                    )
                return next(iter(self._repos.values()))
            repo = self._repos.get(full_name.lower())
            if repo is None:
                raise KeyError(f"no repository {full_name!r}")
            return repo

    def find_repo(self, owner: str, name: str) -> GitRepository | None:
        with self.lock:
            return self._repos.get(f"{owner}/{name}".lower())

    def add_commit(
        self,
        message: str,
        changes: Mapping[str, str | bytes | None] | None = None,
        renames: Mapping[str, str] | None = None,
        *,
        repo: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """Commit on the default branch of ``repo``; see :meth:`GitRepository.add_commit`."""
        return self.repo(repo).add_commit(message, changes, renames, **options)

    def add_pull(self, title: str, *, repo: str | None = None, **options: Any) -> dict[str, Any]:
        """Add a pull request to ``repo``; see :meth:`GitRepository.add_pull`."""
        return self.repo(repo).add_pull(title, **options)

    def update_pull(
        self,
        number: int,
        changes: Mapping[str, Any],
        *,
        repo: str | None = None,
        updated_at: datetime | None = None,
    ) -> dict[str, Any]:
        """Change a pull request and bump its ``updated_at``; see :meth:`GitRepository.update_pull`."""
        return self.repo(repo).update_pull(number, changes, updated_at=updated_at)


def _head_hints(root: Path) -> dict[str, str]:
    """``{full_name: head sha}`` from ``manifest.json`` (``sources.github.repo`` / ``.commit``)."""
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        return {}
    source = read_json(manifest_path).get("sources", {}).get("github") or {}
    sources = source if isinstance(source, list) else [source]
    return {s["repo"].lower(): s["commit"] for s in sources if s.get("repo") and s.get("commit")}


def _webui(space_key: str, title: str) -> str:
    return f"/display/{space_key}/{quote_plus(title)}"


def _with_version_messages(
    pages: list[dict[str, Any]], versions: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The pages with their current version's ``message`` from the recorded versions (the page
    records leave it out; Confluence returns it with ``expand=version``)."""
    messages = {
        (str(v["id"]), int(v["version"]["number"])): v["version"].get("message") or "" for v in versions
    }
    out = []
    for p in pages:
        version = p.get("version") or {}
        key = (str(p["id"]), int(version.get("number") or 0))
        out.append({**p, "version": {**version, "message": messages[key]}} if key in messages else p)
    return out


def _confluence_user(display_name: str) -> dict[str, Any]:
    return {"type": "known", "username": jira_user(display_name)["name"], "displayName": display_name}


def _page_ref(page: dict[str, Any]) -> dict[str, Any]:
    links = page.get("_links", {})
    return {
        "id": str(page["id"]),
        "type": page.get("type", "page"),
        "status": page.get("status", "current"),
        "title": page["title"],
        "_links": {"webui": links.get("webui"), "self": links.get("self")},
    }
