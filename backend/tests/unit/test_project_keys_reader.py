"""The planner's Jira project keys: read once per store generation, never stale after a write."""

from __future__ import annotations

from devkb.container import project_keys_reader
from devkb.store.models import SyncState
from devkb.store.sqlite import SQLiteGraphStore


def _hints(*keys: str) -> dict:
    return {"link_hints": {"project_keys": list(keys)}}


class _Counting(SQLiteGraphStore):
    reads = 0

    def list_sync_states(self):  # type: ignore[no-untyped-def]
        type(self).reads += 1
        return super().list_sync_states()


def test_read_again_only_after_a_write(tmp_path):
    store = _Counting(tmp_path / "graph.sqlite")
    store.save_sync_state(SyncState(source="jira", extra=_hints("PAY")))
    keys = project_keys_reader(store)
    assert keys() == {"PAY"} and keys() == {"PAY"}
    assert _Counting.reads == 1
    store.save_sync_state(SyncState(source="jira", extra=_hints("PAY", "WEB")))
    assert keys() == {"PAY", "WEB"}
    other = SQLiteGraphStore(tmp_path / "graph.sqlite")  # another connection (or process) writes
    other.save_sync_state(SyncState(source="jira2", extra=_hints("OPS")))
    assert keys() == {"PAY", "WEB", "OPS"}
    assert _Counting.reads == 3


def test_a_store_without_a_generation_is_read_every_time(tmp_path):
    class Plain:
        def __init__(self) -> None:
            self.states = [SyncState(source="jira", extra=_hints("PAY"))]

        def list_sync_states(self) -> list[SyncState]:
            return list(self.states)

    store = Plain()
    keys = project_keys_reader(store)  # type: ignore[arg-type]
    assert keys() == {"PAY"}
    store.states.append(SyncState(source="jira2", extra=_hints("OPS")))
    assert keys() == {"PAY", "OPS"}
