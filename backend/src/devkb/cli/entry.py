"""The ``devkb`` console script's target. It imports the CLI only when it runs: a process that
``multiprocessing`` starts from the ``devkb`` script (the store's write process during a sync)
first re-imports the script it was started from, and ``devkb.cli.main`` at the script's top
would cost that process the whole product — Haystack, and through it torch (~3 s of CPU; the
write process itself needs only the SQLite store)."""

from __future__ import annotations


def main() -> None:
    from devkb.cli.main import app

    app()
