"""Each gate of ``scripts/lint.sh`` fires on what it guards against (and passes on clean input):
ruff's rules, ruff's format, mypy, the lock file, ESLint, Prettier, a stale OpenAPI schema, stale
demo data. The gates run as ``make lint`` and first thing in ``make test``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

BACKEND = REPO_ROOT / "backend"
FRONTEND = REPO_ROOT / "frontend"
CONFIG = BACKEND / "pyproject.toml"
SCRIPTS = REPO_ROOT / "scripts"


def run(*cmd: str | Path, cwd: Path = BACKEND, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300
    )


def test_ruff_rules_fire(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(items=[]):\n    print(items)\n")
    r = run(sys.executable, "-m", "ruff", "check", "--config", CONFIG, "--no-cache", bad)
    assert r.returncode == 1
    assert "F401" in r.stdout and "B006" in r.stdout and "T201" in r.stdout
    good = tmp_path / "good.py"
    good.write_text("def f(items: list[int]) -> int:\n    return len(items)\n")
    assert run(sys.executable, "-m", "ruff", "check", "--config", CONFIG, "--no-cache", good).returncode == 0


def test_ruff_format_fires(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = {  'a':1 }\n")
    r = run(sys.executable, "-m", "ruff", "format", "--check", "--config", CONFIG, "--no-cache", bad)
    assert r.returncode == 1 and "would be reformatted" in r.stdout


def test_mypy_fires(tmp_path: Path) -> None:
    bad = tmp_path / "bad_types.py"
    bad.write_text("def half(n: int) -> int:\n    return n / 2\n\n\nhalf('4')\n")
    r = run(sys.executable, "-m", "mypy", "--config-file", CONFIG, "--no-incremental", bad)
    assert r.returncode == 1
    assert "Incompatible return value type" in r.stdout and 'incompatible type "str"' in r.stdout


def test_lock_gate_fires_when_pyproject_and_lock_disagree(tmp_path: Path) -> None:
    check = SCRIPTS / "check_lock.py"
    assert run(sys.executable, check, REPO_ROOT).returncode == 0
    root = tmp_path / "repo"
    (root / "backend" / "devtools").mkdir(parents=True)
    shutil.copy(CONFIG, root / "backend" / "pyproject.toml")
    shutil.copy(BACKEND / "devtools" / "pyproject.toml", root / "backend" / "devtools" / "pyproject.toml")
    lock = (BACKEND / "requirements.lock").read_text().splitlines()
    (root / "backend" / "requirements.lock").write_text(
        "\n".join(line for line in lock if not line.lower().startswith("fastapi==")) + "\n"
    )
    r = run(sys.executable, check, root)
    assert r.returncode == 1 and "fastapi is not in the lock" in r.stderr
    (root / "backend" / "requirements.lock").write_text(
        "\n".join("fastapi==0.1.0" if line.lower().startswith("fastapi==") else line for line in lock) + "\n"
    )
    r = run(sys.executable, check, root)
    assert r.returncode == 1 and "does not satisfy" in r.stderr


def _with_product_path() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": f"{BACKEND / 'src'}:{BACKEND / 'devtools' / 'src'}"}


def test_stale_openapi_schema_fires(tmp_path: Path) -> None:
    check = SCRIPTS / "check_openapi.py"
    env = _with_product_path()
    current = subprocess.run(
        [sys.executable, str(check), str(FRONTEND / "openapi.json")], env=env, capture_output=True, text=True
    )
    assert current.returncode == 0, current.stderr
    stale = tmp_path / "openapi.json"
    stale.write_text((FRONTEND / "openapi.json").read_text().replace('"/ask"', '"/ask-old"'))
    r = subprocess.run([sys.executable, str(check), str(stale)], env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "npm run api" in r.stderr


def test_stale_demo_data_fires(tmp_path: Path) -> None:
    builder = BACKEND / "devtools" / "src" / "devkb_devtools" / "demo" / "build_demo_data.py"
    copy = tmp_path / "demo"
    shutil.copytree(builder.parent / "data", copy / "data")
    shutil.copy(builder.parent / "README.md", copy / "README.md")
    assert run(sys.executable, builder, "--check", "--dir", copy).returncode == 0
    issues = copy / "data" / "jira" / "issues.jsonl"
    issues.write_text(issues.read_text().replace("PAY-12", "PAY-21", 1))
    r = run(sys.executable, builder, "--check", "--dir", copy)
    assert r.returncode == 1 and "stale or missing: data/jira/issues.jsonl" in r.stderr


def _npx() -> str:
    if not (FRONTEND / "node_modules" / ".bin" / "eslint").exists():
        pytest.skip("the web app's npm packages are not installed (make setup installs them)")
    npx = shutil.which("npx")
    assert npx is not None
    return npx


def test_eslint_fires() -> None:
    npx = _npx()
    bad = "const unused = 1;\nexport function f(x: any) { return x == 1; }\n"
    r = run(
        npx,
        "eslint",
        "--max-warnings",
        "0",
        "--stdin",
        "--stdin-filename",
        "src/app/gate-check.ts",
        cwd=FRONTEND,
        stdin=bad,
    )
    assert r.returncode == 1
    assert "no-unused-vars" in r.stdout and "no-explicit-any" in r.stdout


def test_prettier_fires(tmp_path: Path) -> None:
    npx = _npx()
    bad = tmp_path / "bad.ts"
    bad.write_text('export const x = {a:1,\n  b : "two"}\n')
    r = run(npx, "prettier", "--config", FRONTEND / ".prettierrc", "--check", bad, cwd=FRONTEND)
    assert r.returncode == 1 and "bad.ts" in (r.stdout + r.stderr)
    bad.write_text("export const x = { a: 1, b: 'two' };\n")
    assert (
        run(npx, "prettier", "--config", FRONTEND / ".prettierrc", "--check", bad, cwd=FRONTEND).returncode
        == 0
    )


def test_lint_script_runs_every_python_gate_and_fails(tmp_path: Path) -> None:
    """``scripts/lint.sh --root`` on a tiny broken checkout: each Python gate reports its finding and
    the script exits non-zero naming every failed gate (the checks above prove each tool fires; this
    proves the script runs them and does not stop at, or swallow, a failure)."""
    root = tmp_path / "repo"
    package = root / "backend" / "src" / "devkb"
    package.mkdir(parents=True)
    (root / "backend" / "devtools" / "src" / "devkb_devtools").mkdir(parents=True)
    (root / "backend" / "devtools" / "src" / "devkb_devtools" / "tool.py").write_text("VERSION = 1\n")
    shutil.copy(CONFIG, root / "backend" / "pyproject.toml")
    (root / "scripts").mkdir()
    for script in ("check_lock.py", "check_openapi.py"):
        shutil.copy(SCRIPTS / script, root / "scripts" / script)
    (package / "__init__.py").write_text("")
    (package / "bad.py").write_text("import os\n\ncount: int = {'a':1}\n")  # F401, format, type
    # no backend/requirements.lock: the lock gate fails too
    r = run("bash", SCRIPTS / "lint.sh", "--root", root, cwd=root)
    out = r.stdout + r.stderr
    assert r.returncode == 1
    assert "F401" in out and "would be reformatted" in out and "Incompatible types in assignment" in out
    assert "requirements.lock is missing" in out
    failed = next(line for line in out.splitlines() if line.startswith("gates failed:"))
    for gate in ("ruff check", "ruff format", "mypy", "lock file"):
        assert gate in failed


def test_the_web_app_import_circle_check_fires(tmp_path: Path) -> None:
    """``frontend/scripts/check-import-cycles.mjs`` (``npm run lint``) on a copy with a circle
    through an ``import type`` fails and names it; without the circle it passes."""
    _npx()  # skips when the web app's packages are not installed
    app = tmp_path / "frontend"
    (app / "scripts").mkdir(parents=True)
    shutil.copy(FRONTEND / "scripts" / "check-import-cycles.mjs", app / "scripts")
    (app / "node_modules").symlink_to(FRONTEND / "node_modules")
    (app / "src").mkdir()
    (app / "src" / "store.ts").write_text(
        "import { History } from './history';\nexport class Store { h = new History(); }\n"
    )
    (app / "src" / "history.ts").write_text(
        "import type { Turn } from './model';\nexport class History { t: Turn[] = []; }\n"
    )
    (app / "src" / "model.ts").write_text("export interface Turn { id: string }\n")
    script = str(app / "scripts" / "check-import-cycles.mjs")
    clean = subprocess.run(["node", script, "src"], capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stderr
    (app / "src" / "model.ts").write_text(
        "import type { Store } from './store';\nexport interface Turn { id: string; store?: Store }\n"
    )
    broken = subprocess.run(["node", script, "src"], capture_output=True, text=True, timeout=60)
    assert broken.returncode == 1
    assert "src/history.ts, src/model.ts, src/store.ts" in broken.stderr, broken.stderr
