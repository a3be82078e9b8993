"""The GitHub loader's cursor: per repository, how far each kind of document is indexed.

    {"v": 1, "repos": {"acme/payments": {
        "head": "<sha>",            files and default-branch commits are indexed up to this commit
        "pending": {"head": "<sha>", "phase": "files" | "commits", "done": 120},
                                    a sync towards a newer head that stopped part-way
        "pulls": "<updated_at>",    pull requests updated before this are indexed
        "issues": "<updated_at>"}}}

Every batch carries the cursor that is true once that batch is written, so a run that crashes
resumes after the last written batch: a pending phase continues at ``done`` when HEAD is still
the same commit, and starts over against the new HEAD otherwise (unchanged documents are then
skipped by their content hash, nothing is re-embedded).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class RepoCursor:
    head: str | None = None
    pending: dict[str, Any] | None = None
    pulls: str | None = None
    issues: str | None = None


@dataclass
class GitHubCursor:
    repos: dict[str, RepoCursor] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: str | None) -> GitHubCursor:
        if not raw:
            return cls()
        try:
            data = json.loads(raw)
        except ValueError:
            return cls()  # an unreadable cursor means: load everything (hashes skip the unchanged)
        repos = {}
        for name, value in (data.get("repos") or {}).items():
            if isinstance(value, dict):
                repos[name] = RepoCursor(**{k: value.get(k) for k in ("head", "pending", "pulls", "issues")})
        return cls(repos)

    def repo(self, name: str) -> RepoCursor:
        return self.repos.setdefault(name, RepoCursor())

    def dump(self) -> str:
        return json.dumps(
            {"v": 1, "repos": {k: asdict(v) for k, v in sorted(self.repos.items())}}, sort_keys=True
        )
