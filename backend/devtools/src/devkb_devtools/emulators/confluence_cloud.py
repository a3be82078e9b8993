"""Confluence Cloud emulator: the Data Center emulator's data served the way a Cloud site serves it
(``python -m devkb_devtools.emulators --confluence-deployment cloud``): everything under ``/wiki``, the REST
API v2 for spaces, pages and labels, v1 only where v2 has no equivalent.

Routes::

    GET /wiki/api/v2/spaces                    keys, limit, cursor          (v2, cursor pagination)
    GET /wiki/api/v2/spaces/{id}/pages         body-format, sort, limit, cursor
    GET /wiki/api/v2/pages/{id}                body-format, version
    GET /wiki/api/v2/pages/{id}/versions       sort, limit, cursor
    GET /wiki/api/v2/pages/{id}/labels         limit, cursor
    GET /wiki/api/v2/spaces/{id}/permissions   limit, cursor (who may read the space, and more)
    GET /wiki/rest/api/user                    accountId                   (v1: v2 has no users)
    GET /wiki/rest/api/group/by-id             id → the group's name        (v1)
    GET /wiki/rest/api/group/member            name, start, limit           (v1)
    GET /wiki/rest/api/...                     the Data Center emulator's v1 routes (CQL search)

Cloud shapes: page ``version`` has ``createdAt`` and ``authorId`` (an account id, no name); pages
carry ``spaceId`` and ``parentId`` instead of ``space`` and ``ancestors``; ``_links.webui`` is
``/spaces/KEY/pages/ID/Title``; a list's next page is ``_links.next`` (relative to the site) and the
``Link`` header. Every v2 response in the test suite is validated against Atlassian's published
description (``../shared/vendor-apis/confluence-cloud-v2.openapi.json``, :mod:`vendor_check`).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
from typing import Any
from urllib.parse import quote_plus, urlencode

from devkb_devtools.emulators.confluence import ConfluenceEmulator, read_restrictions
from devkb_devtools.emulators.permissions import group_id
from devkb_devtools.emulators.routing import HttpError, Request, Response, Router, json_response

WIKI = "/wiki"
V2 = "/api/v2"
MAX_V2_LIMIT = 250


class ConfluenceCloudEmulator(ConfluenceEmulator):
    """The dataset's Confluence spaces and pages, served as Confluence Cloud (REST API v2 + v1)."""

    deployment = "cloud"

    def vendor_description(self) -> str | None:
        return "confluence-cloud-v2"

    def register_routes(self, router: Router) -> None:
        super().register_routes(router)  # v1, reached through /wiki (see handle)
        router.add("GET", rf"{V2}/spaces", self.v2_spaces)
        router.add("GET", rf"{V2}/spaces/(?P<space_id>\d+)/pages", self.v2_space_pages)
        router.add("GET", rf"{V2}/spaces/(?P<space_id>\d+)/blogposts", self.v2_space_blogposts)
        router.add("GET", rf"{V2}/(?:pages|blogposts)/(?P<page_id>\d+)", self.v2_page)
        router.add("GET", rf"{V2}/(?:pages|blogposts)/(?P<page_id>\d+)/labels", self.v2_labels)
        router.add("GET", rf"{V2}/pages/(?P<page_id>\d+)/versions", self.v2_versions)
        router.add(
            "GET", rf"{V2}/(?:pages|blogposts)/(?P<page_id>\d+)/footer-comments", self.v2_footer_comments
        )
        router.add("GET", r"/rest/api/user", self.v1_user)
        router.add("GET", rf"{V2}/spaces/(?P<space_id>\d+)/permissions", self.v2_space_permissions)
        router.add("GET", r"/rest/api/group/by-id", self.v1_group_by_id)
        router.add("GET", r"/rest/api/group/member", self.v1_group_member)

    def handle(self, request: Request) -> Response:
        """A Cloud site serves Confluence under ``/wiki``; nothing answers outside it."""
        if not request.path.startswith(WIKI + "/"):
            return self.error_response(request, 404, "Not Found")
        inner = dataclasses.replace(request, path=request.path[len(WIKI) :], base_url=request.base_url + WIKI)
        return super().handle(inner)

    # ------------------------------------------------------------------ v2

    def v2_spaces(self, request: Request) -> Response:
        keys = {k for v in request.query.get("keys", []) for k in v.split(",") if k}
        spaces = [s for s in self.dataset.spaces() if not keys or s["key"] in keys]
        spaces.sort(key=lambda s: int(s["id"]))
        return self._v2_page(request, [self._space_v2(request, s) for s in spaces])

    def v2_space_pages(self, request: Request, space_id: str) -> Response:
        return self._v2_content(request, space_id, "page")

    def v2_space_blogposts(self, request: Request, space_id: str) -> Response:
        return self._v2_content(request, space_id, "blogpost")

    def v2_footer_comments(self, request: Request, page_id: str) -> Response:
        page = self._require_page(page_id)
        body = request.param("body-format")
        results = []
        for c in page.get("_comments") or []:
            version = c.get("version") or {}
            out: dict[str, Any] = {
                "id": str(c["id"]),
                "status": "current",
                "title": f"Re: {page.get('title') or ''}",
                "version": {
                    "number": version.get("number", 1),
                    "createdAt": version.get("when"),
                    "authorId": account_id(version.get("by") or {}),
                    "minorEdit": False,
                    "message": "",
                },
                "_links": {
                    "webui": f"/spaces/{(page.get('space') or {}).get('key')}/pages/{page['id']}?focusedCommentId={c['id']}"
                },
            }
            out["pageId" if page.get("type", "page") == "page" else "blogPostId"] = str(page["id"])
            if body == "storage":
                out["body"] = {
                    "storage": {
                        "representation": "storage",
                        "value": ((c.get("body") or {}).get("storage") or {}).get("value") or "",
                    }
                }
            results.append(out)
        return self._v2_page(request, results)

    def _v2_content(self, request: Request, space_id: str, kind: str) -> Response:
        space = next((s for s in self.dataset.spaces() if str(s["id"]) == space_id), None)
        if space is None:
            raise HttpError(404, f"Space {space_id} not found")
        pages = [p for p in self.dataset.pages() if (p.get("space") or {}).get("key") == space["key"]]
        pages = [
            p for p in pages if p.get("status", "current") == "current" and p.get("type", "page") == kind
        ]
        sort = request.param("sort") or "id"
        field, reverse = sort.lstrip("-"), sort.startswith("-")
        if field == "modified-date":
            pages.sort(key=lambda p: (p["version"]["when"], int(p["id"])), reverse=reverse)
        elif field == "id":
            pages.sort(key=lambda p: int(p["id"]), reverse=reverse)
        else:
            raise HttpError(400, f"Unsupported sort: {sort}")
        body = request.param("body-format")
        return self._v2_page(request, [self._page_v2(request, p, space, body) for p in pages])

    def v2_page(self, request: Request, page_id: str) -> Response:
        page = self._require_page(page_id)
        key = (page.get("space") or {}).get("key")
        space = next((s for s in self.dataset.spaces() if s["key"] == key), {"id": 0, "key": key})
        version = request.param("version")
        if version:
            old = self.dataset.page_version(page_id, int(version)) if version.isdigit() else None
            if old is None:  # the description declares a 404 without a body
                return Response(404)
            page = old
        return json_response(self._page_v2(request, page, space, request.param("body-format")))

    def v2_versions(self, request: Request, page_id: str) -> Response:
        """A page's versions (number, message, author, time), newest first unless ``sort=modified-date``."""
        self._require_page(page_id)
        versions = [p.get("version") or {} for p in self.dataset.page_versions(page_id)]
        sort = request.param("sort") or "-modified-date"
        if sort not in ("modified-date", "-modified-date"):
            raise HttpError(400, f"Unsupported sort: {sort}")
        if sort == "-modified-date":
            versions.reverse()
        results = [
            {
                "number": v.get("number"),
                "message": v.get("message") or "",
                "minorEdit": bool(v.get("minorEdit", False)),
                "authorId": account_id(v.get("by") or {}),
                "createdAt": v.get("when"),
                "page": {"id": str(page_id)},
            }
            for v in versions
        ]
        return self._v2_page(request, results)

    def v2_labels(self, request: Request, page_id: str) -> Response:
        page = self._require_page(page_id)
        labels = ((page.get("metadata") or {}).get("labels") or {}).get("results") or []
        results = [
            {
                "id": str(int(hashlib.sha1(str(x.get("name")).encode()).hexdigest()[:8], 16)),
                "name": x.get("name"),
                "prefix": x.get("prefix") or "global",
            }
            for x in labels
        ]
        return self._v2_page(request, results)

    def read_restriction(self, request: Request, page_id: str) -> Response:
        """v1 (v2 has no restrictions endpoint), users as Cloud users: account id and name only."""
        body = read_restrictions(self._require_page(page_id))
        users = body["restrictions"]["user"]["results"]
        body["restrictions"]["user"]["results"] = [
            {
                "type": "known",
                "accountId": account_id(u),
                "accountType": "atlassian",
                "displayName": u.get("displayName"),
            }
            for u in users
        ]
        groups = body["restrictions"]["group"]["results"]
        body["restrictions"]["group"]["results"] = [
            {"type": "group", "name": g.get("name"), "id": group_id(str(g.get("name")))} for g in groups
        ]
        return json_response(body)

    def v2_space_permissions(self, request: Request, space_id: str) -> Response:
        """The space's permission assignments: users by account id, groups by group id."""
        space = next((s for s in self.dataset.spaces() if str(s["id"]) == space_id), None)
        if space is None:
            raise HttpError(404, f"Space {space_id} not found")
        grant = self.dataset.confluence_permissions().read(space["key"])
        principals = [("user", account_id({"username": u})) for u in grant.users]
        principals += [("group", group_id(g)) for g in grant.groups]
        results = [
            {
                "id": str(int(hashlib.sha1(f"{space_id}:{kind}:{pid}".encode()).hexdigest()[:8], 16)),
                "principal": {"type": kind, "id": pid},
                "operation": {"key": "read", "targetType": "space"},
            }
            for kind, pid in principals
        ]
        return self._v2_page(request, results)

    def user_json(self, record: dict[str, Any]) -> dict[str, Any]:
        """A Cloud user (v1): account id, names and the e-mail its privacy setting shows."""
        out: dict[str, Any] = {
            "type": "known",
            "accountId": account_id({"username": record["username"]}),
            "accountType": "atlassian",
            "displayName": record.get("displayName") or record["username"],
            "publicName": record.get("displayName") or record["username"],
        }
        if record.get("email"):
            out["email"] = record["email"]
        return out

    def v1_group_by_id(self, request: Request) -> Response:
        wanted = request.param("id") or ""
        names = [*self.dataset.confluence_permissions().directory.groups, *sorted(self.restriction_groups())]
        for name in names:
            if group_id(name) == wanted:
                return json_response({"type": "group", "name": name, "id": wanted})
        raise HttpError(404, f"No group found with id {wanted}")

    def v1_group_member(self, request: Request) -> Response:
        name = request.param("name") or ""
        return self.group_members(request, name)

    def v1_user(self, request: Request) -> Response:
        account = request.param("accountId") or ""
        for record in self.dataset.confluence_permissions().directory.users.values():
            if account_id({"username": record["username"]}) == account:
                return json_response(self.user_json(record))
        authors = [
            (p.get("version") or {}).get("by") or {}
            for page in self.dataset.pages()
            for p in [page, *(page.get("_comments") or []), *self.dataset.page_versions(str(page["id"]))]
        ]
        for by in authors:
            if account_id(by) == account:
                return json_response(
                    {
                        "type": "known",
                        "accountId": account,
                        "accountType": "atlassian",
                        "displayName": by.get("displayName") or by.get("username") or "",
                        "publicName": by.get("displayName") or "",
                    }
                )
        raise HttpError(404, f"No user with accountId {account}")

    # ------------------------------------------------------------------ shapes

    def _space_v2(self, request: Request, space: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": str(space["id"]),
            "key": space["key"],
            "name": space.get("name") or space["key"],
            "type": space.get("type") or "global",
            "status": space.get("status") or "current",
            "_links": {"webui": f"/spaces/{space['key']}"},
        }
        homepage = (space.get("homepage") or {}).get("id")
        if homepage:
            out["homepageId"] = str(homepage)
        return out

    def _page_v2(
        self, request: Request, page: dict[str, Any], space: dict[str, Any], body: str | None
    ) -> dict[str, Any]:
        version = page.get("version") or {}
        ancestors = page.get("ancestors") or []
        title = page.get("title") or ""
        out: dict[str, Any] = {
            "id": str(page["id"]),
            "status": page.get("status") or "current",
            "title": title,
            "spaceId": str(space.get("id")),
            "authorId": account_id(version.get("by") or {}),
            "createdAt": version.get("when"),
            "version": {
                "number": version.get("number"),
                "createdAt": version.get("when"),
                "authorId": account_id(version.get("by") or {}),
                "minorEdit": bool(version.get("minorEdit", False)),
                "message": version.get("message") or "",
            },
            "_links": {
                "webui": f"/spaces/{space.get('key')}/pages/{page['id']}/{quote_plus(title)}",
                "editui": f"/pages/resumedraft.action?draftId={page['id']}",
                "tinyui": (page.get("_links") or {}).get("tinyui") or f"/x/{page['id']}",
            },
        }
        if ancestors:
            out["parentId"] = str(ancestors[-1]["id"])
            out["parentType"] = "page"
        if body == "storage":
            value = ((page.get("body") or {}).get("storage") or {}).get("value") or ""
            out["body"] = {"storage": {"representation": "storage", "value": self._rewrite(request, value)}}
        return out

    def _v2_page(self, request: Request, results: list[dict[str, Any]]) -> Response:
        limit = min(max(request.int_param("limit", 25), 1), MAX_V2_LIMIT)
        start = _read_cursor(request.param("cursor"))
        page = results[start : start + limit]
        body: dict[str, Any] = {"results": page, "_links": {"base": request.base_url}}
        headers: list[tuple[str, str]] = []
        if start + limit < len(results):
            params = {k: v[0] for k, v in request.query.items() if k != "cursor" and v}
            params["cursor"] = _make_cursor(start + limit)
            next_path = f"{WIKI}{request.path}?{urlencode(params)}"
            body["_links"]["next"] = next_path
            headers.append(("Link", f'<{next_path}>; rel="next", <{request.base_url}>; rel="base"'))
        return json_response(body, headers=headers)


def account_id(user: dict[str, Any]) -> str:
    """A stable Cloud account id for a Server user (Cloud ids are opaque)."""
    name = str(user.get("username") or user.get("userKey") or user.get("displayName") or "unknown")
    return "5b10" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:20]


def _make_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def _read_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not raw.startswith("o:"):
            raise ValueError(raw)
        return max(int(raw[2:]), 0)
    except ValueError as e:
        raise HttpError(400, "Invalid cursor") from e
