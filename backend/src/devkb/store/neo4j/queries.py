"""Every Cypher statement the Neo4j backend runs, and the only code that builds query text.

Values always travel as parameters. The few names that vary (filter fields) come from
``models.FIND_FIELDS`` and pass ``^[A-Za-z_][A-Za-z0-9_]*$`` before they touch a query string;
optional clauses are fixed fragments switched on or off. ``tests/unit/test_cypher_lint.py`` feeds
every constant and every builder path to Neo4j's own parser and semantic analysis.

Graph layout (see ``docs/neo4j.md``)::

    (:Chunk {id, document_id, chunk_index, content, section, embedding})-[:PART_OF]->(:Document)
    (:Document)-[:REFERENCES {kind, evidence, owner_id}]->(:Document | :DocumentStub)
    (:DocumentStub {id})        an edge end not (or no longer) indexed; never read
    (:Document)-[:HAS_VERSION]->(:Version {document_id, kind, seq, valid_from, valid_until,
        author, message, body, field, from_value, to_value, ref})   docs/history.md
    (:DevkbMeta {key: 'schema', embedding_model, embedding_dimension, schema_version})
    (:DevkbMeta {key: 'sync:<source>', source, state})

``Document`` holds ``metadata`` as a JSON string plus one lower-cased list property
``meta_<field>`` per filterable metadata field, so filters never parse JSON.

The structured find's metadata and date conditions are written as a Haystack filter and turned
into Cypher by neo4j-haystack's ``Neo4jQueryConverter`` (``haystack_where``), the filter dialect
of Haystack's document stores (``meta.<field>`` maps onto ``d.meta_<field>``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j_haystack.metadata_filter import FilterParser, Neo4jQueryConverter

from devkb.errors import InvalidQueryError
from devkb.store.models import FIND_FIELDS

SCHEMA_VERSION = 1
VECTOR_INDEX = "chunk_embeddings"
FULLTEXT_INDEX = "chunk_content"
META_SCHEMA_KEY = "schema"
SYNC_KEY_PREFIX = "sync:"

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def safe_name(name: str) -> str:
    """``name`` if it may appear in query text as an identifier, else ``InvalidQueryError``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidQueryError(f"{name!r} is not a valid property name")
    return name


def meta_property(field: str) -> str:
    """The flattened list property that holds metadata ``field`` (whitelisted, checked)."""
    if FIND_FIELDS.get(field) != "metadata":
        raise InvalidQueryError(f"{field!r} is not a metadata filter field")
    return "meta_" + safe_name(field)


