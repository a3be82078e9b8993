"""``ScopedStore``: the store as the current reader may see it.

Every read made for a person goes through it (the container hands it to the agent's tools, the
API and MCP); indexing and the retrieval snapshot use the unscoped store underneath. It never
returns a document, chunk, edge or count the reader may not read:

- searches (vector, full text) are restricted to the reader's documents inside the store (the
  ``document_ids`` filter every backend implements), so a restricted reader still gets a full
  page of results, and every hit is checked again;
- lookups, finds, neighbours and graph pages are checked document by document, and fetched in
  growing pages until the reader's page is full or the store has no more;
- neighbours are only expanded from documents the reader may read, and edges are only returned
  between two such documents;
- counts (``stats``, ``document_ids``) are the reader's own.

Writes pass through unchanged. With the operator (``Reader.unfiltered``: a server without
accounts, ``--all``) every call is the underlying store's own. An admin reads every document but
other people's private memories: no id filter is pushed into the store, every result is checked.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from devkb.access.policy import AccessPolicy, private_to_another
from devkb.access.readers import Reader
from devkb.store.models import (
    Chunk,
    ChunkHit,
    Document,
    DocumentWithChunks,
    GraphPage,
    Neighbor,
    Reference,
    SourceType,
    StoreStats,
    SyncState,
    Version,
)
from devkb.store.protocol import Direction, GraphStore

T = TypeVar("T")
_BATCH = 500
PUSH_DOWN_IDS = 800  # readable sets up to this size go into the store's own id filter
MAX_GROWTH = 64  # a page is fetched at most at limit × 64 before the store's whole answer is read


class ScopedStore:
    """A ``GraphStore`` that filters every read by ``policy.reader()``."""

    def __init__(self, inner: GraphStore, policy: AccessPolicy, catalog_seconds: float = 5.0) -> None:
        self.inner = inner
        self.policy = policy
        self.catalog_seconds = catalog_seconds
        self._lock = threading.Lock()
        self._catalog: tuple[float, dict[str, Document]] = (-float("inf"), {})
        self._allowed: dict[str, tuple[float, frozenset[str]]] = {}
        self._chunk_counts: dict[tuple[str, str], int] = {}
        self._refreshing = False
        # bumped by ``forget_catalog``; the catalog's is the epoch its re-read began in
        self._epoch = 0
        self._catalog_epoch = 0

    # -- who reads ----------------------------------------------------------------------------
    def reader(self) -> Reader:
        return self.policy.reader()

    def _catalog_documents(self) -> dict[str, Document]:
        """Every document's metadata (refreshed every ``catalog_seconds``, one thread at a time,
        re-reading only documents whose content hash changed — gates are part of it): what the
        reader's allowed set is computed from. A stale entry only costs recall: every result is
        checked again against its own, current metadata."""
        now = time.monotonic()
        with self._lock:
            checked, docs = self._catalog
            current = self._catalog_epoch == self._epoch  # nothing written here since it was read
            if current and (now - checked < self.catalog_seconds or (self._refreshing and docs)):
                return docs
            self._refreshing = True
            epoch = self._epoch
        try:
            ids = sorted(self.inner.document_ids())
            hashes: dict[str, str] = {}
            for i in range(0, len(ids), _BATCH):
                hashes.update(self.inner.content_hashes(ids[i : i + _BATCH]))
            fresh = {i: docs[i] for i in ids if i in docs and docs[i].content_hash == hashes.get(i)}
            changed = [i for i in ids if i not in fresh]
            for i in range(0, len(changed), _BATCH):
                for d in self.inner.get_documents(changed[i : i + _BATCH]):
                    fresh[d.id] = d
        finally:
            with self._lock:
                self._refreshing = False
        with self._lock:
            if epoch >= self._catalog_epoch:  # a re-read that began earlier never replaces a later one
                self._catalog, self._catalog_epoch = (now, fresh), epoch
            self._allowed.clear()
        return fresh

    def forget_catalog(self) -> None:
        """Re-read the catalog on the next restricted read (a document was just written by this
        process: its reader finds it at once, not after ``catalog_seconds`` — also when another
        thread's re-read, begun before the write, is still running)."""
        with self._lock:
            self._catalog = (-float("inf"), self._catalog[1])
            self._epoch += 1
            self._allowed.clear()

    def allowed_ids(self, reader: Reader | None = None) -> frozenset[str] | None:
        """The ids the reader may read, or None for an unrestricted reader."""
        reader = reader or self.reader()
        if reader.unrestricted:
            return None
        docs = self._catalog_documents()
        key = f"{reader.cache_key}\x01{len(self.policy.shared_ids())}:{self.policy.version()}"
        with self._lock:
            hit = self._allowed.get(key)
            if hit is not None and hit[0] == self._catalog[0]:
                return hit[1]
            stamp = self._catalog[0]
        allowed = frozenset(d.id for d in docs.values() if self.policy.may_read(reader, d))
        with self._lock:
            if len(self._allowed) > 1000:
                self._allowed.clear()
            self._allowed[key] = (stamp, allowed)
        return allowed

    def _ok(self, reader: Reader, document: Document) -> bool:
        return self.policy.may_read(reader, document)

    def hidden_memories(self, reader: Reader) -> frozenset[str]:
        """Other people's private memories: what an admin, who reads every other document, may not."""
        if reader.unfiltered:
            return frozenset()
        ids = sorted(self.inner.document_ids(type=SourceType.MEMORY))
        hidden: set[str] = set()
        for i in range(0, len(ids), _BATCH):
            hidden.update(
                d.id for d in self.inner.get_documents(ids[i : i + _BATCH]) if private_to_another(reader, d)
            )
        return frozenset(hidden)

    def _fill(self, fetch: Callable[[int], list[T]], keep: Callable[[T], bool], limit: int) -> list[T]:
        """Up to ``limit`` kept items of ``fetch(n)`` (the store's first ``n``), asking for more
        while the page is short and the store had more."""
        n = max(limit, 1)
        while True:
            got = fetch(n)
            kept = [x for x in got if keep(x)]
            if len(kept) >= limit or len(got) < n or n >= limit * MAX_GROWTH:
                if len(kept) < limit and len(got) >= n:  # still short: read everything
                    got = fetch(1_000_000)
                    kept = [x for x in got if keep(x)]
                return kept[:limit]
            n *= 4

    # -- writes and schema: unchanged -----------------------------------------------------------
    def ensure_schema(self, embedding_model: str, dimension: int) -> None:
        self.inner.ensure_schema(embedding_model, dimension)

    def write_documents(
        self,
        items: Sequence[tuple[Document, Sequence[Chunk]]],
        references: Sequence[Reference] | None = None,
        versions: Sequence[Version] | None = None,
    ) -> None:
        self.inner.write_documents(items, references, versions)

    def write_references(self, owner_ids: Iterable[str], references: Sequence[Reference]) -> None:
        self.inner.write_references(owner_ids, references)

    def delete_documents(self, document_ids: Iterable[str]) -> int:
        return self.inner.delete_documents(document_ids)

    # -- reads ------------------------------------------------------------------------------------
    def get_document(self, document_id: str) -> DocumentWithChunks | None:
        found = self.inner.get_document(document_id)
        if found is None or not self._ok(self.reader(), found.document):
            return None
        return found

    def get_documents(self, document_ids: Sequence[str]) -> list[Document]:
        reader = self.reader()
        return [d for d in self.inner.get_documents(document_ids) if self._ok(reader, d)]

    def content_hashes(self, document_ids: Sequence[str]) -> dict[str, str]:
        reader = self.reader()
        if reader.unfiltered:
            return self.inner.content_hashes(document_ids)
        readable = {d.id for d in self.get_documents(document_ids)}
        return {k: v for k, v in self.inner.content_hashes(document_ids).items() if k in readable}

    def chunk_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        if self.reader().unfiltered:
            return self.inner.chunk_embeddings(chunk_ids)
        return {}  # indexing reads them through the unscoped store; a reader has no use for them

    def document_ids(self, source: str | None = None, type: SourceType | None = None) -> set[str]:
        ids = self.inner.document_ids(source, type)
        allowed = self.allowed_ids()
        reader = self.reader()
        if allowed is None:
            return ids if reader.unfiltered else ids - self.hidden_memories(reader)
        candidates = sorted(ids & allowed)
        checked: set[str] = set()
        for i in range(0, len(candidates), _BATCH):
            checked.update(
                d.id for d in self.get_documents(candidates[i : i + _BATCH]) if self._ok(reader, d)
            )
        return checked

    def _search_ids(self, document_ids: Sequence[str] | None) -> tuple[bool, list[str] | None, bool]:
        """How to search: (at all, the ``document_ids`` filter to pass, whether to over-fetch and
        filter instead). A reader who may read every document searches unfiltered; a small
        readable set is pushed into the store's filter (exact); a large one is not (a filter of
        thousands of ids is slow, and backends cap it), hits are over-fetched and checked."""
        allowed = self.allowed_ids()
        if allowed is None:  # an admin's hits are checked (other people's private memories)
            ids = list(document_ids) if document_ids is not None else None
            return True, ids, not self.reader().unfiltered
        if document_ids is None and len(allowed) >= len(self._catalog[1]):
            return True, None, False  # reads everything there is: every hit is checked anyway
        ids = sorted(allowed if document_ids is None else allowed.intersection(document_ids))
        if not ids:
            return False, ids, False
        if len(ids) <= PUSH_DOWN_IDS:
            return True, ids, False
        return True, list(document_ids) if document_ids is not None else None, True

    def _search(
        self,
        run: Callable[[int, list[str] | None], list[ChunkHit]],
        top_k: int,
        document_ids: Sequence[str] | None,
    ) -> list[ChunkHit]:
        """A chunk search ``run(k, document_ids)`` as the reader: filtered in the store, or
        over-fetched and checked (``_search_ids``)."""
        search, ids, fill = self._search_ids(document_ids)
        if not search:
            return []
        reader = self.reader()
        if fill:
            return self._fill(lambda n: run(n, ids), lambda h: self._ok(reader, h.document), top_k)
        return [h for h in run(top_k, ids) if self._ok(reader, h.document)]

    def vector_search(
        self,
        embedding: Sequence[float],
        top_k: int = 10,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        return self._search(
            lambda k, ids: self.inner.vector_search(embedding, k, types=types, document_ids=ids),
            top_k,
            document_ids,
        )

    def keyword_search(
        self,
        query: str,
        top_k: int = 10,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        return self._search(
            lambda k, ids: self.inner.keyword_search(query, k, types=types, document_ids=ids),
            top_k,
            document_ids,
        )

    def neighbors(
        self,
        document_ids: Sequence[str],
        direction: Direction = "both",
        kinds: Sequence[str] | None = None,
        types: Sequence[SourceType] | None = None,
        limit: int = 100,
    ) -> list[Neighbor]:
        reader = self.reader()
        if reader.unfiltered:
            return self.inner.neighbors(document_ids, direction, kinds, types, limit)
        start = [d.id for d in self.get_documents(list(dict.fromkeys(document_ids)))]
        if not start:
            return []
        return self._fill(
            lambda n: self.inner.neighbors(start, direction, kinds, types, n),
            lambda nb: self._ok(reader, nb.document),
            limit,
        )

    def find_documents(
        self,
        filters: dict[str, Any] | None = None,
        types: Sequence[SourceType] | None = None,
        title_contains: str | None = None,
        updated_from: str | None = None,
        updated_to: str | None = None,
        limit: int = 50,
    ) -> list[Document]:
        reader = self.reader()
        if reader.unfiltered:
            return self.inner.find_documents(filters, types, title_contains, updated_from, updated_to, limit)
        return self._fill(
            lambda n: self.inner.find_documents(filters, types, title_contains, updated_from, updated_to, n),
            lambda d: self._ok(reader, d),
            limit,
        )

    def graph_page(
        self,
        limit: int = 300,
        types: Sequence[SourceType] | None = None,
        kinds: Sequence[str] | None = None,
        around: Sequence[str] | None = None,
    ) -> GraphPage:
        reader = self.reader()
        if reader.unfiltered:
            return self.inner.graph_page(limit, types, kinds, around)
        if around is not None:
            around = [d.id for d in self.get_documents(list(dict.fromkeys(around)))]
            if not around:
                return GraphPage(nodes=[], edges=[])
        pages: list[GraphPage] = []

        def fetch(n: int) -> list[Document]:
            page = self.inner.graph_page(n, types, kinds, around)
            pages.append(page)
            return page.nodes

        nodes = self._fill(fetch, lambda d: self._ok(reader, d), limit)
        keep = {d.id for d in nodes}
        edges = [e for e in pages[-1].edges if e.from_id in keep and e.to_id in keep]
        return GraphPage(nodes=nodes, edges=edges)

    def all_references(self) -> list[Reference]:
        allowed = self.allowed_ids()
        refs = self.inner.all_references()
        if allowed is None:
            reader = self.reader()
            if reader.unfiltered:
                return refs
            hidden = self.hidden_memories(reader)
            return [r for r in refs if r.from_id not in hidden and r.to_id not in hidden]
        return [r for r in refs if r.from_id in allowed and r.to_id in allowed]

    def stats(self) -> StoreStats:
        reader = self.reader()
        if reader.unrestricted:
            return self.inner.stats()
        ids = sorted(self.document_ids())
        docs = self.inner.get_documents(ids)
        by_type = Counter(str(d.type) for d in docs)
        chunks = 0
        for d in docs:
            key = (d.id, d.content_hash)
            count = self._chunk_counts.get(key)
            if count is None:
                found = self.inner.get_document(d.id)
                count = len(found.chunks) if found is not None else 0
                if len(self._chunk_counts) > 200_000:
                    self._chunk_counts.clear()
                self._chunk_counts[key] = count
            chunks += count
        keep = set(ids)
        refs = [r for r in self.inner.all_references() if r.from_id in keep and r.to_id in keep]
        edges = {(r.from_id, r.to_id, r.kind): r for r in refs}
        inner = self.inner.stats()
        return StoreStats(
            documents=len(docs),
            chunks=chunks,
            references=len(edges),
            documents_by_type=dict(sorted(by_type.items())),
            references_by_kind=dict(sorted(Counter(k for _, _, k in edges).items())),
            embedding_model=inner.embedding_model,
            embedding_dimension=inner.embedding_dimension,
        )

    # -- history: a version is readable when its document is --------------------------------------
    def _readable(self, document_id: str) -> bool:
        reader = self.reader()
        return reader.unfiltered or bool(self.get_documents([document_id]))

    def versions(self, document_id: str, kinds: Sequence[str] | None = None) -> list[Version]:
        return self.inner.versions(document_id, kinds) if self._readable(document_id) else []

    def get_version(self, document_id: str, kind: str, seq: int) -> Version | None:
        return self.inner.get_version(document_id, kind, seq) if self._readable(document_id) else None

    def latest_versions(self, document_ids: Sequence[str], kind: str) -> dict[str, int]:
        readable = {d.id for d in self.get_documents(document_ids)}
        return {k: v for k, v in self.inner.latest_versions(document_ids, kind).items() if k in readable}

    def changes_between(
        self,
        start: str,
        end: str,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[Version]:
        reader = self.reader()
        if reader.unfiltered:
            return self.inner.changes_between(start, end, types, document_ids, limit)
        ok: dict[str, bool] = {}

        def keep(v: Version) -> bool:
            if v.document_id not in ok:
                ok[v.document_id] = bool(self.get_documents([v.document_id]))
            return ok[v.document_id]

        return self._fill(
            lambda n: self.inner.changes_between(start, end, types, document_ids, n), keep, limit
        )

    # -- sync state: the sources' bookkeeping (names, cursors), no documents ------------------------
    def get_sync_state(self, source: str) -> SyncState | None:
        return self.inner.get_sync_state(source)

    def save_sync_state(self, state: SyncState) -> None:
        self.inner.save_sync_state(state)

    def list_sync_states(self) -> list[SyncState]:
        return self.inner.list_sync_states()

    def close(self) -> None:
        self.inner.close()


ReaderStore = ScopedStore
"""The store as the current reader may see it: the type the agent's tools, the API's routers and
the MCP server accept. The raw store (``GraphStore``: what indexing writes and reads) is not
assignable to it, so mypy refuses a read path that skips the access decision."""
