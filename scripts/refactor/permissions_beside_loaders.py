#!/usr/bin/env python3
"""Issue 27: each loader's second job — fetching who holds the principals its documents' gates name
(``PermissionSource.fetch_permissions``) — moves out of ``loader.py`` into ``permissions.py`` beside
it, as ``<Source>Permissions(loader)``; the loader's ``fetch_permissions`` delegates to it.

    python3 scripts/refactor/permissions_beside_loaders.py     # once; idempotent

The methods from ``fetch_permissions`` to the end of the loader class move verbatim, ``self.x``
becoming ``self.loader.x`` for what stays on the loader; ruff then drops the imports each file no
longer needs and formats the two files. Code on other branches that calls ``loader.fetch_permissions()``
is unaffected; code that called the moved private helpers (``loader._user_list`` …) calls
``<Source>Permissions(loader)._user_list`` instead.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {"jira": ("JiraLoader", "Jira"), "confluence": ("ConfluenceLoader", "Confluence"), "github": ("GitHubLoader", "GitHub")}


def extract(source: str, loader_class: str, title: str) -> list[str]:
    folder = ROOT / "backend/src/devkb/sources" / source
    loader_path, target = folder / "loader.py", folder / "permissions.py"
    if target.exists():
        return []
    text = loader_path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == loader_class)
    methods = [n for n in cls.body if isinstance(n, ast.FunctionDef)]
    first = next(i for i, m in enumerate(methods) if m.name == "fetch_permissions")
    moved = methods[first:]
    assert all(m.end_lineno is not None for m in moved) and moved[-1].end_lineno == cls.end_lineno
    start = min([moved[0].lineno, *(d.lineno for d in moved[0].decorator_list)]) - 1
    while start > 0 and lines[start - 1].strip().startswith("# -- permission"):
        start -= 1
    body = "".join(lines[start : cls.end_lineno])
    names = {m.name for m in moved}
    body = re.sub(r"\bself\.(\w+)", lambda m: m[0] if m[1] in names else f"self.loader.{m[1]}", body)
    body = "\n".join(line for line in body.splitlines() if not line.strip().startswith("# -- permission"))
    doc = ast.get_docstring(moved[0]) or ""
    helpers = sorted(  # module-level helpers of loader.py the moved code uses
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name != loader_class and re.search(rf"\b{n.name}\b", body)
    )
    helper_import = f"from devkb.sources.{source}.loader import {', '.join(helpers)}\n" if helpers else ""
    imports = "".join(
        "".join(lines[n.lineno - 1 : n.end_lineno]) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
    )
    module = (
        f'"""{title}\'s permission sync, beside its loader: who holds the principals its documents\' gates\n'
        f'name (``PermissionSource`` in ``sources/base.py``), read through the loader\'s client."""\n\n'
        f"{imports}{helper_import}from typing import TYPE_CHECKING\n\n"
        f"if TYPE_CHECKING:\n    from devkb.sources.{source}.loader import {loader_class}\n\n"
        "log = logging.getLogger(__name__)\n\n\n"
        f"class {title}Permissions:\n"
        f'    """The permission half of a :class:`{loader_class}` (its client, settings and retries)."""\n\n'
        f"    def __init__(self, loader: {loader_class}) -> None:\n"
        "        self.loader = loader\n\n"
        f"{body}\n"
    )
    if "import logging\n" not in module:
        module = module.replace("from __future__ import annotations\n", "from __future__ import annotations\n\nimport logging\n", 1)
    target.write_text(module, encoding="utf-8")
    delegate = (
        "    # -- permission sync: sources/" + source + "/permissions.py ------------------------------------------\n"
        "    def fetch_permissions(self) -> list[tuple[str, str]]:\n"
        f'        """``(principal, email)`` pairs: who holds what this source\'s documents\' gates name."""\n'
        f"        from devkb.sources.{source}.permissions import {title}Permissions\n\n"
        f"        return {title}Permissions(self).fetch_permissions()\n"
    )
    loader_path.write_text("".join(lines[:start]) + delegate + "".join(lines[cls.end_lineno :]), encoding="utf-8")
    return [str(loader_path.relative_to(ROOT / "backend")), str(target.relative_to(ROOT / "backend"))]


def main() -> int:
    changed = [f for source, (cls, title) in SOURCES.items() for f in extract(source, cls, title)]
    if changed:
        ruff = [str(ROOT / ".venv/bin/python"), "-m", "ruff"]
        subprocess.run([*ruff, "check", "-q", "--fix", "--select", "F401,I001", *changed], cwd=ROOT / "backend", check=False)
        subprocess.run([*ruff, "format", "-q", *changed], cwd=ROOT / "backend", check=True)
    sys.stdout.write(f"rewrote {len(changed)} files\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
