"""``SharedDocument``: the Haystack ``Document`` the indexing pipelines pass between components
without copying it.

Haystack deep-copies every input of every component (``Pipeline._run_component``), so that one
component cannot change what another receives. Our components never change a document they
receive: they build new ones (the splitter makes chunk documents, the embedder uses
``dataclasses.replace``), which is also what Haystack asks of components (it warns on in-place
mutation). For them the copies are pure cost, and not a small one: a source document carries its
``SourceDocument`` and metadata in ``meta``, a chunk its 384-float embedding, and each goes
through two to four components — on the whole Fluid corpus deep copies took more CPU than
loading, splitting, reference extraction and the store writes together.

A ``SharedDocument`` is its own deep copy. ``dataclasses.replace`` keeps the class, so a chunk
stays shared after the embedder has set its vector.

A ``Batch`` carries a component's list of documents, chunks or references to the next one as a
single object. Before deep-copying an item Haystack asks whether it is a ``Component``, a
runtime protocol check that walks the protocol's attributes on every call: per item, that was
~1 s of CPU on a whole-Fluid first index (8 % of everything outside the embedder). A ``Batch``
is checked once and is its own deep copy; like its items, it is never changed after it is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar, overload

from haystack import Document as HsDocument

T = TypeVar("T")


class SharedDocument(HsDocument):
    """A Haystack ``Document`` that Haystack's pipeline hands on instead of deep-copying; never
    mutate one in place (use ``dataclasses.replace`` or ``of``)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedDocument:
        return self

    @classmethod
    def of(
        cls, id: str, content: str, meta: dict[str, Any], embedding: Sequence[float] | None = None
    ) -> SharedDocument:
        """A document with its id given, made without Haystack's constructor: its legacy-field
        filter, its in-place-mutation tracking of every field set, and its ``__post_init__``
        (an id hash we never use, and a vector turned into a list of Python floats) were ~15 % of
        the sync's own CPU on the whole Fluid corpus, for ~35,000 documents and chunks. The vector
        stays the embedder's float32 row, which the store writes as bytes."""
        if not id or not isinstance(content, str):
            raise ValueError("a SharedDocument needs an id and text content")
        doc = object.__new__(cls)
        doc.__dict__.update(
            id=id,
            content=content,
            blob=None,
            meta=meta,
            score=None,
            embedding=embedding,
            sparse_embedding=None,
        )
        return doc

    def __eq__(self, other: object) -> bool:
        """Haystack's equality, with a vector that may be a numpy row (``of``)."""
        if type(self) is not type(other):
            return False
        assert isinstance(other, SharedDocument)
        mine, theirs = self.embedding, other.embedding
        same_vector = (mine is None) == (theirs is None) and (
            mine is None or list(map(float, mine)) == list(map(float, theirs or []))
        )
        return same_vector and (
            self.id,
            self.content,
            self.blob,
            self.meta,
            self.score,
            self.sparse_embedding,
        ) == (other.id, other.content, other.blob, other.meta, other.score, other.sparse_embedding)

    __hash__ = None  # type: ignore[assignment]


class Batch(Sequence[T]):
    """An immutable list the indexing pipelines hand from one component to the next without
    copying (see the module docstring)."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items: tuple[T, ...] = tuple(items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Batch):
            return self._items == other._items
        if isinstance(other, list | tuple):
            return list(self._items) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Batch({list(self._items)!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> Batch[T]:
        return self
