"""GitHub loader (PyGithub, REST API v3): files, commits, pull requests and issues."""

from __future__ import annotations

from typing import TYPE_CHECKING

from devkb.sources.github.client import GitHubLoaderConfig
from devkb.sources.github.loader import GitHubLoader

if TYPE_CHECKING:
    from devkb.config.sources_file import SourceConfig


def build_github_loader(cfg: SourceConfig) -> GitHubLoader:
    """A loader for one ``type: github`` entry of the sources file."""
    return GitHubLoader(
        GitHubLoaderConfig(
            name=cfg.name,
            repos=list(cfg.repos),
            url=cfg.url or "https://api.github.com",
            token=cfg.token(),
            include=list(cfg.include),
            exclude=list(cfg.exclude),
            max_file_bytes=cfg.file_size_limit(),
            include_issues=cfg.include_issues,
            branches=list(cfg.branches),
            doc_sites=[dict(s) for s in cfg.doc_sites],
            html_url=cfg.browse_url,
            people=dict(cfg.people),
        )
    )


__all__ = ["GitHubLoader", "GitHubLoaderConfig", "build_github_loader"]
