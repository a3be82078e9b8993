"""Jira issue keys mentioned in GitHub and Confluence documents.

    commit message          jira:KEY → commit       jira-key-in-commit-message
    PR title, branch, body  jira:KEY → pull         jira-key-in-pull-request
    repository file         file → jira:KEY         jira-key-in-doc
    Confluence page body    page → jira:KEY         jira-key-in-confluence-page
    page version messages   page → jira:KEY         jira-key-in-version-message
    GitHub issue            issue → jira:KEY        jira-key-in-github-issue
    file (files source)     file → jira:KEY         jira-key-in-doc
    web page                page → jira:KEY         jira-key-in-web-page
    upload                  upload → jira:KEY       jira-key-in-doc
    memory                  memory → jira:KEY       jira-key-in-memory

A key counts when its project is one Jira reports (``LinkContext.project_keys``); an edge to an
issue that does not exist stays hidden by the store until that issue is indexed. Keys inside
links count too (``…/tree/FLOE-240-2`` names FLOE-240). The evidence is the key as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.rule import ReferenceRule
from devkb.sources.base import VERSION_MESSAGES_FIELD, SourceDocument
from devkb.store.models import Reference, SourceType

# not after a letter, digit or "_" (checked after the first letter: see extractor.ISSUE_KEY)
KEY_IN_TEXT = re.compile(r"([A-Z](?<![A-Za-z0-9_][A-Z])[A-Z0-9]+)-(\d+)(?!\d)")

# document kind → (edge kind, edge points from the issue to the document?)
KINDS: dict[str, tuple[str, bool]] = {
    "commit": ("jira-key-in-commit-message", True),
    "pull": ("jira-key-in-pull-request", True),
    "file": ("jira-key-in-doc", False),
    "page": ("jira-key-in-confluence-page", False),
    "gh-issue": ("jira-key-in-github-issue", False),
    "web-page": ("jira-key-in-web-page", False),
    "upload": ("jira-key-in-doc", False),
    "memory": ("jira-key-in-memory", False),
}

VERSION_MESSAGE_KIND = "jira-key-in-version-message"


def keys_in(text: str, project_keys: set[str]) -> list[str]:
    """Issue keys of known projects in ``text``, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in KEY_IN_TEXT.finditer(text or ""):
        if m.group(1) in project_keys:
            seen.setdefault(m.group(0), None)
    return list(seen)


def jira_keys_in_documents(doc: SourceDocument, ctx: LinkContext) -> Iterable[Reference]:
    spec = KINDS.get(doc.kind)
    if spec is None or not ctx.project_keys:
        return []
    kind, from_issue = spec
    texts = doc.reference_text or {"content": doc.content}
    out: dict[str, Reference] = {}
    for name, text in texts.items():
        # keys named only in a page's edit messages ("ILDH-16: fix typo"), see docs/history.md
        edge = VERSION_MESSAGE_KIND if name == VERSION_MESSAGES_FIELD else kind
        for key in keys_in(text, ctx.project_keys):
            issue = f"jira:{key}"
            if issue in out:
                continue
            a, b = (issue, doc.id) if from_issue else (doc.id, issue)
            out[issue] = Reference(a, b, edge, key, doc.id)
    return list(out.values())


RULE = ReferenceRule(
    name="jira-keys-in-documents",
    applies_to=frozenset(
        {
            SourceType.GITHUB,
            SourceType.CONFLUENCE,
            SourceType.FILES,
            SourceType.WEB,
            SourceType.UPLOAD,
            SourceType.MEMORY,
        }
    ),
    uses=frozenset({"project_keys"}),
    fn=jira_keys_in_documents,
)
