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
"""

from __future__ import annotations

from typing import Any

from haystack import Document as HsDocument


class SharedDocument(HsDocument):
    """A Haystack ``Document`` that Haystack's pipeline hands on instead of deep-copying; never
    mutate one in place (use ``dataclasses.replace``)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedDocument:
        return self
