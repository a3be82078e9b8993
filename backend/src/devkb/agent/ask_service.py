"""``AskService``: a question (and optional source filter) → an answer with citations.

The walking skeleton answers by hybrid retrieval plus an extractive answer; the agent plugs in
behind the same ``ask`` call.
"""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent.answer import Answer, Citation, ToolCall
from devkb.agent.extractive import NO_ANSWER, compose_extractive, snippet
from devkb.agent.hybrid_search import HybridSearch
from devkb.store.models import SourceType


class AskService:
    def __init__(self, search: HybridSearch, top_k: int = 6) -> None:
        self.search = search
        self.top_k = top_k

    def ask(self, question: str, sources: Sequence[SourceType] | None = None) -> Answer:
        hits = self.search.search(question, top_k=self.top_k, types=sources)
        call = ToolCall("RAGSearch", {"query": question, "sources": [s.value for s in sources or []]}, len(hits))
        if not hits:
            return Answer(NO_ANSWER, [], [call], "extractive")
        citations = [
            Citation(
                document_id=h.document.id,
                title=h.document.title,
                url=h.document.url,
                type=h.document.type.value,
                score=round(h.score, 6),
                snippet=snippet(h.chunks[0].chunk.content, question),
            )
            for h in hits
        ]
        passages = [(i + 1, c.chunk.content) for i, h in enumerate(hits) for c in h.chunks]
        return Answer(compose_extractive(question, passages), citations, [call], "extractive")
