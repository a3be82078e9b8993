"""Links to GitHub pull requests, commits and files — and to documentation sites built from a
repository — in Jira issues, Confluence pages, files, web pages and uploads.

    github.com/<owner>/<repo>/pull/<n>            → github:<owner>/<repo>:pull:<n>       …-mentions-pull-request-url
    github.com/<owner>/<repo>/commit/<sha40>      → github:<owner>/<repo>:commit:<sha>   …-mentions-commit-url
    github.com/<owner>/<repo>/blob/<ref>/<path>   → github:<owner>/<repo>:file:<path>    …-mentions-doc-url
    <doc site prefix><page>[.html]                → file at the site's path template      …-mentions-doc-url

Edge kinds start with the mentioning source (``jira-``, ``confluence-``, ``files-``, ``web-``,
``upload-``). Only repositories
configured in a GitHub source count. Target ids are computed from the URL, so an edge to a file
or commit that is not indexed yet stays hidden until it is. A blob URL whose path no longer
exists follows the renames recorded in commits to the one current file it became. The evidence
is the URL as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.rule import ReferenceRule
from devkb.sources.base import SourceDocument
from devkb.sources.url_keys import clean_url
from devkb.store.models import Reference, SourceType

_REST = r"[^\s<>\"'`|\[\](){}]+"
_PAGE = r"[^\s<>\"'`|\[\](){}#?]*"
_SHA = re.compile(r"([0-9a-fA-F]{40})(?![0-9a-fA-F])")
_NUMBER = re.compile(r"(\d+)(?!\d)")
_PREFIX = {
    SourceType.JIRA: "jira",
    SourceType.CONFLUENCE: "confluence",
    SourceType.FILES: "files",
    SourceType.WEB: "web",
    SourceType.UPLOAD: "upload",
    SourceType.MEMORY: "memory",
}
_MAX_RENAME_HOPS = 50


# Each link pattern comes with a *hint*: a literal part of every link it matches (a GitHub host,
# the fixed part of a documentation site's prefix), compiled with the same IGNORECASE. A text the
# hint is not found in cannot hold a link, so the full pattern — which tries its look-behind and
# optional scheme at every position — only scans the few texts that may (a plain search is ~6x
# faster). Same matches, same references.


def _host_alternatives(ctx: LinkContext) -> str:
    hosts = sorted({"github.com", *ctx.github_hosts}, key=len, reverse=True)
    return "|".join(re.escape(h) for h in hosts)


def _github_hint(ctx: LinkContext) -> re.Pattern[str]:
    return re.compile(_host_alternatives(ctx), re.IGNORECASE)


def _github_pattern(ctx: LinkContext) -> re.Pattern[str]:
    alternatives = _host_alternatives(ctx)
    return re.compile(
        rf"(?<![\w.])(?:https?://)?(?:www\.)?(?:{alternatives})/([\w.-]+)/([\w.-]+)/(pull|commit|blob)/({_REST})",
        re.IGNORECASE,
    )


def _site_patterns(ctx: LinkContext) -> list[tuple[re.Pattern[str], re.Pattern[str] | None, str, str]]:
    """``(pattern, hint, repo, template)`` per documentation site (hint: None when the prefix has
    no fixed part)."""
    out = []
    for prefix, repo, template in ctx.doc_sites:
        bare = re.sub(r"^https?://(?:www\.)?", "", prefix.strip(), flags=re.IGNORECASE)
        parts = re.split(r"(\{[^}]*\}|\*)", bare)
        body = "".join(r"[^/\s]+" if p.startswith("{") or p == "*" else re.escape(p) for p in parts if p)
        pattern = re.compile(rf"(?<![\w.])(?:https?://)?(?:www\.)?{body}({_PAGE})", re.IGNORECASE)
        fixed = max((p for p in parts if p and not (p.startswith("{") or p == "*")), key=len, default="")
        hint = re.compile(re.escape(fixed), re.IGNORECASE) if fixed else None
        out.append((pattern, hint, repo, template))
    return out


def _repos(ctx: LinkContext) -> dict[str, str]:
    return {r.lower(): r for r in ctx.github_repos}


def follow_renames(ctx: LinkContext, repo: str, path: str) -> str:
    """The current path of a file that was renamed since ``path`` was linked (when unambiguous)."""
    files = ctx.repo_files.get(repo)
    renames = ctx.repo_renames.get(repo)
    if not files or path in files or not renames:
        return path
    seen, frontier, found = {path}, [path], set()
    for _ in range(_MAX_RENAME_HOPS):
        nxt = []
        for p in frontier:
            for q in renames.get(p, ()):
                if q not in seen:
                    seen.add(q)
                    nxt.append(q)
                    if q in files:
                        found.add(q)
        if not nxt:
            break
        frontier = nxt
    return found.pop() if len(found) == 1 else path


def _blob_path(ctx: LinkContext, repo: str, rest: str) -> str | None:
    rest = clean_url(rest.split("#", 1)[0].split("?", 1)[0])
    parts = [unquote(p) for p in rest.split("/") if p]
    if len(parts) < 2:
        return None
    files = ctx.repo_files.get(repo) or set()
    for cut in range(1, len(parts)):  # a branch name may itself contain slashes
        candidate = "/".join(parts[cut:])
        if candidate in files:
            return candidate
    return follow_renames(ctx, repo, "/".join(parts[1:]))


def github_links(doc: SourceDocument, ctx: LinkContext) -> Iterable[Reference]:
    prefix = _PREFIX.get(doc.type)
    if prefix is None or not ctx.github_repos:
        return []
    repos = ctx.cached("github_urls.repos", lambda: _repos(ctx))
    pattern = ctx.cached("github_urls.pattern", lambda: _github_pattern(ctx))
    hint = ctx.cached("github_urls.hint", lambda: _github_hint(ctx))
    sites = ctx.cached("github_urls.sites", lambda: _site_patterns(ctx))
    out: dict[tuple[str, str], Reference] = {}

    def add(target: str, kind: str, evidence: str) -> None:
        if target != doc.id:
            out.setdefault(
                (target, kind), Reference(doc.id, target, f"{prefix}-{kind}", clean_url(evidence), doc.id)
            )

    for text in (doc.reference_text or {"content": doc.content}).values():
        if not text:
            continue
        for m in pattern.finditer(text) if hint.search(text) else ():
            repo = repos.get(f"{m.group(1)}/{m.group(2)}".lower())
            if repo is None:
                continue
            what, rest = m.group(3).lower(), m.group(4)
            if what == "pull" and (n := _NUMBER.match(rest)):
                add(f"github:{repo}:pull:{int(n.group(1))}", "mentions-pull-request-url", m.group(0))
            elif what == "commit" and (s := _SHA.match(rest)):
                add(f"github:{repo}:commit:{s.group(1).lower()}", "mentions-commit-url", m.group(0))
            elif what == "blob" and (path := _blob_path(ctx, repo, rest)):
                add(f"github:{repo}:file:{path}", "mentions-doc-url", m.group(0))
        for site, site_hint, site_repo, template in sites:
            if site_hint is not None and not site_hint.search(text):
                continue
            repo = repos.get(site_repo.lower(), site_repo)
            for m in site.finditer(text):
                page = clean_url(m.group(1)).rstrip("/")
                page = re.sub(r"\.html?$", "", page, flags=re.IGNORECASE)
                if page:
                    add(
                        f"github:{repo}:file:{unquote(template.replace('{page}', page))}",
                        "mentions-doc-url",
                        m.group(0),
                    )
    return list(out.values())


RULE = ReferenceRule(
    name="github-links",
    applies_to=frozenset(_PREFIX),
    # repo_files and repo_renames only refine blob links; see backfill.py for why they are left out
    uses=frozenset({"github_repos", "github_hosts", "doc_sites"}),
    fn=github_links,
)
