"""Today's code, to measure against in the same run: ``backend/src`` of a git commit, extracted
with ``git archive`` into a scratch directory and served with this checkout's virtualenv
(``PYTHONPATH`` puts it ahead of the installed ``devkb``), on the same store.

Without git or the commit (an exported tarball, a shallow clone) the bench says why and skips the
ratio rather than guessing a baseline.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[5]
# main when the /ask latency work began (docs/benchmarks.md, "Query"): "today" for its ratio
ASK_BASELINE_COMMIT = "eba540d"


def extract_backend_src(commit: str, into: Path) -> tuple[Path | None, str]:
    """``into/backend/src`` holding ``commit``'s product code, or None and the reason it is not."""
    if shutil.which("git") is None:
        return None, "git is not installed"
    if not (REPO_ROOT / ".git").exists():
        return None, f"{REPO_ROOT} is not a git checkout"
    done = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "archive", "--format=tar", commit, "backend/src"],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        return None, f"git archive {commit} failed: {done.stderr.decode(errors='replace').strip()[:200]}"
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(into, filter="data")
    src = into / "backend" / "src"
    if not (src / "devkb" / "__init__.py").is_file():
        return None, f"commit {commit} has no backend/src/devkb"
    return src, ""
