"""What one question may see and what its tools have found so far.

A ``Scope`` lives for one ``ask``: it holds the allowed source types (every tool checks them
itself, whatever the prompt or the model says), the current selection of documents (ordered,
de-duplicated by id), stable citation numbers, and the log of tool calls. Tools may run in
parallel threads (the Haystack Agent runs a step's tool calls concurrently), so every method
takes the lock.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from devkb.agent.answer import ToolCall
from devkb.store.models import Document, SourceType

ToolCallListener = Callable[[ToolCall], None]


@dataclass(frozen=True)
class EvidenceDoc:
    """A document as evidence: its metadata, the passages that support it, how it was found."""

    document: Document
    passages: tuple[str, ...]
    score: float = 0.0
    found_by: str = ""
    relation: str = ""  # for neighbours: how they connect to the selected documents

    @property
    def id(self) -> str:
        return self.document.id


@dataclass
class Scope:
    allowed: tuple[SourceType, ...] | None = None
    on_tool_call: ToolCallListener | None = None
    max_selection: int = 40
    # marks where document text starts and ends in what the model reads; unguessable per question
    boundary: str = field(default_factory=lambda: secrets.token_hex(6))
    _selection: list[EvidenceDoc] = field(default_factory=list)
    _numbers: dict[str, int] = field(default_factory=dict)
    _known: dict[str, EvidenceDoc] = field(default_factory=dict)
    _calls: list[ToolCall] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    @classmethod
    def for_sources(
        cls, sources: Sequence[SourceType] | None, on_tool_call: ToolCallListener | None = None
    ) -> Scope:
        allowed = tuple(dict.fromkeys(sources)) if sources else None
        return cls(allowed=allowed, on_tool_call=on_tool_call)

    # -- access ---------------------------------------------------------------------------
    @property
    def allowed_types(self) -> list[SourceType] | None:
        return list(self.allowed) if self.allowed is not None else None

    def allows_type(self, source_type: SourceType) -> bool:
        return self.allowed is None or source_type in self.allowed

    def allows(self, document: Document) -> bool:
        return self.allowed is None or document.type in self.allowed

    # -- selection ------------------------------------------------------------------------
    def add(self, docs: Iterable[EvidenceDoc]) -> list[EvidenceDoc]:
        """Merge ``docs`` into the selection (allowed ones only); return what was accepted.

        A document already selected keeps its place; its passages and relation are merged."""
        accepted: list[EvidenceDoc] = []
        with self._lock:
            index = {d.id: i for i, d in enumerate(self._selection)}
            for doc in docs:
                if not self.allows(doc.document):
                    continue
                accepted.append(doc)
                self._numbers.setdefault(doc.id, len(self._numbers) + 1)
                if doc.id in index:
                    old = self._selection[index[doc.id]]
                    merged = _merge(old, doc)
                    self._selection[index[doc.id]] = merged
                    self._known[doc.id] = merged
                elif len(self._selection) < self.max_selection:
                    index[doc.id] = len(self._selection)
                    self._selection.append(doc)
                    self._known[doc.id] = doc
        return accepted

    def replace_selection(self, docs: Sequence[EvidenceDoc]) -> None:
        with self._lock:
            self._selection = [d for d in docs if self.allows(d.document)][: self.max_selection]
            for d in self._selection:
                self._numbers.setdefault(d.id, len(self._numbers) + 1)
                self._known[d.id] = d

    @property
    def selection(self) -> list[EvidenceDoc]:
        with self._lock:
            return list(self._selection)

    def known(self, document_id: str) -> EvidenceDoc | None:
        """Any document this question has seen (also ones a filter dropped since)."""
        with self._lock:
            return self._known.get(document_id)

    def number(self, document_id: str) -> int | None:
        """The stable citation number the model sees for a document."""
        with self._lock:
            return self._numbers.get(document_id)

    def by_number(self) -> dict[int, str]:
        with self._lock:
            return {n: i for i, n in self._numbers.items()}

    # -- tool calls -----------------------------------------------------------------------
    def record(self, call: ToolCall) -> None:
        with self._lock:
            self._calls.append(call)
        if self.on_tool_call is not None:
            self.on_tool_call(call)

    @property
    def calls(self) -> list[ToolCall]:
        with self._lock:
            return list(self._calls)


def _merge(old: EvidenceDoc, new: EvidenceDoc) -> EvidenceDoc:
    passages = tuple(dict.fromkeys(old.passages + new.passages))[:4]
    relation = "; ".join(r for r in dict.fromkeys([old.relation, new.relation]) if r)
    return replace(old, passages=passages, score=max(old.score, new.score), relation=relation)
