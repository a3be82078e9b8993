"""``FetchNeighbors``: expand selected documents one REFERENCES hop, in both directions
(commits that name an issue, issues linked to it, pages it mentions, ...), optionally only some
edge kinds; merge with the selection and de-duplicate by document id.

Seeds are the given document ids or, by default, the current selection. Seeds and neighbours
of source types the question may not see are dropped here, whatever the caller asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Literal

from haystack.tools.from_function import create_tool_from_function
from haystack.tools.tool import Tool

from devkb.access.scoped_store import ReaderStore
from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.patterns import DOCUMENT_ID, KIND_NAME
from devkb.agent.tools.content import load_content
from devkb.agent.tools.rendering import render_documents
from devkb.errors import InvalidQueryError
from devkb.store.models import Neighbor

NAME = "FetchNeighbors"
MAX_SEEDS = 10
MAX_LIMIT = 40
NEIGHBOR_CHARS = 1500

DESCRIPTION = (
    "Expand documents through their references, both directions: commits and pull requests that "
    "name an issue, linked issues (relates to, depends on, duplicates), pages or files an issue "
    "mentions. Use it for 'what is related / linked / fixed by / touched by ...'. Without "
    "document_ids it expands the documents found so far."
)


class FetchNeighbors:
    name = NAME

    def __init__(self, store: ReaderStore, limit: int = 20, default_seeds: int = 5) -> None:
        self.store = store
        self.limit = limit
        self.default_seeds = default_seeds

    def run(
        self,
        scope: Scope,
        document_ids: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        direction: Literal["both", "out", "in"] = "both",
        limit: int | None = None,
        accept: Callable[[Neighbor], bool] | None = None,
        relation: str | None = None,
    ) -> list[EvidenceDoc]:
        """``accept`` (rules only, never a model argument) keeps the neighbours that answer a
        relation in its direction; ``relation`` names it in the tool call log."""
        if direction not in ("both", "out", "in"):
            raise InvalidQueryError(f"direction must be both, out or in, not {direction!r}")
        bad = [k for k in kinds or [] if not KIND_NAME.match(str(k))]
        if bad:
            raise InvalidQueryError(f"not an edge kind: {bad[0]!r}")
        k = max(1, min(int(limit or self.limit), MAX_LIMIT))
        seeds = self._seeds(scope, document_ids)
        neighbors = (
            self.store.neighbors(
                [s.id for s in seeds],
                direction,
                kinds=list(kinds) if kinds else None,
                types=scope.allowed_types,
                limit=k,
            )
            if seeds
            else []
        )
        titles = {s.id: s.document.title for s in seeds}
        grouped: dict[str, list[Neighbor]] = {}
        for n in neighbors:
            if n.document.id == n.via:
                continue  # a document is never its own neighbour
            if scope.allows(n.document) and (accept is None or accept(n)):
                grouped.setdefault(n.document.id, []).append(n)
        found = []
        for rank, (doc_id, edges) in enumerate(grouped.items()):
            doc = edges[0].document
            text = load_content(self.store, doc_id, NEIGHBOR_CHARS) or doc.title
            how = "; ".join(dict.fromkeys(_relation(e, titles) for e in edges))
            found.append(EvidenceDoc(doc, (text,), 0.5 / (1 + rank), NAME, how))
        accepted = scope.add(found)
        arguments: dict[str, object] = {"document_ids": [s.id for s in seeds], "direction": direction}
        if kinds:
            arguments["kinds"] = list(kinds)
        if relation:
            arguments["relation"] = relation
        scope.record(ToolCall(NAME, arguments, len(accepted)))
        return seeds + accepted

    def _seeds(self, scope: Scope, document_ids: Sequence[str] | None) -> list[EvidenceDoc]:
        if not document_ids:
            return scope.selection[: self.default_seeds]
        ids = [i for i in dict.fromkeys(str(x) for x in document_ids) if DOCUMENT_ID.match(i)][:MAX_SEEDS]
        seeds = []
        for doc in self.store.get_documents(ids):
            if not scope.allows(doc):
                continue
            known = scope.known(doc.id)
            if known is None:
                text = load_content(self.store, doc.id, NEIGHBOR_CHARS) or doc.title
                known = EvidenceDoc(doc, (text,), 0.6, NAME)
            seeds.append(known)
        return scope.add(seeds)

    def as_tool(self, scope: Scope) -> Tool:
        def fetch_neighbors(
            document_ids: Annotated[
                list[str] | None,
                "Ids of documents to expand, e.g. jira:FLUID-5327; default: the documents found so far.",
            ] = None,
            kinds: Annotated[list[str] | None, "Only these edge kinds, e.g. jira-issuelink."] = None,
            direction: Annotated[
                Literal["both", "out", "in"],
                "out: what they reference; in: what references them; both (default).",
            ] = "both",
            limit: Annotated[int, "Maximum number of neighbours (1-40)."] = self.limit,
        ) -> str:
            docs = self.run(scope, document_ids, kinds, direction, limit)
            return render_documents(
                scope, docs, "FetchNeighbors results (selected documents and their neighbours)"
            )

        return create_tool_from_function(fetch_neighbors, name=NAME, description=DESCRIPTION)


def _relation(n: Neighbor, titles: dict[str, str]) -> str:
    via = n.via.split(":", 1)[-1] if n.via.startswith("jira:") else titles.get(n.via, n.via)
    # direction is seen from the seed: "out" = the seed points at this neighbour
    subject = f"{via} references this" if n.direction == "out" else f"this references {via}"
    evidence = f" ({n.kind}: {n.evidence})" if n.evidence else f" ({n.kind})"
    return subject + evidence
