"""What the extractor knows about the workspace: learned from the sources, never hard-coded."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LinkContext:
    # Jira project keys learned from Jira (``FLUID``, ``PAY``); keys of other shapes are ignored.
    project_keys: set[str] = field(default_factory=set)
    # Base URLs under which ``/browse/KEY`` points at a Jira issue.
    jira_urls: set[str] = field(default_factory=set)
    # GitHub repositories (``owner/repo``) indexed, for PR/commit/file URLs.
    github_repos: set[str] = field(default_factory=set)
    # Confluence: lower-cased page title → page document id; URL path (no host) → page id.
    confluence_titles: dict[str, str] = field(default_factory=dict)
    confluence_urls: dict[str, str] = field(default_factory=dict)
    # Documentation site URL prefix → (repo, path template with ``{page}``), from source config.
    doc_sites: list[tuple[str, str, str]] = field(default_factory=list)
    # Files per repository (``owner/repo`` → set of paths), to resolve doc-site and blob URLs.
    repo_files: dict[str, set[str]] = field(default_factory=dict)
