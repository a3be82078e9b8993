"""Jira Server REST API v2 emulator (read-only endpoints a loader needs).

Routes (``2`` may also be written ``latest``, as on a real server)::

    GET  /rest/api/2/serverInfo
    GET  /rest/api/2/myself                     timeZone "UTC" (the zone JQL dates are read in)
    GET  /rest/api/2/project                    all projects (a JSON array)
    GET  /rest/api/2/project/{idOrKey}
    GET  /rest/api/2/search                     jql, startAt, maxResults, fields, expand, validateQuery
    POST /rest/api/2/search                     the same as a JSON body
    GET  /rest/api/2/issue/{idOrKey}            fields, expand
    GET  /rest/api/2/issue/{idOrKey}/comment    startAt, maxResults, orderBy
    GET  /rest/api/2/user                       username | key | accountId
    GET  /rest/api/2/user/permission/search     permissions=BROWSE_PROJECTS, projectKey, startAt, maxResults
    GET  /rest/api/2/issuesecurityschemes/level/member   levelId, startAt, maxResults
    GET  /rest/api/2/group/member               groupname, startAt, maxResults

The last four serve the dataset's permissions (:mod:`devkb_devtools.emulators.permissions`). Data Center
has ``user`` and ``user/permission/search`` under v2; the security level and group member
endpoints are Cloud's, served here under v2 in Cloud's shapes (devkb's loader reads both
deployments the same way; see docs/permission-sync.md).

These are exactly the requests of atlassian-python-api's ``Jira(url, cloud=False)``:
``get_server_info``, ``projects``, ``get_project``, ``jql`` / ``jql_get_list_of_tickets``
(``GET search`` with ``fields=*all`` by default), ``get_issue`` (adds ``updateHistory``) and
``issue_get_comments``.

Behaviour copied from Jira: ``maxResults`` defaults to 50 and is silently capped
(``max_results``, 100 by default); ``fields`` takes ``*all``, ``*navigable`` (the default for
search: every field except ``comment``), names and ``-name`` exclusions; unknown projects or keys
in JQL give 400 unless ``validateQuery=warn``. Errors use ``{"errorMessages": [...], "errors": {}}``.
JQL support is described in :mod:`devkb_devtools.emulators.jql`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from devkb_devtools.emulators.app import EmulatorApp
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import FaultSwitches
from devkb_devtools.emulators.jql import JqlError, compile_jql
from devkb_devtools.emulators.link_stripping import strip_issue_links
from devkb_devtools.emulators.routing import HttpError, Request, Response, Router, json_response
from devkb_devtools.emulators.timestamps import format_jira
from devkb_devtools.emulators.url_rewriting import UrlRewriter

API = r"/rest/api/(?:2|latest)"
NOT_NAVIGABLE = frozenset({"comment"})
FIELD_NAMES = {
    "summary": "Summary",
    "description": "Description",
    "environment": "Environment",
    "issuetype": "Issue Type",
    "status": "Status",
    "priority": "Priority",
    "resolution": "Resolution",
    "project": "Project",
    "created": "Created",
    "updated": "Updated",
    "resolutiondate": "Resolved",
    "assignee": "Assignee",
    "reporter": "Reporter",
    "labels": "Labels",
    "components": "Component/s",
    "fixVersions": "Fix Version/s",
    "versions": "Affects Version/s",
    "issuelinks": "Linked Issues",
    "attachment": "Attachment",
    "comment": "Comment",
    "parent": "Parent",
    "subtasks": "Sub-tasks",
    "customfield_10008": "Epic Link",
    "customfield_10020": "Sprint",
}


class JiraEmulator(EmulatorApp):
    """Serves the dataset's Jira projects and issues like a Jira Server (REST API v2)."""

    service = "jira"
    deployment = "datacenter"

    def __init__(
        self,
        dataset: Dataset,
        faults: FaultSwitches | None = None,
        *,
        time_zone: str = "UTC",
        max_results: int = 100,
        default_max_results: int = 50,
    ) -> None:
        self.time_zone = time_zone
        self._zone = ZoneInfo(time_zone)  # the calling user's zone: JQL date literals are read in it
        self.max_results = max_results
        self.default_max_results = default_max_results
        self._results_cache: OrderedDict[tuple[Any, ...], tuple[list[dict[str, Any]], list[str]]] = (
            OrderedDict()
        )
        self._cache_lock = threading.Lock()
        super().__init__(dataset, faults)

    def register_routes(self, router: Router) -> None:
        router.add("GET", rf"{API}/serverInfo", self.server_info)
        router.add("GET", rf"{API}/myself", self.myself)
        router.add("GET", rf"{API}/project", self.list_projects)
        router.add("GET", rf"{API}/project/(?P<key>[^/]+)", self.get_project)
        router.add("GET", rf"{API}/search", self.search_get)
        router.add("POST", rf"{API}/search", self.search_post)
        router.add("GET", rf"{API}/issue/(?P<key>[^/]+)", self.get_issue)
        router.add("GET", rf"{API}/issue/(?P<key>[^/]+)/comment", self.get_comments)
        self.register_permission_routes(router, API)

    def register_permission_routes(self, router: Router, api: str) -> None:
        router.add("GET", rf"{api}/user", self.get_user)
        router.add("GET", rf"{api}/user/permission/search", self.permission_search)
        router.add("GET", rf"{api}/issuesecurityschemes/level/member", self.level_members)
        router.add("GET", rf"{api}/group/member", self.group_members)

    def error_response(self, request: Request, status: int, message: str) -> Response:
        return json_response({"errorMessages": [message], "errors": {}}, status)

    # ------------------------------------------------------------------ handlers

    def server_info(self, request: Request) -> Response:
        """Server identity; ``baseUrl`` is the emulator."""
        return json_response(
            {
                "baseUrl": request.base_url,
                "version": "9.12.0",
                "versionNumbers": [9, 12, 0],
                "deploymentType": "Server",
                "buildNumber": 9120000,
                "buildDate": "2024-01-01T00:00:00.000+0000",
                "serverTime": format_jira(),
                "scmInfo": "devkb-emulator",
                "serverTitle": "Jira (devkb emulator)",
            }
        )

    def myself(self, request: Request) -> Response:
        """The calling user; ``timeZone`` is the zone JQL date literals are read in."""
        return json_response(
            {
                "self": f"{request.base_url}/rest/api/2/user?username=emulator",
                "name": "emulator",
                "key": "emulator",
                "displayName": "Emulator User",
                "active": True,
                "timeZone": self.time_zone,
                "locale": "en_US",
            }
        )

    def list_projects(self, request: Request) -> Response:
        """All projects."""
        return json_response(self._rewriter(request).rewrite(self.dataset.projects()))

    def get_project(self, request: Request, key: str) -> Response:
        """One project by key or id."""
        project = self.dataset.project(key)
        if project is None:
            raise HttpError(404, f"No project could be found with key '{key}'.")
        return json_response(self._rewriter(request).rewrite(project))

    def search_get(self, request: Request) -> Response:
        """JQL search with query parameters."""
        return self._search(
            request,
            jql=request.param("jql"),
            start_at=request.int_param("startAt", 0),
            max_results=request.int_param("maxResults", self.default_max_results),
            fields=_split(request.query.get("fields")),
            expand=_split(request.query.get("expand")),
            validate=request.param("validateQuery", "strict") or "strict",
        )

    def search_post(self, request: Request) -> Response:
        """JQL search with a JSON body."""
        body = request.json()
        if not isinstance(body, dict):
            raise HttpError(400, "The request body must be a JSON object.")
        try:
            start_at = int(body.get("startAt") or 0)
            max_results = (
                int(body["maxResults"]) if body.get("maxResults") is not None else self.default_max_results
            )
        except (TypeError, ValueError) as e:
            raise HttpError(400, "startAt and maxResults must be integers.") from e
        validate = body.get("validateQuery", "strict")
        return self._search(
            request,
            jql=body.get("jql"),
            start_at=start_at,
            max_results=max_results,
            fields=_split(body.get("fields")),
            expand=_split(body.get("expand")),
            validate="strict" if validate is True else str(validate or "strict"),
        )

    def get_issue(self, request: Request, key: str) -> Response:
        """One issue; every field unless ``fields`` says otherwise."""
        issue = self.dataset.issue(key)
        if issue is None:
            raise HttpError(404, "Issue Does Not Exist")
        fields = _split(request.query.get("fields"))
        expand = _split(request.query.get("expand"))
        return json_response(self._present(request, issue, fields, expand, default="*all"))

    def get_comments(self, request: Request, key: str) -> Response:
        """The comments of one issue, paginated by ``startAt`` / ``maxResults``."""
        issue = self.dataset.issue(key)
        if issue is None:
            raise HttpError(404, "Issue Does Not Exist")
        issue = self._present(request, issue, ["comment"], [], default="*all")
        comments = list(issue["fields"].get("comment", {}).get("comments", []))
        if (request.param("orderBy") or "").lstrip("+") == "-created":
            comments.reverse()
        start_at = max(request.int_param("startAt", 0), 0)
        max_results = max(request.int_param("maxResults", 5000), 0)
        page = comments[start_at : start_at + max_results]
        return json_response(
            {"startAt": start_at, "maxResults": max_results, "total": len(comments), "comments": page}
        )

    # ------------------------------------------------------------------ permissions

    def user_json(self, request: Request, record: dict[str, Any]) -> dict[str, Any]:
        """A user of the permission records as this deployment shows one."""
        name = str(record["name"])
        out: dict[str, Any] = {
            "self": f"{request.base_url}/rest/api/2/user?username={name}",
            "key": name,
            "name": name,
            "displayName": record.get("displayName") or name,
            "active": True,
        }
        if record.get("emailAddress"):
            out["emailAddress"] = record["emailAddress"]
        return out

    def user_ref(self, name: str) -> str:
        """How a security level member names a user (``holder.value``)."""
        return name

    def _find_user(self, request: Request) -> dict[str, Any] | None:
        users = self.dataset.jira_permissions().directory.users
        wanted = request.param("username") or request.param("key") or request.param("accountId") or ""
        return next((u for n, u in users.items() if wanted in (n, self.user_ref(n))), None)

    def get_user(self, request: Request) -> Response:
        """One user of the permission records."""
        found = self._find_user(request)
        if found is None:
            raise HttpError(404, "The user does not exist.")
        return json_response(self.user_json(request, found))

    def permission_search(self, request: Request) -> Response:
        """Users holding Browse Projects in ``projectKey`` (a JSON array, paged by startAt/maxResults)."""
        wanted = {p for v in request.query.get("permissions", []) for p in v.split(",") if p}
        if not wanted:
            raise HttpError(400, "The permissions parameter is required.")
        key = request.param("projectKey")
        if not key or self.dataset.project(key) is None:
            raise HttpError(404, f"No project could be found with key '{key}'.")
        perms = self.dataset.jira_permissions()
        names = perms.directory.members(perms.browse(key)) if wanted <= {"BROWSE_PROJECTS", "BROWSE"} else []
        start, size = self._window(request)
        users = [self.user_json(request, perms.directory.users[n]) for n in names[start : start + size]]
        return json_response(users)

    def level_members(self, request: Request) -> Response:
        """The members (user and group holders) of the requested issue security levels."""
        perms = self.dataset.jira_permissions()
        ids = [i for v in request.query.get("levelId", []) for i in v.split(",") if i]
        levels = [lv for lv in perms.levels if not ids or lv.id in ids]
        rows: list[dict[str, Any]] = []
        for lv in levels:
            for name in lv.grant.users:
                holder = {"type": "user", "parameter": self.user_ref(name), "value": self.user_ref(name)}
                rows.append({"lv": lv, "holder": holder})
            for group_name in lv.grant.groups:
                holder = {"type": "group", "parameter": group_name, "value": self.group_ref(group_name)}
                rows.append({"lv": lv, "holder": holder})
        values = [
            {
                "id": str(10000 + n),
                "issueSecurityLevelId": row["lv"].id,
                "issueSecuritySchemeId": row["lv"].scheme_id,
                "holder": row["holder"],
            }
            for n, row in enumerate(rows)
        ]
        return json_response(self._page_bean(request, values))

    def group_ref(self, name: str) -> str:
        return name

    def group_members(self, request: Request) -> Response:
        """The users of a group, paged (``values``, ``isLast``)."""
        perms = self.dataset.jira_permissions()
        name = request.param("groupname") or ""
        if not name:
            gid = request.param("groupId") or ""
            name = next((g for g in perms.directory.groups if self.group_ref(g) == gid), "")
        if name not in perms.directory.groups:
            raise HttpError(404, f"Group {name!r} does not exist.")
        users = [perms.directory.users[n] for n in perms.directory.groups[name] if n in perms.directory.users]
        return json_response(self._page_bean(request, [self.user_json(request, u) for u in users]))

    def _window(self, request: Request) -> tuple[int, int]:
        start = max(request.int_param("startAt", 0), 0)
        size = min(max(request.int_param("maxResults", self.default_max_results), 1), self.max_results)
        return start, size

    def _page_bean(self, request: Request, values: list[dict[str, Any]]) -> dict[str, Any]:
        start, size = self._window(request)
        page = values[start : start + size]
        last = start + size >= len(values)
        body: dict[str, Any] = {
            "self": request.url_with(request.path, request.query),
            "startAt": start,
            "maxResults": size,
            "total": len(values),
            "isLast": last,
            "values": page,
        }
        if not last:
            params = {**request.query, "startAt": [str(start + size)], "maxResults": [str(size)]}
            body["nextPage"] = request.url_with(request.path, params)
        return body

    # ------------------------------------------------------------------ search and presentation

    def _search(
        self,
        request: Request,
        *,
        jql: str | None,
        start_at: int,
        max_results: int,
        fields: list[str],
        expand: list[str],
        validate: str,
    ) -> Response:
        if start_at < 0 or max_results < 0:
            raise HttpError(400, "startAt and maxResults must not be negative.")
        strict = validate.lower() not in ("warn", "none", "false")
        matching, warnings = self._matching(jql, strict)
        max_results = min(max_results, self.max_results)
        page = matching[start_at : start_at + max_results]
        body: dict[str, Any] = {
            "expand": "schema,names",
            "startAt": start_at,
            "maxResults": max_results,
            "total": len(matching),
            "issues": [
                self._present(
                    request, issue, fields, [e for e in expand if e == "changelog"], default="*navigable"
                )
                for issue in page
            ],
        }
        if warnings:
            body["warningMessages"] = warnings
        if "names" in expand:
            body["names"] = dict(FIELD_NAMES)
        return json_response(body)

    def _matching(self, jql: str | None, strict: bool) -> tuple[list[dict[str, Any]], list[str]]:
        """Issues matching ``jql`` in query order, cached per query, data revision and minute.

        Paging through a result set re-runs the same query once per page; the cache makes each
        further page cost a slice instead of a scan of every issue.
        """
        now = datetime.now(UTC)
        cache_key = (jql, strict, self.dataset.revision, now.replace(second=0, microsecond=0))
        with self._cache_lock:
            cached = self._results_cache.get(cache_key)
        if cached is not None:
            return cached
        try:
            query = compile_jql(
                jql,
                project_exists=self._project_exists,
                issue_exists=lambda key: self.dataset.issue(key) is not None,
                strict=strict,
                now=now,
                tz=self._zone,
            )
        except JqlError as e:
            raise HttpError(400, str(e)) from e
        result = (query.sort([i for i in self.dataset.issues() if query.predicate(i)]), query.warnings)
        with self._cache_lock:
            self._results_cache[cache_key] = result
            while len(self._results_cache) > 16:
                self._results_cache.popitem(last=False)
        return result

    def _project_exists(self, value: str) -> bool:
        lowered = value.lower()
        return any(
            lowered in (p["key"].lower(), str(p["id"]), str(p.get("name", "")).lower())
            for p in self.dataset.projects()
        )

    def _present(
        self, request: Request, issue: dict[str, Any], fields: list[str], expand: list[str], *, default: str
    ) -> dict[str, Any]:
        """The issue as served: selected fields, links stripped when switched on, URLs rewritten."""
        selected = _select_fields(issue["fields"], fields, default)
        shaped = {k: v for k, v in issue.items() if k != "changelog" or "changelog" in expand}
        shaped["fields"] = selected
        if self.faults.strip_links:
            shaped = strip_issue_links(shaped, self.dataset.linked_keys(issue["key"]))
        if "names" in expand and "names" not in shaped:
            shaped["names"] = {name: FIELD_NAMES.get(name, name) for name in selected}
        return self._rewriter(request).rewrite(shaped)

    def _rewriter(self, request: Request) -> UrlRewriter:
        return UrlRewriter({self.dataset.jira_origin: request.base_url})


def _split(values: list[str] | str | None) -> list[str]:
    """Comma-separated parameter values (possibly repeated, or a JSON list) as one list."""
    if values is None:
        return []
    items = [values] if isinstance(values, str) else values
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]


def _select_fields(fields: dict[str, Any], selectors: list[str], default: str) -> dict[str, Any]:
    """Apply Jira's ``fields`` parameter: ``*all``, ``*navigable``, names and ``-name`` exclusions.

    Without any positive selector the endpoint's ``default`` (``*all`` or ``*navigable``) applies.
    """
    positive = [s for s in selectors if not s.startswith("-")] or [default]
    chosen: set[str] = set()
    for selector in positive:
        if selector == "*all":
            chosen.update(fields)
        elif selector == "*navigable":
            chosen.update(name for name in fields if name not in NOT_NAVIGABLE)
        else:
            chosen.add(selector)
    chosen -= {s[1:] for s in selectors if s.startswith("-")}
    return {name: value for name, value in fields.items() if name in chosen}
