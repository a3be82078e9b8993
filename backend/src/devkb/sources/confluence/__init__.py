"""Confluence loader (atlassian-python-api): Data Center / Server (REST API v1) and Cloud (v2 under /wiki)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from devkb.sources.confluence.client import ConfluenceLoaderConfig
from devkb.sources.confluence.loader import ConfluenceLoader

if TYPE_CHECKING:
    from devkb.config.sources_file import SourceConfig


def build_confluence_loader(cfg: SourceConfig) -> ConfluenceLoader:
    """A loader for one ``type: confluence`` entry of the sources file."""
    return ConfluenceLoader(
        ConfluenceLoaderConfig(
            name=cfg.name,
            url=cfg.url or "",
            user=cfg.user,
            token=cfg.token(),
            spaces=list(cfg.spaces),
            browse_url=cfg.browse_url,
            url_aliases=dict(cfg.url_aliases),
            page_size=min(cfg.page_size, 100),
            deployment=cfg.deployment,
            people=dict(cfg.people),
        )
    )


__all__ = ["ConfluenceLoader", "ConfluenceLoaderConfig", "build_confluence_loader"]
