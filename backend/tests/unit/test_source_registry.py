"""The source registry imports only the loader of the type it builds: a workspace without GitHub
does not import PyGithub (and its crypto libraries) on a process's first sync."""

from __future__ import annotations

from devkb.sources.registry import EXTRA_TYPES, available_types
from tests.fresh_imports import modules_loaded


def test_building_a_confluence_loader_imports_no_other_source() -> None:
    setup = (
        "from devkb.config.sources_file import SourceConfig\n"
        "from devkb.sources.registry import build_loader\n"
        "build_loader(SourceConfig(name='w', type='confluence', url='http://127.0.0.1:9',"
        " spaces=['X'], deployment='datacenter'))"
    )
    sources = (
        "github",
        "devkb.sources.github",
        "devkb.sources.web",
        "devkb.sources.files",
        "devkb.sources.confluence",
    )
    assert modules_loaded(setup, sources) == ["devkb.sources.confluence"]


def test_every_installed_type_is_available() -> None:
    assert available_types() == {"jira", *EXTRA_TYPES}
