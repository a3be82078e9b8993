"""The agent's four read-only retrieval tools, one module each, and the ``Toolbox`` that binds
them to one question's ``Scope`` as Haystack tools.

Tools are built per question (``Toolbox.bind``) so the allowed sources and the selection they
share can never be widened or read by another question — not by a prompt, not by a model
passing extra arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from haystack.tools.tool import Tool

from devkb.access.readers import bound_to_current_reader
from devkb.access.scoped_store import ReaderStore
from devkb.agent.evidence import Scope
from devkb.agent.further import FurtherReading
from devkb.agent.hybrid_search import HybridSearch
from devkb.agent.meaning import SentenceMeaning
from devkb.agent.tools.fetch_neighbors import FetchNeighbors
from devkb.agent.tools.filter_docs import FilterDocs
from devkb.agent.tools.graph_query import GraphQuery
from devkb.agent.tools.rag_search import RAGSearch
from devkb.memory.conversations import ConversationRecall
from devkb.memory.service import MemoryService

TOOL_NAMES = (RAGSearch.name, GraphQuery.name, FetchNeighbors.name, FilterDocs.name)

__all__ = ["TOOL_NAMES", "FetchNeighbors", "FilterDocs", "GraphQuery", "RAGSearch", "Toolbox"]


class Toolbox:
    """The tools, and a small long-lived thread pool they run on when the Agent calls them.

    The Agent starts fresh threads for every step's tool calls; running the store work on a
    fixed pool instead keeps per-thread store connections (SQLite) from piling up in a server.
    """

    def __init__(
        self,
        store: ReaderStore,
        search: HybridSearch,
        project_keys: Callable[[], Iterable[str]] | None = None,
        workers: int = 4,
        memories: MemoryService | None = None,
        conversations: ConversationRecall | None = None,
        meaning: SentenceMeaning | None = None,
    ) -> None:
        # what the extractive answer reads beyond the tools: the meaning of sentences (the
        # search's embedder, agent/meaning.py; None: words only) and the found documents'
        # other passages (agent/further.py, through the reader's store)
        self.meaning = meaning
        self.further: FurtherReading | None = FurtherReading(store)
        # team memory (memory/): what "Remember that …" writes and "what did I ask …" reads
        self.memories = memories
        self.conversations = conversations
        self.rag_search = RAGSearch(search)
        self.graph_query = GraphQuery(store, project_keys)
        self.fetch_neighbors = FetchNeighbors(store)
        self.filter_docs = FilterDocs()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="devkb-tool")

    def bind(self, scope: Scope) -> list[Tool]:
        """The four tools as Haystack tools, bound to ``scope`` and to the current reader (the
        Agent calls them on threads of its own, which do not carry the request's reader)."""
        tools = [
            t.as_tool(scope)
            for t in (self.rag_search, self.graph_query, self.fetch_neighbors, self.filter_docs)
        ]
        return [replace(t, function=self._on_pool(t.function)) for t in tools]

    def _on_pool(self, function: Callable[..., Any] | None) -> Callable[..., Any]:
        assert function is not None
        as_reader = bound_to_current_reader(function)

        def run(**kwargs: Any) -> Any:
            return self._pool.submit(as_reader, **kwargs).result()

        return run
