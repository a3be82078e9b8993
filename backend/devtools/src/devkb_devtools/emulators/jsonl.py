"""Reading the dataset's JSON and JSON Lines files (plain or gzip-compressed)."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: Lines whose bytes were not valid UTF-8, per file: real exports have them (an export of 3,036 Jira
#: issues from another organisation had 5). Invalid sequences are replaced by U+FFFD and counted,
#: never a crash.
REPLACED_LINES: dict[str, int] = {}


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
    records: list[dict[str, Any]] = []
    replaced = 0
    with opener(path, "rb") as handle:
        for raw in handle:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", errors="replace")
                replaced += 1
            if line.strip():
                records.append(json.loads(line))
    if replaced:
        REPLACED_LINES[str(path)] = replaced
        log.warning("%s: %d lines had invalid UTF-8 (replaced by U+FFFD)", path, replaced)
    return records
