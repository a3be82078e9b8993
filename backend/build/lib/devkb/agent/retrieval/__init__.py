"""Improved ranking for ``RAGSearch``: ``RelatedSearch`` (features, a learnt linear model, an
in-memory snapshot of the store). See ``related_search.py`` and docs/evaluation.md."""

from devkb.agent.retrieval.related_search import RelatedSearch

__all__ = ["RelatedSearch"]
