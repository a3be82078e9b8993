"""``ReferenceExtractor``: a document's text → REFERENCES edges with kind and evidence.

Rules (kinds follow the evaluation's ground truth so fidelity can be measured directly):
- ``jira-key-mention``: a Jira issue's text names another issue key (``FLUID-123``) or its
  browse URL → edge from the mentioning issue to the mentioned one.
Further cross-source rules (commits, pull requests, files, Confluence pages) are registered by
``rules`` modules through ``ReferenceExtractor.rules``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from devkb.indexing.references.context import LinkContext
from devkb.sources.base import SourceDocument
from devkb.store.models import Reference, SourceType

ISSUE_KEY = re.compile(r"(?<![A-Za-z0-9_\-])([A-Z][A-Z0-9]+)-([1-9][0-9]*)(?![A-Za-z0-9_])")

Rule = Callable[[SourceDocument, LinkContext], Iterable[Reference]]


def issue_keys(text: str, project_keys: set[str]) -> list[str]:
    """Issue keys in ``text`` whose project is known, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in ISSUE_KEY.finditer(text or ""):
        if m.group(1) in project_keys:
            seen.setdefault(f"{m.group(1)}-{m.group(2)}", None)
    return list(seen)


def jira_mentions(doc: SourceDocument, ctx: LinkContext) -> Iterable[Reference]:
    if doc.type is not SourceType.JIRA:
        return []
    own = doc.metadata.get("key")
    linked = {r.to_id for r in doc.references}
    out: dict[str, Reference] = {}
    for field_name, text in doc.reference_text.items():
        for key in issue_keys(text, ctx.project_keys):
            target = f"jira:{key}"
            if key == own or target in linked or target in out:
                continue
            out[target] = Reference(doc.id, target, "jira-key-mention", key, doc.id)
    return list(out.values())


class ReferenceExtractor:
    def __init__(self, rules: list[Rule] | None = None) -> None:
        self.rules: list[Rule] = rules if rules is not None else [jira_mentions]

    def extract(self, doc: SourceDocument, ctx: LinkContext) -> list[Reference]:
        found: dict[tuple[str, str, str], Reference] = {}
        for r in list(doc.references) + [r for rule in self.rules for r in rule(doc, ctx)]:
            if r.from_id != r.to_id:
                found.setdefault((r.from_id, r.to_id, r.kind), r)
        return list(found.values())
