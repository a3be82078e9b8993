"""``GitHubLoader`` (PyGithub): repository files, commits, pull requests and (optionally) issues.

Per repository and run, in this order (see ``cursor.py`` for how a crashed run resumes):

1. files — the git tree at HEAD of the default branch on the first run; afterwards only the
   paths ``compare(last head...HEAD)`` reports added, modified or renamed (removed and
   renamed-away paths disappear from ``list_ids`` and are deleted by the sync);
2. default-branch commits — the whole history first, then the commits of that compare;
3. pull requests updated since the last run, each with its whole discussion — the conversation
   (issue comments), the reviews (verdict and summary) and the inline review comments — and its
   commits that are not on the default branch;
4. issues updated since the last run, with their comments (``include_issues``, on by default).

``list_ids`` lists the tree, the default-branch history, every pull request and its commits.
Histories and pull-request commit lists are cached per process and extended through
``compare`` when HEAD moves, so a quiet sync costs a handful of requests.
"""

from __future__ import annotations

import base64
import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import requests
from github import Github

from devkb.errors import ConfigurationError, PermanentSourceError
from devkb.sources.acl import scope
from devkb.sources.base import HistoryPolicy, LoadBatch, SourceDocument
from devkb.sources.github.client import GitHubClient, GitHubLoaderConfig
from devkb.sources.github.convert import (
    commit_to_document,
    doc_id,
    file_to_document,
    issue_to_document,
    pull_to_document,
)
from devkb.sources.github.cursor import GitHubCursor, RepoCursor
from devkb.sources.github.paths import PathFilter
from devkb.sources.github.permissions import GitHubPermissions
from devkb.sources.timestamps import to_utc_iso
from devkb.store.models import SourceType

log = logging.getLogger(__name__)
T = TypeVar("T")
COMPARE_FILES_LIMIT = 300  # GitHub lists at most this many files in a compare


PAGE_SIZE = 100  # items per page of a list (GitHub's most)
UPDATED_DESC = {"state": "all", "sort": "updated", "direction": "desc"}


def _next_page(headers: dict[str, Any]) -> str | None:
    """The ``rel="next"`` address of a list response's ``Link`` header (GitHub's pagination)."""
    link = headers.get("link") or headers.get("Link")
    if not link:
        return None
    for part in requests.utils.parse_header_links(str(link)):
        if part.get("rel") == "next" and part.get("url"):
            return str(part["url"])
    return None


