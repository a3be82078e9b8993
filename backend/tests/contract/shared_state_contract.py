"""What every ``SharedState`` backend must do (conversations, leases, sync runs), written once and
run against each backend (``test_shared_state.py``: SQLite always, Neo4j with a server)."""

from __future__ import annotations

from devkb.store.shared_state import ConversationMessage, Gap, SharedState, SyncRunRecord

CID = "8b0e6f3c-1f0a-4c55-9a44-1d5c3f6e2a10"
OTHER = "5f7d2c9e-3b1a-4e8d-8c2f-6a9b0d1e4f33"


def user(text: str) -> ConversationMessage:
    return ConversationMessage("user", text, "2026-11-24T05:00:00+00:00")


def answer(text: str, *doc_ids: str) -> ConversationMessage:
    sources = tuple(
        {"document_id": d, "title": d, "url": f"https://x/{d}", "type": "JIRA", "score": 1.0, "snippet": ""}
        for d in doc_ids
    )
    return ConversationMessage("assistant", text, "2026-11-24T05:00:01+00:00", sources)


def gap(
    gid: str, at: float, kind: str = "not_found", question: str = "How do we rotate the vault keys?"
) -> Gap:
    return Gap(gid, kind, question, ("rotate", "vault", "keys"), 0.2, ("confluence:1", "jira:PAY-7"), at)


