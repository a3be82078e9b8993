"""``RAGSearch``: hybrid retrieval (vector + full-text, fused by reciprocal rank fusion) over
chunks; documents with their best chunks.

The query is plain text: the store embeds it and turns it into quoted full-text terms, so no
query syntax from a model reaches it. Allowed sources are applied twice — as a store filter and
again on every hit.
"""

from __future__ import annotations

from typing import Annotated

from haystack.tools.from_function import create_tool_from_function
from haystack.tools.tool import Tool

from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.tools.rendering import render_documents
from devkb.errors import InvalidQueryError
from devkb.memory.model import is_current, now_iso

NAME = "RAGSearch"
MAX_QUERY_CHARS = 1000
MAX_TOP_K = 20

DESCRIPTION = (
    "Semantic and keyword search over every indexed chunk of Jira issues, Confluence pages and "
    "GitHub files, pull requests and commits. Use it for broad or conceptual questions (how, why, "
    "what does the documentation say about ...). Returns numbered documents with their best passages."
)


SPARE = 4  # hits beyond top_k, for memories that are no longer (or not yet) current


class RAGSearch:
    name = NAME

    def __init__(self, search: HybridSearch, top_k: int = 8, chunks_per_document: int = 2) -> None:
        self.search = search
        self.top_k = top_k
        self.chunks_per_document = chunks_per_document

    def run(
        self, scope: Scope, query: str, top_k: int | None = None, anchor: str | None = None
    ) -> list[EvidenceDoc]:
        query = " ".join(query.split())
        if not query:
            raise InvalidQueryError("RAGSearch needs a non-empty query")
        query = query[:MAX_QUERY_CHARS]
        k = max(1, min(int(top_k or self.top_k), MAX_TOP_K))
        # anchor: the document the question is about; RelatedSearch (agent/retrieval) ranks by it
        extra = {"anchor": anchor.strip()} if anchor and anchor.strip() else {}
        hits = self.search.search(
            query,
            top_k=k + SPARE,
            types=scope.allowed_types,
            chunks_per_document=self.chunks_per_document,
            **extra,
        )
        now = now_iso()
        docs = [
            EvidenceDoc(h.document, tuple(c.chunk.content for c in h.chunks), h.score, NAME)
            for h in hits
            if scope.allows(h.document) and is_current(h.document, now)  # no superseded memory
        ][:k]
        accepted = scope.add(docs)
        scope.record(ToolCall(NAME, {"query": query, "top_k": k, **extra}, len(accepted)))
        return accepted

    def as_tool(self, scope: Scope) -> Tool:
        def rag_search(
            query: Annotated[str, "What to search for, in natural language or keywords."],
            top_k: Annotated[int, "How many documents to return (1-20)."] = self.top_k,
            anchor: Annotated[
                str | None,
                "Optional id of the document the question is about (e.g. jira:FLUID-123): "
                "documents related to it rank first and it is left out.",
            ] = None,
        ) -> str:
            return render_documents(scope, self.run(scope, query, top_k, anchor), "RAGSearch results")

        return create_tool_from_function(rag_search, name=NAME, description=DESCRIPTION)
