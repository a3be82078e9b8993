"""Fail when backend/requirements.lock does not satisfy the requirements in the pyproject files.

Every requirement of the product (dependencies and the `dev` extra) and of the development
tooling must be pinned in the lock with a version its specifier allows. Regenerate the lock with
`scripts/lock.sh`. Usage: check_lock.py [ROOT]
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version


def requirements(root: Path) -> list[Requirement]:
    out: list[Requirement] = []
    for path in (root / "backend" / "pyproject.toml", root / "backend" / "devtools" / "pyproject.toml"):
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        specs = list(project.get("dependencies", []))
        specs += [s for extra in project.get("optional-dependencies", {}).values() for s in extra]
        out += [Requirement(s) for s in specs]
    return [r for r in out if canonicalize_name(r.name) not in {"devkb", "devkb-devtools"}]


def pinned(lock: Path) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1]
    lock = root / "backend" / "requirements.lock"
    if not lock.is_file():
        sys.stderr.write(f"{lock} is missing: run scripts/lock.sh\n")
        return 1
    pins = pinned(lock)
    problems = []
    for req in requirements(root):
        version = pins.get(canonicalize_name(req.name))
        if version is None:
            problems.append(f"{req.name} is not in the lock")
        elif not req.specifier.contains(version, prereleases=True):
            problems.append(f"{req.name}=={version} in the lock does not satisfy {req}")
    for p in problems:
        sys.stderr.write(f"requirements.lock: {p}\n")
    if problems:
        sys.stderr.write("regenerate the lock with scripts/lock.sh after installing the new requirements\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
