"""Names in a question resolved against what the store knows, as the reader may see it (the
toolbox's store is the reader's: documents they may not read are never found)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from devkb.agent.question import words_of
from devkb.store.models import Document
from devkb.store.protocol import GraphStore

_PEOPLE_FIELDS = ("assignee", "reporter", "author")


class StoreResolver:
    """:class:`~devkb.agent.frame.extract.Resolver` over a graph store."""

    def __init__(
        self,
        store: GraphStore,
        project_keys: Iterable[str] = (),
        allows: Callable[[Document], bool] = lambda d: True,
        asker: str = "",
    ) -> None:
        self.store = store
        self.asker_name = asker
        self.project_keys = {k.upper() for k in project_keys}
        self.allows = allows
        self._names: dict[str, str] | None = None

    def people(self, said: str) -> list[str]:
        words = set(words_of(said))
        if not words:
            return []
        exact = [d for d in self.store.find_documents({"people": said}, limit=3) if self.allows(d)]
        exact += [
            d
            for f in _PEOPLE_FIELDS
            if not exact
            for d in self.store.find_documents({f: said}, limit=3)
            if self.allows(d)
        ]
        for d in exact:
            for p in _people(d):
                if p.lower() == said.lower():
                    return [p]
        seen: Counter[str] = Counter()
        for hit in self.store.keyword_search(said, top_k=50):
            if not self.allows(hit.document):
                continue
            for p in _people(hit.document):
                if " " in p.strip() and words <= set(words_of(p)):
                    seen[p.strip()] += 1
        names = sorted(seen, key=lambda p: (-seen[p], p))
        return list({tuple(words_of(n)): n for n in reversed(names)}.values())[::-1]

    def asker(self) -> str:
        return self.asker_name

    def value(self, field: str, said: str) -> str | None:
        for d in self.store.find_documents({field: said}, limit=1):
            raw = d.metadata.get(field)
            for v in raw if isinstance(raw, list) else [raw]:
                if isinstance(v, str) and v.lower() == said.lower():
                    return v
        return None

    def title(self, said: str) -> str | None:
        """The one document title holding ``said`` (case-insensitive), the shortest when several
        do ("Idempotency Keys Design" → "Idempotency Keys Design"), or None."""
        docs = [d for d in self.store.find_documents(title_contains=said, limit=20) if self.allows(d)]
        if not docs:
            return None
        return min((d.title for d in docs), key=len)

    def project_named(self, said: str, by_name: bool = False) -> str | None:
        """A project's key said as its key (any case); with ``by_name``, also said by the
        project's name as the store holds it ("Fluid Infusion", "Decapod"), or by words of only one
        project's name ("Infusion")."""
        key = said.upper()
        if key in self.project_keys and " " not in said:
            return key
        if not by_name:
            return None
        said_words = words_of(said)
        names = self._project_names()
        exact = [k for k, n in names.items() if words_of(n) == said_words]
        if exact:
            return exact[0]
        part = [k for k, n in names.items() if said_words and set(said_words) <= set(words_of(n))]
        return part[0] if len(part) == 1 else None

    def _project_names(self) -> dict[str, str]:
        """Each project's name as the reader's documents hold it (``project_name``)."""
        if self._names is None:
            self._names = {}
            for key in sorted(self.project_keys):
                for d in self.store.find_documents({"project": key}, limit=5):
                    name = d.metadata.get("project_name")
                    if self.allows(d) and isinstance(name, str) and name:
                        self._names[key] = name
                        break
        return self._names


def _people(doc: Document) -> list[str]:
    meta = doc.metadata
    out = [meta.get(f) for f in _PEOPLE_FIELDS] + list(meta.get("people") or [])
    return [p for p in out if isinstance(p, str) and p]
