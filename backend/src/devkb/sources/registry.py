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
    if not cfg.url and cfg.type in ("jira", "confluence"):
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
    builder = _extra_builder(cfg.type)
    if builder is not None:
        loader: SourceLoader = builder(cfg)
        return loader
    raise ConfigurationError(f"source {cfg.name}: the {cfg.type} loader is not available")


def _extra_builder(kind: str) -> Callable[[SourceConfig], SourceLoader] | None:
    """The loader builder of another source type (Confluence, GitHub, files, uploads, web), or
    None when its libraries are not installed. Only that type's module is imported: a workspace
    without GitHub does not pay for PyGithub (and its crypto) on every process's first sync."""
    try:
        if kind == "confluence":
            from devkb.sources.confluence import build_confluence_loader

            return build_confluence_loader
        if kind == "github":
            from devkb.sources.github import build_github_loader

            return build_github_loader
        if kind == "files":  # the converters' libraries (pypdf, python-docx, trafilatura)
            from devkb.sources.files import build_files_loader

            return build_files_loader
        if kind == "uploads":
            from devkb.sources.uploads import build_uploads_loader

            return build_uploads_loader
        if kind == "web":
            from devkb.sources.web import build_web_loader

            return build_web_loader
    except ImportError:
        return None
    return None


EXTRA_TYPES = ("confluence", "github", "files", "uploads", "web")


def available_types() -> set[str]:
    """Source types whose loader is installed."""
    return {"jira", *(kind for kind in EXTRA_TYPES if _extra_builder(kind) is not None)}
