"""The embedded store's versions table (``docs/history.md``): one row per page version, Jira
transition or commit file diff, keyed by ``(document_id, kind, seq)`` and linked to its document
by id. Reads join ``documents`` so versions of a deleted document never show."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from devkb.store.models import SourceType, Version
from devkb.store.sqlite.schema import VERSIONS_DDL

_COLS = "v.document_id, v.kind, v.seq, v.valid_from, v.valid_until, v.author, v.message, v.body, v.field, v.from_value, v.to_value, v.ref"
_MAX_VARS = 900


def ensure_versions_table(conn: sqlite3.Connection) -> None:
    conn.executescript(VERSIONS_DDL)


def _version(row: Sequence[Any]) -> Version:
    return Version(
        document_id=row[0],
        kind=row[1],
        seq=int(row[2]),
        valid_from=row[3],
        valid_until=row[4],
        author=row[5],
        message=row[6],
        body=row[7],
        field=row[8],
        from_value=row[9],
        to_value=row[10],
        ref=row[11],
    )


def write_versions(c: sqlite3.Connection, versions: Sequence[Version]) -> None:
    """Upsert ``versions`` and chain the page versions of their documents (inside the caller's
    transaction)."""
    if not versions:
        return
    c.executemany(
        "INSERT OR REPLACE INTO versions(document_id, kind, seq, valid_from, valid_until, author, message, "
        "body, field, from_value, to_value, ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                v.document_id,
                v.kind,
                v.seq,
                v.valid_from,
                v.valid_until,
                v.author,
                v.message,
                v.body,
                v.field,
                v.from_value,
                v.to_value,
                v.ref,
            )
            for v in versions
        ],
    )
    pages = sorted({v.document_id for v in versions if v.kind == "page"})
    c.executemany(
        "UPDATE versions SET valid_until = COALESCE((SELECT n.valid_from FROM versions n WHERE "
        "n.document_id = versions.document_id AND n.kind = 'page' AND n.seq > versions.seq "
        "ORDER BY n.seq LIMIT 1), '') WHERE document_id = ? AND kind = 'page'",
        [(p,) for p in pages],
    )


def delete_versions(c: sqlite3.Connection, document_ids: Sequence[str]) -> None:
    for i in range(0, len(document_ids), _MAX_VARS):
        part = document_ids[i : i + _MAX_VARS]
        c.execute(f"DELETE FROM versions WHERE document_id IN ({','.join('?' * len(part))})", part)


def versions(conn: sqlite3.Connection, document_id: str, kinds: Sequence[str] | None) -> list[Version]:
    sql = f"SELECT {_COLS} FROM versions v JOIN documents d ON d.id = v.document_id WHERE v.document_id = ?"
    args: list[Any] = [document_id]
    if kinds:
        sql += f" AND v.kind IN ({','.join('?' * len(kinds))})"
        args.extend(kinds)
    sql += " ORDER BY v.valid_from, v.kind, v.seq"
    return [_version(r) for r in conn.execute(sql, args)]


def get_version(conn: sqlite3.Connection, document_id: str, kind: str, seq: int) -> Version | None:
    row = conn.execute(
        f"SELECT {_COLS} FROM versions v JOIN documents d ON d.id = v.document_id "
        "WHERE v.document_id = ? AND v.kind = ? AND v.seq = ?",
        (document_id, kind, seq),
    ).fetchone()
    return _version(row) if row else None


def latest_versions(conn: sqlite3.Connection, document_ids: Sequence[str], kind: str) -> dict[str, int]:
    out: dict[str, int] = {}
    ids = list(document_ids)
    for i in range(0, len(ids), _MAX_VARS):
        part = ids[i : i + _MAX_VARS]
        out.update(
            (r[0], int(r[1]))
            for r in conn.execute(
                f"SELECT document_id, MAX(seq) FROM versions WHERE kind = ? AND document_id IN "
                f"({','.join('?' * len(part))}) GROUP BY document_id",
                [kind, *part],
            )
        )
    return out


def changes_between(
    conn: sqlite3.Connection,
    start: str,
    end: str,
    types: Sequence[SourceType] | None,
    document_ids: Sequence[str] | None,
    limit: int,
) -> list[Version]:
    if document_ids is not None and not document_ids:
        return []
    sql = (
        f"SELECT {_COLS} FROM versions v JOIN documents d ON d.id = v.document_id "
        "WHERE v.valid_from >= ? AND v.valid_from < ?"
    )
    args: list[Any] = [start, end]
    if types:
        sql += f" AND d.type IN ({','.join('?' * len(types))})"
        args.extend(str(t) for t in types)
    out: list[Version] = []
    parts: list[Sequence[str] | None] = (
        [None]
        if document_ids is None
        else [list(document_ids)[i : i + _MAX_VARS] for i in range(0, len(document_ids), _MAX_VARS)]
    )
    for part in parts:
        q, a = sql, list(args)
        if part is not None:
            q += f" AND v.document_id IN ({','.join('?' * len(part))})"
            a.extend(part)
        q += " ORDER BY v.valid_from DESC, v.document_id DESC, v.kind DESC, v.seq DESC LIMIT ?"
        a.append(limit)
        out.extend(_version(r) for r in conn.execute(q, a))
    out.sort(key=lambda v: (v.valid_from, v.document_id, v.kind, v.seq), reverse=True)
    return out[:limit]
