"""Who may read what in a dataset: the records behind the emulators' permission endpoints.

Optional files of a dataset directory (each absent file has a default, see below)::

    jira/permissions.json
        {"users":  [{"name": "bob", "displayName": "Bob", "emailAddress": "bob@example.com"}, ...],
         "groups": {"payments": ["bob", ...], ...},
         "projects": {"PAY": {"users": [], "groups": ["payments"]}, ...},        # Browse Projects
         "security_schemes": [{"id": "10000", "name": "...", "levels": [
             {"id": "10100", "name": "Incident responders", "users": ["dave"], "groups": ["security"]}]}]}
    confluence/permissions.json
        {"users":  [{"username": "bob", "displayName": "Bob", "email": "bob@example.com"}, ...],
         "groups": {"payments": ["bob", ...], ...},
         "spaces": {"PAY": {"users": [], "groups": ["payments"]}, ...}}             # read (space)
    github/<repo>/permissions.json
        {"collaborators": [{"login": "bob", "name": "Bob", "email": "bob@example.com",
                            "permission": "write"}, ...]}

Users are named by their Server user name (Jira ``name``, Confluence ``username``, GitHub login);
the Cloud emulators derive account ids from it as they do for every other user. An issue's security
level is its ``fields.security`` (``{"id", "name"}``); page read restrictions stay in the pages
(``_restrictions``); a repository's visibility is ``private`` in its ``repo.json``.

Defaults (no file): every person the records name (issue assignees, reporters and commenters; page
and comment authors) is a user with the e-mail ``<name>@example.invalid``, all of them in
``jira-users`` / ``confluence-users``, which may browse every project / read every space; no
security levels; a repository has no collaborators.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devkb_devtools.emulators.jsonl import read_json

DEFAULT_DOMAIN = "example.invalid"


@dataclass(frozen=True)
class Grant:
    """Users and groups granted one permission (a project's Browse, a space's read, a level)."""

    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> Grant:
        raw = raw if isinstance(raw, dict) else {}
        return cls(
            tuple(str(u) for u in raw.get("users") or []), tuple(str(g) for g in raw.get("groups") or [])
        )


@dataclass(frozen=True)
class SecurityLevel:
    id: str
    name: str
    scheme_id: str
    grant: Grant


@dataclass
class Directory:
    """A service's users (name → record with ``displayName`` and e-mail) and groups (name → members)."""

    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)

    def members(self, grant: Grant) -> list[str]:
        """Every user the grant names, directly or through a group (in first-seen order)."""
        names = list(grant.users)
        for g in grant.groups:
            names += self.groups.get(g, [])
        return [n for n in dict.fromkeys(names) if n in self.users]


def group_id(name: str) -> str:
    """A stable Cloud group id (a UUID) for a group name."""
    return str(uuid.UUID(hashlib.sha1(name.encode("utf-8")).hexdigest()[:32]))


@dataclass
class JiraPermissions:
    directory: Directory
    projects: dict[str, Grant]
    levels: list[SecurityLevel]

    def browse(self, project_key: str) -> Grant:
        return self.projects.get(project_key.upper(), Grant())

    def level(self, level_id: str) -> SecurityLevel | None:
        return next((lv for lv in self.levels if lv.id == level_id), None)


@dataclass
class ConfluencePermissions:
    directory: Directory
    spaces: dict[str, Grant]

    def read(self, space_key: str) -> Grant:
        return self.spaces.get(space_key, Grant())


@dataclass
class RepoPermissions:
    collaborators: list[dict[str, Any]] = field(default_factory=list)

    def user(self, login: str) -> dict[str, Any] | None:
        return next((c for c in self.collaborators if str(c.get("login")).lower() == login.lower()), None)


# ---------------------------------------------------------------------- reading


def load_jira(path: Path) -> JiraPermissions | None:
    if not path.is_file():
        return None
    raw = read_json(path)
    users = {str(u["name"]): dict(u) for u in raw.get("users") or []}
    groups = {str(k): [str(m) for m in v] for k, v in (raw.get("groups") or {}).items()}
    levels = [
        SecurityLevel(
            str(lv["id"]), str(lv.get("name") or lv["id"]), str(scheme.get("id") or "10000"), Grant.parse(lv)
        )
        for scheme in raw.get("security_schemes") or []
        for lv in scheme.get("levels") or []
    ]
    projects = {str(k).upper(): Grant.parse(v) for k, v in (raw.get("projects") or {}).items()}
    return JiraPermissions(Directory(users, groups), projects, levels)


def load_confluence(path: Path) -> ConfluencePermissions | None:
    if not path.is_file():
        return None
    raw = read_json(path)
    users = {str(u["username"]): dict(u) for u in raw.get("users") or []}
    groups = {str(k): [str(m) for m in v] for k, v in (raw.get("groups") or {}).items()}
    spaces = {str(k): Grant.parse(v) for k, v in (raw.get("spaces") or {}).items()}
    return ConfluencePermissions(Directory(users, groups), spaces)


def load_repo(directory: Path) -> RepoPermissions | None:
    path = directory / "permissions.json"
    if not path.is_file():
        return None
    return RepoPermissions([dict(c) for c in read_json(path).get("collaborators") or []])


# ---------------------------------------------------------------------- defaults


def default_jira(projects: list[dict[str, Any]], issues: list[dict[str, Any]]) -> JiraPermissions:
    people: dict[str, dict[str, Any]] = {}
    for issue in issues:
        fields = issue.get("fields") or {}
        named = [fields.get("assignee"), fields.get("reporter")]
        named += [c.get("author") for c in (fields.get("comment") or {}).get("comments") or []]
        for u in named:
            if isinstance(u, dict) and u.get("name"):
                people.setdefault(
                    str(u["name"]),
                    {
                        "name": str(u["name"]),
                        "displayName": u.get("displayName") or u["name"],
                        "emailAddress": f"{u['name']}@{DEFAULT_DOMAIN}",
                    },
                )
    users = dict(sorted(people.items()))
    grant = Grant(groups=("jira-users",))
    return JiraPermissions(
        Directory(users, {"jira-users": list(users)}), {str(p["key"]).upper(): grant for p in projects}, []
    )


def default_confluence(spaces: list[dict[str, Any]], pages: list[dict[str, Any]]) -> ConfluencePermissions:
    people: dict[str, dict[str, Any]] = {}
    for page in pages:
        for p in [page, *(page.get("_comments") or [])]:
            by = (p.get("version") or {}).get("by") or {}
            if by.get("username"):
                people.setdefault(
                    str(by["username"]),
                    {
                        "username": str(by["username"]),
                        "displayName": by.get("displayName") or by["username"],
                        "email": f"{by['username']}@{DEFAULT_DOMAIN}",
                    },
                )
    users = dict(sorted(people.items()))
    grant = Grant(groups=("confluence-users",))
    return ConfluencePermissions(
        Directory(users, {"confluence-users": list(users)}), {str(s["key"]): grant for s in spaces}
    )
