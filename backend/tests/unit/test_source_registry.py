"""The source registry imports only the loader of the type it builds: a workspace without GitHub
does not import PyGithub (and its crypto libraries) on a process's first sync."""

from __future__ import annotations

import subprocess
import sys

from devkb.sources.registry import EXTRA_TYPES, available_types


def test_building_a_confluence_loader_imports_no_other_source() -> None:
    code = (
        "import sys\n"
        "from devkb.config.sources_file import SourceConfig\n"
        "from devkb.sources.registry import build_loader\n"
        "build_loader(SourceConfig(name='w', type='confluence', url='http://127.0.0.1:9',"
        " spaces=['X'], deployment='datacenter'))\n"
        "print(','.join(sorted(m for m in ('github', 'devkb.sources.github', 'devkb.sources.web',"
        " 'devkb.sources.files', 'devkb.sources.confluence') if m in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "devkb.sources.confluence"


def test_every_installed_type_is_available() -> None:
    assert available_types() == {"jira", *EXTRA_TYPES}
