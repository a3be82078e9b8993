"""Jira Cloud platform REST API emulator: the Data Center emulator's data, served the way Jira Cloud
serves it today (``python -m devkb_devtools.emulators --jira-deployment cloud``).

Routes (v2 and v3 share ``serverInfo``, ``myself``, ``project``, ``issue``; bodies differ)::

    GET  /rest/api/{2,3}/serverInfo           deploymentType "Cloud"
    GET  /rest/api/{2,3}/myself               accountId, timeZone (JQL dates are read in it)
    GET  /rest/api/3/project/search           paged: startAt, maxResults → values, isLast, nextPage
    GET  /rest/api/{2,3}/project[/{key}]
    GET  /rest/api/3/search/jql               jql, nextPageToken, maxResults, fields, expand, reconcileIssues
    POST /rest/api/3/search/jql               the same as a JSON body
    GET  /rest/api/{2,3}/issue/{key}          fields, expand
    *    /rest/api/{2,3}/search               410 Gone (removed, Atlassian change log CHANGE-2046)
    GET  /rest/api/{2,3}/user, user/permission/search, issuesecurityschemes/level/member, group/member
                                              the dataset's permissions (users as Cloud users)

What Cloud does differently, and the emulator with it: v3 returns ``description``,
``environment`` and comment bodies as Atlassian Document Format (:mod:`adf_writer`); users carry
``accountId`` and ``displayName`` — no ``name``, ``key`` or e-mail (GDPR); ``search/jql`` pages with an
opaque ``nextPageToken`` (no ``startAt``, no ``total``), returns only ``id`` without ``fields``, caps
``maxResults`` at 100 when fields are requested, and answers ``isLast``. Every response in the test
suite is validated against Atlassian's published description of this API
(``../shared/vendor-apis/jira-cloud-platform.openapi.json``, :mod:`vendor_check`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from devkb_devtools.emulators.adf_writer import text_to_adf
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import FaultSwitches
from devkb_devtools.emulators.jira import FIELD_NAMES, JiraEmulator, _split
from devkb_devtools.emulators.permissions import group_id
from devkb_devtools.emulators.routing import HttpError, Request, Response, Router, json_response
from devkb_devtools.emulators.timestamps import format_jira

API = r"/rest/api/(?:2|3|latest)"
API3 = r"/rest/api/3"
ADF_FIELDS = ("description", "environment")
USER_FIELDS = ("assignee", "reporter", "creator")
SEARCH_HISTORIES = 40  # histories Cloud returns with an issue (expand=changelog)
EPIC_LINK_FIELD = "customfield_10008"  # Data Center's "Epic Link"; Cloud uses ``parent`` instead


class JiraCloudEmulator(JiraEmulator):
    """The dataset's Jira projects and issues, served as Jira Cloud (REST API v2/v3, ``search/jql``)."""

    def __init__(
        self,
        dataset: Dataset,
        faults: FaultSwitches | None = None,
        *,
        time_zone: str = "UTC",
        max_results: int = 100,
        default_max_results: int = 50,
    ) -> None:
        super().__init__(
            dataset,
            faults,
            time_zone=time_zone,
            max_results=max_results,
            default_max_results=default_max_results,
        )

    deployment = "cloud"

    def vendor_description(self) -> str | None:
        return "jira-cloud-platform"

    def register_routes(self, router: Router) -> None:
        router.add("GET", rf"{API}/serverInfo", self.server_info)
        router.add("GET", rf"{API}/myself", self.myself)
        router.add("GET", rf"{API3}/project/search", self.search_projects)
        router.add("GET", rf"{API}/project", self.list_projects)
        router.add("GET", rf"{API}/project/(?P<key>[^/]+)", self.get_project)
        router.add("GET", rf"{API3}/search/jql", self.search_jql_get)
        router.add("POST", rf"{API3}/search/jql", self.search_jql_post)
        for method in ("GET", "POST"):
            router.add(method, rf"{API}/search", self.search_removed)
        router.add("GET", rf"{API}/issue/(?P<key>[^/]+)", self.get_issue)
        router.add("GET", rf"{API3}/issue/(?P<key>[^/]+)/changelog", self.get_changelog)
        self.register_permission_routes(router, API)

    # ------------------------------------------------------------------ handlers

    def server_info(self, request: Request) -> Response:
        return json_response(
            {
                "baseUrl": request.base_url,
                "version": "1001.0.0-SNAPSHOT",
                "versionNumbers": [1001, 0, 0],
                "deploymentType": "Cloud",
                "buildNumber": 100280,
                "buildDate": "2025-12-01T00:00:00.000+0000",
                "serverTime": format_jira(),
                "scmInfo": "devkb-emulator",
                "serverTitle": "Jira (devkb emulator, Cloud)",
            }
        )

    def myself(self, request: Request) -> Response:
        return json_response(
            {
                "self": f"{request.base_url}/rest/api/3/user?accountId={_account_id('emulator')}",
                "accountId": _account_id("emulator"),
                "accountType": "app",
                "displayName": "devkb sync bot",
                "active": True,
                "timeZone": self.time_zone,
                "locale": "en_US",
            }
        )

    def search_removed(self, request: Request) -> Response:
        raise HttpError(
            410,
            "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. "
            "A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046",
        )

    def search_projects(self, request: Request) -> Response:
        projects = self._rewriter(request).rewrite(self.dataset.projects())
        start = max(request.int_param("startAt", 0), 0)
        size = min(max(request.int_param("maxResults", 50), 1), 100)
        page = projects[start : start + size]
        last = start + len(page) >= len(projects)
        body: dict[str, Any] = {
            "self": request.url_with(request.path, {"startAt": start, "maxResults": size}),
            "startAt": start,
            "maxResults": size,
            "total": len(projects),
            "isLast": last,
            "values": page,
        }
        if not last:
            body["nextPage"] = request.url_with(request.path, {"startAt": start + size, "maxResults": size})
        return json_response(body)

    def search_jql_get(self, request: Request) -> Response:
        return self._search_jql(
            request,
            jql=request.param("jql"),
            token=request.param("nextPageToken"),
            max_results=request.int_param("maxResults", self.default_max_results),
            fields=_split(request.query.get("fields")),
            expand=_split(request.query.get("expand")),
        )

    def search_jql_post(self, request: Request) -> Response:
        body = request.json()
        if not isinstance(body, dict):
            raise HttpError(400, "The request body must be a JSON object.")
        try:
            max_results = (
                int(body["maxResults"]) if body.get("maxResults") is not None else self.default_max_results
            )
        except (TypeError, ValueError) as e:
            raise HttpError(400, "maxResults must be an integer.") from e
        return self._search_jql(
            request,
            jql=body.get("jql"),
            token=body.get("nextPageToken"),
            max_results=max_results,
            fields=_split(body.get("fields")),
            expand=_split(body.get("expand")),
        )

    def get_issue(self, request: Request, key: str) -> Response:
        issue = self.dataset.issue(key)
        if issue is None:
            raise HttpError(404, "Issue does not exist or you do not have permission to see it.")
        fields = _split(request.query.get("fields"))
        expand = _split(request.query.get("expand"))
        shaped = self._present(request, issue, fields, expand, default="*all")
        return json_response(self._cloud(shaped, v3=request.path.startswith("/rest/api/3/")))

    def get_changelog(self, request: Request, key: str) -> Response:
        """An issue's whole change history, paged (``startAt``, ``maxResults`` up to 100)."""
        issue = self.dataset.issue(key)
        if issue is None:
            raise HttpError(404, "Issue does not exist or you do not have permission to see it.")
        histories = [_cloud_history(h) for h in (issue.get("changelog") or {}).get("histories") or []]
        start = max(request.int_param("startAt", 0), 0)
        size = min(max(request.int_param("maxResults", 100), 1), 100)
        page = histories[start : start + size]
        last = start + len(page) >= len(histories)
        body: dict[str, Any] = {
            "self": request.url_with(request.path, {"startAt": start, "maxResults": size}),
            "startAt": start,
            "maxResults": size,
            "total": len(histories),
            "isLast": last,
            "values": page,
        }
        if not last:
            body["nextPage"] = request.url_with(request.path, {"startAt": start + size, "maxResults": size})
        return json_response(body)

    # ------------------------------------------------------------------ search/jql

    def _search_jql(
        self,
        request: Request,
        *,
        jql: str | None,
        token: str | None,
        max_results: int,
        fields: list[str],
        expand: list[str],
    ) -> Response:
        if not jql or not jql.strip():
            raise HttpError(400, "The JQL query is required (an unbounded query is not allowed).")
        if max_results < 0:
            raise HttpError(400, "maxResults must not be negative.")
        start = _read_token(token, jql) if token else 0
        matching, _warnings = self._matching(jql, strict=False)
        size = min(max_results or self.default_max_results, self.max_results if fields else 5000)
        page = matching[start : start + size]
        issues = []
        for issue in page:
            if fields:
                wanted = [e for e in expand if e == "changelog"]
                shaped = self._present(request, issue, fields, wanted, default="*navigable")
                issues.append(self._cloud(shaped, v3=True))
            else:  # without fields the enhanced search returns ids only
                issues.append({"id": str(issue.get("id", "")), "key": issue["key"]})
        body: dict[str, Any] = {"issues": issues, "isLast": start + len(page) >= len(matching)}
        if not body["isLast"]:
            body["nextPageToken"] = _make_token(jql, start + len(page))
        if "names" in expand:
            present = {k for i in issues for k in (i.get("fields") or {})}
            body["names"] = {k: FIELD_NAMES.get(k, k) for k in sorted(present)}
        return json_response(body)

    # ------------------------------------------------------------------ permissions (Cloud shapes)

    def user_json(self, request: Request, record: dict[str, Any]) -> dict[str, Any]:
        """A Cloud user: account id, no name or key; the e-mail as its privacy setting allows."""
        out: dict[str, Any] = {
            "accountId": _account_id(str(record["name"])),
            "accountType": "atlassian",
            "displayName": record.get("displayName") or record["name"],
            "active": True,
        }
        if record.get("emailAddress"):
            out["emailAddress"] = record["emailAddress"]
        return out

    def user_ref(self, name: str) -> str:
        return _account_id(name)

    def group_ref(self, name: str) -> str:
        return group_id(name)

    # ------------------------------------------------------------------ Cloud shapes

    def _cloud(self, issue: dict[str, Any], *, v3: bool) -> dict[str, Any]:
        """Users as Cloud users; in v3 the rich-text fields and comment bodies as ADF."""
        fields = dict(issue.get("fields") or {})
        epic = fields.pop(EPIC_LINK_FIELD, None)
        if epic and "parent" not in fields:  # Cloud shows an issue's epic as its parent
            target = self.dataset.issue(str(epic))
            summary = (target or {}).get("fields", {}).get("summary", "")
            fields["parent"] = {
                "id": str((target or {}).get("id", "")),
                "key": str(epic),
                "fields": {
                    "summary": summary,
                    "issuetype": {"name": "Epic", "subtask": False, "hierarchyLevel": 1},
                },
            }
        for name in USER_FIELDS:
            if isinstance(fields.get(name), dict):
                fields[name] = _cloud_user(fields[name])
        if v3:
            for name in ADF_FIELDS:
                if isinstance(fields.get(name), str) and fields[name].strip():
                    fields[name] = text_to_adf(fields[name])
                elif isinstance(fields.get(name), str):
                    fields[name] = None
        comment = fields.get("comment")
        if isinstance(comment, dict):
            comments = []
            for c in comment.get("comments") or []:
                c = dict(c)
                for who in ("author", "updateAuthor"):
                    if isinstance(c.get(who), dict):
                        c[who] = _cloud_user(c[who])
                if v3 and isinstance(c.get("body"), str):
                    c["body"] = text_to_adf(c["body"]) if c["body"].strip() else text_to_adf(" ")
                comments.append(c)
            fields["comment"] = {**comment, "comments": comments}
        shaped = {**issue, "fields": fields}
        changelog = issue.get("changelog")
        if isinstance(changelog, dict):
            histories = [_cloud_history(h) for h in changelog.get("histories") or [] if isinstance(h, dict)]
            # Cloud returns at most the 40 newest histories with an issue; the rest through
            # /issue/{key}/changelog (its "total" says how many there are)
            kept = histories[-SEARCH_HISTORIES:]
            shaped["changelog"] = {
                "startAt": 0,
                "maxResults": len(kept),
                "total": len(histories),
                "histories": kept,
            }
        return shaped


