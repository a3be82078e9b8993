"""A small random world for permission tests: documents with random gates in a real SQLite store
(real chunks, vectors, full-text index and edges), accounts with random memberships, and an
oracle that says who may read what — written from the rule in docs/security.md ("every gate
names a principal the reader holds, or an admin shared it"), not from the code under test."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from devkb.access.accounts import AccountStore, User
from devkb.access.policy import AccessPolicy
from devkb.access.scoped_store import ScopedStore
from devkb.sources import acl
from devkb.store.models import Chunk, Document, Reference, SourceType
from devkb.store.sqlite import SQLiteGraphStore

WORDS = (
    "payment refund ledger invoice webhook retry timeout currency settlement fraud card token checkout "
    "cache deploy rollback release login session audit export import queue schema migration index"
).split()
USERS = ("ann@x.example", "ben@x.example", "cat@x.example", "dan@x.example")
SCOPES = [acl.scope("src", "project", k) for k in ("A", "B", "C")] + [acl.scope("src", "security", "S1")]
GROUPS = [acl.group("src", g) for g in ("eng", "ops")]
TYPES = (SourceType.JIRA, SourceType.CONFLUENCE, SourceType.GITHUB)


@dataclass
class World:
    store: SQLiteGraphStore
    scoped: ScopedStore
    policy: AccessPolicy
    accounts: AccountStore
    documents: dict[str, Document]
    memberships: dict[str, set[str]]  # email → principals granted by the "source"
    shared: set[str]

    def user(self, email: str) -> User:
        found = self.accounts.user(email)
        assert found is not None
        return found

    def visible(self, email: str) -> set[str]:
        """The oracle: the documents ``email`` may read."""
        held = {f"user:{email}", "everyone", *self.memberships.get(email, set())}
        out = set()
        for d in self.documents.values():
            gates = d.metadata.get("acl")
            if d.id in self.shared or (gates is not None and all(set(g) & held for g in gates)):
                out.add(d.id)
        return out


def build_world(path: Path, seed: int, embedder, n_docs: int = 40) -> World:
    rng = random.Random(seed)
    store = SQLiteGraphStore(path / "graph.sqlite")
    store.ensure_schema(embedder.model_name, embedder.dimension)
    docs: dict[str, Document] = {}
    items = []
    for i in range(n_docs):
        kind = rng.choice(TYPES)
        gates: list[list[str]] | None = [[rng.choice(SCOPES[:3])]]
        r = rng.random()
        if r < 0.2:
            gates.append([SCOPES[3]])
        elif r < 0.35:
            gates.append(rng.sample(GROUPS + [acl.user(rng.choice(USERS))], k=rng.randint(1, 2)))
        elif r < 0.45:
            gates = [["everyone"]]
        elif r < 0.5:
            gates = None  # no permissions recorded: admins only
        words = " ".join(rng.choice(WORDS) for _ in range(30))
        meta = {"project": rng.choice("ABC"), "status": rng.choice(["Open", "Closed"]), "key": f"K-{i}"}
        if gates is not None:
            meta["acl"] = gates
        doc = Document(
            id=f"{kind.value.lower()}:doc-{i}",
            type=kind,
            title=f"doc {i} {rng.choice(WORDS)}",
            updated_at=f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T00:00:00+00:00",
            metadata=meta,
            source="src",
        )
        texts = [words[: len(words) // 2], words[len(words) // 2 :]]
        vectors = embedder.embed(texts)
        chunks = [
            Chunk(Chunk.make_id(doc.id, j, t), doc.id, j, t, embedding=[float(x) for x in vectors[j]])
            for j, t in enumerate(texts)
        ]
        docs[doc.id] = doc
        items.append((doc, chunks))
    ids = list(docs)
    refs = []
    for _ in range(n_docs * 2):
        a, b = rng.sample(ids, 2)
        refs.append(Reference(a, b, rng.choice(["mentions", "jira-link", "fixes"]), owner_id=a))
    store.write_documents(items, refs)
    accounts = AccountStore(path / "accounts.db")
    memberships: dict[str, set[str]] = {}
    pairs = []
    for email in USERS:
        accounts.create_user(email, role="member", password="password-" + email)
        held = set(rng.sample(SCOPES + GROUPS, k=rng.randint(0, 4)))
        memberships[email] = held
        pairs += [(p, email) for p in held]
    accounts.create_user("root@x.example", role="admin", password="password-root")
    accounts.replace_memberships("src", pairs)
    shared = set(rng.sample(ids, k=2))
    accounts.set_shared(shared, True, "root@x.example")
    policy = AccessPolicy(lambda: accounts, cache_seconds=0.0)
    scoped = ScopedStore(store, policy, catalog_seconds=0.0)
    return World(store, scoped, policy, accounts, docs, memberships, shared)
