"""Jira's permission sync, beside its loader: who holds the principals its documents' gates
name (``PermissionSource`` in ``sources/base.py``), read through the source's client (client.py)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from devkb.sources.acl import scope
from devkb.sources.jira.client import JiraClient
from devkb.sources.permissions import PermissionPairs

log = logging.getLogger(__name__)


class JiraPermissions:
    """The permission half of a Jira source, on its :class:`JiraClient` (settings and retries)."""

    def __init__(self, client: JiraClient) -> None:
        self.jira = client

    def fetch_permissions(self) -> list[tuple[str, str]]:
        """Who may browse each project (``user/permission/search?permissions=BROWSE_PROJECTS``)
        and who holds each security level the issues use (``issuesecurityschemes/level/member``,
        group holders expanded through ``group/member``), as ``(scope principal, email)``."""
        api = "rest/api/3" if self.jira.cloud else "rest/api/2"
        out = PermissionPairs(self.jira.name, self.jira.config.people)
        for key in self.jira.config.projects or self.jira.project_keys():
            params = {"permissions": "BROWSE_PROJECTS", "projectKey": key}
            for user in self._user_list(f"{api}/user/permission/search", params):
                out.add([scope(self.jira.name, "project", key)], self._email(out, user))
        for level in sorted(self._security_levels()):
            principal = [scope(self.jira.name, "security", level)]
            for member in self._paged_values(f"{api}/issuesecurityschemes/level/member", {"levelId": level}):
                holder = member.get("holder") or {}
                kind, value = holder.get("type"), holder.get("value") or holder.get("parameter")
                if kind == "user" and value:
                    out.add(principal, self._email(out, self._user(api, str(value))))
                elif kind == "group" and (holder.get("parameter") or value):
                    name = str(holder.get("parameter") or value)
                    for user in self._paged_values(f"{api}/group/member", {"groupname": name}):
                        out.add(principal, self._email(out, user))
                else:
                    log.info(
                        "%s: security level %s holder of type %s is not mirrored",
                        self.jira.name,
                        level,
                        kind,
                    )
        return out.result()

    @staticmethod
    def _email(out: PermissionPairs, user: dict[str, Any]) -> str | None:
        ids = [user.get("accountId"), user.get("name"), user.get("key")]
        return out.email(ids, user.get("emailAddress"))

    def _get(self, what: str, path: str, params: dict[str, Any]) -> Any:
        return self.jira.get(what, path, params)

    def _user(self, api: str, ident: str) -> dict[str, Any]:
        """A user by account id (Cloud) or user name (Data Center)."""
        params = {"accountId": ident} if self.jira.cloud else {"username": ident}
        found = self._get(f"Jira user {ident}", f"{api}/user", params)
        return found if isinstance(found, dict) else {"accountId": ident, "name": ident}

    def _user_list(self, path: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """A user list that is a JSON array paged by ``startAt``/``maxResults``."""
        start, size = 0, 50
        while True:
            page = self._get(
                f"Jira {path} at {start}", path, {**params, "startAt": start, "maxResults": size}
            )
            if not isinstance(page, list):
                raise ValueError(f"invalid JSON in Jira {path}: {str(page)[:80]!r}")
            yield from (u for u in page if isinstance(u, dict))
            if len(page) < size:
                return
            start += len(page)

    def _paged_values(self, path: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """A page bean (``values``, ``isLast``) paged by ``startAt``."""
        start = 0
        while True:
            page = self._get(f"Jira {path} at {start}", path, {**params, "startAt": start, "maxResults": 50})
            if not isinstance(page, dict) or not isinstance(page.get("values"), list):
                raise ValueError(f"invalid JSON in Jira {path}: {str(page)[:80]!r}")
            yield from (v for v in page["values"] if isinstance(v, dict))
            start += len(page["values"])
            if page.get("isLast", True) or not page["values"]:
                return

    def _security_levels(self) -> set[str]:
        """Ids of the security levels set on the configured projects' issues."""
        jql = (" AND ".join(self.jira.scope()) + " ORDER BY key ASC").strip()
        levels: set[str] = set()
        for issues, _total in self.jira.pages(jql, "security"):
            for issue in issues:
                security = (issue.get("fields") or {}).get("security")
                if isinstance(security, dict) and security.get("id"):
                    levels.add(str(security["id"]))
        return levels
