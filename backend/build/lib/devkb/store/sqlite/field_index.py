"""The ``document_fields`` index: metadata values of the find fields, kept in step by triggers.

``find_documents`` filters like ``key = FLUID-4306`` or ``status IN (open, reopened)`` used to
run ``json_each`` over every document's metadata (a full scan: ~17 ms at 12k documents, linear
in the store). The triggers below copy each filterable field's lower-cased values into
``document_fields`` on insert, update and delete of a document, inside the writer's own
transaction, so the index can never disagree with the documents it describes. Values follow
``json_each`` on ``$.<field>``: a scalar gives one row, an array one row per scalar element;
nulls and nested objects are not indexed (a filter never matched them by value).

The list of indexed fields is recorded in ``meta``; when it differs from ``FIND_FIELDS`` (an
older store, or a new field), or the store's triggers are not the ones this module writes (an
older version of them), :func:`ensure_field_index` recreates the triggers and rebuilds the table
from the documents, in one transaction.

The field names are tested as ``key = 'a' OR key = 'b' …`` rather than ``key IN ('a', 'b', …)``:
SQLite builds a fresh lookup table for a constant ``IN`` list on each run of a trigger
statement, i.e. twice per written document (writing the whole Fluid corpus took ~6% less CPU).
"""

from __future__ import annotations

import sqlite3

from devkb.store.models import FIND_FIELDS

META_KEY = "document_fields"
TRIGGERS = ("documents_fields_ai", "documents_fields_au", "documents_fields_ad")


def indexed_fields() -> list[str]:
    return sorted(f for f, where in FIND_FIELDS.items() if where == "metadata")


def _is_indexed_key(column: str) -> str:
    """SQL true when ``column`` names an indexed field (constants from FIND_FIELDS, not input)."""
    return "(" + " OR ".join(f"{column} = '{f}'" for f in indexed_fields()) + ")"


def _insert_values(doc: str) -> str:
    """SQL inserting the field values of the document row ``doc`` (``new`` or a table alias)."""
    fields = _is_indexed_key("top.key")
    return f"""
        INSERT INTO document_fields(document_id, field, value)
        SELECT {doc}.id, top.key, lower(CAST(top.value AS TEXT))
          FROM json_each({doc}.metadata) AS top
         WHERE {fields} AND top.type NOT IN ('null', 'object', 'array');
        INSERT INTO document_fields(document_id, field, value)
        SELECT {doc}.id, top.key, lower(CAST(el.value AS TEXT))
          FROM json_each({doc}.metadata) AS top, json_each(top.value) AS el
         WHERE {fields} AND top.type = 'array' AND el.type NOT IN ('null', 'object', 'array');"""


def _trigger_ddl() -> str:
    return f"""
    CREATE TRIGGER documents_fields_ai AFTER INSERT ON documents BEGIN
        {_insert_values("new")}
    END;
    CREATE TRIGGER documents_fields_au AFTER UPDATE OF id, metadata ON documents BEGIN
        DELETE FROM document_fields WHERE document_id = old.id;
        {_insert_values("new")}
    END;
    CREATE TRIGGER documents_fields_ad AFTER DELETE ON documents BEGIN
        DELETE FROM document_fields WHERE document_id = old.id;
    END;
    """


def ensure_field_index(conn: sqlite3.Connection) -> bool:
    """Create or rebuild the triggers and the table when the field list changed; True if rebuilt."""
    wanted = ",".join(indexed_fields())
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is not None and row[0] == wanted and _triggers_current(conn):
        return False
    backfill = _insert_values("d").replace(
        "FROM json_each(d.metadata)", "FROM documents AS d, json_each(d.metadata)"
    )
    conn.execute("BEGIN IMMEDIATE")
    try:
        for name in TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute("DELETE FROM document_fields")
        for statement in _statements(_trigger_ddl() + backfill):
            conn.execute(statement)
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (META_KEY, wanted))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return True


def _triggers_current(conn: sqlite3.Connection) -> bool:
    """Whether every trigger exists with the SQL this module writes (SQLite keeps the statement's
    text without its final semicolon)."""
    stored = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall())
    wanted = {s.split()[2]: s.rstrip(";") for s in _statements(_trigger_ddl())}
    return all(stored.get(name) == wanted[name] for name in TRIGGERS)


def _statements(script: str) -> list[str]:
    """Split on statement ends, keeping each CREATE TRIGGER ... END; whole."""
    out: list[str] = []
    buf = ""
    for piece in script.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n;"):
                out.append(buf.strip())
            buf = ""
    return out
