"""Confluence Server REST API emulator (read-only endpoints a loader needs).

Routes::

    GET /rest/api/space                          spaceKey, start, limit, expand
    GET /rest/api/space/{key}                    expand (homepage, description.plain)
    GET /rest/api/space/{key}/content[/{type}]   start, limit, expand
    GET /rest/api/content                        spaceKey, type, title, status, start, limit, expand
    GET /rest/api/content/search                 cql, start, limit, expand   (content objects)
    GET /rest/api/search                         cql, start, limit, expand   (search results; expand content.*)
    GET /rest/api/content/{id}                   expand, status, version (``status=historical``)
    GET /rest/api/content/{id}/history           (latest, createdBy/Date, lastUpdated, previousVersion)
    GET /rest/api/content/{id}/child[/{type}]    start, limit, expand
    GET /rest/api/content/{id}/descendant/{type} start, limit, expand
    GET /rest/api/content/{id}/label             prefix, start, limit
    GET /rest/api/content/{id}/restriction/byOperation/read
    GET /rest/api/space/{key}/permissions        (Confluence 9.1+) every permission of the space
    GET /rest/api/user                           username | key   (no e-mail: Server hides it)
    GET /rest/api/group/{name}/member            start, limit

The last three serve the dataset's permissions (:mod:`devkb_devtools.emulators.permissions`).

These cover atlassian-python-api 5.0.5's ``Confluence(url)`` (Server): ``get_all_spaces``,
``get_space``, ``get_space_content``, ``get_all_pages_from_space[_raw|_as_generator]``,
``get_page_by_title`` and ``get_page_id`` (all ``/rest/api/content``), ``get_page_by_id``,
``get_page_ancestors``, ``get_page_child_by_type`` / ``get_child_pages``, ``get_page_labels``, and
``cql`` / ``iter_cql`` / ``cql_all`` (which call ``/rest/api/search``, not ``/content/search``).

Expansions: ``space``, ``version``, ``ancestors``, ``body.storage``, ``body.view`` (the storage
XHTML, not rendered), ``history`` (``latest`` only) and ``history.lastUpdated``, ``container``,
``children.page``, ``metadata.labels``. Without ``expand`` a single page comes with ``space``,
``history`` and ``version`` (Confluence's documented default) and list entries with none; a body
is only present when a ``body.*`` expansion asks for it. Pagination follows Confluence:
``{"results", "start", "limit", "size", "_links": {"base", "context", "self", "next"}}`` where
``next`` is relative to ``base``; ``limit`` defaults to 25 and is capped at ``max_limit`` (200).
Children and listings are in page-id order. CQL support is described in :mod:`.cql`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from devkb_devtools.emulators.app import REASONS, EmulatorApp
from devkb_devtools.emulators.cql import CqlError, compile_cql
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import FaultSwitches
from devkb_devtools.emulators.routing import HttpError, Request, Response, Router, json_response
from devkb_devtools.emulators.url_rewriting import UrlRewriter

API = "/rest/api"
SINGLE_DEFAULT_EXPAND = frozenset({"space", "history", "version"})
Page = dict[str, Any]


class ConfluenceEmulator(EmulatorApp):
    """Serves the dataset's Confluence spaces and pages like a Confluence Server."""

    service = "confluence"

    def __init__(
        self,
        dataset: Dataset,
        faults: FaultSwitches | None = None,
        *,
        default_limit: int = 25,
        max_limit: int = 200,
    ) -> None:
        self.default_limit = default_limit
        self.max_limit = max_limit
        super().__init__(dataset, faults)

    def register_routes(self, router: Router) -> None:
        router.add("GET", rf"{API}/space", self.list_spaces)
        router.add("GET", rf"{API}/space/(?P<key>[^/]+)", self.get_space)
        router.add("GET", rf"{API}/space/(?P<key>[^/]+)/content", self.space_content)
        router.add("GET", rf"{API}/space/(?P<key>[^/]+)/content/(?P<kind>[a-z]+)", self.space_content_of_type)
        router.add("GET", rf"{API}/content", self.list_content)
        router.add("GET", rf"{API}/content/search", self.content_search)
        router.add("GET", rf"{API}/search", self.search)
        router.add("GET", rf"{API}/content/(?P<page_id>\d+)", self.get_content)
        router.add("GET", rf"{API}/content/(?P<page_id>\d+)/history", self.content_history)
        router.add("GET", rf"{API}/content/(?P<page_id>\d+)/child", self.children_by_type)
        router.add("GET", rf"{API}/content/(?P<page_id>\d+)/child/(?P<kind>[a-z]+)", self.children)
        router.add("GET", rf"{API}/content/(?P<page_id>\d+)/descendant/(?P<kind>[a-z]+)", self.descendants)
        router.add("GET", rf"{API}/content/(?P<page_id>\d+)/label", self.labels)
        router.add(
            "GET", rf"{API}/content/(?P<page_id>\d+)/restriction/byOperation/read", self.read_restriction
        )
        router.add("GET", rf"{API}/space/(?P<key>[^/]+)/permissions", self.space_permissions)
        router.add("GET", rf"{API}/user", self.v1_user)
        router.add("GET", rf"{API}/group/(?P<name>[^/]+)/member", self.group_members)

    def error_response(self, request: Request, status: int, message: str) -> Response:
        return json_response(
            {
                "statusCode": status,
                "data": {
                    "authorized": status not in (401, 403),
                    "valid": True,
                    "errors": [],
                    "successful": False,
                },
                "message": message,
                "reason": REASONS.get(status, "Error"),
            },
            status,
        )

    # ------------------------------------------------------------------ spaces

    def list_spaces(self, request: Request) -> Response:
        """Spaces, optionally filtered by repeated ``spaceKey``."""
        keys = {k.upper() for k in request.query.get("spaceKey", [])}
        spaces = [s for s in self.dataset.spaces() if not keys or s["key"].upper() in keys]
        expand = _expansions(request)
        return self._paged(request, spaces, lambda s: self._space(s, expand))

    def get_space(self, request: Request, key: str) -> Response:
        """One space."""
        return json_response(
            self._rewrite(request, self._space(self._require_space(key), _expansions(request)))
        )

    def space_content(self, request: Request, key: str) -> Response:
        """A space's pages and blog posts, grouped by type."""
        self._require_space(key)
        return json_response(
            {
                "page": self._paged_body(request, self._pages_in(key), self._renderer(request)),
                "blogpost": self._paged_body(request, [], self._renderer(request)),
                "_links": {"base": request.base_url, "context": ""},
            }
        )

    def space_content_of_type(self, request: Request, key: str, kind: str) -> Response:
        """A space's content of one type."""
        self._require_space(key)
        pages = self._pages_in(key) if kind == "page" else []
        return self._paged(request, pages, self._renderer(request))

    # ------------------------------------------------------------------ content

    def list_content(self, request: Request) -> Response:
        """Content filtered by ``spaceKey``, ``type``, ``title`` and ``status``."""
        space_key, kind, title = (
            request.param("spaceKey"),
            request.param("type", "page"),
            request.param("title"),
        )
        status = request.param("status", "current") or "current"
        pages = self.dataset.pages()
        if space_key:
            pages = [p for p in pages if p["space"]["key"].upper() == space_key.upper()]
        if title is not None:
            pages = [p for p in pages if p["title"] == title]
        pages = [p for p in pages if p.get("type", "page") == kind and _status_matches(p, status)]
        return self._paged(request, pages, self._renderer(request))

    def content_search(self, request: Request) -> Response:
        """CQL search returning content objects."""
        return self._paged(request, self._cql(request), self._renderer(request))

    def search(self, request: Request) -> Response:
        """CQL search returning search results (``content`` inside each)."""
        pages = self._cql(request)
        content_expand = {
            e.removeprefix("content.") for e in _expansions(request) if e.startswith("content.")
        }
        spaces = {s["key"]: s for s in self.dataset.spaces()}

        def result(page: Page) -> dict[str, Any]:
            space: dict[str, Any] = spaces.get(page["space"]["key"]) or page["space"]
            return {
                "content": self._content(page, content_expand),
                "title": page["title"],
                "excerpt": "",
                "url": page.get("_links", {}).get("webui", ""),
                "resultGlobalContainer": {
                    "title": space.get("name", ""),
                    "displayUrl": f"/display/{space['key']}",
                },
                "breadcrumbs": [],
                "entityType": "content",
                "iconCssClass": "aui-icon content-type-page",
                "lastModified": (page.get("version") or {}).get("when"),
                "friendlyLastModified": (page.get("version") or {}).get("when"),
                "score": 0.0,
            }

        response = self._paged_body(request, pages, result)
        response.update({"totalSize": len(pages), "cqlQuery": request.param("cql"), "searchDuration": 1})
        return json_response(self._rewrite(request, response))

    def get_content(self, request: Request, page_id: str) -> Response:
        """One page; ``expand`` defaults to ``space,history,version``."""
        page = self._require_page(page_id)
        status = request.param("status", "current") or "current"
        version = request.param("version")
        if version and version != str(page["version"]["number"]):
            # an older version: Confluence answers it only when historical content is asked for
            old = self.dataset.page_version(page_id, int(version)) if version.isdigit() else None
            if old is None or not ({"historical", "any"} & set(status.split(","))):
                raise HttpError(404, f"No content found with id: ContentId{{id={page_id}}}")
            page = old
        elif not _status_matches(page, status):
            raise HttpError(404, f"No content found with id: ContentId{{id={page_id}}}")
        expand = _expansions(request) if "expand" in request.query else set(SINGLE_DEFAULT_EXPAND)
        return json_response(self._rewrite(request, self._content(page, expand)))

    def content_history(self, request: Request, page_id: str) -> Response:
        """A page's history summary: who created it when, its last version and the one before."""
        self._require_page(page_id)
        versions = self.dataset.page_versions(page_id)
        first, last = versions[0]["version"], versions[-1]["version"]
        out: dict[str, Any] = {
            "latest": True,
            "createdBy": first.get("by"),
            "createdDate": first.get("when"),
            "lastUpdated": {**last, "message": last.get("message") or ""},
            "_links": {"self": f"{request.base_url}/rest/api/content/{page_id}/history"},
        }
        if len(versions) > 1:
            out["previousVersion"] = versions[-2]["version"]
        return json_response(out)

    def children_by_type(self, request: Request, page_id: str) -> Response:
        """Child content grouped by type (pages only; no comments or attachments in the data)."""
        self._require_page(page_id)
        body = {
            "page": self._paged_body(request, self._children_of(page_id), self._renderer(request)),
            "_links": {"base": request.base_url, "context": ""},
        }
        return json_response(self._rewrite(request, body))

    def children(self, request: Request, page_id: str, kind: str) -> Response:
        """Direct children of one type."""
        self._require_page(page_id)
        pages = self._children_of(page_id) if kind == "page" else []
        return self._paged(request, pages, self._renderer(request))

    def descendants(self, request: Request, page_id: str, kind: str) -> Response:
        """All descendants of one type."""
        self._require_page(page_id)
        pages = (
            [
                p
                for p in self.dataset.pages()
                if any(a["id"] == str(page_id) for a in p.get("ancestors") or [])
            ]
            if kind == "page"
            else []
        )
        return self._paged(request, pages, self._renderer(request))

    def labels(self, request: Request, page_id: str) -> Response:
        """Labels of a page (empty unless the data has ``metadata.labels``)."""
        page = self._require_page(page_id)
        labels = list(((page.get("metadata") or {}).get("labels") or {}).get("results") or [])
        prefix = request.param("prefix")
        if prefix:
            labels = [label for label in labels if label.get("prefix") == prefix]
        return self._paged(request, labels, lambda label: label, default_limit=200)

    def read_restriction(self, request: Request, page_id: str) -> Response:
        """Who may read a page (its own restrictions; descendants inherit them)."""
        return json_response(self._rewrite(request, read_restrictions(self._require_page(page_id))))

    # ------------------------------------------------------------------ rendering

    def _content(self, page: Page, expand: set[str]) -> dict[str, Any]:
        """A page as Confluence renders it with the given expansions."""
        out: dict[str, Any] = {k: page[k] for k in ("id", "type", "status", "title") if k in page}
        expandable: dict[str, str] = {}
        content_url = f"/rest/api/content/{page['id']}"
        plain = {
            "space": lambda: page["space"],
            "container": lambda: page["space"],
            "version": lambda: page.get("version"),
            "ancestors": lambda: page.get("ancestors", []),
        }
        for name, value in plain.items():
            if name in expand:
                out[name] = value()
            else:
                expandable[name] = (
                    f"/rest/api/space/{page['space']['key']}" if name in ("space", "container") else ""
                )
        if "history" in expand or "history.lastUpdated" in expand:
            history: dict[str, Any] = {"latest": True}
            if "history.lastUpdated" in expand and page.get("version"):
                history["lastUpdated"] = {**page["version"], "message": ""}
            out["history"] = history
        else:
            expandable["history"] = f"{content_url}/history"
        body_parts = {e.split(".", 1)[1] for e in expand if e.startswith("body.")}
        if body_parts or "body" in expand:
            storage = (page.get("body") or {}).get("storage") or {"value": "", "representation": "storage"}
            body: dict[str, Any] = {}
            for representation in sorted(body_parts):
                if representation == "storage":
                    body["storage"] = storage
                elif representation in ("view", "export_view", "styled_view"):
                    body[representation] = {"value": storage["value"], "representation": representation}
            body["_expandable"] = {
                r: "" for r in ("editor", "view", "export_view", "styled_view", "storage") if r not in body
            }
            out["body"] = body
        else:
            expandable["body"] = ""
        if "children.page" in expand or any(e.startswith("children.comment") for e in expand):
            out["children"] = {}
        if "children.page" in expand:
            children = self._children_of(str(page["id"]))
            out["children"]["page"] = {
                "results": [self._content(c, set()) for c in children[: self.default_limit]],
                "start": 0,
                "limit": self.default_limit,
                "size": min(len(children), self.default_limit),
            }
        if any(e.startswith("children.comment") for e in expand):
            # a page's comments (the record's ``_comments``), bodies with ``children.comment.body.storage``
            with_body = "children.comment.body.storage" in expand
            comments = [
                {k: v for k, v in c.items() if with_body or k != "body"} for c in page.get("_comments") or []
            ]
            out["children"]["comment"] = {
                "results": comments,
                "start": 0,
                "limit": self.default_limit,
                "size": len(comments),
            }
        if "children" not in out:
            expandable["children"] = f"{content_url}/child"
        if any(e.startswith("restrictions.read") for e in expand):
            out["restrictions"] = {"read": read_restrictions(page)}
        else:
            expandable["restrictions"] = f"{content_url}/restriction/byOperation"
        if "metadata.labels" in expand:
            labels = ((page.get("metadata") or {}).get("labels") or {}).get("results") or []
            out["metadata"] = {"labels": {"results": labels, "start": 0, "limit": 200, "size": len(labels)}}
        else:
            expandable["metadata"] = ""
        out["extensions"] = {"position": "none"}
        out["_links"] = page.get("_links", {})
        out["_expandable"] = expandable
        return out

    def _space(self, space: dict[str, Any], expand: set[str]) -> dict[str, Any]:
        out: dict[str, Any] = {
            k: space[k] for k in ("id", "key", "name", "type", "status", "_links") if k in space
        }
        expandable: dict[str, str] = {}
        for name in ("homepage", "description"):
            wanted = name in expand or any(e.startswith(f"{name}.") for e in expand)
            if wanted and name in space:
                out[name] = space[name]
            else:
                expandable[name] = ""
        out["_expandable"] = expandable
        return out

    def _renderer(self, request: Request) -> Callable[[Page], dict[str, Any]]:
        expand = _expansions(request)
        return lambda page: self._content(page, expand)

    # ------------------------------------------------------------------ pagination and lookups

    def _paged(
        self,
        request: Request,
        items: list[Any],
        render: Callable[[Any], Any],
        default_limit: int | None = None,
    ) -> Response:
        return json_response(self._rewrite(request, self._paged_body(request, items, render, default_limit)))

    def _paged_body(
        self,
        request: Request,
        items: list[Any],
        render: Callable[[Any], Any],
        default_limit: int | None = None,
    ) -> dict[str, Any]:
        start = max(request.int_param("start", 0), 0)
        limit = min(max(request.int_param("limit", default_limit or self.default_limit), 0), self.max_limit)
        window = items[start : start + limit]
        links: dict[str, Any] = {
            "base": request.base_url,
            "context": "",
            "self": request.url_with(request.path),
        }
        if start + limit < len(items) and limit > 0:
            params = {k: v for k, v in request.query.items() if k not in ("start", "limit")}
            params.update(start=[str(start + limit)], limit=[str(limit)])
            links["next"] = _relative(request, params)
        if start > 0:
            params = {k: v for k, v in request.query.items() if k not in ("start", "limit")}
            params.update(start=[str(max(start - limit, 0))], limit=[str(limit)])
            links["prev"] = _relative(request, params)
        return {
            "results": [render(item) for item in window],
            "start": start,
            "limit": limit,
            "size": len(window),
            "_links": links,
        }

    def _cql(self, request: Request) -> list[Page]:
        try:
            query = compile_cql(request.param("cql"), now=datetime.now(UTC))
        except CqlError as e:
            raise HttpError(
                400, f"com.atlassian.confluence.api.service.exceptions.BadRequestException: {e}"
            ) from e
        return query.sort([p for p in self.dataset.pages() if query.predicate(p)])

    def _pages_in(self, space_key: str) -> list[Page]:
        return [p for p in self.dataset.pages() if p["space"]["key"].upper() == space_key.upper()]

    def _children_of(self, page_id: str) -> list[Page]:
        return [p for p in self.dataset.pages() if (p.get("ancestors") or [{}])[-1].get("id") == str(page_id)]

    def _require_page(self, page_id: str) -> Page:
        page = self.dataset.page(page_id)
        if page is None:
            raise HttpError(404, f"No content found with id: ContentId{{id={page_id}}}")
        return page

    # ------------------------------------------------------------------ permissions

    def space_permissions(self, request: Request, key: str) -> Response:
        """Data Center 9.1+: every permission of the space as ``[{operation, subject, spaceKey, spaceId}]``
        (users by ``userKey``, groups by ``name``); the dataset records ``read`` (view space)."""
        space = self._require_space(key)
        grant = self.dataset.confluence_permissions().read(space["key"])
        subjects = [{"type": "user", "userKey": user_key(u)} for u in grant.users]
        subjects += [{"type": "group", "name": g} for g in grant.groups]
        return json_response(
            [
                {
                    "operation": {"targetType": "space", "operationKey": "read"},
                    "subject": subject,
                    "spaceKey": space["key"],
                    "spaceId": space["id"],
                }
                for subject in subjects
            ]
        )

    def restriction_groups(self) -> set[str]:
        """Groups the pages' read restrictions name (they exist even when nobody is in them)."""
        return {
            str(g.get("name"))
            for p in self.dataset.pages()
            for g in ((p.get("_restrictions") or {}).get("groups") or [])
            if isinstance(g, dict) and g.get("name")
        }

    def user_json(self, record: dict[str, Any]) -> dict[str, Any]:
        """A Server user: name, key and display name (its REST API shows no e-mail)."""
        name = str(record["username"])
        return {
            "type": "known",
            "username": name,
            "userKey": user_key(name),
            "displayName": record.get("displayName") or name,
        }

    def v1_user(self, request: Request) -> Response:
        """One user by ``username`` or ``key``."""
        wanted = request.param("username") or request.param("key") or ""
        users = self.dataset.confluence_permissions().directory.users
        for name, record in users.items():
            if wanted in (name, user_key(name)):
                return json_response(self.user_json(record))
        raise HttpError(404, f"No user found with username or key {wanted}")

    def group_members(self, request: Request, name: str) -> Response:
        """A group's members, paged like every v1 list."""
        directory = self.dataset.confluence_permissions().directory
        if name not in directory.groups and name not in self.restriction_groups():
            raise HttpError(404, f"No group found with name {name}")
        members = [directory.users[n] for n in directory.groups.get(name, []) if n in directory.users]
        return self._paged(request, members, self.user_json)

    def _require_space(self, key: str) -> dict[str, Any]:
        space = self.dataset.space(key)
        if space is None:
            raise HttpError(404, f"No space with key : {key}")
        return space

    def _rewrite(self, request: Request, data: Any) -> Any:
        return UrlRewriter({self.dataset.confluence_origin: request.base_url}).rewrite(data)


def read_restrictions(page: Page) -> dict[str, Any]:
    """The ``read`` operation's restrictions of a page (its own, as Confluence reports them)."""
    own = page.get("_restrictions") or {}
    users, groups = list(own.get("users") or []), list(own.get("groups") or [])
    return {
        "operation": "read",
        "restrictions": {
            "user": {"results": users, "start": 0, "limit": 200, "size": len(users)},
            "group": {"results": groups, "start": 0, "limit": 200, "size": len(groups)},
        },
    }


def user_key(username: str) -> str:
    """A stable Server user key (32 hex digits) for a user name."""
    return hashlib.sha1(username.encode("utf-8")).hexdigest()[:32]


def _expansions(request: Request) -> set[str]:
    return {
        part.strip() for value in request.query.get("expand", []) for part in value.split(",") if part.strip()
    }


def _status_matches(page: Page, status: str) -> bool:
    wanted = {s.strip() for s in status.split(",")}
    return "any" in wanted or page.get("status", "current") in wanted


def _relative(request: Request, params: dict[str, list[str]]) -> str:
    """A ``next``/``prev`` link relative to ``_links.base``, as Confluence writes them."""
    absolute = request.url_with(request.path, params)
    return absolute[len(request.base_url) :]
