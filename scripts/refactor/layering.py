#!/usr/bin/env python3
"""Issue 27, "imports only go down": modules moved so that no package imports one above it.

    python3 scripts/refactor/layering.py            # move the modules (once) and rewrite every tracked file
    python3 scripts/refactor/layering.py FILE...    # rewrite only these files (new code on another branch)

Moves (``git mv``, skipped when already done):
  devkb/api/store_memory.py  → devkb/conversations/store_memory.py
  devkb/access/acl.py        → devkb/sources/acl.py   (the principals a source grants: loaders write
                                them, the access policy reads them — sources must not import access)
Names that moved out of a module that stays (imports are split by name):
  devkb.api.sessions: ChatMemory, SessionMemory, StoredMessage, now_iso, parse_session_id
                      → devkb.conversations.memory (the middleware and cookie stay in api/sessions.py)
  devkb.api.security: key_matches, is_loopback → devkb.access.keys
Rewritten files get their imports re-sorted and formatted by ruff (only those files).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = "backend/src/devkb"
MOVES = {f"{SRC}/api/store_memory.py": f"{SRC}/conversations/store_memory.py", f"{SRC}/access/acl.py": f"{SRC}/sources/acl.py"}
MODULES = {"devkb.api.store_memory": "devkb.conversations.store_memory", "devkb.access.acl": "devkb.sources.acl"}
NAMES = {
    "devkb.api.sessions": (
        {"ChatMemory", "SessionMemory", "StoredMessage", "now_iso", "parse_session_id"},
        "devkb.conversations.memory",
    ),
    "devkb.api.security": ({"key_matches", "is_loopback"}, "devkb.access.keys"),
}
PATHS = {"api/store_memory.py": "conversations/store_memory.py", "access/acl.py": "sources/acl.py"}
IMPORT = re.compile(r"^(?P<indent>[ \t]*)from (?P<module>devkb\.api\.(?:sessions|security)) import (?P<names>\([^)]*\)|[^\n]*)", re.M)


def split_import(match: re.Match[str]) -> str:
    moved_names, target = NAMES[match["module"]]
    names = [n.strip() for n in match["names"].strip("()").replace("\n", " ").split(",") if n.strip()]
    stay = [n for n in names if n.split(" as ")[0].strip() not in moved_names]
    move = [n for n in names if n.split(" as ")[0].strip() in moved_names]
    lines = []
    if move:
        lines.append(f"{match['indent']}from {target} import {', '.join(move)}")
    if stay:
        lines.append(f"{match['indent']}from {match['module']} import {', '.join(stay)}")
    return "\n".join(lines)


def rewrite(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    new = text
    for old, target in MODULES.items():
        new = re.sub(rf"\b{re.escape(old)}\b", target, new)
        package, _, module = old.rpartition(".")
        target_package = target.rpartition(".")[0]
        new = re.sub(rf"\bfrom {re.escape(package)} import {module}\b", f"from {target_package} import {module}", new)
    if path.suffix == ".py":
        new = IMPORT.sub(split_import, new)
    for old, target in PATHS.items():
        new = re.sub(rf"(?<![\w/]){re.escape(old)}|(?<=devkb/){re.escape(old)}", target, new)
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def main(argv: list[str]) -> int:
    if argv:
        files = [Path(a).resolve() for a in argv]
    else:
        for old, new in MOVES.items():
            if (ROOT / old).exists() and not (ROOT / new).exists():
                (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
                subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
        listed = subprocess.run(
            ["git", "grep", "-lIE", r"devkb\.api\.(sessions|security|store_memory)|devkb\.access\.acl|from devkb\.(api|access) import (acl|store_memory)|api/store_memory\.py|access/acl\.py",
             "--", ".", ":!scripts/refactor/"],
            cwd=ROOT, capture_output=True, text=True,
        ).stdout.split()
        files = [ROOT / f for f in listed]
    changed = [f for f in files if rewrite(f)]
    py = [str(f.relative_to(ROOT / "backend")) for f in changed if f.suffix == ".py" and "backend" in f.parts]
    if py:
        ruff = [str(ROOT / ".venv/bin/python"), "-m", "ruff"]
        subprocess.run([*ruff, "check", "-q", "--fix", "--select", "I001", *py], cwd=ROOT / "backend", check=False)
        subprocess.run([*ruff, "format", "-q", *py], cwd=ROOT / "backend", check=True)
    sys.stdout.write(f"rewrote {len(changed)} files\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
