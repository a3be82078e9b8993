"""Builds a loader for each configured source (the container's one place for it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from devkb.config.sources_file import SourceConfig
from devkb.errors import ConfigurationError
from devkb.sources.base import LinkHinting, PermissionSource, Refetching, RetryReporting, SourceLoader
from devkb.sources.jira import JiraLoader, JiraLoaderConfig

if TYPE_CHECKING:  # the optional capabilities each loader claims: mypy fails when one drifts
    from devkb.sources.confluence.loader import ConfluenceLoader
    from devkb.sources.github.loader import GitHubLoader

    _LOADERS: tuple[type[SourceLoader], ...] = (JiraLoader, ConfluenceLoader, GitHubLoader)
    _RETRY_REPORTING: tuple[type[RetryReporting], ...] = (JiraLoader, ConfluenceLoader, GitHubLoader)
    _LINK_HINTING: tuple[type[LinkHinting], ...] = (JiraLoader, ConfluenceLoader, GitHubLoader)
    _REFETCHING: tuple[type[Refetching], ...] = (JiraLoader,)
    _PERMISSIONS: tuple[type[PermissionSource], ...] = (JiraLoader, ConfluenceLoader, GitHubLoader)


def build_loader(cfg: SourceConfig) -> SourceLoader:
    if not cfg.url and cfg.type != "github":
        raise ConfigurationError(f"source {cfg.name}: url is required for {cfg.type}")
    if cfg.type == "jira":
        return JiraLoader(
            JiraLoaderConfig(
                name=cfg.name,
                url=cfg.url or "",
                user=cfg.user,
                token=cfg.token(),
                projects=cfg.projects,
                jql=cfg.jql,
                browse_url=cfg.browse_url,
                page_size=cfg.page_size,
                deployment=cfg.deployment,
                people=dict(cfg.people),
            )
        )
    builders = _extra_builders()
    if cfg.type in builders:
        loader: SourceLoader = builders[cfg.type](cfg)
        return loader
    raise ConfigurationError(f"source {cfg.name}: the {cfg.type} loader is not available")


def _extra_builders() -> dict[str, Callable[[SourceConfig], SourceLoader]]:
    """Loaders of other source types register here (Confluence, GitHub)."""
    found: dict[str, Callable[[SourceConfig], SourceLoader]] = {}
    try:
        from devkb.sources.confluence import build_confluence_loader

        found["confluence"] = build_confluence_loader
    except ImportError:
        pass
    try:
        from devkb.sources.github import build_github_loader

        found["github"] = build_github_loader
    except ImportError:
        pass
    return found


def available_types() -> set[str]:
    """Source types whose loader is installed."""
    return {"jira", *_extra_builders()}
