"""Confluence Cloud through its REST API v2 (under ``/wiki``), in the page shape the rest of the
Confluence source reads (``convert.page_to_document`` takes v1 pages).

- spaces: ``GET /wiki/api/v2/spaces?keys=…``;
- pages: ``GET /wiki/api/v2/spaces/{id}/pages?body-format=storage&sort=-modified-date`` — newest
  first, so an incremental load stops at the first page older than its cursor; cursor pagination
  follows ``_links.next``;
- labels: ``GET /wiki/api/v2/pages/{id}/labels``; one page: ``GET /wiki/api/v2/pages/{id}``;
- authors: v2 pages name their author by account id only; their display names come from v1
  ``GET /wiki/rest/api/user?accountId=…`` (v2 has no user endpoint), once per author and load.

A v2 page has ``spaceId`` and ``parentId`` where v1 had ``space`` and ``ancestors``: the ancestors
(ids and titles, root first) are rebuilt from the listing of the space's pages, which the loader
makes anyway for link resolution — no request per page for them.

Reference: https://developer.atlassian.com/cloud/confluence/rest/v2/
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

LIST_LIMIT = 250  # v2's maximum page size


class CloudPages:
    """The v2 calls, through ``get(path, params)`` (atlassian-python-api's ``Confluence.get``
    on the retrying session, wrapped in the loader's retry)."""

    def __init__(self, get: Callable[[str, dict[str, Any]], Any], site: str) -> None:
        self._get = get
        self.site = site.rstrip("/")
        self._names: dict[str, str] = {}

    def listing(self, path: str, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Every result of a v2 list, following its cursor."""
        cursor: str | None = None
        while True:
            page = self._get(path, {**params, **({"cursor": cursor} if cursor else {})})
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                raise ValueError(f"invalid JSON in Confluence {path}: {str(page)[:80]!r}")
            yield from page["results"]
            nxt = (page.get("_links") or {}).get("next")
            cursor = (parse_qs(urlsplit(nxt).query).get("cursor") or [None])[0] if nxt else None
            if not cursor:
                return

    def space(self, key: str) -> dict[str, Any] | None:
        return next(iter(self.listing("api/v2/spaces", {"keys": key, "limit": 25})), None)

    def pages(
        self, space_id: str, body: bool, kinds: tuple[str, ...] = ("pages", "blogposts")
    ) -> Iterator[dict[str, Any]]:
        """The space's current pages and blog posts (``_kind`` set), each kind newest first (with
        their storage body when ``body``)."""
        params: dict[str, Any] = {"sort": "-modified-date", "limit": LIST_LIMIT}
        if body:
            params["body-format"] = "storage"
        for kind in kinds:
            for item in self.listing(f"api/v2/spaces/{space_id}/{kind}", params):
                yield {**item, "_kind": kind}

    def page(self, page_id: str, kind: str = "pages") -> dict[str, Any]:
        found = self._get(f"api/v2/{kind}/{page_id}", {"body-format": "storage"})
        if not isinstance(found, dict) or "id" not in found:
            raise ValueError(f"invalid JSON in Confluence page {page_id}: {str(found)[:80]!r}")
        return {**found, "_kind": kind}

    def versions(self, page_id: str) -> list[dict[str, Any]]:
        """The page's versions (number, message, authorId, createdAt)."""
        return list(self.listing(f"api/v2/pages/{page_id}/versions", {"limit": LIST_LIMIT}))

    def page_at(self, page_id: str, number: int) -> dict[str, Any]:
        """The page as it was at version ``number``, with its storage body."""
        found = self._get(f"api/v2/pages/{page_id}", {"version": number, "body-format": "storage"})
        if not isinstance(found, dict) or "id" not in found:
            raise ValueError(f"invalid JSON in Confluence page {page_id} v{number}: {str(found)[:80]!r}")
        return found

    def labels(self, page: dict[str, Any]) -> list[str]:
        path = f"api/v2/{page.get('_kind', 'pages')}/{page['id']}/labels"
        return [str(x["name"]) for x in self.listing(path, {"limit": LIST_LIMIT}) if x.get("name")]

    def comments(self, page: dict[str, Any]) -> list[dict[str, Any]]:
        """Footer comments as v1 comment objects (``children.comment.results``), authors named."""
        path = f"api/v2/{page.get('_kind', 'pages')}/{page['id']}/footer-comments"
        out = []
        for c in self.listing(path, {"limit": LIST_LIMIT, "body-format": "storage"}):
            version = c.get("version") or {}
            out.append(
                {
                    "id": str(c.get("id")),
                    "type": "comment",
                    "version": {
                        "number": version.get("number"),
                        "when": version.get("createdAt"),
                        "by": {"displayName": self.author(str(version.get("authorId") or ""))},
                    },
                    "body": {
                        "storage": {"value": ((c.get("body") or {}).get("storage") or {}).get("value") or ""}
                    },
                }
            )
        return out

    def read_restriction(self, page_id: str) -> dict[str, Any]:
        """Who may read the page (v1 ``/wiki/rest/api/content/{id}/restriction/byOperation/read``;
        v2 has no restrictions endpoint)."""
        found = self._get(f"rest/api/content/{page_id}/restriction/byOperation/read", {})
        return found if isinstance(found, dict) else {}

    def author(self, account_id: str) -> str:
        if account_id and account_id not in self._names:
            user = self._get("rest/api/user", {"accountId": account_id})
            self._names[account_id] = str(
                (user or {}).get("displayName") or (user or {}).get("publicName") or ""
            )
        return self._names.get(account_id, "")


def as_v1_page(
    page: dict[str, Any],
    space: dict[str, Any],
    index: dict[str, dict[str, Any]],
    labels: list[str],
    author: str,
    site: str,
    comments: list[dict[str, Any]] | None = None,
    read: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A v2 page in the v1 shape ``page_to_document`` reads; ``index`` is id → v2 page of the
    space (for the ancestors' ids and titles)."""
    ancestors: list[dict[str, Any]] = []
    parent = page.get("parentId")
    seen = {str(page["id"])}
    while parent and str(parent) in index and str(parent) not in seen:
        seen.add(str(parent))
        node = index[str(parent)]
        ancestors.insert(0, {"id": str(node["id"]), "type": "page", "title": node.get("title") or ""})
        parent = node.get("parentId")
    version = page.get("version") or {}
    return {
        "id": str(page["id"]),
        "type": "blogpost" if page.get("_kind") == "blogposts" else "page",
        "children": {"comment": {"results": comments or []}},
        "restrictions": {"read": read or {}},
        "status": page.get("status") or "current",
        "title": page.get("title") or "",
        "space": {"id": space.get("id"), "key": space.get("key"), "name": space.get("name")},
        "version": {
            "number": version.get("number"),
            "when": version.get("createdAt") or page.get("createdAt"),
            "by": {"accountId": version.get("authorId"), "displayName": author},
        },
        "ancestors": ancestors,
        "body": {"storage": {"value": ((page.get("body") or {}).get("storage") or {}).get("value") or ""}},
        "metadata": {"labels": {"results": [{"name": n, "prefix": "global"} for n in labels]}},
        "_links": {**(page.get("_links") or {}), "base": site},
    }
