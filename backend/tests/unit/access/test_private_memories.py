"""A private memory is its owner's alone — an admin, who reads every other document, does not
read it, on any read of the reader store or the learnt ranking; the operator (no accounts,
``--all``) reads everything. A filter, not a ranking hint: the other person's memory is not in
the results at all, whatever its score."""

from __future__ import annotations

import pytest

from devkb.access.policy import AccessPolicy
from devkb.access.readers import EVERYTHING, Reader, reading_as
from devkb.access.scoped_store import ScopedStore
from devkb.agent.retrieval import RelatedSearch
from devkb.memory.model import Memory, gates_for
from devkb.sources import acl
from devkb.store.models import Chunk, Document, SourceType
from devkb.store.sqlite import SQLiteGraphStore
from tests.hashing_embedder import HashingEmbedder

ALICE = Reader("alice@x", "admin")
BOB = Reader("bob@x", "member", frozenset({acl.user("bob@x"), acl.EVERYONE}))
CAROL = Reader("carol@x", "member", frozenset({acl.user("carol@x"), acl.EVERYONE}))


def memory(mid: str, owner: str, scope: str, text: str, sources: list[Document] | None = None) -> Document:
    m = Memory(
        id=mid,
        text=text,
        scope=scope,  # type: ignore[arg-type]
        owner=owner,
        status="active",
        recorded_at="2026-12-01T00:00:00+00:00",
        valid_from="2026-12-01T00:00:00+00:00",
        gates=gates_for(scope, owner, sources or []),  # type: ignore[arg-type]
    )
    d = m.source_document()
    return Document(d.id, d.type, d.title, d.url, d.updated_at, d.content_hash, d.metadata, "memory")


@pytest.fixture
def world(tmp_path):
    raw = SQLiteGraphStore(tmp_path / "graph.sqlite")
    emb = HashingEmbedder()
    raw.ensure_schema(emb.model_name, emb.dimension)
    secret = Document("upload:1", SourceType.UPLOAD, "bob's notes", metadata={"acl": [[acl.user("bob@x")]]})
    docs = [
        memory("memory:bob", "bob@x", "private", "the zebra locker code is 4411"),
        memory("memory:carol", "carol@x", "private", "the zebra garage code is 9902"),
        memory("memory:team", "alice@x", "team", "the zebra freeze starts on Monday"),
        memory("memory:derived", "bob@x", "team", "the zebra notes say retry twice", [secret]),
        secret,
    ]
    items = []
    for d in docs:
        text = d.metadata.get("text", d.title)
        vec = emb.embed([text])[0].tolist()
        items.append((d, [Chunk(Chunk.make_id(d.id, 0, text), d.id, 0, text, vec)]))
    raw.write_documents(items)
    policy = AccessPolicy()
    yield raw, ScopedStore(raw, policy), policy, emb
    raw.close()


VISIBLE = {
    "alice@x": {"memory:alice-none", "memory:team", "memory:derived", "upload:1"},
    "bob@x": {"memory:bob", "memory:team", "memory:derived", "upload:1"},
    "carol@x": {"memory:carol", "memory:team"},
}


@pytest.mark.parametrize("reader", [ALICE, BOB, CAROL], ids=lambda r: r.email)
def test_every_read_of_the_reader_store_is_filtered(world, reader) -> None:
    raw, scoped, policy, emb = world
    allowed = VISIBLE[reader.email] - {"memory:alice-none"}
    vec = emb.embed(["zebra code"])[0].tolist()
    with reading_as(reader):
        assert {d.id for d in scoped.get_documents(sorted(raw.document_ids()))} == allowed
        assert scoped.document_ids() == allowed
        assert {h.document.id for h in scoped.vector_search(vec, top_k=10)} == allowed
        assert {h.document.id for h in scoped.keyword_search("zebra code", top_k=10)} <= allowed
        assert {d.id for d in scoped.find_documents(types=[SourceType.MEMORY], limit=10)} == allowed - {
            "upload:1"
        }
        assert {d.id for d in scoped.graph_page(limit=10).nodes} <= allowed
        assert all(scoped.get_document(i) is None for i in raw.document_ids() - allowed)
        ranking = RelatedSearch(scoped, emb, snapshot_store=raw, policy=policy)
        assert {h.document.id for h in ranking.search("zebra code", top_k=10)} <= allowed


def test_the_operator_reads_everything(world) -> None:
    raw, scoped, _, _ = world
    with reading_as(EVERYTHING):
        assert scoped.document_ids() == raw.document_ids()


def test_an_admin_still_gets_a_full_page(world) -> None:
    """Other people's private memories are filtered out, and the page is filled from further down."""
    raw, scoped, _, emb = world
    vec = emb.embed(["zebra code"])[0].tolist()
    with reading_as(ALICE):
        assert len(scoped.vector_search(vec, top_k=3)) == 3
