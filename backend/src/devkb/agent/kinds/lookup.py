"""Lookup: the question names documents (an issue key in any case for a known project, a SHA, a
pull request, a path, a quoted title, a repository, a project, a space) → ``GraphQuery`` with the
parsed lookups. Issue keys that match nothing are *not found* (with close matches, if any) and
nothing else is looked up for them; anything else that found nothing falls back to a search."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.access.readers import EVERYTHING, current_reader
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.kinds.base import Context, QuestionKind, Step
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools import GraphQuery, RAGSearch, Toolbox


class Lookup(QuestionKind):
    answers_focus = True
    name = "lookup"

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return parsed.anchored

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [Step(GraphQuery.name, "identifiers: " + ", ".join(sorted(parsed.lookups.kinds)))]

    def run(self, ctx: Context) -> None:
        look_up(ctx, self.plan(ctx.parsed, bool(ctx.carried))[0])


def look_up(ctx: Context, step: Step) -> None:
    """The named documents become the anchors; keys that match nothing are reported."""
    parsed, out = ctx.parsed, ctx.outcome
    found = ctx.toolbox.graph_query.run(ctx.scope, lookups=parsed.lookups.lookups)
    out.not_found = missing_keys(ctx.toolbox, parsed, found, ctx.scope)
    out.filtered_out = filtered_out(ctx.toolbox, list(out.not_found), ctx.scope)
    out.reads_all = reads_all()
    out.anchors = list(found)
    ctx.took(step)
    named_only_keys = parsed.lookups.kinds <= {"issue"}
    if not found and not (out.not_found and named_only_keys):
        search_instead(ctx)


def search_instead(ctx: Context) -> None:
    ctx.toolbox.rag_search.run(ctx.scope, ctx.parsed.text)
    ctx.took(Step(RAGSearch.name, "the lookup found nothing"))


def missing_keys(
    toolbox: Toolbox, parsed: ParsedQuestion, found: Sequence[EvidenceDoc], scope: Scope
) -> dict[str, tuple[str, ...]]:
    """The issue keys the question names that ``found`` does not hold, with close matches."""
    have = {str(d.document.metadata.get("key") or "").upper() for d in found}
    missing = [k for k in parsed.issue_keys if k.upper() not in have]
    return {k: close_matches(toolbox, k, scope) for k in missing}


def filtered_out(toolbox: Toolbox, keys: Sequence[str], scope: Scope) -> dict[str, str]:
    """Of ``keys`` (issue keys the question names and the scope did not find), those whose
    document the reader may read but the question's source filter leaves out: key → its
    source type (``JIRA``). Read through the reader's store, so a document the reader may
    not read is never reported here (it reads as not found)."""
    if scope.allowed is None or not keys:
        return {}
    out: dict[str, str] = {}
    for key in keys:
        for d in toolbox.graph_query.store.find_documents({"key": [key]}, types=None, limit=1):
            if not scope.allows(d):
                out[key] = d.type.value
    return out


def reads_all() -> bool:
    """Whether the current reader reads every document (an admin, or a server without
    accounts): then "not found" may speak of the whole knowledge base."""
    return current_reader(EVERYTHING).unrestricted


def where_readable() -> str:
    """Where "none" is said: the whole knowledge base for a reader of everything, else only what
    the reader may read (a member is never told that nothing exists where they cannot look)."""
    return "in the knowledge base" if reads_all() else "among the documents you can read"


def close_matches(toolbox: Toolbox, key: str, scope: Scope, limit: int = 3) -> tuple[str, ...]:
    """Existing keys one edit away from ``key`` (a digit dropped, changed or swapped)."""
    project, _, number = key.partition("-")
    variants: set[str] = set()
    for i in range(len(number)):
        variants.add(number[:i] + number[i + 1 :])
        for d in "0123456789":
            variants.add(number[:i] + d + number[i + 1 :])
        if i + 1 < len(number):
            variants.add(number[:i] + number[i + 1] + number[i] + number[i + 2 :])
    keys = sorted(f"{project}-{v}" for v in variants if v and not v.startswith("0") and v != number)
    docs = toolbox.graph_query.store.find_documents({"key": keys}, types=scope.allowed_types, limit=limit)
    return tuple(str(d.metadata.get("key") or d.id) for d in docs if scope.allows(d))
