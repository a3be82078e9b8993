"""The graph store protocol: every backend (embedded SQLite, Neo4j) implements it and passes the
contract suite in ``tests/contract``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

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

Direction = Literal["out", "in", "both"]


@runtime_checkable
class GraphStore(Protocol):
    """Documents, chunks, PART_OF and REFERENCES edges, and per-source sync state.

    Writes are transactional: a document and its chunks are replaced together or not at all.
    Filters (``types``, ``document_ids``) restrict results; ``None`` means no restriction.
    """

    # -- schema ---------------------------------------------------------------------------
    def ensure_schema(self, embedding_model: str, dimension: int) -> None:
        """Create indexes if missing and record the embedding model and dimension.

        Raises ``SchemaMismatchError`` when the store already holds embeddings of another model
        or dimension."""

    # -- writes ---------------------------------------------------------------------------
    def write_documents(
        self,
        items: Sequence[tuple[Document, Sequence[Chunk]]],
        references: Sequence[Reference] | None = None,
        versions: Sequence[Version] | None = None,
    ) -> None:
        """Upsert documents; each document's chunks are replaced by the given ones. With
        ``references``, the edges owned by these documents are replaced too — all in one
        transaction, so a crash never leaves a document without its edges. ``versions`` (of these
        documents) are upserted by ``(document_id, kind, seq)`` — older versions are kept — and
        each page version's ``valid_until`` is set to the next version's ``valid_from``."""

    def write_references(self, owner_ids: Iterable[str], references: Sequence[Reference]) -> None:
        """Replace every edge owned by ``owner_ids`` with ``references`` (whose owners must be
        among them). Edges may point at documents not (yet) in the store; they stay hidden
        until both ends exist."""

    def delete_documents(self, document_ids: Iterable[str]) -> int:
        """Delete documents with their chunks and the edges they own; return how many existed."""

    # -- reads ----------------------------------------------------------------------------
    def get_document(self, document_id: str) -> DocumentWithChunks | None: ...

    def get_documents(self, document_ids: Sequence[str]) -> list[Document]:
        """The documents that exist, in the order asked."""

    def content_hashes(self, document_ids: Sequence[str]) -> dict[str, str]:
        """``{id: content_hash}`` for the ids that exist."""

    def chunk_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored embeddings of the chunks that exist (lets a changed document re-embed only
        its changed chunks)."""

    def document_ids(self, source: str | None = None, type: SourceType | None = None) -> set[str]: ...

    def vector_search(
        self,
        embedding: Sequence[float],
        top_k: int = 10,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        """Chunks by cosine similarity, best first."""

    def keyword_search(
        self,
        query: str,
        top_k: int = 10,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        """Chunks by full-text (BM25) relevance, best first; ``query`` is plain text, never syntax."""

    def neighbors(
        self,
        document_ids: Sequence[str],
        direction: Direction = "both",
        kinds: Sequence[str] | None = None,
        types: Sequence[SourceType] | None = None,
        limit: int = 100,
    ) -> list[Neighbor]:
        """Documents one REFERENCES hop away (both ends must exist), excluding the inputs."""

    def find_documents(
        self,
        filters: dict[str, Any] | None = None,
        types: Sequence[SourceType] | None = None,
        title_contains: str | None = None,
        updated_from: str | None = None,
        updated_to: str | None = None,
        limit: int = 50,
    ) -> list[Document]:
        """Structured find. ``filters`` keys must be in ``FIND_FIELDS`` (else ``InvalidQueryError``);
        a value is matched case-insensitively; a list value means any of them. Newest first."""

    def graph_page(
        self,
        limit: int = 300,
        types: Sequence[SourceType] | None = None,
        kinds: Sequence[str] | None = None,
        around: Sequence[str] | None = None,
    ) -> GraphPage:
        """Up to ``limit`` documents — the best connected first, or ``around`` ids and their
        neighbours — with the REFERENCES edges among them."""

    def all_references(self) -> list[Reference]:
        """Every stored edge with its owner, including edges whose other end is missing
        (used to migrate one store into another)."""

    def stats(self) -> StoreStats: ...

    # -- history (docs/history.md) --------------------------------------------------------
    def versions(self, document_id: str, kinds: Sequence[str] | None = None) -> list[Version]:
        """The document's versions (all kinds, or ``kinds``), oldest first (by ``valid_from``,
        then kind and ``seq``)."""

    def get_version(self, document_id: str, kind: str, seq: int) -> Version | None: ...

    def latest_versions(self, document_ids: Sequence[str], kind: str) -> dict[str, int]:
        """``{id: highest seq}`` of the given documents' stored versions of ``kind`` (lets a
        loader fetch only the versions it has not stored)."""

    def changes_between(
        self,
        start: str,
        end: str,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
        limit: int = 1000,
    ) -> list[Version]:
        """Versions with ``start <= valid_from < end`` (ISO-8601 UTC strings), of documents that
        exist, newest first. ``start`` may be ``""`` (since the beginning)."""

    # -- sync state -----------------------------------------------------------------------
    def get_sync_state(self, source: str) -> SyncState | None: ...

    def save_sync_state(self, state: SyncState) -> None: ...

    def list_sync_states(self) -> list[SyncState]: ...

    def close(self) -> None: ...


# -- optional capabilities: a backend has them or not; callers check with isinstance ----------
@runtime_checkable
class VerifiableStore(Protocol):
    """A store behind a network connection that can be checked before use (Neo4j)."""

    def verify(self, embedding_model: str | None = None, dimension: int | None = None) -> None:
        """Fail fast, with what to do, when the store is unreachable, refuses the credentials or
        holds vectors of another embedding model."""


@runtime_checkable
class GenerationStore(Protocol):
    """A store that tells cheaply whether anything was written to it since a moment: a counter
    bumped by every committed write, from any process (the embedded store's ``meta`` row)."""

    def generation(self) -> int: ...


@runtime_checkable
class CountingStore(Protocol):
    """A store that counts its documents cheaply (the embedded store)."""

    def document_count(self) -> int: ...


@runtime_checkable
class BulkReadingStore(Protocol):
    """A store that reads many documents with their chunks and chunk vectors in a few queries
    (the embedded store; ranking's candidates). Chunks in ``chunk_index`` order, one vector or
    ``None`` per chunk; unknown ids left out."""

    def documents_with_vectors(
        self, document_ids: Sequence[str]
    ) -> list[tuple[DocumentWithChunks, list[np.ndarray | None]]]: ...


@runtime_checkable
class ReembeddableStore(Protocol):
    """A store that can drop its chunks' vectors to switch to another embedding model."""

    def reset_embedding_model(self) -> None: ...