@dataclass(frozen=True)
class Statement:
    """One Cypher statement and the exact parameter names it takes."""

    text: str
    params: frozenset[str]

    def bind(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` as a parameter dict; a missing or extra name is a bug in the caller."""
        if set(values) != self.params:
            raise RuntimeError(
                f"parameters {sorted(values)} do not match {sorted(self.params)} for: {self.text[:80]}"
            )
        return dict(values)


def _stmt(text: str, *params: str) -> Statement:
    return Statement(" ".join(text.split()), frozenset(params))


# Names the lint check declares as the database schema (labels, types, property keys).
LABELS = (
    "Document",
    "DocumentStub",
    "Chunk",
    "DevkbMeta",
    "Conversation",
    "Message",
    "Lease",
    "SyncRun",
    "Version",
    "Gap",
)
RELATIONSHIP_TYPES = ("PART_OF", "REFERENCES", "HAS_VERSION")
VERSION_PROPERTIES = (
    "document_id",
    "kind",
    "seq",
    "valid_from",
    "valid_until",
    "author",
    "message",
    "body",
    "field",
    "from_value",
    "to_value",
    "ref",
)
DOCUMENT_PROPERTIES = ("id", "type", "title", "url", "updated_at", "content_hash", "source", "metadata")
GAP_PROPERTIES = ("question", "terms", "probability", "document_ids", "at")  # (:Gap), knowledge gaps
SHARED_STATE_PROPERTIES = (  # conversations, leases and sync runs (store/shared_state.py)
    "owner",
    "title",
    "created_at",
    "conversation_id",
    "seq",
    "role",
    "content",
    "timestamp",
    "sources",
    "name",
    "holder",
    "expires_at",
    "instance",
    "status",
    "touched_at",
)
CHUNK_PROPERTIES = ("id", "document_id", "chunk_index", "content", "section", "embedding")
GRAPH_SCHEMA = (
    ("Chunk", "Document", "PART_OF"),
    ("Document", "Document", "REFERENCES"),
    ("Document", "DocumentStub", "REFERENCES"),
    ("DocumentStub", "Document", "REFERENCES"),
    ("DocumentStub", "DocumentStub", "REFERENCES"),
    ("Message", "Conversation", "PART_OF"),
    ("Message", "Document", "REFERENCES"),
    ("Document", "Version", "HAS_VERSION"),
)


def property_keys() -> list[str]:
    """Property names the statements read, plus keys of UNWIND row maps the analysis cannot tell
    apart from properties (``row.from_id``)."""
    keys = set(DOCUMENT_PROPERTIES) | set(CHUNK_PROPERTIES) | {"from_id", "to_id"}
    keys |= {"kind", "evidence", "owner_id", "key", "embedding_model", "embedding_dimension"}
    keys |= {"schema_version", "state"}
    keys |= set(SHARED_STATE_PROPERTIES)
    keys |= set(VERSION_PROPERTIES)
    keys |= set(GAP_PROPERTIES)
    keys |= {meta_property(f) for f, where in FIND_FIELDS.items() if where == "metadata"}
    return sorted(keys)


# -- schema ----------------------------------------------------------------------------------
SCHEMA_STATEMENTS: tuple[Statement, ...] = (
    _stmt("CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE"),
    _stmt("CREATE CONSTRAINT document_stub_id IF NOT EXISTS FOR (s:DocumentStub) REQUIRE s.id IS UNIQUE"),
    _stmt("CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE"),
    _stmt("CREATE CONSTRAINT devkb_meta_key IF NOT EXISTS FOR (m:DevkbMeta) REQUIRE m.key IS UNIQUE"),
    _stmt("CREATE CONSTRAINT conversation_id IF NOT EXISTS FOR (c:Conversation) REQUIRE c.id IS UNIQUE"),
    _stmt("CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (l:Lease) REQUIRE l.name IS UNIQUE"),
    _stmt("CREATE CONSTRAINT sync_run_id IF NOT EXISTS FOR (r:SyncRun) REQUIRE r.id IS UNIQUE"),
    _stmt("CREATE CONSTRAINT gap_id IF NOT EXISTS FOR (g:Gap) REQUIRE g.id IS UNIQUE"),
    _stmt("CREATE INDEX gap_at IF NOT EXISTS FOR (g:Gap) ON (g.at)"),
    _stmt("CREATE INDEX conversation_owner IF NOT EXISTS FOR (c:Conversation) ON (c.owner, c.updated_at)"),
    _stmt("CREATE INDEX message_conversation IF NOT EXISTS FOR (m:Message) ON (m.conversation_id)"),
    _stmt(
        "CREATE CONSTRAINT version_key IF NOT EXISTS FOR (v:Version) REQUIRE (v.document_id, v.kind, v.seq) IS UNIQUE"
    ),
    _stmt("CREATE INDEX version_valid_from IF NOT EXISTS FOR (v:Version) ON (v.valid_from)"),
    _stmt("CREATE INDEX document_type IF NOT EXISTS FOR (d:Document) ON (d.type)"),
    _stmt("CREATE INDEX document_source IF NOT EXISTS FOR (d:Document) ON (d.source)"),
    _stmt("CREATE INDEX document_updated_at IF NOT EXISTS FOR (d:Document) ON (d.updated_at)"),
    _stmt("CREATE INDEX references_owner IF NOT EXISTS FOR ()-[r:REFERENCES]-() ON (r.owner_id)"),
    _stmt(
        """CREATE FULLTEXT INDEX chunk_content IF NOT EXISTS FOR (c:Chunk) ON EACH [c.content]
        OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"""
    ),
    _stmt(
        """CREATE VECTOR INDEX chunk_embeddings IF NOT EXISTS FOR (c:Chunk) ON (c.embedding)
        OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}""",
        "dimension",
    ),
)

SHOW_INDEX = _stmt(
    "SHOW INDEXES YIELD name, type, state, options WHERE name = $name RETURN type, state, options",
    "name",
)
AWAIT_INDEXES = _stmt("CALL db.awaitIndexes($timeout_seconds)", "timeout_seconds")
PING = _stmt("RETURN 1 AS ok")

GET_META = _stmt(
    """MATCH (m:DevkbMeta {key: $key})
    RETURN m.embedding_model AS model, m.embedding_dimension AS dimension""",
    "key",
)
CLAIM_META = _stmt(
    """MERGE (m:DevkbMeta {key: $key})
    SET m.embedding_model = coalesce(m.embedding_model, $model),
        m.embedding_dimension = coalesce(m.embedding_dimension, $dimension),
        m.schema_version = $schema_version
    RETURN m.embedding_model AS model, m.embedding_dimension AS dimension""",
    "key",
    "model",
    "dimension",
    "schema_version",
)

# -- sync state ------------------------------------------------------------------------------
SAVE_SYNC_STATE = _stmt(
    "MERGE (m:DevkbMeta {key: $key}) SET m.source = $source, m.state = $state",
    "key",
    "source",
    "state",
)
GET_SYNC_STATE = _stmt("MATCH (m:DevkbMeta {key: $key}) RETURN m.source AS source, m.state AS state", "key")
LIST_SYNC_STATES = _stmt(
    """MATCH (m:DevkbMeta) WHERE m.key STARTS WITH $prefix
    RETURN m.source AS source, m.state AS state ORDER BY source""",
    "prefix",
)

# -- document writes (one transaction per batch, in this order) ------------------------------
PROMOTE_STUBS = _stmt(
    "UNWIND $ids AS id MATCH (s:DocumentStub {id: id}) REMOVE s:DocumentStub SET s:Document",
    "ids",
)
UPSERT_DOCUMENTS = _stmt("UNWIND $rows AS row MERGE (d:Document {id: row.id}) SET d = row", "rows")
DELETE_CHUNKS = _stmt(
    "UNWIND $ids AS id MATCH (:Document {id: id})<-[:PART_OF]-(c:Chunk) DETACH DELETE c",
    "ids",
)
CREATE_CHUNKS = _stmt(
    """UNWIND $rows AS row
    MATCH (d:Document {id: row.document_id})
    CREATE (c:Chunk)
    SET c = row
    CREATE (c)-[:PART_OF]->(d)""",
    "rows",
)

# -- reference writes ------------------------------------------------------------------------
DELETE_OWNED_REFERENCES = _stmt(
    """UNWIND $owners AS owner
    MATCH (a)-[r:REFERENCES {owner_id: owner}]->(b)
    WITH r, [n IN [a, b] WHERE n:DocumentStub | n.id] AS stub_ids
    DELETE r
    RETURN stub_ids""",
    "owners",
)
DELETE_ORPHAN_STUBS = _stmt(
    "UNWIND $ids AS id MATCH (s:DocumentStub {id: id}) WHERE NOT EXISTS { (s)--() } DELETE s",
    "ids",
)
ENSURE_ENDPOINTS = _stmt(
    """UNWIND $ids AS id
    OPTIONAL MATCH (d:Document {id: id})
    WITH id, d WHERE d IS NULL
    MERGE (:DocumentStub {id: id})""",
    "ids",
)
CREATE_REFERENCES = _stmt(
    """UNWIND $rows AS row
    OPTIONAL MATCH (fd:Document {id: row.from_id})
    OPTIONAL MATCH (fs:DocumentStub {id: row.from_id})
    OPTIONAL MATCH (td:Document {id: row.to_id})
    OPTIONAL MATCH (ts:DocumentStub {id: row.to_id})
    WITH row, coalesce(fd, fs) AS a, coalesce(td, ts) AS b
    WHERE a IS NOT NULL AND b IS NOT NULL
    MERGE (a)-[r:REFERENCES {kind: row.kind, owner_id: row.owner_id}]->(b)
    SET r.evidence = row.evidence""",
    "rows",
)

# -- document deletes (after DELETE_OWNED_REFERENCES and DELETE_CHUNKS) ----------------------
STUB_REFERENCED_DOCUMENTS = _stmt(
    """UNWIND $ids AS id
    MATCH (d:Document {id: id}) WHERE EXISTS { (d)-[:REFERENCES]-() }
    SET d = {id: id}
    REMOVE d:Document
    SET d:DocumentStub
    RETURN count(d) AS n""",
    "ids",
)
DELETE_DOCUMENTS = _stmt(
    "UNWIND $ids AS id MATCH (d:Document {id: id}) DETACH DELETE d RETURN count(*) AS n",
    "ids",
)

# -- history (docs/history.md) ---------------------------------------------------------------
UPSERT_VERSIONS = _stmt(
    """UNWIND $rows AS row
    MATCH (d:Document {id: row.document_id})
    MERGE (v:Version {document_id: row.document_id, kind: row.kind, seq: row.seq})
    SET v = row
    MERGE (d)-[:HAS_VERSION]->(v)""",
    "rows",
)
CHAIN_PAGE_VERSIONS = _stmt(
    """UNWIND $ids AS id
    MATCH (v:Version {document_id: id, kind: 'page'})
    WITH id, v ORDER BY v.seq
    WITH id, collect(v) AS vs
    UNWIND range(0, size(vs) - 1) AS i
    WITH vs[i] AS v, CASE WHEN i + 1 < size(vs) THEN vs[i + 1].valid_from ELSE '' END AS until
    SET v.valid_until = until""",
    "ids",
)
DELETE_VERSIONS = _stmt(
    "UNWIND $ids AS id MATCH (v:Version {document_id: id}) DETACH DELETE v",
    "ids",
)
VERSIONS_OF = _stmt(
    """MATCH (:Document {id: $id})-[:HAS_VERSION]->(v:Version)
    WHERE $kinds IS NULL OR v.kind IN $kinds
    RETURN properties(v) AS v ORDER BY v.valid_from, v.kind, v.seq""",
    "id",
    "kinds",
)
GET_VERSION = _stmt(
    """MATCH (:Document {id: $id})-[:HAS_VERSION]->(v:Version {kind: $kind, seq: $seq})
    RETURN properties(v) AS v""",
    "id",
    "kind",
    "seq",
)
LATEST_VERSIONS = _stmt(
    """UNWIND $ids AS id
    MATCH (v:Version {document_id: id, kind: $kind})
    RETURN id, max(v.seq) AS seq""",
    "ids",
    "kind",
)
CHANGES_BETWEEN = _stmt(
    """MATCH (d:Document)-[:HAS_VERSION]->(v:Version)
    WHERE v.valid_from >= $start AND v.valid_from < $end
      AND ($types IS NULL OR d.type IN $types)
      AND ($ids IS NULL OR d.id IN $ids)
    RETURN properties(v) AS v
    ORDER BY v.valid_from DESC, v.document_id DESC, v.kind DESC, v.seq DESC
    LIMIT $limit""",
    "start",
    "end",
    "types",
    "ids",
    "limit",
)

# -- re-embed reset and test wipe (batched: a managed transaction must stay small) -----------
DELETE_CHUNKS_BATCH = _stmt(
    "MATCH (c:Chunk) WITH c LIMIT $batch DETACH DELETE c RETURN count(*) AS n",
    "batch",
)
CLEAR_CONTENT_HASHES = _stmt("MATCH (d:Document) SET d.content_hash = ''")
FORGET_EMBEDDING_MODEL = _stmt(
    "MATCH (m:DevkbMeta {key: $key}) REMOVE m.embedding_model, m.embedding_dimension",
    "key",
)
DROP_VECTOR_INDEX = _stmt("DROP INDEX chunk_embeddings IF EXISTS")
WIPE_BATCH = _stmt(  # tests only: empties the configured database
    "MATCH (n) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS n",
    "batch",
)

# -- reads -----------------------------------------------------------------------------------
_CHUNK_MAP = "c {.id, .document_id, .chunk_index, .content, .section}"

GET_DOCUMENT = _stmt(
    f"""MATCH (d:Document {{id: $id}})
    OPTIONAL MATCH (d)<-[:PART_OF]-(c:Chunk)
    WITH d, c ORDER BY c.chunk_index
    RETURN properties(d) AS doc, collect({_CHUNK_MAP}) AS chunks""",
    "id",
)
GET_DOCUMENTS = _stmt("UNWIND $ids AS id MATCH (d:Document {id: id}) RETURN properties(d) AS doc", "ids")
CONTENT_HASHES = _stmt(
    "UNWIND $ids AS id MATCH (d:Document {id: id}) RETURN d.id AS id, d.content_hash AS content_hash",
    "ids",
)
CHUNK_EMBEDDINGS = _stmt(
    """UNWIND $ids AS id MATCH (c:Chunk {id: id}) WHERE c.embedding IS NOT NULL
    RETURN c.id AS id, c.embedding AS embedding""",
    "ids",
)
VISIBLE_REFERENCES = _stmt(
    """MATCH (a:Document)-[r:REFERENCES]->(b:Document)
    WITH a.id AS from_id, b.id AS to_id, r.kind AS kind,
         min(r.evidence) AS evidence, min(r.owner_id) AS owner_id
    RETURN from_id, to_id, kind, evidence, owner_id ORDER BY from_id, to_id, kind"""
)
ALL_REFERENCES = _stmt(
    """MATCH (a)-[r:REFERENCES]->(b)
    RETURN a.id AS from_id, b.id AS to_id, r.kind AS kind, r.evidence AS evidence, r.owner_id AS owner_id
    ORDER BY owner_id, from_id, to_id, kind"""
)
STATS_DOCUMENTS = _stmt("MATCH (d:Document) RETURN d.type AS type, count(*) AS n")
STATS_CHUNKS = _stmt("MATCH (c:Chunk) RETURN count(c) AS n")
STATS_REFERENCES = _stmt(
    """MATCH (a:Document)-[r:REFERENCES]->(b:Document)
    WITH DISTINCT a, b, r.kind AS kind
    RETURN kind, count(*) AS n"""
)


# -- builders: optional clauses switched on by the arguments ---------------------------------
def _where(clauses: Sequence[str]) -> str:
    return " WHERE " + " AND ".join(clauses) if clauses else ""


def document_ids_query(source: str | None, type: str | None) -> tuple[Statement, dict[str, Any]]:
    clauses, params = [], {}
    if source is not None:
        clauses.append("d.source = $source")
        params["source"] = source
    if type is not None:
        clauses.append("d.type = $type")
        params["type"] = type
    return _stmt(f"MATCH (d:Document){_where(clauses)} RETURN d.id AS id", *params), params


def _values(value: Any) -> list[str]:
    items = value if isinstance(value, (list, tuple, set, frozenset)) else [value]
    return [str(v).lower() for v in items]


def haystack_where(conditions: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """Haystack filter conditions (ANDed) as a Cypher expression on ``d`` and its parameters
    (``$fv_<field>``), by neo4j-haystack's converter; every field must already be whitelisted."""
    if not conditions:
        return "", {}
    tree = FilterParser().parse(
        dict(conditions[0]) if len(conditions) == 1 else {"operator": "AND", "conditions": list(conditions)}
    )
    text, params = Neo4jQueryConverter("d").convert(tree)
    return str(text), dict(params)


def find_documents_query(
    filters: Mapping[str, Any] | None,
    types: Sequence[str] | None,
    title_contains: str | None,
    updated_from: str | None,
    updated_to: str | None,
    limit: int,
) -> tuple[Statement, dict[str, Any]]:
    """Structured find; filter keys must be in ``FIND_FIELDS``, values match case-insensitively.
    Metadata fields and the date range go through ``haystack_where``; document fields need
    ``toLower`` on the property, which the Haystack filter dialect cannot say."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    conditions: list[dict[str, Any]] = []
    for i, (field, value) in enumerate((filters or {}).items()):
        where = FIND_FIELDS.get(field) if isinstance(field, str) else None
        if where is None:
            raise InvalidQueryError(
                f"unknown filter field {field!r}; allowed: {', '.join(sorted(FIND_FIELDS))}"
            )
        values = _values(value)
        if not values:
            continue
        if where == "document":
            name = f"f{i}"
            clauses.append(f"toLower(d.{safe_name(field)}) IN ${name}")
            params[name] = values
        else:
            meta_property(field)  # whitelisted and a safe name before it reaches the converter
            conditions.append({"field": f"meta.{field}", "operator": "in", "value": values})
    if types is not None:
        clauses.append("d.type IN $types")
        params["types"] = [str(t) for t in types]
    if title_contains:
        clauses.append("toLower(d.title) CONTAINS $title_contains")
        params["title_contains"] = title_contains.lower()
    if updated_from:
        conditions.append({"field": "updated_at", "operator": ">=", "value": updated_from})
    if updated_to:
        conditions.append({"field": "updated_at", "operator": "<=", "value": updated_to})
    converted, converted_params = haystack_where(conditions)
    if converted:
        clauses.append(converted)
        params.update(converted_params)
    params["limit"] = int(limit)
    text = (
        f"MATCH (d:Document){_where(clauses)} RETURN properties(d) AS doc "
        "ORDER BY d.updated_at DESC, d.id LIMIT $limit"
    )
    return _stmt(text, *params), params


_HIT_RETURN = f"RETURN {_CHUNK_MAP} AS chunk, properties(d) AS doc, score ORDER BY score DESC LIMIT $top_k"


def vector_search_query(
    embedding: Sequence[float],
    top_k: int,
    types: Sequence[str] | None,
    document_ids: Sequence[str] | None,
    candidates: int | None,
) -> tuple[Statement, dict[str, Any]]:
    """``candidates`` set: approximate search in the vector index (``types`` filtered after it);
    ``None``: exact cosine over the chunks of ``document_ids`` and/or ``types``.
    Scores are Neo4j's ``(1 + cos) / 2``; the store turns them back into cosine."""
    params: dict[str, Any] = {"embedding": [float(x) for x in embedding], "top_k": int(top_k)}
    type_clause = []
    if types is not None:
        type_clause = ["d.type IN $types"]
        params["types"] = [str(t) for t in types]
    if candidates is not None:
        if document_ids is not None:
            raise ValueError("approximate search does not take document_ids")
        params["candidates"] = int(candidates)
        text = (
            "CALL db.index.vector.queryNodes('chunk_embeddings', $candidates, $embedding) YIELD node, score "
            f"MATCH (node)-[:PART_OF]->(d:Document){_where(type_clause)} WITH node AS c, d, score {_HIT_RETURN}"
        )
    else:
        if document_ids is not None:
            params["document_ids"] = list(document_ids)
            head = f"UNWIND $document_ids AS id MATCH (d:Document {{id: id}}){_where(type_clause)}"
        elif types is not None:
            head = f"MATCH (d:Document){_where(type_clause)}"
        else:
            raise ValueError("exact search needs types or document_ids")
        text = (
            f"{head} MATCH (c:Chunk)-[:PART_OF]->(d) "
            "WHERE c.embedding IS NOT NULL AND size(c.embedding) = size($embedding) "
            f"WITH c, d, vector.similarity.cosine(c.embedding, $embedding) AS score {_HIT_RETURN}"
        )
    return _stmt(text, *params), params


_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+", re.UNICODE)


def lucene_escape(term: str) -> str:
    return _LUCENE_SPECIAL.sub(r"\\\1", term)


def lucene_query(text: str) -> str:
    """Plain text → a Lucene query of escaped terms OR-ed together (no query syntax gets through;
    terms are lower-cased so AND/OR/NOT are never operators)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:64]
    return " OR ".join(lucene_escape(w) for w in words)


def keyword_search_query(
    text: str, top_k: int, types: Sequence[str] | None, document_ids: Sequence[str] | None
) -> tuple[Statement, dict[str, Any]] | None:
    """``None`` when the text has no searchable term."""
    query = lucene_query(text)
    if not query:
        return None
    params: dict[str, Any] = {"query": query, "top_k": int(top_k)}
    clauses = []
    if types is not None:
        clauses.append("d.type IN $types")
        params["types"] = [str(t) for t in types]
    if document_ids is not None:
        clauses.append("d.id IN $document_ids")
        params["document_ids"] = list(document_ids)
    # unfiltered, Lucene stops at top_k; filtered, hits stream until LIMIT has enough
    options = "" if clauses else ", {limit: $top_k}"
    stmt = (
        f"CALL db.index.fulltext.queryNodes('chunk_content', $query{options}) YIELD node, score "
        f"MATCH (node)-[:PART_OF]->(d:Document){_where(clauses)} WITH node AS c, d, score {_HIT_RETURN}"
    )
    return _stmt(stmt, *params), params


_DIRECTION_PATTERNS = {
    "out": "(s:Document {id: id})-[r:REFERENCES]->(d:Document)",
    "in": "(s:Document {id: id})<-[r:REFERENCES]-(d:Document)",
    "both": "(s:Document {id: id})-[r:REFERENCES]-(d:Document)",
}


def neighbors_query(
    document_ids: Sequence[str],
    direction: str,
    kinds: Sequence[str] | None,
    types: Sequence[str] | None,
    limit: int,
) -> tuple[Statement, dict[str, Any]]:
    pattern = _DIRECTION_PATTERNS.get(direction)
    if pattern is None:
        raise InvalidQueryError(f"direction must be out, in or both, not {direction!r}")
    params: dict[str, Any] = {"ids": list(document_ids), "limit": int(limit)}
    clauses = ["NOT d.id IN $ids"]
    if kinds is not None:
        clauses.append("r.kind IN $kinds")
        params["kinds"] = list(kinds)
    if types is not None:
        clauses.append("d.type IN $types")
        params["types"] = [str(t) for t in types]
    text = (
        f"UNWIND $ids AS id MATCH {pattern}{_where(clauses)} "
        "WITH d, r.kind AS kind, CASE WHEN startNode(r) = s THEN 'out' ELSE 'in' END AS direction, "
        "s.id AS via, min(r.evidence) AS evidence "
        "ORDER BY via, direction DESC, kind, d.id LIMIT $limit "
        "RETURN properties(d) AS doc, kind, evidence, direction, via"
    )
    return _stmt(text, *params), params


def graph_nodes_query(
    limit: int, types: Sequence[str] | None, kinds: Sequence[str] | None
) -> tuple[Statement, dict[str, Any]]:
    """The best connected documents first (visible edges of ``kinds`` counted)."""
    params: dict[str, Any] = {"limit": int(limit)}
    type_clause = []
    if types is not None:
        type_clause = ["d.type IN $types"]
        params["types"] = [str(t) for t in types]
    kind_clause = ""
    if kinds is not None:
        kind_clause = " WHERE r.kind IN $kinds"
        params["kinds"] = list(kinds)
    text = (
        f"MATCH (d:Document){_where(type_clause)} "
        f"WITH d, COUNT {{ (d)-[r:REFERENCES]-(:Document){kind_clause} }} AS degree "
        "ORDER BY degree DESC, d.id LIMIT $limit RETURN properties(d) AS doc"
    )
    return _stmt(text, *params), params


def graph_edges_query(ids: Sequence[str], kinds: Sequence[str] | None) -> tuple[Statement, dict[str, Any]]:
    """Visible edges among ``ids``, one per (from, to, kind)."""
    params: dict[str, Any] = {"ids": list(ids)}
    clauses = ["b.id IN $ids"]
    if kinds is not None:
        clauses.append("r.kind IN $kinds")
        params["kinds"] = list(kinds)
    text = (
        f"UNWIND $ids AS id MATCH (a:Document {{id: id}})-[r:REFERENCES]->(b:Document){_where(clauses)} "
        "WITH a.id AS from_id, b.id AS to_id, r.kind AS kind, "
        "min(r.evidence) AS evidence, min(r.owner_id) AS owner_id "
        "RETURN from_id, to_id, kind, evidence, owner_id ORDER BY from_id, to_id, kind"
    )
    return _stmt(text, *params), params


# -- shared state of replicas: conversations, leases, sync runs (store/shared_state.py) --------
_CONVERSATION_RETURN = """RETURN c.id AS id, c.owner AS owner, c.title AS title,
    c.created_at AS created_at, c.updated_at AS updated_at"""
CREATE_CONVERSATION = _stmt(
    """MERGE (c:Conversation {id: $id})
    ON CREATE SET c.owner = $owner, c.title = $title, c.created_at = $now, c.updated_at = $now""",
    "id",
    "owner",
    "title",
    "now",
)
GET_CONVERSATION = _stmt(
    """MATCH (c:Conversation {id: $id})
    OPTIONAL MATCH (m:Message)-[:PART_OF]->(c)
    WITH c, count(m) AS n """
    + _CONVERSATION_RETURN
    + ", n",
    "id",
)
TOUCH_CONVERSATION = _stmt(
    "MATCH (c:Conversation {id: $id}) SET c.updated_at = $now RETURN count(c) AS n",
    "id",
    "now",
)
# append = lock the conversation (the SET), number the message, create it, link what it cites, trim
LOCK_CONVERSATION = _stmt(
    """MATCH (c:Conversation {id: $id})
    SET c.updated_at = $now, c.title = CASE WHEN c.title = '' THEN $title ELSE c.title END
    WITH c
    OPTIONAL MATCH (m:Message)-[:PART_OF]->(c)
    RETURN coalesce(max(m.seq), 0) + 1 AS seq""",
    "id",
    "now",
    "title",
)
CREATE_MESSAGE = _stmt(
    """MATCH (c:Conversation {id: $id})
    CREATE (m:Message {conversation_id: $id, seq: $seq, role: $role, content: $content,
                       timestamp: $timestamp, sources: $sources})-[:PART_OF]->(c)
    WITH m
    UNWIND $document_ids AS document_id
    MATCH (d:Document {id: document_id})
    MERGE (m)-[:REFERENCES]->(d)""",
    "id",
    "seq",
    "role",
    "content",
    "timestamp",
    "sources",
    "document_ids",
)
TRIM_MESSAGES = _stmt(
    "MATCH (m:Message {conversation_id: $id}) WHERE m.seq <= $below DETACH DELETE m",
    "id",
    "below",
)
GET_MESSAGES = _stmt(
    """MATCH (m:Message {conversation_id: $id})
    RETURN m.role AS role, m.content AS content, m.timestamp AS timestamp, m.sources AS sources
    ORDER BY m.seq""",
    "id",
)
GET_LAST_MESSAGES = _stmt(  # a chat's history: the newest $last, returned oldest first
    """MATCH (m:Message {conversation_id: $id})
    WITH m ORDER BY m.seq DESC LIMIT $last
    RETURN m.role AS role, m.content AS content, m.timestamp AS timestamp, m.sources AS sources
    ORDER BY m.seq""",
    "id",
    "last",
)
CLEAR_MESSAGES = _stmt(
    """MATCH (c:Conversation {id: $id}) SET c.updated_at = $now
    WITH c
    OPTIONAL MATCH (m:Message)-[:PART_OF]->(c)
    DETACH DELETE m
    RETURN count(m) AS n""",
    "id",
    "now",
)
LIST_CONVERSATIONS = _stmt(
    """MATCH (c:Conversation {owner: $owner})
    MATCH (m:Message)-[:PART_OF]->(c)
    WITH c, count(m) AS n """
    + _CONVERSATION_RETURN
    + ", n ORDER BY updated_at DESC, id LIMIT $limit",
    "owner",
    "limit",
)
RENAME_CONVERSATION = _stmt(
    "MATCH (c:Conversation {id: $id}) SET c.title = $title, c.updated_at = $now RETURN count(c) AS n",
    "id",
    "title",
    "now",
)
DELETE_CONVERSATION = _stmt(
    """MATCH (c:Conversation {id: $id})
    OPTIONAL MATCH (m:Message)-[:PART_OF]->(c)
    DETACH DELETE m, c
    RETURN count(DISTINCT c) AS n""",
    "id",
)
EXPIRE_CONVERSATIONS = _stmt(
    """MATCH (c:Conversation) WHERE c.updated_at < $before
    OPTIONAL MATCH (m:Message)-[:PART_OF]->(c)
    DETACH DELETE m, c
    RETURN count(DISTINCT c) AS n""",
    "before",
)
COUNT_CONVERSATIONS = _stmt("MATCH (c:Conversation) RETURN count(c) AS n")
# the SET on every path takes the lease node's write lock before its holder is read
ACQUIRE_LEASE = _stmt(
    """MERGE (l:Lease {name: $name})
    ON CREATE SET l.holder = $holder, l.expires_at = 0.0
    SET l.touched_at = $now
    WITH l, (l.holder = $holder OR l.expires_at <= $now) AS free
    SET l.holder = CASE WHEN free THEN $holder ELSE l.holder END,
        l.expires_at = CASE WHEN free THEN $expires_at ELSE l.expires_at END
    RETURN free AS acquired""",
    "name",
    "holder",
    "now",
    "expires_at",
)
RELEASE_LEASE = _stmt("MATCH (l:Lease {name: $name, holder: $holder}) DELETE l", "name", "holder")
GET_LEASE = _stmt(
    "MATCH (l:Lease {name: $name}) RETURN l.name AS name, l.holder AS holder, l.expires_at AS expires_at",
    "name",
)
SAVE_RUN = _stmt(
    """MERGE (r:SyncRun {id: $id})
    SET r.source = $source, r.state = $state, r.instance = $instance, r.updated_at = $updated_at,
        r.status = $status""",
    "id",
    "source",
    "state",
    "instance",
    "updated_at",
    "status",
)
TRIM_RUNS = _stmt(
    "MATCH (r:SyncRun) WITH r ORDER BY r.updated_at DESC SKIP $keep DELETE r",
    "keep",
)
_RUN_RETURN = """RETURN r.id AS id, r.source AS source, r.state AS state, r.instance AS instance,
    r.updated_at AS updated_at, r.status AS status"""
GET_RUN = _stmt("MATCH (r:SyncRun {id: $id}) " + _RUN_RETURN, "id")
LIST_RUNS = _stmt(
    "MATCH (r:SyncRun) WHERE $source IS NULL OR r.source = $source "
    + _RUN_RETURN
    + " ORDER BY updated_at DESC, id LIMIT $limit",
    "source",
    "limit",
)

# -- knowledge gaps (agent/knowledge_gaps.py) --------------------------------------------------
SAVE_GAP = _stmt(
    """MERGE (g:Gap {id: $id})
    SET g.kind = $kind, g.question = $question, g.terms = $terms, g.probability = $probability,
        g.document_ids = $document_ids, g.at = $at""",
    "id",
    "kind",
    "question",
    "terms",
    "probability",
    "document_ids",
    "at",
)
TRIM_GAPS = _stmt("MATCH (g:Gap) WITH g ORDER BY g.at DESC, g.id SKIP $keep DELETE g", "keep")
LIST_GAPS = _stmt(
    """MATCH (g:Gap) WHERE g.at >= $since
    RETURN g.id AS id, g.kind AS kind, g.question AS question, g.terms AS terms,
        g.probability AS probability, g.document_ids AS document_ids, g.at AS at
    ORDER BY at DESC, id LIMIT $limit""",
    "since",
    "limit",
)
EXPIRE_GAPS = _stmt(
    "MATCH (g:Gap) WHERE g.at < $before DELETE g RETURN count(g) AS n",
    "before",
)


def declared_statements() -> dict[str, Statement]:
    """Every module-level statement constant by name (the lint check adds the builders' paths)."""
    out: dict[str, Statement] = {}
    for name, value in globals().items():
        if isinstance(value, Statement):
            out[name] = value
    for i, stmt in enumerate(SCHEMA_STATEMENTS):
        out[f"SCHEMA_STATEMENTS[{i}]"] = stmt
    return out


for _field in FIND_FIELDS:  # fail at import if the whitelist is unsafe
    safe_name(_field)
