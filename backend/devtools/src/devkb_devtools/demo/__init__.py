"""The demo workspace: a small, coherent dataset for a fictional payments team.

``data/`` holds Jira, Confluence and GitHub records in the same file layout and JSON shapes as the
public corpus in ``../shared/data/fluid``, so the emulators can serve it as REST APIs. It is written
by ``build_demo_data.py`` (see ``README.md`` in this folder); do not edit the files by hand.
"""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["DATA_DIR"]
