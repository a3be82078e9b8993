"""A reference rule: which documents it reads, which parts of the ``LinkContext`` it depends on.

The dependency list lets the extractor compute, per source type, a *signature* of everything
that can change the edges of a document without the document itself changing (a new
Confluence page title, a new Jira project, a documentation site added to the config). When a
source's documents were extracted under another signature, ``ReferenceBackfill`` re-extracts
them (see ``backfill.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from devkb.indexing.references.context import LinkContext
from devkb.sources.base import SourceDocument
from devkb.store.models import Reference, SourceType

RuleFn = Callable[[SourceDocument, LinkContext], Iterable[Reference]]


@dataclass(frozen=True)
class ReferenceRule:
    name: str
    applies_to: frozenset[SourceType]
    uses: frozenset[str]  # LinkContext fields the result depends on
    fn: RuleFn

    def __call__(self, doc: SourceDocument, ctx: LinkContext) -> Iterable[Reference]:
        return self.fn(doc, ctx) if doc.type in self.applies_to else []


def context_signature(ctx: LinkContext, fields: Iterable[str]) -> str:
    """A stable hash of the named context fields."""
    payload = {}
    for name in sorted(set(fields)):
        value = getattr(ctx, name)
        if isinstance(value, dict):
            value = sorted((k, sorted(v) if isinstance(v, (set, frozenset)) else v) for k, v in value.items())
        elif isinstance(value, (set, frozenset)):
            value = sorted(value)
        payload[name] = value
    raw = json.dumps(
        payload, sort_keys=True, default=lambda v: sorted(v) if isinstance(v, (set, frozenset)) else str(v)
    )
    return hashlib.sha256(raw.encode()).hexdigest()[:24]
