"""The embedded store's ``document_fields`` index: kept in step with documents by triggers, and
rebuilt for stores written before it existed."""

from __future__ import annotations

import sqlite3

from devkb.store.models import Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from devkb.store.sqlite.field_index import (
    INSERT_TRIGGER,
    META_KEY,
    TRIGGERS,
    _insert_values,
    ensure_field_index,
)


def doc(id: str, **meta) -> Document:
    return Document(
        id=id,
        type=SourceType.JIRA,
        title=id,
        url="",
        updated_at=meta.pop("updated", "2026-01-01"),
        content_hash="h" + id,
        metadata=meta,
        source="jira",
    )


def ids(store: SQLiteGraphStore, **filters) -> list[str]:
    return sorted(d.id for d in store.find_documents(filters))


def rows(path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute("SELECT document_id, field, value FROM document_fields"))


def test_insert_update_delete_keep_the_index_exact(tmp_path):
    store = SQLiteGraphStore(tmp_path / "g.sqlite")
    store.write_documents(
        [
            (
                doc("jira:A-1", key="A-1", status="Open", label=["UX", "a11y"], assignee=None, body={"x": 1}),
                [],
            ),
            (doc("jira:A-2", key="A-2", status="Closed", number=7, flag=True), []),
        ]
    )
    assert ids(store, key="a-1") == ["jira:A-1"]
    assert ids(store, status=["open", "CLOSED"]) == ["jira:A-1", "jira:A-2"]
    assert ids(store, label="ux") == ids(store, label="A11Y") == ["jira:A-1"]
    assert ids(store, number="7") == ["jira:A-2"]
    # only FIND_FIELDS' metadata fields, without nulls or objects
    assert rows(tmp_path / "g.sqlite") == [
        ("jira:A-1", "key", "a-1"),
        ("jira:A-1", "label", "a11y"),
        ("jira:A-1", "label", "ux"),
        ("jira:A-1", "status", "open"),
        ("jira:A-2", "key", "a-2"),
        ("jira:A-2", "number", "7"),
        ("jira:A-2", "status", "closed"),
    ]
    store.write_documents([(doc("jira:A-1", key="A-1", status="Resolved"), [])])  # upsert = update
    assert ids(store, status="open") == [] and ids(store, status="resolved") == ["jira:A-1"]
    assert ids(store, label="ux") == []
    store.delete_documents(["jira:A-2"])
    assert ids(store, status="closed") == []
    assert [r for r in rows(tmp_path / "g.sqlite") if r[0] == "jira:A-2"] == []
    store.close()


def test_a_failed_write_leaves_no_index_rows(tmp_path):
    store = SQLiteGraphStore(tmp_path / "g.sqlite")
    store.write_documents([(doc("jira:B-1", key="B-1"), [])])
    try:
        with store._write() as c:
            c.execute(
                "INSERT INTO documents(id, type, title, metadata) VALUES ('jira:B-2', 'jira', 't', ?)",
                ('{"key": "B-2"}',),
            )
            raise RuntimeError("crash mid-transaction")
    except RuntimeError:
        pass
    assert ids(store, key="b-2") == [] and ids(store, key="b-1") == ["jira:B-1"]
    assert [r[0] for r in rows(tmp_path / "g.sqlite")] == ["jira:B-1"]
    store.close()


def test_a_store_written_before_the_index_is_backfilled_on_open(tmp_path):
    path = tmp_path / "old.sqlite"
    store = SQLiteGraphStore(path)
    store.write_documents(
        [(doc(f"jira:C-{i}", key=f"C-{i}", status="Open" if i % 2 else "Closed"), []) for i in range(50)]
    )
    store.close()
    with sqlite3.connect(path) as conn:  # as a store from before the field index looked
        for name in TRIGGERS:
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DELETE FROM document_fields")
        conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
    reopened = SQLiteGraphStore(path)
    assert ids(reopened, key="c-7") == ["jira:C-7"]
    assert len(ids(reopened, status="open")) == 25
    reopened.write_documents([(doc("jira:C-7", key="C-7", status="Closed"), [])])  # triggers are back
    assert len(ids(reopened, status="open")) == 24
    reopened.close()


