"""GitHub REST API v3 emulator, shaped by what PyGithub 2.x requests and reads.

Routes (``{o}/{r}`` is any repository of the dataset, case-insensitive)::

    GET /rate_limit                                   not counted against the limit
    GET /repos/{o}/{r}                                GET /repositories/{id}
    GET /repos/{o}/{r}/branches[/{branch}]            GET /repos/{o}/{r}/git/ref[s]/heads/{branch}
    GET /repos/{o}/{r}/git/trees/{sha}?recursive=1    sha = tree, commit or branch
    GET /repos/{o}/{r}/git/blobs/{sha}                GET /repos/{o}/{r}/git/commits/{sha}
    GET /repos/{o}/{r}/contents[/{path}]?ref=         file (base64) or directory listing
    GET /repos/{o}/{r}/readme?ref=                    GET /raw/{o}/{r}/{ref}/{path}  (download_url)
    GET /repos/{o}/{r}/commits                        sha, path, since, until, author, per_page, page
    GET /repos/{o}/{r}/commits/{ref}                  files paginated (per_page <= 300)
    GET /repos/{o}/{r}/compare/{base}...{head}        commits paginated (per_page <= 1000)
    GET /repos/{o}/{r}/pulls                          state (open), sort (created), direction, base, head
    GET /repos/{o}/{r}/pulls/{n}[/comments|/commits]
    GET /repos/{o}/{r}/issues[/{n}[/comments]]        issues from issues.jsonl only (none recorded)
    GET /repos/{o}/{r}/collaborators                  affiliation; the dataset's permissions.json
    GET /users/{login}                                a collaborator (name, public e-mail)

Lists paginate with ``page``/``per_page`` (30 by default, at most 100) and a ``Link`` header
(``next``/``last``/``first``/``prev``, absolute URLs on the emulator) — the way PyGithub's
``PaginatedList`` walks them. Every response carries ``X-RateLimit-Limit/Remaining/Reset/Used``;
when the limit is used up (really, or via ``FaultSwitches.exhaust_github_rate_limit``) requests
get ``403 {"message": "API rate limit exceeded ..."}`` until the reset time, which PyGithub's
default retry waits out. API URLs in the data (``https://api.github.com``) are rewritten to the
emulator; ``html_url``, ``blob_url`` and ``raw_url`` keep pointing at github.com. Trees and
contents exist for HEAD of the default branch and for commits created by the dataset; other refs
answer 404. List entries of commits omit ``files`` and ``stats``, as GitHub does.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from devkb_devtools.emulators.app import EmulatorApp
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import FaultSwitches
from devkb_devtools.emulators.git_objects import Snapshot
from devkb_devtools.emulators.git_repository import GitRepository
from devkb_devtools.emulators.routing import HttpError, Request, Response, Router, json_response
from devkb_devtools.emulators.timestamps import parse_timestamp
from devkb_devtools.emulators.url_rewriting import UrlRewriter
from devkb_devtools.emulators.vendor_check import OCTOKIT
from devkb_devtools.emulators.vendor_shapes import complete, shapes_for

REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
DOCS = "https://docs.github.com/rest"
RAW_ORIGIN = "https://raw.githubusercontent.com"
PRIMARY_LIMIT_MESSAGE = (
    "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher "
    "rate limit. Check out the documentation for more details.)"
)
LIST_OMITS = ("files", "stats")


class GitHubEmulator(EmulatorApp):
    """Serves the dataset's repositories like api.github.com."""

    service = "github"

    def __init__(
        self,
        dataset: Dataset,
        faults: FaultSwitches | None = None,
        *,
        default_per_page: int = 30,
        max_per_page: int = 100,
        enterprise: bool = False,
    ) -> None:
        # GitHub Enterprise Server serves the REST API under /api/v3 of its own host
        self.api_prefix = "/api/v3" if enterprise else ""
        self.default_per_page = default_per_page
        self.max_per_page = max_per_page
        super().__init__(dataset, faults)

    def vendor_description(self) -> str | None:
        """GitHub's OpenAPI description (npm ``@octokit/openapi``): github.com, or GHES 3.19."""
        return "github-enterprise" if self.api_prefix else "github"

    def register_routes(self, router: Router) -> None:
        router.add("GET", r"/rate_limit", self.rate_limit)
        router.add("GET", r"/repositories/(?P<repo_id>\d+)", self.get_repo_by_id)
        router.add("GET", REPO, self.get_repo)
        router.add("GET", rf"{REPO}/branches", self.list_branches)
        router.add("GET", rf"{REPO}/branches/(?P<branch>.+)", self.get_branch)
        router.add("GET", rf"{REPO}/git/refs?/heads/(?P<branch>.+)", self.get_ref)
        router.add("GET", rf"{REPO}/git/trees/(?P<sha>.+)", self.get_tree)
        router.add("GET", rf"{REPO}/git/blobs/(?P<sha>[0-9a-f]+)", self.get_blob)
        router.add("GET", rf"{REPO}/git/commits/(?P<sha>[0-9a-f]+)", self.get_git_commit)
        router.add("GET", rf"{REPO}/contents/?(?P<path>.*)", self.get_contents)
        router.add("GET", rf"{REPO}/readme", self.get_readme)
        router.add("GET", r"/raw/(?P<owner>[^/]+)/(?P<name>[^/]+)/(?P<ref>[^/]+)/(?P<path>.+)", self.get_raw)
        router.add("GET", rf"{REPO}/commits", self.list_commits)
        router.add("GET", rf"{REPO}/commits/(?P<ref>[^/]+)", self.get_commit)
        router.add("GET", rf"{REPO}/compare/(?P<spec>.+)", self.compare)
        router.add("GET", rf"{REPO}/pulls", self.list_pulls)
        router.add("GET", rf"{REPO}/pulls/(?P<number>\d+)", self.get_pull)
        router.add("GET", rf"{REPO}/pulls/(?P<number>\d+)/comments", self.pull_comments)
        router.add("GET", rf"{REPO}/pulls/(?P<number>\d+)/reviews", self.pull_reviews)
        router.add("GET", rf"{REPO}/pulls/(?P<number>\d+)/commits", self.pull_commits)
        router.add("GET", rf"{REPO}/issues", self.list_issues)
        router.add("GET", rf"{REPO}/issues/(?P<number>\d+)", self.get_issue)
        router.add("GET", rf"{REPO}/issues/(?P<number>\d+)/comments", self.issue_comments)
        router.add("GET", rf"{REPO}/collaborators", self.list_collaborators)
        router.add("GET", r"/users/(?P<login>[^/]+)", self.get_user)

    # ------------------------------------------------------------------ rate limit and errors

    def handle(self, request: Request) -> Response:
        """Apply the primary rate limit, route, and stamp the rate-limit headers."""
        if self.api_prefix:
            if not request.path.startswith(self.api_prefix + "/") and not request.path.startswith("/raw/"):
                return self.error_response(request, 404, "Not Found")
            if request.path.startswith(self.api_prefix + "/"):
                request = dataclasses.replace(
                    request,
                    path=request.path[len(self.api_prefix) :],
                    base_url=request.base_url + self.api_prefix,
                )
        counted = request.path != "/rate_limit"
        allowed, remaining, reset = self.faults.github_rate.consume(counted)
        if allowed or not counted:
            response = self._full_shape(request, super().handle(request))
        else:
            response = self.error_response(request, 403, PRIMARY_LIMIT_MESSAGE)
        self._stamp(response, remaining, reset)
        return response

    def _shapes_path(self) -> str:
        return str(OCTOKIT / ("ghes-3.19.deref.json" if self.api_prefix else "api.github.com.deref.json"))

    def warm_up(self) -> None:
        """Read GitHub's published description now (about a second of parsing) rather than inside
        the first request, which a benchmark would otherwise count as the pipeline's time."""
        shapes_for(self._shapes_path())

    def _full_shape(self, request: Request, response: Response) -> Response:
        """The recorded body completed to GitHub's published response shape (``vendor_shapes``);
        the bodies of ``_json`` are completed before they are encoded, once."""
        if response.shaped or response.status != 200 or "json" not in (response.header("Content-Type") or ""):
            return response
        schema = self._schema(request)
        if schema is None:
            return response
        body = complete(response.json_value(), schema)
        response.body = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return response

    def _schema(self, request: Request) -> dict[str, Any] | None:
        """GitHub's published schema of this request's 200 response, if it describes one."""
        shapes = shapes_for(self._shapes_path())
        return shapes.schema(request.method, request.path, 200) if shapes is not None else None

    def fault_response(
        self, request: Request, status: int, message: str | None, retry_after: float | None
    ) -> Response:
        response = super().fault_response(request, status, message, retry_after)
        _, remaining, reset = self.faults.github_rate.consume(count=False)
        self._stamp(response, remaining, reset)
        return response

    def error_response(self, request: Request, status: int, message: str) -> Response:
        return json_response({"message": message, "documentation_url": DOCS, "status": str(status)}, status)

    def _stamp(self, response: Response, remaining: int, reset: int) -> None:
        limit = self.faults.github_rate.limit
        response.headers.extend(
            [
                ("X-RateLimit-Limit", str(limit)),
                ("X-RateLimit-Remaining", str(remaining)),
                ("X-RateLimit-Reset", str(reset)),
                ("X-RateLimit-Used", str(limit - remaining)),
                ("X-RateLimit-Resource", "core"),
                ("X-GitHub-Media-Type", "github.v3; format=json"),
            ]
        )

    def rate_limit(self, request: Request) -> Response:
        """Current rate-limit status."""
        _, remaining, reset = self.faults.github_rate.consume(count=False)
        limit = self.faults.github_rate.limit
        core = {
            "limit": limit,
            "remaining": remaining,
            "reset": reset,
            "used": limit - remaining,
            "resource": "core",
        }
        search = {"limit": 30, "remaining": 30, "reset": reset, "used": 0, "resource": "search"}
        graphql = {**core, "used": 0, "remaining": limit, "resource": "graphql"}
        return json_response(
            {"resources": {"core": core, "search": search, "graphql": graphql}, "rate": core}
        )

    # ------------------------------------------------------------------ repository, refs, trees, blobs

    def get_repo(self, request: Request, owner: str, name: str) -> Response:
        """The repository."""
        return self._json(request, self._repo(owner, name).repo)

    def get_repo_by_id(self, request: Request, repo_id: str) -> Response:
        """The repository by numeric id."""
        for repo in self.dataset.repos():
            if str(repo.repo.get("id")) == repo_id:
                return self._json(request, repo.repo)
        raise HttpError(404, "Not Found")

    def list_branches(self, request: Request, owner: str, name: str) -> Response:
        """Branches: the default branch and the head branch of every open pull request (as on GitHub
        until a merged branch is deleted)."""
        repo = self._repo(owner, name)
        branches = [
            {
                "name": branch,
                "commit": {"sha": sha, "url": f"{repo.api_url}/commits/{sha}"},
                "protected": False,
            }
            for branch, sha in sorted(_branches(repo).items())
        ]
        return self._paginated(request, branches)

    def get_branch(self, request: Request, owner: str, name: str, branch: str) -> Response:
        """One branch with its head commit."""
        repo = self._repo(owner, name)
        sha = _branches(repo).get(branch)
        if sha is None:
            raise HttpError(404, "Branch not found")
        body = {
            "name": branch,
            "commit": _list_shape(repo.commit(sha) or {"sha": sha}),
            "_links": {"self": f"{repo.api_url}/branches/{branch}", "html": f"{repo.html_url}/tree/{branch}"},
            "protected": False,
            "protection": {
                "enabled": False,
                "required_status_checks": {"enforcement_level": "off", "contexts": [], "checks": []},
            },
            "protection_url": f"{repo.api_url}/branches/{branch}/protection",
        }
        return self._json(request, body)

    def get_ref(self, request: Request, owner: str, name: str, branch: str) -> Response:
        """``refs/heads/{branch}``."""
        repo = self._repo(owner, name)
        sha = repo.branches().get(branch)
        if sha is None:
            raise HttpError(404, "Not Found")
        body = {
            "ref": f"refs/heads/{branch}",
            "node_id": "",
            "url": f"{repo.api_url}/git/refs/heads/{branch}",
            "object": {"sha": sha, "type": "commit", "url": f"{repo.api_url}/git/commits/{sha}"},
        }
        return self._json(request, body)

    def get_tree(self, request: Request, owner: str, name: str, sha: str) -> Response:
        """A tree by tree sha, commit sha or branch; ``recursive`` lists every level."""
        repo = self._repo(owner, name)
        found = repo.tree(sha)
        if found is None:
            raise HttpError(404, "Not Found")
        snapshot, directory, tree_sha = found
        recursive = (request.param("recursive") or "").lower() not in ("", "0", "false")
        entries = []
        for entry in snapshot.entries(directory, recursive=recursive):
            kind = "trees" if entry["type"] == "tree" else "blobs"
            entries.append({**entry, "url": f"{repo.api_url}/git/{kind}/{entry['sha']}"})
        return self._json(
            request,
            {
                "sha": tree_sha,
                "url": f"{repo.api_url}/git/trees/{tree_sha}",
                "tree": entries,
                "truncated": False,
            },
        )

    def get_blob(self, request: Request, owner: str, name: str, sha: str) -> Response:
        """A blob, base64-encoded."""
        repo = self._repo(owner, name)
        data = repo.blob(sha)
        if data is None:
            raise HttpError(404, "Not Found")
        body = {
            "sha": sha,
            "node_id": "",
            "size": len(data),
            "url": f"{repo.api_url}/git/blobs/{sha}",
            "content": _base64_lines(data),
            "encoding": "base64",
        }
        return self._json(request, body)

    def get_git_commit(self, request: Request, owner: str, name: str, sha: str) -> Response:
        """The git commit object of a commit."""
        repo = self._repo(owner, name)
        commit = self._commit_or_422(repo, sha)
        body = {
            "sha": commit["sha"],
            "node_id": "",
            "url": f"{repo.api_url}/git/commits/{commit['sha']}",
            "html_url": commit.get("html_url"),
            **{
                k: commit["commit"][k]
                for k in ("author", "committer", "message", "tree")
                if k in commit["commit"]
            },
            "parents": commit["parents"],
            "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None},
        }
        return self._json(request, body)

    # ------------------------------------------------------------------ contents

    def get_contents(self, request: Request, owner: str, name: str, path: str) -> Response:
        """A file (base64 content) or a directory listing at ``ref``."""
        repo = self._repo(owner, name)
        ref = request.param("ref") or repo.default_branch
        snapshot = self._snapshot(repo, ref)
        path = path.strip("/")
        if path in snapshot.files:
            return self._json(request, self._file_json(repo, snapshot, path, ref, with_content=True))
        if path == "" or path in snapshot.dirs:
            listing = [
                self._file_json(repo, snapshot, child, ref, with_content=False)
                for child in snapshot.children(path)
            ]
            return self._json(request, listing)
        raise HttpError(404, "Not Found")

    def get_readme(self, request: Request, owner: str, name: str) -> Response:
        """The README of the root directory."""
        repo = self._repo(owner, name)
        ref = request.param("ref") or repo.default_branch
        snapshot = self._snapshot(repo, ref)
        readme = next(
            (p for p in snapshot.children("") if p.lower().startswith("readme") and p in snapshot.files), None
        )
        if readme is None:
            raise HttpError(404, "Not Found")
        return self._json(request, self._file_json(repo, snapshot, readme, ref, with_content=True))

    def get_raw(self, request: Request, owner: str, name: str, ref: str, path: str) -> Response:
        """Raw file bytes (the ``download_url`` of a file)."""
        repo = self.dataset.find_repo(owner, name)
        sha = repo.resolve(ref) if repo else None
        snapshot = repo.snapshot(sha) if repo and sha else None
        data = repo.blob(snapshot.files[path].sha) if repo and snapshot and path in snapshot.files else None
        if data is None:
            return Response(404, b"404: Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return Response(200, data, [("Content-Type", "text/plain; charset=utf-8")])

    def _file_json(
        self, repo: GitRepository, snapshot: Snapshot, path: str, ref: str, *, with_content: bool
    ) -> dict[str, Any]:
        quoted = quote(path)
        is_dir = path in snapshot.dirs
        sha = snapshot.dirs[path] if is_dir else snapshot.files[path].sha
        url = f"{repo.api_url}/contents/{quoted}?ref={quote(ref, safe='')}"
        git_url = f"{repo.api_url}/git/{'trees' if is_dir else 'blobs'}/{sha}"
        html_url = f"{repo.html_url}/{'tree' if is_dir else 'blob'}/{ref}/{quoted}"
        body: dict[str, Any] = {
            "type": "dir" if is_dir else "file",
            "size": 0 if is_dir else snapshot.files[path].size,
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": sha,
            "url": url,
            "git_url": git_url,
            "html_url": html_url,
            "download_url": None if is_dir else f"{RAW_ORIGIN}/{repo.full_name}/{ref}/{quoted}",
            "_links": {"self": url, "git": git_url, "html": html_url},
        }
        if with_content and not is_dir:
            data = repo.blob(sha)
            if data is None:
                raise HttpError(404, f"The content of {path} is not in the dataset")
            body.update(content=_base64_lines(data), encoding="base64")
        return body

    # ------------------------------------------------------------------ commits and compare

    def list_commits(self, request: Request, owner: str, name: str) -> Response:
        """Commits reachable from ``sha`` (default branch), newest first, with filters."""
        repo = self._repo(owner, name)
        ref = request.param("sha") or repo.default_branch
        head = repo.resolve(ref)
        if head is None:
            raise HttpError(404, f"No commit found for SHA: {ref}")
        since, until = _time_param(request, "since"), _time_param(request, "until")
        path = (request.param("path") or "").strip("/")
        author = (request.param("author") or "").lower()
        commits = []
        for commit in repo.log(head):
            when = parse_timestamp(commit["commit"]["committer"]["date"])
            if (since and when < since) or (until and when > until):
                continue
            if path and not _touches(commit, path):
                continue
            if author and author not in {
                str(commit["commit"]["author"].get(k, "")).lower() for k in ("name", "email")
            } | {str((commit.get("author") or {}).get("login", "")).lower()}:
                continue
            commits.append(commit)
        return self._paginated(request, commits, render=_list_shape)

    def get_commit(self, request: Request, owner: str, name: str, ref: str) -> Response:
        """One commit; its ``files`` are paginated (300 per page at most)."""
        repo = self._repo(owner, name)
        commit = self._commit_or_422(repo, ref)
        files = list(commit.get("files") or [])
        window, links = self._page(request, files, default=300, maximum=300)
        return self._json(request, {**commit, "files": window}, links)

    def compare(self, request: Request, owner: str, name: str, spec: str) -> Response:
        """Compare two refs: ``{base}...{head}`` (``..`` is accepted too)."""
        repo = self._repo(owner, name)
        separator = "..." if "..." in spec else ".."
        if separator not in spec:
            raise HttpError(404, "Not Found")
        base_ref, head_ref = spec.split(separator, 1)
        base, head = repo.resolve(base_ref), repo.resolve(head_ref)
        if base is None or head is None:
            raise HttpError(404, f"No common ancestor between {base_ref} and {head_ref}.")
        result = repo.compare(base, head)
        window, links = self._page(request, result.commits, default=250, maximum=1000)
        status = (
            "identical"
            if not result.ahead_by and not result.behind_by
            else "ahead"
            if not result.behind_by
            else "behind"
            if not result.ahead_by
            else "diverged"
        )
        body = {
            "url": f"{repo.api_url}/compare/{base_ref}...{head_ref}",
            "html_url": f"{repo.html_url}/compare/{base_ref}...{head_ref}",
            "permalink_url": f"{repo.html_url}/compare/{base}...{head}",
            "diff_url": f"{repo.html_url}/compare/{base_ref}...{head_ref}.diff",
            "patch_url": f"{repo.html_url}/compare/{base_ref}...{head_ref}.patch",
            "base_commit": _list_shape(self._commit_or_422(repo, base)),
            "merge_base_commit": _list_shape(result.merge_base) if result.merge_base else None,
            "status": status,
            "ahead_by": result.ahead_by,
            "behind_by": result.behind_by,
            "total_commits": result.ahead_by,
            "commits": [_list_shape(c) for c in window],
            "files": result.files[:300],
        }
        return self._json(request, body, links)

    # ------------------------------------------------------------------ pulls and issues

    def list_pulls(self, request: Request, owner: str, name: str) -> Response:
        """Pull requests filtered by ``state`` (default open) and sorted like GitHub."""
        repo = self._repo(owner, name)
        state = request.param("state", "open") or "open"
        if state not in ("open", "closed", "all"):
            raise HttpError(422, "Validation Failed: state must be open, closed or all")
        pulls = [p for p in repo.pulls() if state == "all" or p.get("state") == state]
        if base := request.param("base"):
            pulls = [p for p in pulls if (p.get("base") or {}).get("ref") == base]
        if head := request.param("head"):
            pulls = [
                p
                for p in pulls
                if head in ((p.get("head") or {}).get("label"), (p.get("head") or {}).get("ref"))
            ]
        return self._paginated(request, _sorted_by_time(request, pulls), render=_public)

    def get_pull(self, request: Request, owner: str, name: str, number: str) -> Response:
        """One pull request."""
        return self._json(request, _public(self._pull_or_404(self._repo(owner, name), number)))

    def pull_comments(self, request: Request, owner: str, name: str, number: str) -> Response:
        """Inline review comments of a pull request (the record's ``_review_comments``)."""
        pull = self._pull_or_404(self._repo(owner, name), number)
        return self._paginated(request, list(pull.get("_review_comments") or []))

    def pull_reviews(self, request: Request, owner: str, name: str, number: str) -> Response:
        """Reviews (approve / request changes / comment, with their summary) — ``_reviews``."""
        pull = self._pull_or_404(self._repo(owner, name), number)
        return self._paginated(request, list(pull.get("_reviews") or []))

    def pull_commits(self, request: Request, owner: str, name: str, number: str) -> Response:
        """Commits of a pull request: reachable from head, not from base; oldest first."""
        repo = self._repo(owner, name)
        pull = self._pull_or_404(repo, number)
        head, base = (pull.get("head") or {}).get("sha"), (pull.get("base") or {}).get("sha")
        commits = repo.ordered(repo.reachable_only_from(head, base)) if head and base else []
        commits.reverse()
        return self._paginated(request, commits, render=_list_shape)

    def list_issues(self, request: Request, owner: str, name: str) -> Response:
        """Issues from the dataset's ``issues.jsonl`` and pull requests in their issue view, as
        GitHub lists them ("GitHub's REST API considers every pull request an issue": each
        carries a ``pull_request`` key and its conversation's ``comments`` count)."""
        repo = self._repo(owner, name)
        state = request.param("state", "open") or "open"
        records = [_public(i) for i in repo.issues()] + [_pull_as_issue(repo, p) for p in repo.pulls()]
        issues = [i for i in records if state == "all" or i.get("state") == state]
        if since := _time_param(request, "since"):
            issues = [i for i in issues if parse_timestamp(i["updated_at"]) >= since]
        return self._paginated(request, _sorted_by_time(request, issues))

    def get_issue(self, request: Request, owner: str, name: str, number: str) -> Response:
        """One issue; a pull request number answers with its issue view, as on GitHub."""
        repo = self._repo(owner, name)
        issue = repo.issue(int(number))
        if issue is not None:
            return self._json(request, _public(issue))
        pull = self._pull_or_404(repo, number)
        body = _pull_as_issue(repo, pull)
        return self._json(request, body)

    def issue_comments(self, request: Request, owner: str, name: str, number: str) -> Response:
        """Comments of an issue, or the conversation of a pull request (``_comments``)."""
        repo = self._repo(owner, name)
        record = repo.issue(int(number)) or self._pull_or_404(repo, number)
        return self._paginated(request, list(record.get("_comments") or []))

    # ------------------------------------------------------------------ permissions

    def list_collaborators(self, request: Request, owner: str, name: str) -> Response:
        """The repository's collaborators (``permissions.json``), paged like every list."""
        repo = self._repo(owner, name)
        affiliation = request.param("affiliation") or "all"
        if affiliation not in ("outside", "direct", "all"):
            raise HttpError(422, f"Validation Failed: affiliation '{affiliation}' is not supported")
        people = self.dataset.repo_permissions(repo.full_name).collaborators
        return self._paginated(request, people, lambda c: self._collaborator(request, c))

    def get_user(self, request: Request, login: str) -> Response:
        """A user the permission records know (collaborators of any repository)."""
        for repo in self.dataset.repos():
            found = self.dataset.repo_permissions(repo.full_name).user(login)
            if found is not None:
                return self._json(
                    request,
                    {
                        **self._user_ref(request, found),
                        "name": found.get("name"),
                        "email": found.get("email"),
                        "company": None,
                        "blog": None,
                        "location": None,
                        "hireable": None,
                        "bio": None,
                        "public_repos": 0,
                        "public_gists": 0,
                        "followers": 0,
                        "following": 0,
                        "created_at": "2026-01-05T09:00:00Z",
                        "updated_at": "2026-01-05T09:00:00Z",
                    },
                )
        raise HttpError(404, "Not Found")

    @staticmethod
    def _user_ref(request: Request, person: dict[str, Any]) -> dict[str, Any]:
        login = str(person["login"])
        return {
            "login": login,
            "id": int(person.get("id") or 7_000_000 + int.from_bytes(login.encode()[:3], "big")),
            "type": "User",
            "site_admin": False,
            "url": f"{request.base_url}/users/{login}",
            "html_url": f"https://github.com/{login}",
        }

    def _collaborator(self, request: Request, person: dict[str, Any]) -> dict[str, Any]:
        permission = str(person.get("permission") or "write")
        levels = ["pull", "triage", "push", "maintain", "admin"]
        rank = {"read": 0, "triage": 1, "write": 2, "maintain": 3, "admin": 4}.get(permission, 2)
        return {
            **self._user_ref(request, person),
            "permissions": {level: i <= rank for i, level in enumerate(levels)},
            "role_name": permission,
        }

    # ------------------------------------------------------------------ helpers

    def _repo(self, owner: str, name: str) -> GitRepository:
        repo = self.dataset.find_repo(owner, name)
        if repo is None:
            raise HttpError(404, "Not Found")
        return repo

    def _commit_or_422(self, repo: GitRepository, ref: str) -> dict[str, Any]:
        sha = repo.resolve(ref)
        commit = repo.commit(sha) if sha else None
        if commit is None:
            raise HttpError(422, f"No commit found for SHA: {ref}")
        return commit

    def _pull_or_404(self, repo: GitRepository, number: str) -> dict[str, Any]:
        pull = repo.pull(int(number))
        if pull is None:
            raise HttpError(404, "Not Found")
        return pull

    def _snapshot(self, repo: GitRepository, ref: str) -> Snapshot:
        sha = repo.resolve(ref)
        if sha is None:
            raise HttpError(404, f"No commit found for the ref {ref}")
        snapshot = repo.snapshot(sha)
        if snapshot is None:
            raise HttpError(
                404, f"No tree recorded for {sha}: the emulator serves HEAD and commits it created"
            )
        return snapshot

    def _page(
        self, request: Request, items: list[Any], *, default: int | None = None, maximum: int | None = None
    ) -> tuple[list[Any], str | None]:
        """The requested page of ``items`` and its ``Link`` header (None for a single page)."""
        per_page = min(
            max(request.int_param("per_page", default or self.default_per_page), 1),
            maximum or self.max_per_page,
        )
        page = max(request.int_param("page", 1), 1)
        last = max(math.ceil(len(items) / per_page), 1)
        window = items[(page - 1) * per_page : page * per_page]
        if last == 1:
            return window, None

        def link(target: int, rel: str) -> str:
            params = {k: v for k, v in request.query.items() if k not in ("page", "per_page")}
            params.update(per_page=[str(per_page)], page=[str(target)])
            return f'<{request.url_with(request.path, params)}>; rel="{rel}"'

        parts = []
        if page > 1:
            parts += [link(page - 1, "prev"), link(1, "first")]
        if page < last:
            parts += [link(page + 1, "next"), link(last, "last")]
        return window, ", ".join(parts) or None

    def _paginated(
        self, request: Request, items: list[Any], render: Callable[[Any], Any] = lambda item: item
    ) -> Response:
        window, links = self._page(request, items)
        return self._json(request, [render(item) for item in window], links)

    def _json(self, request: Request, data: Any, link: str | None = None) -> Response:
        origins = {repo.api_origin: request.base_url for repo in self.dataset.repos()}
        origins[RAW_ORIGIN] = f"{request.base_url}/raw"
        headers = [("Link", link)] if link else []
        body = UrlRewriter(origins).rewrite(data)
        schema = self._schema(request)
        response = json_response(body if schema is None else complete(body, schema), headers=headers)
        response.shaped = True
        return response


def _list_shape(commit: dict[str, Any]) -> dict[str, Any]:
    """A commit as list endpoints return it (no ``files``/``stats``)."""
    return {k: v for k, v in commit.items() if k not in LIST_OMITS}


def _branches(repo: GitRepository) -> dict[str, str]:
    found = {
        str(p["head"]["ref"]): str(p["head"]["sha"])
        for p in repo.pulls()
        if p.get("state") == "open" and (p.get("head") or {}).get("ref") and (p.get("head") or {}).get("sha")
    }
    return {**found, **repo.branches()}


def _pull_as_issue(repo: GitRepository, pull: dict[str, Any]) -> dict[str, Any]:
    """A pull request as ``/issues`` shows it: the issue fields, ``comments`` counting its
    conversation (``_comments``; review comments are not counted, as on GitHub) and a
    ``pull_request`` key with its links."""
    return {
        "url": f"{repo.api_url}/issues/{pull['number']}",
        "html_url": pull.get("html_url"),
        "number": pull["number"],
        "state": pull.get("state"),
        "title": pull.get("title"),
        "body": pull.get("body"),
        "user": pull.get("user"),
        "labels": [],
        "comments": len(pull.get("_comments") or []),
        "created_at": pull.get("created_at"),
        "updated_at": pull.get("updated_at"),
        "closed_at": pull.get("closed_at"),
        "pull_request": {k: pull.get(k) for k in ("url", "html_url", "diff_url", "patch_url", "merged_at")},
    }


def _public(record: dict[str, Any]) -> dict[str, Any]:
    """Drop non-GitHub bookkeeping keys (``_provenance``)."""
    return {k: v for k, v in record.items() if not k.startswith("_") or k == "_links"}


def _touches(commit: dict[str, Any], path: str) -> bool:
    for change in commit.get("files") or []:
        for name in (change.get("filename"), change.get("previous_filename")):
            if name and (name == path or name.startswith(path + "/")):
                return True
    return False


def _time_param(request: Request, name: str) -> datetime | None:
    raw = request.param(name)
    if not raw:
        return None
    try:
        return parse_timestamp(raw)
    except ValueError as e:
        raise HttpError(422, f"Invalid value for parameter '{name}': {raw}") from e


def _sorted_by_time(request: Request, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """GitHub's ``sort`` (created | updated | popularity | long-running) and ``direction``."""
    sort = request.param("sort", "created") or "created"
    if sort not in ("created", "updated", "popularity", "long-running", "comments"):
        raise HttpError(422, f"Validation Failed: sort '{sort}' is not supported")
    direction = request.param("direction") or ("desc" if sort == "created" else "asc")
    field = "updated_at" if sort == "updated" else "created_at"
    ordered = sorted(
        records,
        key=lambda r: (
            parse_timestamp(r[field]) if r.get(field) else datetime.min.replace(tzinfo=UTC),
            r["number"],
        ),
    )
    return ordered[::-1] if direction == "desc" else ordered


def _base64_lines(data: bytes) -> str:
    """Base64 with a newline every 60 characters, as GitHub sends file content."""
    encoded = base64.b64encode(data).decode("ascii")
    return "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))
