"""``FilesLoader``: the files under a directory that match the include/exclude globs.

Incremental by modification time and content hash: the cursor records, per relative path,
``[mtime_ns, size, sha256, problem]``. A file whose mtime and size are unchanged is not read
again; one whose bytes hash the same is not converted again (a touched file). A file that cannot
be converted is reported once per change (``ProblemReporting``) with its reason and left out of
``list_ids``, so an indexed version that became unreadable is deleted, never kept stale. A
missing root directory fails the run (it is far more often an unmounted share than an emptied
one).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from devkb.errors import SourceError
from devkb.sources.base import LoadBatch, SourceDocument
from devkb.sources.formats import Unreadable, convert_bytes
from devkb.sources.formats.convert import too_large
from devkb.sources.github.paths import matches_any
from devkb.store.models import SourceType

BATCH_SIZE = 50


@dataclass
class FilesLoaderConfig:
    name: str
    root: Path
    include: list[str]
    exclude: list[str] = field(default_factory=list)
    max_file_bytes: int = 25_000_000
    browse_url: str | None = None  # base URL the directory is published under (citations)
    acl: list[list[str]] = field(default_factory=lambda: [["everyone"]])


def doc_id(source: str, relpath: str) -> str:
    return f"files:{source}:{relpath}"


class FilesLoader:
    type = SourceType.FILES

    def __init__(self, config: FilesLoaderConfig) -> None:
        self.config = config
        self.name = config.name
        self._on_problem: Callable[[str], None] | None = None
        self._unreadable: set[str] = set()

    # -- capabilities ----------------------------------------------------------------------
    def set_problem_hook(self, on_problem: Callable[[str], None] | None) -> None:
        self._on_problem = on_problem

    def describe(self) -> dict[str, Any]:
        return {"path": str(self.config.root), "include": self.config.include, "exclude": self.config.exclude}

    # -- listing ---------------------------------------------------------------------------
    def _root(self) -> Path:
        root = self.config.root.expanduser()
        if not root.is_dir():
            raise SourceError(f"{self.name}: {root} is not a readable directory")
        return root

    def walk(self) -> Iterator[tuple[str, os.stat_result]]:
        """(relative path, stat) of every wanted file, sorted; symlinks to files are followed,
        to directories not (no loops)."""
        root = self._root()
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            rel_dir = Path(dirpath).relative_to(root).as_posix()
            for fn in sorted(filenames):
                rel = fn if rel_dir == "." else f"{rel_dir}/{fn}"
                if self.config.include and not matches_any(rel, self.config.include):
                    continue
                if matches_any(rel, self.config.exclude):
                    continue
                try:
                    st = os.stat(os.path.join(dirpath, fn))
                except OSError:
                    continue
                yield rel, st

    def list_ids(self) -> set[str]:
        return {doc_id(self.name, rel) for rel, _ in self.walk() if rel not in self._unreadable}

    # -- loading ---------------------------------------------------------------------------
    def load(self, since: str | None) -> Iterator[LoadBatch]:
        old: dict[str, list[Any]] = json.loads(since).get("files", {}) if since else {}
        new: dict[str, list[Any]] = {}
        batch: list[SourceDocument] = []
        self._unreadable = set()
        listing = list(self.walk())
        root = self._root()
        for rel, st in listing:
            before = old.get(rel)
            if before and before[0] == st.st_mtime_ns and before[1] == st.st_size:
                new[rel] = before
                if before[3]:  # still unreadable: said again on every run, until it changes
                    self._unreadable.add(rel)
                    if self._on_problem:
                        self._on_problem(f"{rel}: {before[3]}")
                continue
            entry, doc = self._read(root, rel, st, before)
            new[rel] = entry
            if entry[3]:
                self._unreadable.add(rel)
            if doc is not None:
                batch.append(doc)
            if len(batch) >= BATCH_SIZE:
                yield LoadBatch(batch, json.dumps({"files": {**old, **new}}), total=len(listing))
                batch = []
        yield LoadBatch(batch, json.dumps({"files": new}), total=len(listing))

    def _read(
        self, root: Path, rel: str, st: os.stat_result, before: list[Any] | None
    ) -> tuple[list[Any], SourceDocument | None]:
        if st.st_size > self.config.max_file_bytes:  # never read: a 50 GB image stays unread
            return self._problem(rel, st, "", too_large(st.st_size, self.config.max_file_bytes)), None
        try:
            data = (root / rel).read_bytes()
        except OSError as e:
            return self._problem(rel, st, "", f"cannot read: {e.strerror or e}"), None
        sha = hashlib.sha256(data).hexdigest()
        if before and before[2] == sha:  # touched, not changed
            return [st.st_mtime_ns, st.st_size, sha, before[3]], None
        try:
            converted = convert_bytes(rel, data, self.config.max_file_bytes)
        except Unreadable as e:
            return self._problem(rel, st, sha, e.reason), None
        url = self._url(root, rel)
        metadata: dict[str, Any] = {
            "path": rel,
            "format": converted.format,
            "bytes": len(data),
            "sha256": sha,
            "acl": self.config.acl,
            **converted.metadata,
        }
        doc = SourceDocument(
            id=doc_id(self.name, rel),
            type=SourceType.FILES,
            kind="file",
            title=converted.title or rel,
            url=url,
            updated_at=datetime.fromtimestamp(st.st_mtime, UTC).isoformat(timespec="seconds"),
            content=converted.text,
            metadata=metadata,
            reference_text={"content": converted.text, "links": "\n".join(converted.links)},
        )
        return [st.st_mtime_ns, st.st_size, sha, ""], doc

    def _problem(self, rel: str, st: os.stat_result, sha: str, reason: str) -> list[Any]:
        if self._on_problem:
            self._on_problem(f"{rel}: {reason}")
        return [st.st_mtime_ns, st.st_size, sha, reason]

    def _url(self, root: Path, rel: str) -> str:
        if self.config.browse_url:
            return f"{self.config.browse_url.rstrip('/')}/{rel}"
        return (root / rel).resolve().as_uri()
