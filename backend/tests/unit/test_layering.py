"""Imports only go down: each package of ``devkb`` imports only from itself and from packages in
the layers below it (and never from a sibling in its own layer); the product never imports the
development tooling. The order is the one drawn in ``docs/architecture.md``. Every import counts —
top-level, inside functions and under ``TYPE_CHECKING`` — since each is a dependency a reader
must follow."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PRODUCT = Path(__file__).resolve().parents[2] / "src" / "devkb"

# top to bottom; packages in one layer are independent of each other
LAYERS: list[set[str]] = [
    {"__main__"},
    {"cli"},
    {"api"},
    {"container"},  # the composition root: builds everything below, for the API and the CLI
    {"mcp"},
    {"agent", "scheduling"},
    {"conversations", "memory"},
    {"access", "indexing"},
    {"sources"},
    {"store"},
    {"config"},
    {"errors"},
]
TOOLING = "devkb_devtools"


def layer_of(package: str) -> int:
    for i, layer in enumerate(LAYERS):
        if package in layer:
            return i
    raise AssertionError(f"devkb.{package} is in no layer: add it to LAYERS and to docs/architecture.md")


def imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "devkb" and node.level == 0:
            found += [(node.lineno, f"devkb.{a.name}") for a in node.names]  # from devkb import store
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def package_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def violations(root: Path = PRODUCT) -> list[str]:
    out: list[str] = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "__init__.py":
            continue
        src = package_of(path, root)
        for line, module in imports(path):
            parts = module.split(".")
            where = f"{path.relative_to(root.parent)}:{line}"
            if parts[0] == TOOLING:
                out.append(f"{where} imports the tooling ({module})")
            if parts[0] != "devkb" or len(parts) < 2 or parts[1] == src:
                continue
            dst = parts[1]
            if not (root / dst).is_dir() and not (root / f"{dst}.py").is_file():
                continue  # a name imported from devkb/__init__.py (``from devkb import __version__``)
            if layer_of(dst) <= layer_of(src):
                kind = "a sibling" if layer_of(dst) == layer_of(src) else "up"
                out.append(f"{where}: devkb.{src} imports {kind} devkb.{dst} ({module})")
    return sorted(set(out))


def test_every_package_has_a_layer():
    packages = {p.name for p in PRODUCT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in PRODUCT.glob("*.py") if p.name != "__init__.py"}
    for name in packages | modules:
        layer_of(name)


def test_imports_only_go_down():
    assert violations() == []


def test_the_check_fires_on_an_upward_import(tmp_path):
    """The gate proves it fires: a copy where the store imports the API, and one where a source
    imports the tooling."""
    root = tmp_path / "devkb"
    for package in ("store", "api", "sources"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    (root / "store" / "bad.py").write_text("def f():\n    from devkb.api.app import create_app\n")
    (root / "sources" / "bad.py").write_text("import devkb_devtools.demo\nfrom devkb.store import x\n")
    found = violations(root)
    assert any("devkb.store imports up devkb.api" in v for v in found), found
    assert any("imports the tooling" in v for v in found), found
    assert not any("devkb.sources imports up devkb.store" in v for v in found)


@pytest.mark.parametrize("package", ["conversations", "access"])
def test_the_moved_state_and_key_checks_sit_below_the_api(package):
    assert layer_of(package) > layer_of("api") and layer_of(package) > layer_of("container")
