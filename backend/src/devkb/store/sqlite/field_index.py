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

New documents' rows are written by ``write_documents`` itself (:func:`insert_rows`): the insert
trigger parsed every document's metadata twice in SQL, ~2 of the ~3.5 CPU seconds of writing the
whole Fluid corpus; the same rows from Python cost ~1. Stores written before keep an insert
trigger (``INSERT_TRIGGER``) until opened by this version, which drops it; while it exists — a
process of an earlier version re-creates it when it opens the store — the trigger writes the rows
and ``write_documents`` does not (never twice), as with the full-text index's trigger.

The field names are tested as ``key = 'a' OR key = 'b' …`` rather than ``key IN ('a', 'b', …)``:
SQLite builds a fresh lookup table for a constant ``IN`` list on each run of a trigger
statement, i.e. twice per written document (writing the whole Fluid corpus took ~6% less CPU).
"""

from __future__ import annotations

import sqlite3
import string
from collections.abc import Mapping
from typing import Any

from devkb.store.models import FIND_FIELDS

META_KEY = "document_fields"
TRIGGERS = ("documents_fields_au", "documents_fields_ad")
# The insert trigger of stores written before 2026-11-29 (see the module docstring).
INSERT_TRIGGER = "documents_fields_ai"
# SQLite's lower() folds ASCII letters only (no ICU): the index holds what it would write.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_INT64 = range(-(2**63), 2**63)


def indexed_fields() -> list[str]:
    return sorted(f for f, where in FIND_FIELDS.items() if where == "metadata")


def _is_indexed_key(column: str) -> str:
    """SQL true when ``column`` names an indexed field (constants from FIND_FIELDS, not input)."""
    return "(" + " OR ".join(f"{column} = '{f}'" for f in indexed_fields()) + ")"


def _insert_values(doc: str) -> str:
    """SQL inserting the field values of the document row ``doc`` (``new`` or a table alias)."""
    return _insert_sql(f"{doc}.id", f"{doc}.metadata")


def _insert_sql(doc_id: str, metadata: str) -> str:
    fields = _is_indexed_key("top.key")
    return f"""
        INSERT INTO document_fields(document_id, field, value)
        SELECT {doc_id}, top.key, lower(CAST(top.value AS TEXT))
          FROM json_each({metadata}) AS top
         WHERE {fields} AND top.type NOT IN ('null', 'object', 'array');
        INSERT INTO document_fields(document_id, field, value)
        SELECT {doc_id}, top.key, lower(CAST(el.value AS TEXT))
          FROM json_each({metadata}) AS top, json_each(top.value) AS el
         WHERE {fields} AND top.type = 'array' AND el.type NOT IN ('null', 'object', 'array');"""


_FIELDS = frozenset(indexed_fields())


class _NotPlain(Exception):
    """A value whose text SQLite might write differently from Python (a float, a huge integer, a
    NUL character, a type ``json.dumps`` writes with ``str``)."""


def _text(value: Any) -> str | None:
    """The indexed text of one JSON value as ``json_each`` + ``lower(CAST(… AS TEXT))`` gives it;
    None where the index leaves it out (null, object, array)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, str):
        if "\x00" in value:
            raise _NotPlain
        return value.translate(_ASCII_LOWER)
    if isinstance(value, int):
        if value not in _INT64:
            raise _NotPlain
        return str(value)
    if value is None or isinstance(value, dict | list | tuple):
        return None
    raise _NotPlain


def insert_rows(
    conn: sqlite3.Connection, doc_id: str, metadata: Mapping[str, Any], metadata_json: str
) -> None:
    """Index the fields of a document just inserted (``metadata_json`` is what was written):
    the rows the insert trigger wrote, from Python; SQLite's own statements for a document with
    a value whose text might differ."""
    rows: list[tuple[str, str, str]] = []
    try:
        for field in _FIELDS.intersection(metadata):
            value = metadata[field]
            if isinstance(value, list | tuple):
                rows.extend((doc_id, field, t) for item in value if (t := _text(item)) is not None)
            elif (t := _text(value)) is not None:
                rows.append((doc_id, field, t))
    except _NotPlain:
        for statement in _statements(_insert_sql("?1", "?2")):
            conn.execute(statement, (doc_id, metadata_json))
        return
    conn.executemany("INSERT INTO document_fields(document_id, field, value) VALUES (?, ?, ?)", rows)


def _trigger_ddl() -> str:
    return f"""
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
        if conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?", (INSERT_TRIGGER,)
        ).fetchone():
            conn.execute(f"DROP TRIGGER {INSERT_TRIGGER}")  # write_documents writes the rows
        return False
    backfill = _insert_values("d").replace(
        "FROM json_each(d.metadata)", "FROM documents AS d, json_each(d.metadata)"
    )
    conn.execute("BEGIN IMMEDIATE")
    try:
        for name in (*TRIGGERS, INSERT_TRIGGER):
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
