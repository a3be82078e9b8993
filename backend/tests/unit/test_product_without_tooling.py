"""The product stands without the development tooling: every module of ``devkb`` imports in a
process where ``devkb_devtools`` cannot be imported (as on a server installed without it), and
the demo workspace — the tooling's only way in — is found through the ``devkb.workspaces`` entry
point, so a product without it says what to do instead of failing on an import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.import_blocker import attempts, blocking_env

SRC = Path(__file__).resolve().parents[2] / "src"

IMPORT_EVERY_MODULE = """
import importlib, pkgutil, sys, devkb
names = [m.name for m in pkgutil.walk_packages(devkb.__path__, "devkb.") if not m.name.endswith(".__main__")]
failed = []
for name in names:
    try:
        importlib.import_module(name)
    except Exception as e:
        failed.append(f"{name}: {type(e).__name__}: {e}")
print(len(names))
sys.stderr.write("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def test_every_product_module_imports_without_the_tooling(tmp_path):
    env = blocking_env(tmp_path, {"devkb_devtools"})
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    modules = [p for p in (SRC / "devkb").rglob("*.py") if p.name != "__main__.py"]
    assert int(done.stdout) + 1 == len(modules)  # every module and package (+ devkb itself), not a few
    assert attempts(tmp_path) == []  # not even tried and swallowed
    assert not list((SRC / "devkb").glob("demo")) and not list((SRC / "devkb").glob("emulators"))


def test_without_the_tooling_no_sources_is_a_clear_configuration_error(tmp_path):
    env = blocking_env(tmp_path / "blocker", {"devkb_devtools"})
    env.update(DEVKB_DATA_DIR=str(tmp_path / "data"))
    env.pop("DEVKB_SOURCES_FILE", None)
    env.pop("DEVKB_JIRA_URL", None)
    devkb = str(Path(sys.executable).parent / "devkb")
    done = subprocess.run(
        [devkb, "sources"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "workspace 'demo'" in done.stderr and "cannot be loaded" in done.stderr


def test_the_demo_workspace_is_offered_through_the_entry_point():
    from devkb.config.workspaces import Workspace, find_workspace

    demo = find_workspace("demo")
    assert isinstance(demo, Workspace)
    assert type(demo).__module__.startswith("devkb_devtools.")  # the tooling's, found by metadata
    assert {u.role for u in demo.users()} == {"admin", "member"}
    assert find_workspace("no-such-workspace") is None