class SharedStateContract:
    # -- knowledge gaps -------------------------------------------------------------------------
    def test_gaps_round_trip_newest_first(self, shared: SharedState):
        shared.record_gap(gap("g1", 10.0))
        shared.record_gap(Gap("g2", "thumbs_down", "", ("settlement",), None, (), 20.0))
        got = shared.gaps()
        assert [g.id for g in got] == ["g2", "g1"]
        assert got[1] == gap("g1", 10.0)
        assert got[0].question == "" and got[0].probability is None and got[0].document_ids == ()
        assert [g.id for g in shared.gaps(since=15.0)] == ["g2"]
        assert [g.id for g in shared.gaps(limit=1)] == ["g2"]

    def test_recording_a_gap_again_replaces_it(self, shared: SharedState):
        shared.record_gap(gap("g1", 10.0))
        shared.record_gap(gap("g1", 30.0, kind="low_confidence"))
        got = shared.gaps()
        assert len(got) == 1 and got[0].kind == "low_confidence" and got[0].at == 30.0

    def test_gaps_expire_like_conversations(self, shared: SharedState):
        for i in range(5):
            shared.record_gap(gap(f"g{i}", float(i * 10)))
        assert shared.expire_gaps(25.0) == 3
        assert [g.id for g in shared.gaps()] == ["g4", "g3"]
        assert shared.expire_gaps(25.0) == 0

    # -- conversations ------------------------------------------------------------------------
    def test_a_conversation_keeps_its_messages_in_order_with_their_sources(self, shared: SharedState):
        shared.create_conversation(CID, "ann", "", 100.0)
        shared.append_message(CID, user("What is PAY-12 about?"), 101.0, keep_last=100)
        shared.append_message(
            CID, answer("PAY-12 is about retries.", "jira:PAY-12", "jira:PAY-7"), 102.0, 100
        )
        got = shared.messages(CID)
        assert [m.role for m in got] == ["user", "assistant"]
        assert got[1].document_ids == ("jira:PAY-12", "jira:PAY-7")
        assert got[1].sources[0]["url"] == "https://x/jira:PAY-12"
        c = shared.conversation(CID)
        assert c is not None and c.owner == "ann" and c.message_count == 2
        assert c.title == "What is PAY-12 about?" and c.updated_at == 102.0 and c.created_at == 100.0

    def test_create_is_idempotent_and_unknown_ids_are_unknown(self, shared: SharedState):
        shared.create_conversation(CID, "ann", "", 100.0)
        shared.append_message(CID, user("q"), 101.0, 100)
        shared.create_conversation(CID, "bob", "", 200.0)  # no-op: never takes over a conversation
        c = shared.conversation(CID)
        assert c is not None and c.owner == "ann" and c.message_count == 1
        assert shared.conversation(OTHER) is None
        assert shared.touch_conversation(OTHER, 300.0) is False
        shared.append_message(OTHER, user("lost?"), 300.0, 100)  # no conversation: nothing written
        assert shared.messages(OTHER) == []

    def test_only_the_last_messages_are_kept(self, shared: SharedState):
        shared.create_conversation(CID, "ann", "", 0.0)
        for i in range(7):
            shared.append_message(CID, user(f"q{i}"), float(i), keep_last=3)
        assert [m.content for m in shared.messages(CID)] == ["q4", "q5", "q6"]

    def test_the_last_messages_are_read_oldest_first(self, shared: SharedState):
        shared.create_conversation(CID, "ann", "", 0.0)
        for i in range(5):
            shared.append_message(CID, user(f"q{i}"), float(i), keep_last=100)
        assert [m.content for m in shared.messages(CID, last=2)] == ["q3", "q4"]
        assert [m.content for m in shared.messages(CID, last=9)] == ["q0", "q1", "q2", "q3", "q4"]
        assert shared.messages(CID, last=0) == []

    def test_list_rename_clear_delete(self, shared: SharedState):
        shared.create_conversation(CID, "ann", "", 10.0)
        shared.create_conversation(OTHER, "ann", "", 11.0)
        shared.create_conversation("empty", "ann", "", 12.0)
        shared.append_message(CID, user("first"), 20.0, 100)
        shared.append_message(OTHER, user("second"), 30.0, 100)
        assert [c.id for c in shared.list_conversations("ann")] == [OTHER, CID]  # empty ones are not listed
        assert shared.list_conversations("bob") == []
        assert shared.rename_conversation(CID, "Retries", 40.0) is True
        assert shared.rename_conversation("nope", "x", 40.0) is False
        assert [c.id for c in shared.list_conversations("ann")] == [CID, OTHER]
        assert shared.conversation(CID).title == "Retries"  # type: ignore[union-attr]
        assert shared.clear_conversation(CID, 50.0) == 1
        assert shared.messages(CID) == [] and shared.conversation(CID) is not None
        assert shared.delete_conversation(OTHER) is True and shared.delete_conversation(OTHER) is False
        assert shared.conversation(OTHER) is None and shared.messages(OTHER) == []

    def test_retention_expires_what_was_not_used(self, shared: SharedState):
        shared.create_conversation(CID, "ann", "", 10.0)
        shared.append_message(CID, user("old"), 10.0, 100)
        shared.create_conversation(OTHER, "ann", "", 10.0)
        assert shared.touch_conversation(OTHER, 500.0) is True
        assert shared.expire_conversations(100.0) == 1
        assert shared.conversation(CID) is None and shared.messages(CID) == []
        assert shared.conversation(OTHER) is not None and shared.conversation_count() == 1

    # -- leases -------------------------------------------------------------------------------
    def test_a_lease_has_one_holder_until_it_expires(self, shared: SharedState):
        assert shared.acquire_lease("scheduler", "a", 10.0, 100.0) is True
        assert shared.acquire_lease("scheduler", "b", 10.0, 105.0) is False
        assert shared.acquire_lease("scheduler", "a", 10.0, 108.0) is True  # renewed to 118
        assert shared.acquire_lease("scheduler", "b", 10.0, 115.0) is False
        lease = shared.lease("scheduler")
        assert lease is not None and lease.holder == "a" and lease.expires_at == 118.0
        assert shared.acquire_lease("scheduler", "b", 10.0, 118.5) is True  # expired: taken over
        assert shared.lease("scheduler").holder == "b"  # type: ignore[union-attr]
        assert shared.acquire_lease("sync:jira", "a", 10.0, 118.5) is True  # leases are independent

    def test_release_frees_only_the_holders_lease(self, shared: SharedState):
        assert shared.acquire_lease("scheduler", "a", 10.0, 100.0)
        shared.release_lease("scheduler", "b")
        assert shared.lease("scheduler").holder == "a"  # type: ignore[union-attr]
        shared.release_lease("scheduler", "a")
        assert shared.lease("scheduler") is None
        assert shared.acquire_lease("scheduler", "b", 10.0, 101.0) is True

    # -- sync runs ------------------------------------------------------------------------------
    def test_runs_are_saved_updated_and_listed(self, shared: SharedState):
        shared.save_run(SyncRunRecord("r1", "jira", "running", "a", 10.0, {"id": "r1", "done": 1}))
        shared.save_run(SyncRunRecord("r2", "wiki", "running", "b", 11.0, {"id": "r2"}))
        shared.save_run(SyncRunRecord("r1", "jira", "succeeded", "a", 12.0, {"id": "r1", "done": 9}))
        r1 = shared.get_run("r1")
        assert r1 is not None and r1.state == "succeeded" and r1.status["done"] == 9 and r1.instance == "a"
        assert [r.id for r in shared.runs()] == ["r1", "r2"]
        assert [r.id for r in shared.runs("wiki")] == ["r2"]
        assert shared.get_run("nope") is None
