"""The sources file's files and web types: required keys, defaults per type, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from devkb.config.sources_file import FILES_INCLUDE, SourceConfig, load_sources_file
from devkb.errors import ConfigurationError


def _load(tmp_path: Path, text: str) -> list[SourceConfig]:
    path = tmp_path / "sources.yaml"
    path.write_text(text)
    return load_sources_file(path)


def test_defaults_differ_per_type(tmp_path: Path) -> None:
    files, web, code = _load(
        tmp_path,
        "sources:\n  - {name: docs, type: files, path: /srv/docs}\n"
        "  - {name: site, type: web, start_urls: ['https://docs.example.com/']}\n"
        "  - {name: code, type: github, repos: [a/b]}\n",
    )
    assert files.include == FILES_INCLUDE and "**/*.pdf" in files.include
    assert web.include == []  # every path of the host
    assert "**/*.pdf" not in code.include
    assert (files.file_size_limit(), web.file_size_limit(), code.file_size_limit()) == (
        25_000_000,
        25_000_000,
        200_000,
    )
    assert files.readers == ["everyone"]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{name: docs, type: files}", "path is required for type files"),
        ("{name: site, type: web}", "start_urls or sitemaps are required"),
        ("{name: site, type: web, start_urls: [x], max_pages: 0}", "max_pages"),
        ("{name: docs, type: files, path: /x, pathh: /y}", "pathh"),
        ("{name: docs, type: ftp}", "type"),
    ],
)
def test_bad_entries_are_clear_errors(tmp_path: Path, entry: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        _load(tmp_path, f"sources:\n  - {entry}\n")
