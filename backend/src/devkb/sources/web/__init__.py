"""``type: web``: a documentation site, crawled politely (see ``loader.py``)."""

from __future__ import annotations

from devkb.config.sources_file import SourceConfig
from devkb.sources.files import readers_acl
from devkb.sources.web.loader import WebLoader, WebLoaderConfig


def build_web_loader(cfg: SourceConfig) -> WebLoader:
    return WebLoader(
        WebLoaderConfig(
            name=cfg.name,
            start_urls=list(cfg.start_urls),
            sitemaps=list(cfg.sitemaps),
            hosts=list(cfg.hosts),
            include=list(cfg.include),
            exclude=list(cfg.exclude),
            max_pages=cfg.max_pages,
            max_depth=cfg.max_depth,
            concurrency=cfg.concurrency,
            requests_per_second=cfg.requests_per_second,
            user_agent=cfg.user_agent,
            respect_robots=cfg.respect_robots,
            max_bytes=cfg.file_size_limit(),
            page_seconds=cfg.page_seconds,
            acl=readers_acl(cfg.readers),
        )
    )


__all__ = ["WebLoader", "WebLoaderConfig", "build_web_loader"]
