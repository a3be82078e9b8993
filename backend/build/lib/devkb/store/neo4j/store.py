"""``Neo4jGraphStore``: the production backend on Neo4j 5.18+ (or Aura), through the official driver.

The driver is injected and owned by the container: this class never opens or closes it.
Writes run as managed transactions (``execute_write``), which the driver retries on transient
errors and lost connections within ``max_transaction_retry_time``; reads go through
``execute_query`` (also retried). Sessions share the driver's ``execute_query`` bookmark manager,
so a read after a write sees it, also on a cluster. Every statement is in ``queries.py``.

Errors: unreachable / auth / retries exhausted → ``StoreUnavailableError``; embedding model or
dimension differs → ``SchemaMismatchError``; anything else from Neo4j → ``StoreError``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import RoutingControl
from neo4j.exceptions import (
    AuthError,
    ConnectionPoolError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from devkb.errors import SchemaMismatchError, StoreError, StoreUnavailableError
from devkb.store.models import (
    FIND_FIELDS,
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
)
from devkb.store.neo4j import queries as q
from devkb.store.protocol import Direction

T = TypeVar("T")
_ROWS = 1000  # rows per UNWIND statement
_DOCS_PER_TX = 200
_CHUNKS_PER_TX = 2000

UNREACHABLE_HINT = (
    "check DEVKB_NEO4J_URI (e.g. neo4j://localhost:7687, or neo4j+s://<id>.databases.neo4j.io for Aura) "
    "and that the server is running (`docker compose ps neo4j`), or set DEVKB_STORE=sqlite to use "
    "the embedded store"
)
AUTH_HINT = "check DEVKB_NEO4J_USER and DEVKB_NEO4J_PASSWORD (docker compose: NEO4J_AUTH in .env)"
VERSION_HINT = "devkb needs Neo4j 5.18 or newer and a user allowed to create indexes and constraints"


def _batches(seq: Sequence[T], n: int = _ROWS) -> Iterator[Sequence[T]]:
    for i in range(0, len(seq), n):
        yield seq[i : i + n]


def _meta_text(value: Any) -> str | None:
    """One metadata value as the filter compares it (mirrors SQLite's ``json_each`` + CAST)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).lower()
    return str(value).lower()


def document_row(doc: Document) -> dict[str, Any]:
    """A document as node properties: metadata as JSON plus ``meta_<field>`` filter lists."""
    row: dict[str, Any] = {
        "id": doc.id,
        "type": str(doc.type),
        "title": doc.title,
        "url": doc.url,
        "updated_at": doc.updated_at,
        "content_hash": doc.content_hash,
        "source": doc.source,
        "metadata": json.dumps(doc.metadata, ensure_ascii=False, sort_keys=True),
    }
    for field, where in FIND_FIELDS.items():
        if where != "metadata" or field not in doc.metadata:
            continue
        value = doc.metadata[field]
        items = (
            value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else [value]
        )
        texts = [t for t in map(_meta_text, items) if t is not None]
        if texts:
            row[q.meta_property(field)] = texts
    return row


def document_from(props: dict[str, Any]) -> Document:
    return Document(
        id=props["id"],
        type=SourceType(props["type"]),
        title=props.get("title", ""),
        url=props.get("url", ""),
        updated_at=props.get("updated_at", ""),
        content_hash=props.get("content_hash", ""),
        metadata=json.loads(props.get("metadata") or "{}"),
        source=props.get("source", ""),
    )


def _chunk_from(m: dict[str, Any]) -> Chunk:
    return Chunk(
        id=m["id"],
        document_id=m["document_id"],
        chunk_index=m["chunk_index"],
        content=m["content"],
        section=m.get("section") or "",
    )


def _state_json(state: SyncState) -> str:
    return json.dumps(
        {
            "cursor": state.cursor,
            "last_success": state.last_success,
            "last_error": state.last_error,
            "counts": state.counts,
            "extra": state.extra,
        },
        sort_keys=True,
    )


def _state_from(source: str, raw: str) -> SyncState:
    d = json.loads(raw)
    return SyncState(
        source=source,
        cursor=d.get("cursor"),
        last_success=d.get("last_success"),
        last_error=d.get("last_error"),
        counts=d.get("counts", {}),
        extra=d.get("extra", {}),
    )


def _run(tx: neo4j.ManagedTransaction, stmt: q.Statement, **values: Any) -> list[dict[str, Any]]:
    return tx.run(stmt.text, stmt.bind(values)).data()


def _check_owners(owner_set: set[str], references: Sequence[Reference]) -> None:
    for r in references:
        if r.owner_id not in owner_set:
            raise ValueError(f"reference {r.from_id}->{r.to_id} has owner {r.owner_id!r} not in owner_ids")


def _replace_references_work(
    owners: list[str], references: Sequence[Reference]
) -> Callable[[neo4j.ManagedTransaction], None]:
    """The transaction work that replaces every edge ``owners`` own with ``references``."""
    rows = list(
        {
            (r.from_id, r.to_id, r.kind, r.owner_id): {
                "from_id": r.from_id,
                "to_id": r.to_id,
                "kind": r.kind,
                "evidence": r.evidence,
                "owner_id": r.owner_id,
            }
            for r in references
            if r.from_id != r.to_id
        }.values()
    )
    endpoints = list(dict.fromkeys(x for row in rows for x in (row["from_id"], row["to_id"])))

    def work(tx: neo4j.ManagedTransaction) -> None:
        stubs: list[str] = []
        for part in _batches(owners):
            stubs += [
                i for row in _run(tx, q.DELETE_OWNED_REFERENCES, owners=list(part)) for i in row["stub_ids"]
            ]
        for part in _batches(endpoints):
            _run(tx, q.ENSURE_ENDPOINTS, ids=list(part))
        for row_part in _batches(rows):
            _run(tx, q.CREATE_REFERENCES, rows=list(row_part))
        for part in _batches(list(dict.fromkeys(stubs))):
            _run(tx, q.DELETE_ORPHAN_STUBS, ids=list(part))

    return work


class Neo4jGraphStore:
    """The graph store on Neo4j. ``driver`` is owned by the caller; ``database`` is its name."""

    def __init__(self, driver: neo4j.Driver, database: str = "neo4j") -> None:
        self._driver = driver
        self.database = database

    # -- plumbing -------------------------------------------------------------------------
    @contextmanager
    def _translate(self, action: str) -> Iterator[None]:
        try:
            yield
        except AuthError as e:
            raise StoreUnavailableError(f"Neo4j rejected the credentials while {action}: {AUTH_HINT}") from e
        except TransientError as e:
            raise StoreUnavailableError(
                f"Neo4j stayed unavailable while {action} ({e.code}) after retries; try again later"
            ) from e
        except Neo4jError as e:
            if e.code == "Neo.ClientError.Database.DatabaseNotFound":
                raise StoreError(
                    f"Neo4j has no database {self.database!r}: create it (`CREATE DATABASE {self.database}` on "
                    "Enterprise) or set DEVKB_NEO4J_DATABASE=neo4j"
                ) from e
            raise StoreError(f"Neo4j failed while {action}: {e.code}: {e.message}") from e
        except (ServiceUnavailable, SessionExpired, ConnectionPoolError) as e:
            raise StoreUnavailableError(
                f"Neo4j is unreachable while {action} ({e}): {UNREACHABLE_HINT}"
            ) from e
        except DriverError as e:
            raise StoreError(f"the Neo4j driver failed while {action}: {e}") from e

    def _read(self, stmt: q.Statement, action: str, **values: Any) -> list[dict[str, Any]]:
        with self._translate(action):
            records = self._driver.execute_query(
                stmt.text,
                stmt.bind(values),
                routing_=RoutingControl.READ,
                database_=self.database,
            ).records
        return [r.data() for r in records]

    def _schema(self, stmt: q.Statement, action: str, **values: Any) -> list[dict[str, Any]]:
        with self._translate(action):
            records = self._driver.execute_query(
                stmt.text,
                stmt.bind(values),
                routing_=RoutingControl.WRITE,
                database_=self.database,
            ).records
        return [r.data() for r in records]

    def _write(self, work: Callable[[neo4j.ManagedTransaction], T], action: str) -> T:
        bookmarks = self._driver.execute_query_bookmark_manager
        with (
            self._translate(action),
            self._driver.session(database=self.database, bookmark_manager=bookmarks) as session,
        ):
            return session.execute_write(work)

    def close(self) -> None:
        """Nothing to release: the container closes the driver it created."""

    # -- startup --------------------------------------------------------------------------
    def verify(self, embedding_model: str | None = None, dimension: int | None = None) -> None:
        """Fail fast, with what to do: unreachable or bad credentials (``StoreUnavailableError``),
        missing database (``StoreError``), an index or recorded model that differs from the
        configured embedder (``SchemaMismatchError``). A missing schema is fine: ``ensure_schema``
        creates it."""
        with self._translate("connecting"):
            self._driver.verify_connectivity()
        self._read(q.PING, f"opening database {self.database!r}")
        if embedding_model is not None and dimension is not None:
            self._check_embedding(embedding_model, dimension)

    def _vector_index(self) -> dict[str, Any] | None:
        rows = self._read(q.SHOW_INDEX, "reading the index list", name=q.VECTOR_INDEX)
        return rows[0] if rows else None

    def _check_embedding(self, embedding_model: str, dimension: int) -> None:
        rows = self._read(q.GET_META, "reading the store metadata", key=q.META_SCHEMA_KEY)
        model = rows[0]["model"] if rows else None
        if model is not None:
            self._compare(model, rows[0]["dimension"], embedding_model, dimension)
        index = self._vector_index()
        if index is not None:
            config = (index.get("options") or {}).get("indexConfig") or {}
            index_dim = config.get("vector.dimensions")
            function = str(config.get("vector.similarity_function", "cosine")).lower()
            if index.get("type") != "VECTOR" or index_dim != dimension or function != "cosine":
                raise SchemaMismatchError(
                    f"the Neo4j index {q.VECTOR_INDEX!r} is {index.get('type')} {index_dim}-d {function}, but the "
                    f"configured embedder {embedding_model} gives {dimension}-d cosine vectors; re-embed with "
                    "`devkb reindex --re-embed` (drops and recreates the index) or use another DEVKB_NEO4J_DATABASE"
                )

    def _compare(self, model: str, dim: Any, embedding_model: str, dimension: int) -> None:
        if model != embedding_model or int(dim or 0) != dimension:
            raise SchemaMismatchError(
                f"Neo4j database {self.database!r} holds embeddings of {model} ({dim}-d) but the configured "
                f"embedder is {embedding_model} ({dimension}-d); re-embed with `devkb reindex --re-embed` or "
                "point DEVKB_NEO4J_DATABASE at another database"
            )

    # -- schema ---------------------------------------------------------------------------
    def ensure_schema(self, embedding_model: str, dimension: int) -> None:
        self._check_embedding(embedding_model, dimension)
        try:
            for stmt in q.SCHEMA_STATEMENTS:
                values = {"dimension": int(dimension)} if stmt.params else {}
                self._schema(stmt, "creating the schema", **values)
            self._schema(q.AWAIT_INDEXES, "waiting for the indexes", timeout_seconds=300)
        except StoreError as e:
            if isinstance(e, StoreUnavailableError):
                raise
            raise StoreError(f"cannot create the devkb schema in Neo4j: {e}; {VERSION_HINT}") from e
        row = self._schema(
            q.CLAIM_META,
            "recording the embedding model",
            key=q.META_SCHEMA_KEY,
            model=embedding_model,
            dimension=int(dimension),
            schema_version=q.SCHEMA_VERSION,
        )[0]
        self._compare(row["model"], row["dimension"], embedding_model, dimension)  # lost a race

    def reset_embedding_model(self) -> None:
        """Forget the recorded model, drop every chunk and the vector index (full re-embed)."""
        while self._write(
            lambda tx: _run(tx, q.DELETE_CHUNKS_BATCH, batch=10_000)[0]["n"], "dropping chunks"
        ):
            pass

        def forget(tx: neo4j.ManagedTransaction) -> None:
            _run(tx, q.CLEAR_CONTENT_HASHES)
            _run(tx, q.FORGET_EMBEDDING_MODEL, key=q.META_SCHEMA_KEY)

        self._write(forget, "forgetting the embedding model")
        self._schema(q.DROP_VECTOR_INDEX, "dropping the vector index")

    # -- writes ---------------------------------------------------------------------------
    def write_documents(
        self,
        items: Sequence[tuple[Document, Sequence[Chunk]]],
        references: Sequence[Reference] | None = None,
    ) -> None:
        latest = {doc.id: (doc, chunks) for doc, chunks in items}  # a repeated id: the last one wins
        owned: dict[str, list[Reference]] | None = None
        if references is not None:
            _check_owners(set(latest), references)
            owned = {doc_id: [] for doc_id in latest}
            for r in references:
                owned[r.owner_id].append(r)
        batch: list[tuple[Document, Sequence[Chunk]]] = []
        size = 0
        for doc, chunks in latest.values():
            batch.append((doc, chunks))
            size += len(chunks)
            if len(batch) >= _DOCS_PER_TX or size >= _CHUNKS_PER_TX:
                self._write_batch(batch, owned)
                batch, size = [], 0
        if batch:
            self._write_batch(batch, owned)

    def _write_batch(
        self,
        batch: Sequence[tuple[Document, Sequence[Chunk]]],
        owned: dict[str, list[Reference]] | None = None,
    ) -> None:
        """One transaction: the documents, their chunks and — with ``owned`` — the edges they own,
        so a crash never leaves a document without its edges."""
        ids = [doc.id for doc, _ in batch]
        docs = [document_row(doc) for doc, _ in batch]
        chunk_rows = [
            {
                "id": ch.id,
                "document_id": doc.id,
                "chunk_index": ch.chunk_index,
                "content": ch.content,
                "section": ch.section,
                "embedding": None if ch.embedding is None else [float(x) for x in ch.embedding],
            }
            for doc, chunks in batch
            for ch in chunks
        ]
        edges = None if owned is None else _replace_references_work(ids, [r for i in ids for r in owned[i]])

        def work(tx: neo4j.ManagedTransaction) -> None:
            _run(tx, q.PROMOTE_STUBS, ids=ids)
            _run(tx, q.UPSERT_DOCUMENTS, rows=docs)
            _run(tx, q.DELETE_CHUNKS, ids=ids)
            for part in _batches(chunk_rows):
                _run(tx, q.CREATE_CHUNKS, rows=list(part))
            if edges is not None:
                edges(tx)

        self._write(work, f"writing {len(ids)} documents")

    def write_references(self, owner_ids: Iterable[str], references: Sequence[Reference]) -> None:
        owners = list(dict.fromkeys(owner_ids))
        _check_owners(set(owners), references)
        self._write(
            _replace_references_work(owners, references), f"writing references of {len(owners)} documents"
        )

    def delete_documents(self, document_ids: Iterable[str]) -> int:
        ids = list(dict.fromkeys(document_ids))

        def work(tx: neo4j.ManagedTransaction, part: list[str]) -> int:
            stubs = [i for row in _run(tx, q.DELETE_OWNED_REFERENCES, owners=part) for i in row["stub_ids"]]
            _run(tx, q.DELETE_CHUNKS, ids=part)
            kept = _run(tx, q.STUB_REFERENCED_DOCUMENTS, ids=part)[0]["n"]
            gone = _run(tx, q.DELETE_DOCUMENTS, ids=part)[0]["n"]
            if stubs:
                _run(tx, q.DELETE_ORPHAN_STUBS, ids=list(dict.fromkeys(stubs)))
            return int(kept) + int(gone)

        deleted = 0
        for part in _batches(ids):
            deleted += self._write(
                functools.partial(work, part=list(part)), f"deleting {len(part)} documents"
            )
        return deleted

    # -- reads ----------------------------------------------------------------------------
    def get_document(self, document_id: str) -> DocumentWithChunks | None:
        rows = self._read(q.GET_DOCUMENT, "reading a document", id=document_id)
        if not rows:
            return None
        return DocumentWithChunks(document_from(rows[0]["doc"]), [_chunk_from(c) for c in rows[0]["chunks"]])

    def get_documents(self, document_ids: Sequence[str]) -> list[Document]:
        found: dict[str, Document] = {}
        for part in _batches(list(dict.fromkeys(document_ids))):
            for row in self._read(q.GET_DOCUMENTS, "reading documents", ids=list(part)):
                doc = document_from(row["doc"])
                found[doc.id] = doc
        return [found[i] for i in document_ids if i in found]

    def content_hashes(self, document_ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for part in _batches(list(document_ids)):
            for row in self._read(q.CONTENT_HASHES, "reading content hashes", ids=list(part)):
                out[row["id"]] = row["content_hash"]
        return out

    def chunk_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for part in _batches(list(chunk_ids)):
            for row in self._read(q.CHUNK_EMBEDDINGS, "reading embeddings", ids=list(part)):
                out[row["id"]] = list(row["embedding"])
        return out

    def document_ids(self, source: str | None = None, type: SourceType | None = None) -> set[str]:
        stmt, params = q.document_ids_query(source, None if type is None else str(type))
        return {r["id"] for r in self._read(stmt, "listing document ids", **params)}

    def _hits(self, stmt: q.Statement, params: dict[str, Any], action: str, cosine: bool) -> list[ChunkHit]:
        return [
            ChunkHit(
                chunk=_chunk_from(r["chunk"]),
                document=document_from(r["doc"]),
                score=2.0 * float(r["score"]) - 1.0 if cosine else float(r["score"]),
            )
            for r in self._read(stmt, action, **params)
        ]

    def vector_search(
        self,
        embedding: Sequence[float],
        top_k: int = 10,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        if top_k <= 0 or not any(embedding) or (types is not None and not types):
            return []  # a zero vector has no cosine
        if document_ids is not None:
            if not document_ids:
                return []
            stmt, params = q.vector_search_query(embedding, top_k, types, document_ids, None)
            return self._hits(stmt, params, "searching vectors", cosine=True)
        if types is None:
            stmt, params = q.vector_search_query(embedding, top_k, None, None, max(2 * top_k, 20))
            return self._hits(stmt, params, "searching vectors", cosine=True)
        # filter after the approximate search; when a rare type leaves too few hits, its chunks
        # are few, so the exact scan over them is cheap
        stmt, params = q.vector_search_query(embedding, top_k, types, None, min(max(10 * top_k, 100), 10_000))
        hits = self._hits(stmt, params, "searching vectors", cosine=True)
        if len(hits) < top_k:
            stmt, params = q.vector_search_query(embedding, top_k, types, None, None)
            hits = self._hits(stmt, params, "searching vectors", cosine=True)
        return hits

    def keyword_search(
        self,
        query: str,
        top_k: int = 10,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        if top_k <= 0 or (types is not None and not types) or (document_ids is not None and not document_ids):
            return []
        built = q.keyword_search_query(query, top_k, types, document_ids)
        if built is None:
            return []
        return self._hits(*built, "searching text", cosine=False)

    def neighbors(
        self,
        document_ids: Sequence[str],
        direction: Direction = "both",
        kinds: Sequence[str] | None = None,
        types: Sequence[SourceType] | None = None,
        limit: int = 100,
    ) -> list[Neighbor]:
        stmt, params = q.neighbors_query(list(dict.fromkeys(document_ids)), direction, kinds, types, limit)
        if not params["ids"] or limit <= 0:
            return []
        return [
            Neighbor(
                document=document_from(r["doc"]),
                kind=r["kind"],
                evidence=r["evidence"],
                direction=r["direction"],
                via=r["via"],
            )
            for r in self._read(stmt, "reading neighbours", **params)
        ]

    def find_documents(
        self,
        filters: dict[str, Any] | None = None,
        types: Sequence[SourceType] | None = None,
        title_contains: str | None = None,
        updated_from: str | None = None,
        updated_to: str | None = None,
        limit: int = 50,
    ) -> list[Document]:
        stmt, params = q.find_documents_query(filters, types, title_contains, updated_from, updated_to, limit)
        return [document_from(r["doc"]) for r in self._read(stmt, "finding documents", **params)]

    def graph_page(
        self,
        limit: int = 300,
        types: Sequence[SourceType] | None = None,
        kinds: Sequence[str] | None = None,
        around: Sequence[str] | None = None,
    ) -> GraphPage:
        if around:
            ids = [d.id for d in self.get_documents(list(around)[:200])]
            for n in self.neighbors(ids, "both", kinds, types, limit=max(0, limit - len(ids))):
                if n.document.id not in ids:
                    ids.append(n.document.id)
            nodes = self.get_documents(ids[:limit])
        else:
            stmt, params = q.graph_nodes_query(limit, types, kinds)
            nodes = [document_from(r["doc"]) for r in self._read(stmt, "reading the graph", **params)]
        if not nodes:
            return GraphPage(nodes=[], edges=[])
        stmt, params = q.graph_edges_query([d.id for d in nodes], kinds)
        edges = [Reference(**r) for r in self._read(stmt, "reading the graph", **params)]
        return GraphPage(nodes=nodes, edges=edges)

    def references(self) -> list[Reference]:
        """Every visible edge (both ends exist), de-duplicated by (from, to, kind)."""
        return [Reference(**r) for r in self._read(q.VISIBLE_REFERENCES, "reading references")]

    def all_references(self) -> list[Reference]:
        """Every stored edge with its owner, dangling ones included (what a migration copies)."""
        return [Reference(**r) for r in self._read(q.ALL_REFERENCES, "reading references")]

    def stats(self) -> StoreStats:
        by_type = {r["type"]: r["n"] for r in self._read(q.STATS_DOCUMENTS, "counting documents")}
        chunks = self._read(q.STATS_CHUNKS, "counting chunks")[0]["n"]
        by_kind = {r["kind"]: r["n"] for r in self._read(q.STATS_REFERENCES, "counting references")}
        meta = self._read(q.GET_META, "reading the store metadata", key=q.META_SCHEMA_KEY)
        model = meta[0]["model"] if meta else None
        dim = meta[0]["dimension"] if meta else None
        return StoreStats(
            documents=sum(by_type.values()),
            chunks=chunks,
            references=sum(by_kind.values()),
            documents_by_type=by_type,
            references_by_kind=by_kind,
            embedding_model=model,
            embedding_dimension=int(dim) if dim else None,
        )

    # -- sync state -----------------------------------------------------------------------
    def get_sync_state(self, source: str) -> SyncState | None:
        rows = self._read(q.GET_SYNC_STATE, "reading sync state", key=q.SYNC_KEY_PREFIX + source)
        return _state_from(source, rows[0]["state"]) if rows else None

    def save_sync_state(self, state: SyncState) -> None:
        raw = _state_json(state)
        self._write(
            lambda tx: _run(
                tx, q.SAVE_SYNC_STATE, key=q.SYNC_KEY_PREFIX + state.source, source=state.source, state=raw
            ),
            "saving sync state",
        )

    def list_sync_states(self) -> list[SyncState]:
        rows = self._read(q.LIST_SYNC_STATES, "listing sync states", prefix=q.SYNC_KEY_PREFIX)
        return [_state_from(r["source"], r["state"]) for r in rows]
