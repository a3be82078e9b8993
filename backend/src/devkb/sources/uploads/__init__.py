"""Uploads: files people drop in the web app, POST to ``/uploads`` or send through the MCP
``ingest`` tool."""

from __future__ import annotations

from pathlib import Path

from devkb.config.sources_file import SourceConfig
from devkb.sources.uploads.loader import UploadsLoader, doc_id, to_document
from devkb.sources.uploads.store import UploadError, UploadRecord, UploadStore

UPLOAD_TYPES = frozenset(
    {".pdf", ".docx", ".md", ".markdown", ".rst", ".txt", ".html", ".htm", ".json", ".yaml", ".yml",
     ".toml", ".csv", ".py", ".js", ".ts", ".java", ".go", ".rs", ".c", ".h", ".cpp", ".rb", ".kt",
     ".cs", ".sql", ".sh", ".xml", ".log"}
)  # fmt: skip


def build_uploads_loader(cfg: SourceConfig) -> UploadsLoader:
    return UploadsLoader(cfg.name, UploadStore(Path(cfg.path or "uploads")))


__all__ = [
    "UPLOAD_TYPES",
    "UploadError",
    "UploadRecord",
    "UploadStore",
    "UploadsLoader",
    "build_uploads_loader",
    "doc_id",
    "to_document",
]