def test_lookup_uses_the_index_not_a_scan(tmp_path):
    store = SQLiteGraphStore(tmp_path / "g.sqlite")
    store.write_documents([(doc("jira:D-1", key="D-1"), [])])
    conn = store._conn()
    plan = " ".join(
        r[-1]
        for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT d.id FROM documents d WHERE d.id IN "
            "(SELECT document_id FROM document_fields WHERE field = ? AND value IN (?))",
            ("key", "d-1"),
        )
    )
    assert "document_fields_lookup" in plan
    store.close()


def test_triggers_of_an_older_version_are_replaced_on_open(tmp_path):
    path = tmp_path / "older.sqlite"
    store = SQLiteGraphStore(path)
    store.write_documents([(doc("jira:E-1", key="E-1", status="Open"), [])])
    store.close()
    with sqlite3.connect(path) as conn:  # same name, other SQL: as an older devkb wrote it
        conn.execute("DROP TRIGGER documents_fields_au")
        conn.execute(
            "CREATE TRIGGER documents_fields_au AFTER UPDATE OF id, metadata ON documents BEGIN "
            "INSERT INTO document_fields(document_id, field, value) VALUES (new.id, 'old', 'old'); END"
        )
    reopened = SQLiteGraphStore(path)
    with sqlite3.connect(path) as conn:
        assert not ensure_field_index(conn)  # already rebuilt by the open above
    reopened.write_documents([(doc("jira:E-2", key="E-2", status="Closed"), [])])
    reopened.write_documents([(doc("jira:E-1", key="E-1", status="Resolved"), [])])
    assert rows(path) == [
        ("jira:E-1", "key", "e-1"),
        ("jira:E-1", "status", "resolved"),
        ("jira:E-2", "key", "e-2"),
        ("jira:E-2", "status", "closed"),
    ]
    reopened.close()


def _older_insert_trigger(path) -> None:
    """The insert trigger of a devkb from before 2026-11-29 (an older process re-creates it)."""
    with sqlite3.connect(path) as conn:
        conn.executescript(
            f"CREATE TRIGGER {INSERT_TRIGGER} AFTER INSERT ON documents BEGIN {_insert_values('new')} END;"
        )


def test_rows_are_written_once_with_or_without_an_older_insert_trigger(tmp_path):
    path = tmp_path / "g.sqlite"
    store = SQLiteGraphStore(path)
    store.write_documents([(doc("jira:F-1", key="F-1", label=["Ä-Team", "UX"]), [])])
    _older_insert_trigger(path)  # while it exists, the trigger writes new documents' rows
    store.write_documents([(doc("jira:F-2", key="F-2"), []), (doc("jira:F-2", key="F-2", status="Open"), [])])
    store.close()
    reopened = SQLiteGraphStore(path)  # this version drops the trigger when it opens the store
    with sqlite3.connect(path) as conn:
        assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (INSERT_TRIGGER,)).fetchall()
    # a document written twice in one batch: inserted, then updated (the update trigger's rows)
    reopened.write_documents(
        [(doc("jira:F-3", key="F-3"), []), (doc("jira:F-3", key="F-3", status="Done"), [])]
    )
    reopened.close()
    assert rows(path) == [
        ("jira:F-1", "key", "f-1"),
        ("jira:F-1", "label", "ux"),
        ("jira:F-1", "label", "Ä-team"),  # SQLite's lower() folds ASCII only, and so does the index
        ("jira:F-2", "key", "f-2"),
        ("jira:F-2", "status", "open"),
        ("jira:F-3", "key", "f-3"),
        ("jira:F-3", "status", "done"),
    ]


def test_values_python_might_write_differently_are_left_to_sqlite(tmp_path):
    path = tmp_path / "g.sqlite"
    store = SQLiteGraphStore(path)
    store.write_documents(
        [
            (doc("jira:G-1", key="G-1", number=2**70, flag=True), []),
            (doc("jira:G-2", key="G-2", label=[True, 1, None, ["x"], {"y": 1}, "Z"]), []),
        ]
    )
    store.close()
    python_rows = rows(path)
    # the same documents through SQLite's own statements (the older insert trigger)
    old = tmp_path / "old.sqlite"
    store = SQLiteGraphStore(old)
    _older_insert_trigger(old)
    store.write_documents(
        [
            (doc("jira:G-1", key="G-1", number=2**70, flag=True), []),
            (doc("jira:G-2", key="G-2", label=[True, 1, None, ["x"], {"y": 1}, "Z"]), []),
        ]
    )
    store.close()
    assert python_rows == rows(old)
    assert ("jira:G-2", "label", "1") in python_rows and ("jira:G-2", "label", "z") in python_rows
