"""``type: files``: a directory of documents (local or mounted)."""

from __future__ import annotations

from pathlib import Path

from devkb.config.sources_file import SourceConfig
from devkb.sources import acl
from devkb.sources.files.loader import FilesLoader, FilesLoaderConfig


def readers_acl(readers: list[str]) -> list[list[str]]:
    """``readers`` of the sources file (``everyone`` or e-mails) → one ACL gate."""
    return [[acl.EVERYONE if r.strip().lower() == "everyone" else acl.user(r) for r in readers]]


def build_files_loader(cfg: SourceConfig) -> FilesLoader:
    return FilesLoader(
        FilesLoaderConfig(
            name=cfg.name,
            root=Path(cfg.path or ""),
            include=list(cfg.include),
            exclude=list(cfg.exclude),
            max_file_bytes=cfg.file_size_limit(),
            browse_url=cfg.browse_url or cfg.url,
            acl=readers_acl(cfg.readers),
        )
    )


__all__ = ["FilesLoader", "FilesLoaderConfig", "build_files_loader", "readers_acl"]