def _cloud_history(history: dict[str, Any]) -> dict[str, Any]:
    """A changelog entry as the published description has it: ``created`` as RFC 3339 date-time
    (``+00:00``), no ``null`` for ``from``/``fromString`` (the description does not allow null: an
    empty side is left out), the author as a Cloud user."""
    out = dict(history)
    if isinstance(out.get("author"), dict):
        out["author"] = _cloud_user(out["author"])
    if isinstance(out.get("created"), str):
        out["created"] = _rfc3339(out["created"])
    out["items"] = [
        {k: v for k, v in item.items() if v is not None}
        for item in out.get("items") or []
        if isinstance(item, dict)
    ]
    return out


def _rfc3339(jira_time: str) -> str:
    """``2026-04-16T09:40:00.000+0000`` → ``2026-04-16T09:40:00.000+00:00``."""
    if len(jira_time) > 5 and jira_time[-5] in "+-" and jira_time[-4:].isdigit():
        return f"{jira_time[:-2]}:{jira_time[-2:]}"
    return jira_time


def _account_id(name: str) -> str:
    """A stable Cloud account id for a Server user name (Cloud ids are opaque, 24+ hex digits)."""
    return "5b10" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:20]


def _cloud_user(user: dict[str, Any]) -> dict[str, Any]:
    name = str(user.get("name") or user.get("key") or user.get("displayName") or "unknown")
    out = {
        "accountId": _account_id(name),
        "accountType": "atlassian",
        "displayName": user.get("displayName") or name,
        "active": bool(user.get("active", True)),
    }
    if isinstance(user.get("avatarUrls"), dict):
        out["avatarUrls"] = user["avatarUrls"]
    if user.get("timeZone"):
        out["timeZone"] = user["timeZone"]
    return out


def _make_token(jql: str, offset: int) -> str:
    raw = json.dumps({"q": hashlib.sha1(jql.encode("utf-8")).hexdigest()[:12], "o": offset})
    return base64.urlsafe_b64encode(raw.encode("ascii")).decode("ascii").rstrip("=")


def _read_token(token: str, jql: str) -> int:
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        offset = int(data["o"])
        same_query = data["q"] == hashlib.sha1(jql.encode("utf-8")).hexdigest()[:12]
    except (ValueError, KeyError, TypeError) as e:
        raise HttpError(400, "The nextPageToken is invalid.") from e
    if not same_query or offset < 0:
        raise HttpError(400, "The nextPageToken does not belong to this query.")
    return offset
