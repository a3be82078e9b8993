"""DDL of the embedded store. Bumped ``SCHEMA_VERSION`` means a migration is needed."""

SCHEMA_VERSION = 1

DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
    id           TEXT PRIMARY KEY,
    type         TEXT NOT NULL,
    title        TEXT NOT NULL,
    url          TEXT NOT NULL DEFAULT '',
    updated_at   TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL DEFAULT '',
    metadata     TEXT NOT NULL DEFAULT '{}',
    source       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS documents_type ON documents(type);
CREATE INDEX IF NOT EXISTS documents_source ON documents(source);
CREATE INDEX IF NOT EXISTS documents_updated ON documents(updated_at);
CREATE INDEX IF NOT EXISTS documents_title ON documents(title);

CREATE TABLE IF NOT EXISTS chunks (
    rowid        INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    document_id  TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index  INTEGER NOT NULL,
    content      TEXT NOT NULL,
    section      TEXT NOT NULL DEFAULT '',
    embedding    BLOB
);
CREATE INDEX IF NOT EXISTS chunks_document ON chunks(document_id, chunk_index);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    content, content='chunks', content_rowid='rowid', tokenize='porter unicode61'
);
-- New chunks enter chunks_fts from write_documents, row by row after the transaction's other
-- statements, not from a row trigger: written from a trigger FTS5 costs about twice as much
-- (docs/deployment.md). A store written before drops that trigger when opened (FTS_INSERT_TRIGGER).
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO chunk_tombstones(chunk_rowid) VALUES (old.rowid);
END;

-- Deleted chunk rowids, so the in-memory vector index can refresh incrementally.
CREATE TABLE IF NOT EXISTS chunk_tombstones (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_rowid  INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS refs (
    from_id   TEXT NOT NULL,
    to_id     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    evidence  TEXT NOT NULL DEFAULT '',
    owner_id  TEXT NOT NULL,
    PRIMARY KEY (from_id, to_id, kind, owner_id)
);
CREATE INDEX IF NOT EXISTS refs_to ON refs(to_id);
CREATE INDEX IF NOT EXISTS refs_owner ON refs(owner_id);

-- Lower-cased values of the metadata fields the structured find filters on (FIND_FIELDS), one
-- row per scalar or array element, kept by triggers (field_index.py): a lookup by issue key,
-- status or path is an index seek instead of parsing every document's JSON.
CREATE TABLE IF NOT EXISTS document_fields (
    document_id  TEXT NOT NULL,
    field        TEXT NOT NULL,
    value        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS document_fields_lookup ON document_fields(field, value);
CREATE INDEX IF NOT EXISTS document_fields_document ON document_fields(document_id);

CREATE TABLE IF NOT EXISTS sync_state (
    source TEXT PRIMARY KEY,
    state  TEXT NOT NULL
);
"""

# The row trigger that used to index new chunks (stores written before 2026-11-28 have it). While
# it exists — a process of an earlier version re-creates it when it opens the store — the trigger
# indexes new chunks and write_documents does not (never twice).
FTS_INSERT_TRIGGER = "chunks_ai"

# Versions of documents (docs/history.md): page versions, Jira transitions, commit file diffs.
# Created by ``history.ensure_versions_table`` (stores written before it gain it when opened).
VERSIONS_DDL = """
CREATE TABLE IF NOT EXISTS versions (
    document_id  TEXT NOT NULL,
    kind         TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    valid_from   TEXT NOT NULL,
    valid_until  TEXT NOT NULL DEFAULT '',
    author       TEXT NOT NULL DEFAULT '',
    message      TEXT NOT NULL DEFAULT '',
    body         TEXT NOT NULL DEFAULT '',
    field        TEXT NOT NULL DEFAULT '',
    from_value   TEXT NOT NULL DEFAULT '',
    to_value     TEXT NOT NULL DEFAULT '',
    ref          TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (document_id, kind, seq)
);
CREATE INDEX IF NOT EXISTS versions_when ON versions(valid_from);
"""
