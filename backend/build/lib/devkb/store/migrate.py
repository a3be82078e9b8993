"""Copy one graph store into another without re-embedding (``devkb migrate --to neo4j``).

Documents travel with their chunks and the chunks' stored embeddings, then the REFERENCES edges
(grouped by owner, so re-indexing an owner later replaces them as usual), then the sync states,
so the next sync run continues incrementally from the same cursors.

Edges: a source with ``all_references()`` (Neo4j) hands over every stored edge, dangling ones
and every owner included; one with only ``references()`` (SQLite today) hands over the visible
edges, one owner each, so edges to documents not yet indexed are not copied — they come back
when their owner is re-indexed. ``MigrationReport.dangling_edges_copied`` says which happened.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from devkb.errors import StoreError
from devkb.store.models import Chunk, Document, Reference
from devkb.store.protocol import GraphStore

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)`` with stage ``documents``, ``references`` or ``sync_states``."""


@runtime_checkable
class VisibleReferences(Protocol):
    def references(self) -> list[Reference]: ...


@runtime_checkable
class AllReferences(Protocol):
    def all_references(self) -> list[Reference]: ...


@dataclass(frozen=True)
class MigrationReport:
    documents: int
    chunks: int
    chunks_without_embedding: int
    references: int
    sync_states: int
    dangling_edges_copied: bool


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def _batches(seq: Sequence[str], n: int) -> list[Sequence[str]]:
    return [seq[i : i + n] for i in range(0, len(seq), n)]


def migrate(
    source: GraphStore,
    target: GraphStore,
    progress: Progress | None = None,
    *,
    batch_size: int = 200,
    require_empty_target: bool = True,
) -> MigrationReport:
    """Copy ``source`` into ``target``; raise ``StoreError`` when the target already holds
    documents (unless ``require_empty_target=False``) or ends up with other counts than copied,
    and ``SchemaMismatchError`` when it holds embeddings of another model."""
    report = progress or _no_progress
    stats = source.stats()
    if stats.embedding_model is not None and stats.embedding_dimension is not None:
        target.ensure_schema(stats.embedding_model, stats.embedding_dimension)
    elif stats.chunks:
        raise StoreError(
            "the source store has chunks but no recorded embedding model; nothing to copy safely"
        )
    before = target.stats()
    if require_empty_target and before.documents:
        raise StoreError(
            f"the target store already holds {before.documents} documents; migrate into an empty store "
            "(a new Neo4j database, or wipe it) so nothing is mixed"
        )

    ids = sorted(source.document_ids())
    documents = chunks = bare = 0
    report("documents", 0, len(ids))
    for part in _batches(ids, batch_size):
        found = [d for d in (source.get_document(i) for i in part) if d is not None]  # gone meanwhile
        vectors = source.chunk_embeddings([c.id for d in found for c in d.chunks])
        items: list[tuple[Document, list[Chunk]]] = []
        for d in found:
            copied = [dataclasses.replace(c, embedding=vectors.get(c.id)) for c in d.chunks]
            bare += sum(c.embedding is None for c in copied)
            items.append((d.document, copied))
        target.write_documents(items)
        documents += len(found)
        chunks += sum(len(c) for _, c in items)
        report("documents", documents, len(ids))

    dangling = isinstance(source, AllReferences)
    if dangling:
        edges = source.all_references()
    elif isinstance(source, VisibleReferences):
        edges = source.references()
    else:
        raise StoreError(f"{type(source).__name__} cannot list its references (needs references())")
    by_owner: dict[str, list[Reference]] = {}
    for r in edges:
        owner = r.owner_id or r.from_id
        by_owner.setdefault(owner, []).append(dataclasses.replace(r, owner_id=owner))
    owners = sorted(by_owner)
    done = 0
    report("references", 0, len(edges))
    for part in _batches(owners, batch_size):
        refs = [r for o in part for r in by_owner[o]]
        target.write_references(part, refs)
        done += len(refs)
        report("references", done, len(edges))

    states = source.list_sync_states()
    report("sync_states", 0, len(states))
    for i, state in enumerate(states, 1):
        target.save_sync_state(state)
        report("sync_states", i, len(states))

    after = target.stats()
    if require_empty_target and (after.documents, after.chunks) != (documents, chunks):
        raise StoreError(
            f"copied {documents} documents / {chunks} chunks but the target holds "
            f"{after.documents} / {after.chunks}; another writer may be using it"
        )
    return MigrationReport(documents, chunks, bare, len(edges), len(states), dangling)
