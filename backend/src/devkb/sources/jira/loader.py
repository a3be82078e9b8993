"""``JiraLoader``: JQL search with pagination, incremental by ``updated``, deletion sync by key list."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from atlassian import Jira
from pydantic import SecretStr

from devkb.errors import ConfigurationError
from devkb.sources.base import LoadBatch, SourceDocument
from devkb.sources.http_retry import atlassian_client
from devkb.sources.jira.convert import issue_to_document, jira_doc_id, parse_jira_time
from devkb.sources.retry import call_with_retry
from devkb.store.models import SourceType

log = logging.getLogger(__name__)
_PROJECT_KEY = re.compile(r"^[A-Z][A-Z0-9_]*$")
_ISSUE_KEY = re.compile(r"^[A-Z][A-Z0-9_]*-[0-9]+$")
VERIFY_PASSES = 3  # listings after a load; each fetches what changed while the previous one ran


def _key_order(key: str) -> tuple[str, int]:
    project, _, number = key.rpartition("-")
    return (project, int(number)) if number.isdigit() else (key, 0)


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
    retries: int = 6
    backoff: float = 0.5
    timeout: float = 30.0


class JiraLoader:
    type = SourceType.JIRA

    def __init__(self, config: JiraLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self._on_retry = on_retry
        self._client: Jira | None = None
        self._listed: set[str] | None = None  # ids a full load's verification listed last
        for p in config.projects:
            if not _PROJECT_KEY.match(p):
                raise ConfigurationError(f"source {config.name}: invalid Jira project key {p!r}")

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self._on_retry = on_retry
        self._client = None

    @property
    def client(self) -> Jira:
        if self._client is None:
            self._client = atlassian_client(Jira, self.config, self._on_retry)
        return self._client

    def describe(self) -> dict[str, Any]:
        return {"url": self.config.url, "projects": self.config.projects, "jql": self.config.jql}

    # -- JQL ------------------------------------------------------------------------------
    def _scope(self) -> list[str]:
        clauses = []
        if self.config.projects:
            clauses.append("project in (" + ", ".join(self.config.projects) + ")")
        if self.config.jql:
            clauses.append(f"({self.config.jql})")
        return clauses

    @staticmethod
    def _jql_time(cursor: str) -> str:
        t = datetime.fromisoformat(cursor).astimezone(UTC) - timedelta(minutes=1)
        return t.strftime("%Y-%m-%d %H:%M")

    def _search(self, jql: str, start: int, fields: str) -> dict[str, Any]:
        def call() -> dict[str, Any]:
            page = self.client.jql(jql, fields=fields, start=start, limit=self.config.page_size)
            # atlassian-python-api returns the raw text when the body is not JSON
            if not isinstance(page, dict) or not isinstance(page.get("issues"), list):
                raise ValueError(f"invalid JSON in Jira search response: {str(page)[:80]!r}")
            return page

        return call_with_retry(f"Jira search at {start}", call, on_retry=self._on_retry)

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        """Pages of ``ORDER BY updated``, then a check that no issue slipped between pages.

        Offset pagination over a live result set is not stable: an issue updated (it moves to the
        end) or deleted while the load is between pages shifts every later issue one place
        back, so the next page silently starts one issue too far. After the last page the load
        therefore lists the same query's keys and update times and fetches whatever it has not
        seen in that version (at most ``VERIFY_PASSES`` listings). A full load's last listing
        also answers the next ``list_ids`` call, so verification costs no extra requests there.
        """
        clauses = self._scope()
        if since:
            clauses.append(f'updated >= "{self._jql_time(since)}"')
        jql = (" AND ".join(clauses) + " ORDER BY updated ASC, key ASC").strip()
        start = 0
        cursor = since
        seen: dict[str, str | None] = {}  # key → the `updated` of the version indexed
        self._listed = None
        while True:
            page = self._search(jql, start, "*all")
            issues = page.get("issues") or []
            if not issues:
                break
            cursor = self._note(issues, seen, cursor)
            docs = [issue_to_document(i, self.config.browse_url or self.config.url) for i in issues]
            yield LoadBatch(documents=docs, cursor=cursor, total=page.get("total"))
            start += len(issues)
            if start >= int(page.get("total") or 0):
                break
        for _ in range(VERIFY_PASSES):
            listed = self._list(jql, "key,updated")
            missed = sorted(
                (k for k, updated in listed.items() if seen.get(k, "") != updated), key=_key_order
            )
            if not missed:
                if since is None:
                    self._listed = {jira_doc_id(k) for k in listed}
                return
            log.info("%s: %d issues changed while paging; fetching them", self.name, len(missed))
            issues = self._issues_by_key(missed)
            cursor = self._note(issues, seen, cursor)
            docs = [issue_to_document(i, self.config.browse_url or self.config.url) for i in issues]
            yield LoadBatch(documents=docs, cursor=cursor, total=None)

    @staticmethod
    def _note(issues: list[dict[str, Any]], seen: dict[str, str | None], cursor: str | None) -> str | None:
        """Remember the versions served; the cursor after them (the newest ``updated``)."""
        for i in issues:
            updated = (i.get("fields") or {}).get("updated")
            seen[i["key"]] = updated
            t = parse_jira_time(updated)
            if t is not None:
                iso = t.astimezone(UTC).isoformat(timespec="seconds")
                cursor = iso if cursor is None or iso > cursor else cursor
        return cursor

    def _list(self, jql: str, fields: str) -> dict[str, str | None]:
        """``{key: updated}`` of every issue the query matches."""
        out: dict[str, str | None] = {}
        start = 0
        while True:
            page = self._search(jql, start, fields)
            issues = page.get("issues") or []
            out.update((i["key"], (i.get("fields") or {}).get("updated")) for i in issues)
            start += len(issues)
            if not issues or start >= int(page.get("total") or 0):
                return out

    def _issues_by_key(self, keys: list[str]) -> list[dict[str, Any]]:
        issues: list[dict[str, Any]] = []
        for i in range(0, len(keys), 50):
            jql = "key in (" + ", ".join(k for k in keys[i : i + 50] if _ISSUE_KEY.match(k)) + ")"
            start = 0
            while True:
                page = self._search(jql, start, "*all")
                found = page.get("issues") or []
                issues += found
                start += len(found)
                if not found or start >= int(page.get("total") or 0):
                    break
        return issues

    def fetch(self, document_ids: list[str]) -> list[SourceDocument]:
        """The current version of the given issues (those that still exist)."""
        keys = [i.split(":", 1)[1] for i in document_ids if i.startswith("jira:")]
        base = self.config.browse_url or self.config.url
        return [issue_to_document(x, base) for x in self._issues_by_key(keys)]

    def list_ids(self) -> set[str]:
        listed, self._listed = self._listed, None
        if listed is not None:  # the listing a full load just verified itself with
            return listed
        jql = (" AND ".join(self._scope()) + " ORDER BY key ASC").strip()
        return {jira_doc_id(k) for k in self._list(jql, "key")}

    def link_hints(self) -> dict[str, Any]:
        """What other sources need to recognise references to this Jira: project keys and URLs."""
        urls = {self.config.url.rstrip("/")}
        if self.config.browse_url:
            urls.add(self.config.browse_url.rstrip("/"))
        return {"project_keys": self.project_keys(), "jira_urls": sorted(urls)}

    def project_keys(self) -> list[str]:
        """Project keys visible to the user (learned, never hard-coded)."""

        def call() -> list[dict[str, Any]]:
            projects = self.client.projects()
            if not isinstance(projects, list):
                raise ValueError(f"invalid JSON in Jira project list: {str(projects)[:80]!r}")
            return projects

        projects = call_with_retry("Jira projects", call, on_retry=self._on_retry)
        return sorted(p["key"] for p in projects if isinstance(p, dict) and p.get("key"))
