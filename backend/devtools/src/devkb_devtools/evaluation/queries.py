"""Related-issue queries: ``{"query_key": KEY, "relevant": {KEY: grade}}`` per line (the format
of ``eval/linked_issues_dev.jsonl``), turned into query texts.

The query text is the issue's summary and description as the indexed corpus holds them — with
issue links stripped (the emulator's ``strip_links`` switch), so a query never names the issues
it is judged against.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devkb.sources.jira.convert import jira_doc_id
from devkb_devtools.emulators.link_stripping import strip_issue_links


@dataclass(frozen=True)
class RelatedQuery:
    key: str
    text: str
    relevant: dict[str, int] = field(default_factory=dict)  # document id → grade

    @property
    def doc_id(self) -> str:
        return jira_doc_id(self.key)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def query_text(issue: dict[str, Any]) -> str:
    f = issue.get("fields") or {}
    summary = (f.get("summary") or "").strip()
    description = (f.get("description") or "").strip()
    return f"{summary}\n\n{description}".strip()


def load_issues(fluid_dir: Path) -> dict[str, dict[str, Any]]:
    return {i["key"]: i for i in read_jsonl(fluid_dir / "jira" / "issues.jsonl.gz")}


def linked_keys(issues: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    """Both ends of every issue link (what ``strip_links`` removes)."""
    out: dict[str, set[str]] = {}
    for key, issue in issues.items():
        for link in (issue.get("fields") or {}).get("issuelinks") or []:
            other = (link.get("outwardIssue") or link.get("inwardIssue") or {}).get("key")
            if other:
                out.setdefault(key, set()).add(other)
                out.setdefault(other, set()).add(key)
    return out


def load_queries(path: Path, fluid_dir: Path, limit: int | None = None) -> list[RelatedQuery]:
    """Queries of ``path`` whose issue is in the corpus, with stripped texts. Relevant issues
    missing from the corpus are dropped (none are, in the Fluid package)."""
    issues = load_issues(fluid_dir)
    links = linked_keys(issues)
    out = []
    for row in read_jsonl(path):
        key = row["query_key"]
        issue = issues.get(key)
        if issue is None:
            continue
        relevant = {jira_doc_id(k): int(g) for k, g in row["relevant"].items() if k in issues and k != key}
        if not relevant:
            continue
        stripped = strip_issue_links(issue, links.get(key, set()))
        out.append(RelatedQuery(key=key, text=query_text(stripped), relevant=relevant))
        if limit is not None and len(out) >= limit:
            break
    return out
