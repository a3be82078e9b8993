"""Confluence's permission sync, beside its loader: who holds the principals its documents' gates
name (``PermissionSource`` in ``sources/base.py``), read through the source's client (client.py)."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

from devkb.errors import PermanentSourceError
from devkb.sources.acl import account, group, scope
from devkb.sources.confluence.client import ConfluenceClient, id_order
from devkb.sources.confluence.convert import (
    read_restriction,
)
from devkb.sources.permissions import PermissionPairs

log = logging.getLogger(__name__)


class ConfluencePermissions:
    """The permission half of a Confluence source, on its :class:`ConfluenceClient` (settings and retries)."""

    def __init__(self, client: ConfluenceClient) -> None:
        self.confluence = client

    def fetch_permissions(self) -> list[tuple[str, str]]:
        """Who may read each space, and who is in each group and account the pages' read
        restrictions name, as ``(principal, email)`` pairs (see docs/permission-sync.md).

        Cloud: ``/wiki/api/v2/spaces/{id}/permissions`` (``read`` on ``space``), account e-mails from
        ``/wiki/rest/api/user?accountId=``, group names from ``/wiki/rest/api/group/by-id`` and
        members from ``/wiki/rest/api/group/member?name=``. Data Center (9.1+):
        ``/rest/api/space/{key}/permissions``, ``/rest/api/user?key=`` and
        ``/rest/api/group/{name}/member``; its REST API shows no e-mails, so they come from
        ``people`` (by user name or user key)."""
        out = PermissionPairs(self.confluence.name, self.confluence.config.people)
        groups: set[str] = set()
        for key in self.confluence.spaces():
            space_scope = [scope(self.confluence.name, "space", key)]
            users, space_groups = self._space_readers(key)
            for user in users:
                out.add(space_scope, self._user_email(out, user))
            groups.update(space_groups)
            for name in space_groups:
                for user in self._group_members(name):
                    out.add([*space_scope, group(self.confluence.name, name)], self._user_email(out, user))
            for raw in self._space_restrictions(key):
                inner = raw.get("restrictions") or {}
                for user in (inner.get("user") or {}).get("results") or []:
                    if isinstance(user, dict) and (ident := user.get("accountId") or user.get("username")):
                        out.add([account(self.confluence.name, str(ident))], self._user_email(out, user))
                for g in (inner.get("group") or {}).get("results") or []:
                    if isinstance(g, dict) and g.get("name"):
                        groups.add(str(g["name"]))
        for name in sorted(groups):
            for user in self._group_members(name):
                out.add([group(self.confluence.name, name)], self._user_email(out, user))
        return out.result()

    def _get(self, path: str, params: dict[str, Any]) -> Any:
        return self.confluence.get(path, params)

    def _space_readers(self, key: str) -> tuple[list[dict[str, Any]], list[str]]:
        """Users (as user objects) and group names granted ``read`` on the space."""
        users: list[dict[str, Any]] = []
        names: list[str] = []
        if self.confluence.cloud:
            api = self.confluence.cloud_api
            space = api.space(key)
            if space is None:
                log.warning("%s: Confluence space %s not found", self.confluence.name, key)
                return [], []
            for p in api.listing(f"api/v2/spaces/{space['id']}/permissions", {"limit": 250}):
                op, principal = p.get("operation") or {}, p.get("principal") or {}
                if op.get("key") != "read" or op.get("targetType") != "space" or not principal.get("id"):
                    continue
                if principal.get("type") == "user":
                    users.append({"accountId": str(principal["id"])})
                elif principal.get("type") == "group":
                    found = self._get("rest/api/group/by-id", {"id": principal["id"]})
                    if isinstance(found, dict) and found.get("name"):
                        names.append(str(found["name"]))
            return users, names
        found = self._get(f"rest/api/space/{key}/permissions", {})
        if not isinstance(found, list):
            raise ValueError(f"invalid JSON in Confluence space permissions of {key}: {str(found)[:80]!r}")
        for p in found:
            op, subject = p.get("operation") or {}, p.get("subject") or {}
            if op.get("operationKey") != "read" or op.get("targetType") != "space":
                continue
            if subject.get("type") == "user" and (subject.get("userKey") or subject.get("username")):
                users.append({k: subject[k] for k in ("userKey", "username") if subject.get(k)})
            elif subject.get("type") == "group" and subject.get("name"):
                names.append(str(subject["name"]))
        return users, names

    def _space_restrictions(self, key: str) -> list[dict[str, Any]]:
        """The ``read`` restriction objects of the space's pages that have one."""
        if not self.confluence.cloud:
            return [r for r in self.confluence.raw_restrictions(key).values() if read_restriction(r)]
        found = self.confluence.cloud_space(key)
        if found is None:
            return []
        raws = [self.confluence.cloud_api.read_restriction(i) for i in sorted(found[1], key=id_order)]
        return [r for r in raws if read_restriction(r)]

    def _group_members(self, name: str) -> list[dict[str, Any]]:
        try:
            return self._group_pages(name)
        except PermanentSourceError as e:  # a group that no longer exists (404): nobody holds it
            log.warning("%s: members of group %s not read: %s", self.confluence.name, name, e)
            return []

    def _group_pages(self, name: str) -> list[dict[str, Any]]:
        members: list[dict[str, Any]] = []
        while True:
            if self.confluence.cloud:
                page = self._get("rest/api/group/member", {"name": name, "start": len(members), "limit": 200})
            else:
                path = f"rest/api/group/{quote(name, safe='')}/member"
                page = self._get(path, {"start": len(members), "limit": 200})
            results = (page or {}).get("results") if isinstance(page, dict) else None
            if not isinstance(results, list):
                raise ValueError(f"invalid JSON in Confluence members of {name}: {str(page)[:80]!r}")
            members += [u for u in results if isinstance(u, dict)]
            if not results or not ((page.get("_links") or {}).get("next")):
                return members

    def _user_email(self, out: PermissionPairs, user: dict[str, Any]) -> str | None:
        """The user's e-mail: ``people`` by account id, user name or key; else the user object's
        (looked up when the object has none: Cloud by account id, Data Center by key)."""
        ids = [user.get("accountId"), user.get("username"), user.get("userKey")]
        if any(i and str(i) in out.people for i in ids):
            return out.email(ids)
        if not user.get("email"):
            if user.get("accountId"):
                user = {**user, **(self._user_by("accountId", str(user["accountId"])))}
            elif user.get("userKey") and not user.get("username"):
                user = {**user, **(self._user_by("key", str(user["userKey"])))}
            ids = [user.get("accountId"), user.get("username"), user.get("userKey")]
        return out.email(ids, user.get("email"))

    def _user_by(self, param: str, value: str) -> dict[str, Any]:
        return self.confluence.user(param, value)
