"""No import circles: no module of ``devkb`` imports, directly or through others, a module that
imports it — a reader can follow every dependency down and stop. Beside ``test_layering.py``
(packages only go down) this holds inside a package too (a loader and its permission code, the
store and its write process). Every import counts — top-level, inside functions and under
``TYPE_CHECKING`` — and the circles are the strongly connected components of the graph of
``devkb.*`` modules (Tarjan). The web app's check is ``npm run lint:cycles`` in ``frontend/``
(part of ``npm run lint``; ``tests/integration/test_gates.py`` proves that one fires).

    .venv/bin/python -m pytest -q backend/tests/unit/test_import_cycles.py
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# Circles that came in with other work after the check was written, each to be removed by its
# owner. The list only shrinks: a circle not listed fails the test, and so does a listed one that
# is gone (delete its line).
KNOWN: dict[frozenset[str], str] = {}


def modules(src: Path) -> dict[str, Path]:
    """``devkb.x.y`` → its file (a package is its ``__init__.py``)."""
    out: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def module_graph(src: Path = SRC, root: str = "devkb") -> dict[str, set[str]]:
    """Module → the modules of ``root`` it imports. ``from p import name`` depends on the module
    ``p.name`` when there is one, else on ``p``; importing ``p.q`` runs ``p/__init__.py`` first,
    but that is Python's doing, not a dependency the importing module chose, so it is not an edge."""
    known = {m: p for m, p in modules(src).items() if m == root or m.startswith(root + ".")}

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    where = ".".join(base + ([node.module] if node.module else []))
                else:
                    where = node.module or ""
                targets = [f"{where}.{a.name}" if f"{where}.{a.name}" in known else where for a in node.names]
            for target in targets:
                if target == root or target.startswith(root + "."):
                    found = resolve(target)
                    if found is not None and found != module:
                        graph[module].add(found)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            node, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def test_no_import_circle_in_the_product():
    found = {frozenset(c): c for c in circles(module_graph())}
    new = [" ↔ ".join(c) for key, c in found.items() if key not in KNOWN]
    assert new == [], "modules that import each other (give what both need a module of its own)"
    gone = [" ↔ ".join(sorted(key)) for key in KNOWN if key not in found]
    assert gone == [], "these circles are gone: delete them from KNOWN"


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_check_fires_on_a_circle_however_it_is_written(tmp_path):
    """The gate proves it fires: a circle through a function-level import and ``TYPE_CHECKING``,
    one through a relative import; a package re-exporting its submodule is not one."""
    src = _package(
        tmp_path,
        {
            "devkb/__init__.py": "",
            "devkb/sources/__init__.py": "",
            "devkb/sources/loader.py": "def f():\n    from devkb.sources.permissions import P\n",
            "devkb/sources/permissions.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from devkb.sources.loader import L\n"
            ),
            "devkb/store/__init__.py": "from devkb.store.sqlite import Store\n",
            "devkb/store/sqlite.py": "from . import writer\n",
            "devkb/store/writer.py": "from .sqlite import Store\n",
            "devkb/store/models.py": "from devkb.store import sqlite\n",
            "devkb/cli/__init__.py": "",
            "devkb/cli/main.py": "from devkb.cli import accounts\n",
            "devkb/cli/accounts.py": "from devkb.cli.context import fail\n",
            "devkb/cli/context.py": "import devkb.store.models\n",
        },
    )
    assert circles(module_graph(src)) == [
        ["devkb.sources.loader", "devkb.sources.permissions"],
        ["devkb.store.sqlite", "devkb.store.writer"],
    ]
