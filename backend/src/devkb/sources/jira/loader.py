"""``JiraLoader``: JQL search with pagination, incremental by ``updated``, deletion sync by key list.

Both deployments, told apart by ``serverInfo.deploymentType`` (or ``deployment`` in the source
config):

- **Data Center / Server**: atlassian-python-api ``Jira`` (REST API v2), ``/rest/api/2/search`` with
  ``startAt``/``total``.
- **Cloud**: ``JiraCloud`` (REST API v3), ``/rest/api/3/search/jql`` with ``nextPageToken`` and
  ``isLast`` (``/rest/api/{2,3}/search`` answers 410 since 2025, change log CHANGE-2046); rich text
  arrives as Atlassian Document Format and becomes text in :mod:`devkb.sources.jira.adf`. The
  search is eventually consistent, so an incremental load starts ``CLOUD_OVERLAP`` before its
  cursor (unchanged issues are skipped by content hash) and the verification listing after a load
  fetches whatever the paging missed.

JQL date literals are read by Jira in the calling user's time zone: the cursor (UTC) is written in
the zone ``/myself`` reports, so a bot account in UTC−8 loses nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from devkb.errors import ConfigurationError, PermanentSourceError
from devkb.sources.base import HistoryPolicy, LoadBatch, SourceDocument
from devkb.sources.jira.client import DEPLOYMENTS, JiraClient, JiraLoaderConfig
from devkb.sources.jira.convert import TEXT_VERSION, issue_to_document, jira_doc_id, parse_jira_time
from devkb.sources.jira.permissions import JiraPermissions
from devkb.store.models import SourceType

log = logging.getLogger(__name__)
_PROJECT_KEY = re.compile(r"^[A-Z][A-Z0-9_]*$")
_ISSUE_KEY = re.compile(r"^[A-Z][A-Z0-9_]*-[0-9]+$")
VERIFY_PASSES = 3  # listings after a load; each fetches what changed while the previous one ran
OVERLAP = timedelta(minutes=1)  # JQL dates have minute precision
CLOUD_OVERLAP = timedelta(minutes=5)  # search/jql is eventually consistent: look further back
FULL_EXPAND = "names,changelog"  # field names (custom fields by name) and the change history


def _linked_keys(issues: list[dict[str, Any]]) -> set[str]:
    out = set()
    for issue in issues:
        for link in (issue.get("fields") or {}).get("issuelinks") or []:
            other = link.get("outwardIssue") or link.get("inwardIssue") or {}
            if other.get("key"):
                out.add(str(other["key"]))
    return out


def _key_order(key: str) -> tuple[str, int]:
    project, _, number = key.rpartition("-")
    return (project, int(number)) if number.isdigit() else (key, 0)


class JiraLoader:
    type = SourceType.JIRA
    text_version = TEXT_VERSION

    def __init__(self, config: JiraLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.name = config.name
        self.jira = JiraClient(config, on_retry)
        self._zone: tzinfo | None = None
        self._listed: set[str] | None = None  # ids a full load's verification listed last
        self._keep_history = True
        # key → security level id, read per load; None: not read yet, or Jira refused the query
        self._secured: dict[str, str] | None = None
        self._levels_known = False
        if config.deployment not in DEPLOYMENTS:
            raise ConfigurationError(
                f"source {config.name}: deployment must be one of {', '.join(DEPLOYMENTS)}, got {config.deployment!r}"
            )
        for p in config.projects:
            if not _PROJECT_KEY.match(p):
                raise ConfigurationError(f"source {config.name}: invalid Jira project key {p!r}")

    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self.jira.set_retry_hook(on_retry)

    @property
    def deployment(self) -> str:
        """``cloud`` or ``datacenter``: configured, or read once from ``serverInfo.deploymentType``."""
        return self.jira.deployment

    @property
    def cloud(self) -> bool:
        return self.jira.cloud

    @property
    def client(self) -> Any:
        """atlassian-python-api's ``JiraCloud`` (REST API v3) on Cloud, ``Jira`` (v2) otherwise."""
        return self.jira.api

    def describe(self) -> dict[str, Any]:
        return {
            "url": self.config.url,
            "projects": self.config.projects,
            "jql": self.config.jql,
            "deployment": self.config.deployment,
        }

    # -- JQL ------------------------------------------------------------------------------
    def user_zone(self) -> tzinfo:
        """The time zone Jira reads this user's JQL date literals in (``/myself`` → ``timeZone``)."""
        if self._zone is None:

            def call() -> dict[str, Any]:
                me = self.client.get_current_user() if self.cloud else self.client.myself()
                if not isinstance(me, dict):
                    raise ValueError(f"invalid JSON in Jira /myself: {str(me)[:80]!r}")
                return me

            name = str(self.jira.call("Jira myself", call).get("timeZone") or "UTC")
            try:
                self._zone = ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                log.warning(
                    "%s: unknown time zone %r from /myself; JQL dates written in UTC", self.name, name
                )
                self._zone = UTC
        return self._zone

    def _jql_time(self, cursor: str) -> str:
        """The cursor as a JQL date literal in the user's zone, a safety overlap earlier."""
        overlap = CLOUD_OVERLAP if self.cloud else OVERLAP
        t = datetime.fromisoformat(cursor).astimezone(UTC) - overlap
        return t.astimezone(self.user_zone()).strftime("%Y-%m-%d %H:%M")

    def set_history(self, policy: HistoryPolicy) -> None:
        """Transitions come with the changelog the loader reads anyway: nothing to fetch."""
        self._keep_history = policy.enabled

    def secured_levels(self) -> dict[str, str] | None:
        """Key → security level id of every issue in the configured projects that carries one
        (``level is not EMPTY``, one query, usually a short page): an issue's text names a linked
        issue only when every reader of the issue may browse it (``convert.link_shown``). None
        when Jira refuses the query: then no issue names a linked one (closed, not open)."""
        clauses = ["level is not EMPTY"]
        if self.config.projects:
            clauses.insert(0, "project in (" + ", ".join(self.config.projects) + ")")
        out: dict[str, str] = {}
        try:
            for issues, _total in self.jira.pages(" AND ".join(clauses) + " ORDER BY key ASC", "security"):
                for i in issues:
                    level = (i.get("fields") or {}).get("security")
                    if isinstance(level, dict) and level.get("id"):
                        out[str(i["key"])] = str(level["id"])
        except PermanentSourceError as e:
            log.warning(
                "%s: issues with a security level not readable (%s); issue texts name no linked issue"
                " until the query works and `devkb sync %s --full` reads them again",
                self.name,
                e,
                self.name,
            )
            return None
        return out

    def _read_levels(self) -> None:
        self._secured = self.secured_levels()
        self._levels_known = self._secured is not None

    def _to_document(self, issue: dict[str, Any]) -> SourceDocument:
        doc = issue_to_document(
            self._whole_changelog(issue),
            self.config.browse_url or self.config.url,
            self.name,
            self._secured,
            levels_known=self._levels_known,
        )
        if not self._keep_history:
            doc.versions = []
        return doc

    def _whole_changelog(self, issue: dict[str, Any]) -> dict[str, Any]:
        """The issue with its whole change history: Cloud returns at most 40 histories with an
        issue; when ``total`` says there are more, they are paged from ``/issue/{key}/changelog``."""
        changelog = issue.get("changelog")
        if not self.cloud or not isinstance(changelog, dict):
            return issue
        histories = changelog.get("histories") or []
        if int(changelog.get("total") or 0) <= len(histories):
            return issue
        key = issue["key"]
        found: list[dict[str, Any]] = []
        while True:
            start = len(found)

            def call(at: int = start) -> dict[str, Any]:
                page = self.client.get(
                    f"rest/api/3/issue/{key}/changelog", params={"startAt": at, "maxResults": 100}
                )
                if not isinstance(page, dict) or not isinstance(page.get("values"), list):
                    raise ValueError(f"invalid JSON in Jira changelog of {key}: {str(page)[:80]!r}")
                return page

            page = self.jira.call(f"Jira changelog of {key} at {start}", call)
            found += page["values"]
            if page.get("isLast", True) or not page["values"]:
                break
        return {
            **issue,
            "changelog": {"startAt": 0, "maxResults": len(found), "total": len(found), "histories": found},
        }

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        """Pages of ``ORDER BY updated``, then a check that no issue slipped between pages.

        Offset pagination over a live result set is not stable: an issue updated (it moves to the
        end) or deleted while the load is between pages shifts every later issue one place
        back, so the next page silently starts one issue too far. After the last page the load
        therefore lists the same query's keys and update times and fetches whatever it has not
        seen in that version (at most ``VERIFY_PASSES`` listings). A full load's last listing
        also answers the next ``list_ids`` call, so verification costs no extra requests there.
        """
        clauses = self.jira.scope()
        if since:
            clauses.append(f'updated >= "{self._jql_time(since)}"')
        jql = (" AND ".join(clauses) + " ORDER BY updated ASC, key ASC").strip()
        cursor = since
        seen: dict[str, str | None] = {}  # key → the `updated` of the version indexed
        linked: set[str] = set()  # keys the changed issues link to (an incremental load)
        self._listed = None
        self._read_levels()
        for issues, total in self.jira.pages(jql, "*all", FULL_EXPAND):
            cursor = self._note(issues, seen, cursor)
            if since:
                linked.update(_linked_keys(issues))
            yield LoadBatch(documents=[self._to_document(i) for i in issues], cursor=cursor, total=total)
        yield from self._refresh_linked(linked, seen, cursor)
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
            yield LoadBatch(documents=[self._to_document(i) for i in issues], cursor=cursor, total=None)

    def _refresh_linked(
        self, linked: set[str], seen: dict[str, str | None], cursor: str | None
    ) -> Iterator[LoadBatch]:
        """An issue's text quotes the summaries of the issues it links to, and whether it may
        (their project, their security level): when an issue changed, the issues on the other
        end of its links are read again, so none keeps a stale summary or one it may no longer
        show. Only issues in the load's own scope, and not already read in this load."""
        keys = sorted((k for k in linked if k not in seen), key=_key_order)
        if not keys:
            return
        try:
            issues = self._issues_by_key(keys, scoped=True)
        except PermanentSourceError:  # a key Jira no longer knows (deleted or moved meanwhile)
            issues = []
            for key in keys:
                try:
                    issues += self._issues_by_key([key], scoped=True)
                except PermanentSourceError as e:
                    log.warning("%s: linked issue %s not read again: %s", self.name, key, e)
        if issues:
            log.info("%s: %d linked issues read again for their link text", self.name, len(issues))
            cursor = self._note(issues, seen, cursor)
            yield LoadBatch(documents=[self._to_document(i) for i in issues], cursor=cursor, total=None)

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
        for issues, _total in self.jira.pages(jql, fields):
            out.update((i["key"], (i.get("fields") or {}).get("updated")) for i in issues)
        return out

    def _issues_by_key(self, keys: list[str], scoped: bool = False) -> list[dict[str, Any]]:
        """``scoped``: only those the configured projects and JQL select."""
        issues: list[dict[str, Any]] = []
        for i in range(0, len(keys), 50):
            wanted = [k for k in keys[i : i + 50] if _ISSUE_KEY.match(k)]
            if scoped and self.config.projects:
                wanted = [k for k in wanted if k.rpartition("-")[0] in self.config.projects]
            if not wanted:
                continue
            jql = " AND ".join(["key in (" + ", ".join(wanted) + ")", *(self.jira.scope() if scoped else [])])
            for found, _total in self.jira.pages(jql, "*all", FULL_EXPAND):
                issues += found
        return issues

    def fetch(self, document_ids: list[str]) -> list[SourceDocument]:
        """The current version of the given issues (those that still exist)."""
        self._read_levels()
        keys = [i.split(":", 1)[1] for i in document_ids if i.startswith("jira:")]
        return [self._to_document(x) for x in self._issues_by_key(keys)]

    def list_ids(self) -> set[str]:
        listed, self._listed = self._listed, None
        if listed is not None:  # the listing a full load just verified itself with
            return listed
        jql = (" AND ".join(self.jira.scope()) + " ORDER BY key ASC").strip()
        return {jira_doc_id(k) for k in self._list(jql, "key")}

    def link_hints(self) -> dict[str, Any]:
        """What other sources need to recognise references to this Jira: project keys and URLs."""
        urls = {self.config.url.rstrip("/")}
        if self.config.browse_url:
            urls.add(self.config.browse_url.rstrip("/"))
        return {"project_keys": self.project_keys(), "jira_urls": sorted(urls)}

    def project_keys(self) -> list[str]:
        """Project keys visible to the user (learned, never hard-coded)."""
        return self.jira.project_keys()

    # -- permission sync: sources/jira/permissions.py ------------------------------------------
    def fetch_permissions(self) -> list[tuple[str, str]]:
        """``(principal, email)`` pairs: who holds what this source's documents' gates name."""
        return JiraPermissions(self.jira).fetch_permissions()
