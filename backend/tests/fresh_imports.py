"""What a fresh interpreter imports: for tests that keep a light entry point light."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable


def modules_loaded(setup: str, modules: Iterable[str]) -> list[str]:
    """Which of ``modules`` are in ``sys.modules`` after a new interpreter runs ``setup``, sorted."""
    code = (
        f"{setup}\nimport sys\nprint(','.join(sorted(m for m in {tuple(modules)!r} if m in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return [m for m in out.stdout.strip().split(",") if m]
