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
    mutate one in place (use ``dataclasses.replace``)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedDocument:
        return self


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