class GitHubLoader:
    type = SourceType.GITHUB

    def __init__(self, config: GitHubLoaderConfig, on_retry: Callable[[str], None] | None = None) -> None:
        for repo in config.repos:
            if repo.count("/") != 1 or not all(repo.split("/")):
                raise ConfigurationError(f"source {config.name}: repository {repo!r} is not owner/name")
        if not config.repos:
            raise ConfigurationError(f"source {config.name}: list at least one repository under repos")
        self.config = config
        self.name = config.name
        self.github = GitHubClient(config, on_retry)
        self.paths = PathFilter(config.include, config.exclude, config.max_file_bytes)
        # per-process caches for list_ids and loads: repo → (head, shas); repo → {pr: (head sha, shas)}
        self._history: dict[str, tuple[str, list[str]]] = {}
        self._pull_commits: dict[str, dict[int, tuple[str, set[str]]]] = {}
        self._diff_bytes: int | None = HistoryPolicy().max_diff_bytes  # None: history off

    def set_history(self, policy: HistoryPolicy) -> None:
        """Diffs come with ``/commits/{sha}``, which the loader reads anyway: nothing to fetch."""
        self._diff_bytes = policy.max_diff_bytes if policy.enabled else None

    def _commit_document(self, name: str, sha: str) -> SourceDocument:
        return commit_to_document(name, self._commit(name, sha), self._diff_bytes)

    # -- client ----------------------------------------------------------------------------
    def set_retry_hook(self, on_retry: Callable[[str], None] | None) -> None:
        self.github.set_retry_hook(on_retry)

    @property
    def gh(self) -> Github:
        return self.github.gh

    def html_base(self) -> str:
        if self.config.html_url:
            return self.config.html_url.rstrip("/")
        parts = urlsplit(self.config.url)
        host = parts.hostname or "github.com"
        if host == "api.github.com":
            return "https://github.com"
        if parts.path.rstrip("/").endswith("/api/v3"):  # GitHub Enterprise Server
            return f"{parts.scheme}://{parts.netloc}"
        return "https://github.com"  # emulators and proxies serve github.com data

    def describe(self) -> dict[str, Any]:
        return {
            "url": self.config.url,
            "repos": self.config.repos,
            "include_issues": self.config.include_issues,
        }

    def link_hints(self) -> dict[str, Any]:
        """What reference rules need to recognise links into these repositories (no requests)."""
        sites = [
            [s.get("prefix", ""), s.get("repo", self.config.repos[0]), s.get("path", "{page}")]
            for s in self.config.doc_sites
            if s.get("prefix")
        ]
        return {
            "github_repos": list(self.config.repos),
            "github_urls": [self.html_base()],
            "doc_sites": sites,
        }

    # -- requests --------------------------------------------------------------------------
    def _head(self, name: str, branch_name: str | None = None) -> str:
        repo = self.github.repo(name)
        wanted = branch_name or repo.default_branch
        branch = self.github.call(f"{name} branch {wanted}", lambda: repo.get_branch(wanted))
        return str(self.github.raw(branch, "commit")["commit"]["sha"])

    def _branch_commits(self, name: str, branch: str, head: str) -> list[str]:
        """Commits of a configured branch that are not on the default branch (oldest first)."""
        return list(self._compare(name, head, self._head(name, branch))["commit_shas"])

    def _get(self, what: str, name: str, path: str, required: str) -> dict[str, Any]:
        """``GET /repos/{name}{path}`` as the JSON GitHub sent, through PyGithub's requester (its
        auth, retries and rate-limit handling) without building PyGithub objects: for a commit
        with its files that was most of the loader's CPU on a first index."""
        url = f"{self.github.repo(name).url}{path}"

        def fetch() -> dict[str, Any]:
            _, data = self.gh.requester.requestJsonAndCheck("GET", url)
            if not isinstance(data, dict) or required not in data:
                raise ValueError(f"unexpected GitHub payload without {required!r}")
            return data

        return self.github.call(what, fetch)

    def _listing(
        self, name: str, path: str, required: str, params: dict[str, str] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every item of the list ``GET /repos/{name}{path}`` as the JSON GitHub sent, page by page
        (100 per page, the next page from the ``Link`` header as GitHub documents it), through
        PyGithub's requester like ``_get``: PyGithub's list objects built an object for every item
        and its nested users (~0.9 s of the whole-Fluid sync's CPU) only to be read as JSON."""
        url: str | None = f"{self.github.repo(name).url}{path}"
        parameters: dict[str, Any] | None = {**(params or {}), "per_page": PAGE_SIZE}
        while url is not None:
            headers, data = self.gh.requester.requestJsonAndCheck("GET", url, parameters=parameters)
            if not isinstance(data, list):
                raise ValueError(f"unexpected GitHub list payload: {type(data).__name__}")
            for item in data:
                if not isinstance(item, dict) or required not in item:
                    raise ValueError(f"unexpected GitHub payload without {required!r}")
                yield item
            url = _next_page(headers) if data else None
            parameters = None  # the next link carries them

    def _list(self, name: str, path: str, required: str) -> list[dict[str, Any]]:
        return list(self._listing(name, path, required))

    def _commit(self, name: str, sha: str) -> dict[str, Any]:
        return self._get(f"{name} commit {sha[:10]}", name, f"/commits/{quote(sha, safe='')}", "sha")

    def _compare(self, name: str, base: str, head: str) -> dict[str, Any]:
        repo = self.github.repo(name)

        def fetch() -> dict[str, Any]:
            cmp = repo.compare(base, head)
            raw = self.github.raw(cmp, "status")
            commits = [self.github.raw(c, "sha")["sha"] for c in cmp.commits]  # all pages
            return {**raw, "commit_shas": commits}

        return self.github.call(f"{name} compare {base[:10]}...{head[:10]}", fetch)

    # -- files -----------------------------------------------------------------------------
    def _tree_files(self, name: str, head: str) -> list[tuple[str, str, int | None]]:
        """``(path, blob sha, size)`` of every wanted file at ``head``, sorted by path."""
        repo = self.github.repo(name)

        def fetch() -> list[tuple[str, str, int | None]]:
            tree = repo.get_git_tree(head, recursive=True)
            raw = self.github.raw(tree, "tree")
            if raw.get("truncated"):
                raise PermanentSourceError(f"{name}: the git tree is too large for one request (truncated)")
            return sorted(
                (e["path"], e["sha"], e.get("size"))
                for e in raw["tree"]
                if e.get("type") == "blob" and self.paths.wanted(e["path"], e.get("size"))
            )

        return self.github.call(f"{name} tree {head[:10]}", fetch)

    def _changed_files(self, name: str, old: str | None, head: str) -> list[tuple[str, str, int | None]]:
        if old is not None:
            cmp = self._compare(name, old, head)
            files = cmp.get("files") or []
            if cmp.get("status") == "ahead" and len(files) < COMPARE_FILES_LIMIT:
                return sorted(
                    (f["filename"], f.get("sha") or "", None)
                    for f in files
                    if f.get("status") != "removed" and f.get("sha") and self.paths.wanted(f["filename"])
                )
            log.info("%s: %s since %s; re-reading the whole tree", name, cmp.get("status"), old[:10])
        return self._tree_files(name, head)

    def _file_document(self, name: str, path: str, sha: str, when: str) -> SourceDocument | None:
        repo = self.github.repo(name)
        blob = self._get(f"{name} blob {path}", name, f"/git/blobs/{quote(sha, safe='')}", "content")
        data = (
            base64.b64decode(blob["content"])
            if blob.get("encoding") == "base64"
            else str(blob["content"]).encode()
        )
        if len(data) > self.config.max_file_bytes:
            return None
        text = self.paths.decode(data)
        if text is None:
            return None
        return file_to_document(name, path, text, sha, self.html_base(), repo.default_branch, when)

    # -- commits ---------------------------------------------------------------------------
    def _main_history(self, name: str, head: str) -> list[str]:
        """Default-branch commits reachable from ``head``, oldest first (cached per process and
        extended through ``compare`` when HEAD moved forward)."""
        cached = self._history.get(name)
        if cached is not None and cached[0] == head:
            return cached[1]
        if cached is not None:
            cmp = self._compare(name, cached[0], head)
            if cmp.get("status") == "ahead":
                self._history[name] = (head, cached[1] + list(cmp["commit_shas"]))
                return self._history[name][1]
        shas = self.github.call(
            f"{name} history",
            lambda: [c["sha"] for c in self._listing(name, "/commits", "sha", {"sha": head})],
        )
        shas.reverse()
        self._history[name] = (head, shas)
        return shas

    def _new_main_commits(self, name: str, old: str | None, head: str) -> list[str]:
        """Commits to index when the default branch moved from ``old`` to ``head`` (deterministic,
        so a resumed run can skip the ones already done)."""
        if old is not None:
            cmp = self._compare(name, old, head)
            if cmp.get("status") == "ahead":
                cached = self._history.get(name)
                if cached is not None and cached[0] == old:
                    self._history[name] = (head, cached[1] + list(cmp["commit_shas"]))
                return list(cmp["commit_shas"])
        return self._main_history(name, head)

    def _known_main(self, name: str) -> set[str]:
        cached = self._history.get(name)
        return set(cached[1]) if cached else set()

    def _pull_commit_shas(self, name: str, pull: dict[str, Any]) -> set[str]:
        number = int(pull["number"])
        head_sha = (pull.get("head") or {}).get("sha") or ""
        cache = self._pull_commits.setdefault(name, {})
        if number in cache and cache[number][0] == head_sha:
            return cache[number][1]
        shas = set(
            self.github.call(
                f"{name} PR #{number} commits",
                lambda: [c["sha"] for c in self._listing(name, f"/pulls/{number}/commits", "sha")],
            )
        )
        cache[number] = (head_sha, shas)
        return shas

    # -- pull requests and issues -------------------------------------------------------------
    def _updated_since(
        self, what: str, listing: Callable[[], Iterable[dict[str, Any]]], since: str | None
    ) -> list[dict[str, Any]]:
        """Items sorted by ``updated_at`` descending, down to ``since``; returned oldest first."""
        limit = datetime.fromisoformat(since) if since else None

        def fetch() -> list[dict[str, Any]]:
            out = []
            for raw in listing():
                if limit is not None and datetime.fromisoformat(to_utc_iso(raw.get("updated_at"))) < limit:
                    break
                out.append(raw)
            return out

        items = self.github.call(what, fetch)
        items.reverse()
        return items

    def _pulls(self, name: str, since: str | None) -> list[dict[str, Any]]:
        return self._updated_since(
            f"{name} pull requests",
            lambda: self._listing(name, "/pulls", "number", UPDATED_DESC),
            since,
        )

    # -- loading ------------------------------------------------------------------------------
    def _batches(self, items: list[T], start: int = 0) -> Iterator[tuple[int, list[T]]]:
        size = max(1, self.config.batch_size)
        for i in range(start, len(items), size):
            yield i + len(items[i : i + size]), items[i : i + size]

    def load(self, since: str | None) -> Iterator[LoadBatch]:
        cursor = GitHubCursor.parse(since)
        for name in self.config.repos:
            gates = [[scope(self.name, "repo", name)]]
            for batch in self._load_repo(name, cursor, cursor.repo(name)):
                for doc in batch.documents:
                    doc.metadata["acl"] = [list(g) for g in gates]
                yield batch

    def _load_repo(self, name: str, cursor: GitHubCursor, st: RepoCursor) -> Iterator[LoadBatch]:
        head = self._head(name)
        if st.head != head:
            pending = st.pending if st.pending and st.pending.get("head") == head else None
            pending = pending or {"head": head, "phase": "files", "done": 0}
            when = to_utc_iso((self._commit(name, head).get("commit") or {}).get("committer", {}).get("date"))
            if pending["phase"] == "files":
                files = self._changed_files(name, st.head, head)
                for done, chunk in self._batches(files, int(pending["done"])):
                    docs = [d for path, sha, _ in chunk if (d := self._file_document(name, path, sha, when))]
                    st.pending = {**pending, "done": done}
                    yield LoadBatch(docs, cursor.dump(), total=None)
                pending = {"head": head, "phase": "commits", "done": 0}
                st.pending = pending
            shas = self._new_main_commits(name, st.head, head)
            for done, sha_chunk in self._batches(shas, int(pending["done"])):
                commit_docs = [self._commit_document(name, sha) for sha in sha_chunk]
                st.pending = {**pending, "done": done}
                yield LoadBatch(commit_docs, cursor.dump(), total=None)
            st.head, st.pending = head, None
            yield LoadBatch([], cursor.dump(), total=None)

        pulls = self._pulls(name, st.pulls)
        # GitHub lists pull requests among the issues, each with its conversation's comment count:
        # read once, that list spares a request per pull request nobody commented on
        issues = self._issue_listing(name, st.issues) if self.config.include_issues else None
        talk = {int(i["number"]): i.get("comments") for i in issues or [] if "pull_request" in i}
        if pulls and self._history.get(name, ("",))[0] != head:
            self._main_history(name, head)  # to skip pull-request commits already on the default branch
        known = self._known_main(name)  # commits already indexed as part of the default branch
        for _, pull_chunk in self._batches(pulls):
            pull_docs: list[SourceDocument] = []
            for pull in pull_chunk:
                number = int(pull["number"])
                comments = self.github.call(
                    f"{name} PR #{number} review comments",
                    functools.partial(self._list, name, f"/pulls/{number}/comments", "body"),
                )
                conversation = (
                    []
                    if talk.get(number) == 0
                    else self.github.call(
                        f"{name} PR #{number} conversation",
                        functools.partial(self._list, name, f"/issues/{number}/comments", "body"),
                    )
                )
                reviews = self.github.call(
                    f"{name} PR #{number} reviews",
                    functools.partial(self._list, name, f"/pulls/{number}/reviews", "state"),
                )
                pull_docs.append(pull_to_document(name, pull, comments, conversation, reviews))
                for sha in sorted(self._pull_commit_shas(name, pull) - known):
                    pull_docs.append(self._commit_document(name, sha))
                    known.add(sha)
                st.pulls = max(st.pulls or "", to_utc_iso(pull.get("updated_at")))
            yield LoadBatch(pull_docs, cursor.dump(), total=None)

        for branch in self.config.branches:
            branch_docs: list[SourceDocument] = []
            on_main = self._known_main(name)
            for sha in self._branch_commits(name, branch, head):
                if sha in on_main:
                    continue
                # indexed again if a pull request brought it already: this version names its branch
                doc = self._commit_document(name, sha)
                doc.metadata["branch"] = branch
                branch_docs.append(doc)
            for _, branch_chunk in self._batches(branch_docs):
                yield LoadBatch(branch_chunk, cursor.dump(), total=None)

        if issues is not None:
            yield from self._load_issues(name, cursor, st, issues)

    def _issue_listing(self, name: str, since: str | None) -> list[dict[str, Any]]:
        """``/issues`` (issues and pull requests) updated since ``since``, oldest first."""
        return self._updated_since(
            f"{name} issues", lambda: self._listing(name, "/issues", "number", UPDATED_DESC), since
        )

    def _load_issues(
        self, name: str, cursor: GitHubCursor, st: RepoCursor, items: list[dict[str, Any]]
    ) -> Iterator[LoadBatch]:
        issues = [i for i in items if "pull_request" not in i]
        for _, chunk in self._batches(issues):
            docs = []
            for issue in chunk:
                comments: list[dict[str, Any]] = []
                if issue.get("comments"):
                    number = int(issue["number"])
                    comments = self.github.call(
                        f"{name} issue #{number} comments",
                        functools.partial(self._list, name, f"/issues/{number}/comments", "body"),
                    )
                docs.append(issue_to_document(name, issue, comments))
                st.issues = max(st.issues or "", to_utc_iso(issue.get("updated_at")))
            yield LoadBatch(docs, cursor.dump(), total=None)
        if not issues and items:
            st.issues = max(st.issues or "", *(to_utc_iso(i.get("updated_at")) for i in items))
            yield LoadBatch([], cursor.dump(), total=None)

    # -- deletion sync ------------------------------------------------------------------------
    def list_ids(self) -> set[str]:
        ids: set[str] = set()
        for name in self.config.repos:
            head = self._head(name)
            ids.update(doc_id(name, "file", path) for path, _, _ in self._tree_files(name, head))
            self._main_history(name, head)
            ids.update(doc_id(name, "commit", sha) for sha in self._known_main(name))
            for pull in self._pulls(name, None):
                ids.add(doc_id(name, "pull", int(pull["number"])))
                ids.update(doc_id(name, "commit", sha) for sha in self._pull_commit_shas(name, pull))
            for branch in self.config.branches:
                ids.update(doc_id(name, "commit", sha) for sha in self._branch_commits(name, branch, head))
            if self.config.include_issues:
                for issue in self._updated_since(
                    f"{name} issues",
                    functools.partial(self._listing, name, "/issues", "number", {"state": "all"}),
                    None,
                ):
                    if "pull_request" not in issue:
                        ids.add(doc_id(name, "issue", int(issue["number"])))
        return ids

    # -- permission sync: sources/github/permissions.py ------------------------------------------
    def fetch_permissions(self) -> list[tuple[str, str]]:
        """``(principal, email)`` pairs: who holds what this source's documents' gates name."""
        return GitHubPermissions(self.github).fetch_permissions()
