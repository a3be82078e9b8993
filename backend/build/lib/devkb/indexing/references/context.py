"""What the extractor knows about the workspace: learned from the sources, never hard-coded."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LinkContext:
    # Jira project keys learned from Jira (``FLUID``, ``PAY``); keys of other shapes are ignored.
    project_keys: set[str] = field(default_factory=set)
    # Base URLs under which ``/browse/KEY`` points at a Jira issue.
    jira_urls: set[str] = field(default_factory=set)
    # GitHub repositories (``owner/repo``) indexed, for PR/commit/file URLs.
    github_repos: set[str] = field(default_factory=set)
    # Confluence: lower-cased page title → page document id; URL key (``devkb.sources.url_keys``:
    # ``host/path`` for aliases, ``/path`` on the Confluence server itself) → page id.
    confluence_titles: dict[str, str] = field(default_factory=dict)
    confluence_urls: dict[str, str] = field(default_factory=dict)
    # Documentation site URL prefix → (repo, path template with ``{page}``), from source config.
    doc_sites: list[tuple[str, str, str]] = field(default_factory=list)
    # Files per repository (``owner/repo`` → set of paths), to resolve doc-site and blob URLs.
    repo_files: dict[str, set[str]] = field(default_factory=dict)
    # Hosts (lower case, no ``www.``) of the Confluence servers and of GitHub's web UI.
    confluence_hosts: set[str] = field(default_factory=set)
    github_hosts: set[str] = field(default_factory=set)
    # Renames recorded in commits: repo → old path → new paths (to follow links to moved files).
    repo_renames: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    # Lookup structures derived by rules (title indexes, compiled patterns); rebuilt per context.
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def cached(self, key: str, build: Any) -> Any:
        """``derived[key]``, built once per context by ``build()``."""
        if key not in self.derived:
            self.derived[key] = build()
        return self.derived[key]
