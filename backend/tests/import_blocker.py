"""Run a product command in a subprocess where some packages cannot be imported, as if they were
not installed: a ``sitecustomize`` on ``PYTHONPATH`` puts a finder first on ``sys.meta_path`` that
raises ``ModuleNotFoundError`` for them and records every attempt, with the file that tried it, in
a file (so a test also sees imports that a library tried and swallowed)."""

from __future__ import annotations

import os
from pathlib import Path

_SITECUSTOMIZE = """\
import sys

BLOCKED = {blocked!r}
LOG = {log!r}


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename.startswith("<"):
                frame = frame.f_back  # importlib's own frames
            importer = frame.f_code.co_filename if frame is not None else "?"
            with open(LOG, "a") as f:
                f.write(name + " " + importer + "\\n")
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
"""


def blocking_env(directory: Path, blocked: set[str], base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment whose Python processes cannot import the top-level packages ``blocked``; the
    attempts are logged to ``directory / "blocked-imports.log"`` (see :func:`attempts`)."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / "blocked-imports.log"
    log.write_text("")
    (directory / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(blocked=sorted(blocked), log=str(log)))
    env = dict(base if base is not None else os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(directory), *filter(None, [env.get("PYTHONPATH")])])
    return env


def attempts(directory: Path) -> list[tuple[str, str]]:
    """The blocked imports tried so far by processes started with :func:`blocking_env`: (module,
    file of the code that tried it)."""
    lines = (directory / "blocked-imports.log").read_text().splitlines()
    return [(name, importer) for name, _, importer in (line.partition(" ") for line in lines if line)]
