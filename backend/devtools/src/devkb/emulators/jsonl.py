"""Reading the dataset's JSON and JSON Lines files (plain or gzip-compressed)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any


def read_json(path: Path) -> Any:
    """Parse one JSON file."""
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def jsonl_path(directory: Path, stem: str) -> Path | None:
    """``<stem>.jsonl.gz`` or ``<stem>.jsonl`` in ``directory``, whichever exists (gzip first)."""
    for candidate in (directory / f"{stem}.jsonl.gz", directory / f"{stem}.jsonl"):
        if candidate.is_file():
            return candidate
    return None


def read_jsonl(directory: Path, stem: str) -> list[dict[str, Any]]:
    """All records of ``<stem>.jsonl[.gz]`` in ``directory``; an empty list when the file is absent."""
    path = jsonl_path(directory, stem)
    if path is None:
        return []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
