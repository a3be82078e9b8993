"""Jira's REST API as the loader and the permission sync both read it: the deployment (Cloud or
Data Center), atlassian-python-api's client for it, every call wrapped in the source's retries,
and the listings both halves page through (issue searches, projects). ``loader.py`` and
``permissions.py`` import this module and never each other's internals."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from atlassian import Jira
from atlassian.jira import JiraCloud
from pydantic import SecretStr

from devkb.sources.http_retry import atlassian_client
from devkb.sources.retry import call_with_retry

log = logging.getLogger(__name__)
T = TypeVar("T")
DEPLOYMENTS = ("auto", "cloud", "datacenter")
CLOUD_PAGE_MAX = 100  # search/jql returns at most 100 issues per page when fields are requested


def _with_names(page: dict[str, Any]) -> list[dict[str, Any]]:
    names = page.get("names")
    issues: list[dict[str, Any]] = page["issues"]
    if isinstance(names, dict):
        for issue in issues:
            if isinstance(issue, dict):
                issue.setdefault("names", names)
    return issues


@dataclass
class JiraLoaderConfig:
    name: str
    url: str
    user: str | None = None
    token: SecretStr | None = None
    projects: list[str] = field(default_factory=list)  # empty = every project the user can see
    jql: str | None = None  # extra JQL restriction, AND-ed
    browse_url: str | None = None  # base URL for citations (defaults to url)
    page_size: int = 100
    deployment: str = "auto"  # auto (serverInfo.deploymentType) | cloud | datacenter
    retries: int = 6
    backoff: float = 0.5
    timeout: float = 30.0
    people: dict[str, str] = field(default_factory=dict)  # account id / user name → e-mail


class JiraClient:
    """One Jira source's connection: ``config``'s site and credentials, its retry hook."""

    def __init__(self, config: JiraLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self._on_retry = on_retry
        self._client: Any = None
        self._deployment: str | None = None if config.deployment == "auto" else config.deployment

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self._on_retry = on_retry
        self._client = None

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()`` with the source's retries (``sources/retry.py``), reported to the retry hook."""
        return call_with_retry(what, fn, on_retry=self._on_retry)

    def get(self, what: str, path: str, params: dict[str, Any]) -> Any:
        """``GET path`` (relative to the site) with ``params``, as the JSON Jira sent."""
        return self.call(what, functools.partial(self.api.get, path, params=params))

    @property
    def deployment(self) -> str:
        """``cloud`` or ``datacenter``: configured, or read once from ``serverInfo.deploymentType``."""
        if self._deployment is None:
            probe = atlassian_client(Jira, self.config, self._on_retry)

            def call() -> dict[str, Any]:
                info = probe.get_server_info()
                if not isinstance(info, dict):
                    raise ValueError(f"invalid JSON in Jira serverInfo: {str(info)[:80]!r}")
                return info

            info = self.call("Jira serverInfo", call)
            self._deployment = (
                "cloud" if str(info.get("deploymentType", "")).lower() == "cloud" else "datacenter"
            )
            log.info(
                "%s: Jira %s (deploymentType %s)", self.name, self._deployment, info.get("deploymentType")
            )
        return self._deployment

    @property
    def cloud(self) -> bool:
        return self.deployment == "cloud"

    @property
    def api(self) -> Any:
        """atlassian-python-api's ``JiraCloud`` (REST API v3) on Cloud, ``Jira`` (v2) otherwise."""
        if self._client is None:
            if self.cloud:
                self._client = atlassian_client(JiraCloud, self.config, self._on_retry, api_version=3)
            else:
                self._client = atlassian_client(Jira, self.config, self._on_retry)
        return self._client

    def scope(self) -> list[str]:
        """The JQL clauses the configuration restricts every query to (projects, extra JQL)."""
        clauses = []
        if self.config.projects:
            clauses.append("project in (" + ", ".join(self.config.projects) + ")")
        if self.config.jql:
            clauses.append(f"({self.config.jql})")
        return clauses

    def _search(self, jql: str, start: int, fields: str, expand: str | None = None) -> dict[str, Any]:
        """One page of a Data Center search (``startAt``)."""

        def call() -> dict[str, Any]:
            page = self.api.jql(jql, fields=fields, start=start, limit=self.config.page_size, expand=expand)
            # atlassian-python-api returns the raw text when the body is not JSON
            if not isinstance(page, dict) or not isinstance(page.get("issues"), list):
                raise ValueError(f"invalid JSON in Jira search response: {str(page)[:80]!r}")
            return page

        return self.call(f"Jira search at {start}", call)

    def _search_cloud(
        self, jql: str, token: str | None, fields: str, expand: str | None = None
    ) -> dict[str, Any]:
        """One page of a Cloud search (``/rest/api/3/search/jql``, ``nextPageToken``)."""

        def call() -> dict[str, Any]:
            page = self.api.enhanced_jql(
                jql,
                fields=fields,
                nextPageToken=token,
                limit=min(self.config.page_size, CLOUD_PAGE_MAX),
                expand=expand,
            )
            if not isinstance(page, dict) or not isinstance(page.get("issues"), list):
                raise ValueError(f"invalid JSON in Jira search/jql response: {str(page)[:80]!r}")
            return page

        return self.call("Jira search/jql", call)

    def pages(
        self, jql: str, fields: str, expand: str | None = None
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        """Every page of ``jql``'s issues with the total when the API gives one (Data Center). With
        ``expand`` containing ``names``, each issue carries the page's field names (custom fields
        such as "Epic Link" and "Sprint" are found by name)."""
        if self.cloud:
            token: str | None = None
            while True:
                page = self._search_cloud(jql, token, fields, expand)
                issues = _with_names(page)
                if issues:
                    yield issues, None
                token = page.get("nextPageToken")
                if page.get("isLast", not token) or not token or not issues:
                    return
        start = 0
        while True:
            page = self._search(jql, start, fields, expand)
            issues = _with_names(page)
            if not issues:
                return
            yield issues, page.get("total")
            start += len(issues)
            if start >= int(page.get("total") or 0):
                return

    def project_keys(self) -> list[str]:
        """Project keys visible to the user (learned, never hard-coded)."""

        def call() -> list[dict[str, Any]]:
            projects = self.api.projects()
            if not isinstance(projects, list):
                raise ValueError(f"invalid JSON in Jira project list: {str(projects)[:80]!r}")
            return projects

        def page(start: int) -> dict[str, Any]:
            found = self.api.search_projects(start_at=start, max_results=50)
            if not isinstance(found, dict) or not isinstance(found.get("values"), list):
                raise ValueError(f"invalid JSON in Jira project search: {str(found)[:80]!r}")
            return found

        if not self.cloud:
            projects = self.call("Jira projects", call)
        else:  # Cloud pages its project list (GET /rest/api/3/project/search)
            projects = []
            while True:
                start = len(projects)
                found = self.call(f"Jira project search at {start}", functools.partial(page, start))
                projects += found["values"]
                if found.get("isLast", True) or not found["values"]:
                    break
        return sorted(p["key"] for p in projects if isinstance(p, dict) and p.get("key"))
