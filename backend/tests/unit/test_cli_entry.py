"""The ``devkb`` console script imports the CLI only when it runs: ``multiprocessing`` re-imports
the script a process was started from in every process it spawns (the store's write process
during a sync), and that import must not bring the whole product with it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tests.fresh_imports import modules_loaded


def test_the_console_script_points_at_the_light_entry() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "devkb"]
    assert script.value == "devkb.cli.entry:main"


def test_importing_the_entry_loads_neither_the_product_nor_torch() -> None:
    heavy = ("torch", "haystack", "devkb.container", "devkb.cli.main")
    assert modules_loaded("import devkb.cli.entry", heavy) == []


def test_the_installed_script_runs_the_cli() -> None:
    script = Path(sys.executable).parent / "devkb"
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "serve" in out.stdout and "index" in out.stdout
