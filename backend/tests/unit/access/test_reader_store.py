"""The reader store wraps the raw store and nothing leaks around it: no backend capability (the
Neo4j driver, ``verify``, ``reset_embedding_model``) is reachable through it, and the learnt ranking
refuses to be built without an access policy unless a caller says on purpose that it reads
everything."""

from __future__ import annotations

import pytest

from devkb.access.policy import AccessPolicy
from devkb.access.scoped_store import ReaderStore, ScopedStore
from devkb.agent.retrieval import RelatedSearch
from devkb.errors import ConfigurationError
from devkb.store.protocol import GraphStore, VerifiableStore
from devkb.store.sqlite import SQLiteGraphStore
from tests.hashing_embedder import HashingEmbedder


@pytest.fixture
def raw(tmp_path):
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    yield store
    store.close()


def test_no_backend_capability_passes_through_the_wrapper(raw):
    scoped = ScopedStore(raw, AccessPolicy())
    assert isinstance(scoped, ReaderStore) and isinstance(scoped, GraphStore)
    for name in ("driver", "database", "verify", "reset_embedding_model", "inner_driver"):
        assert not hasattr(scoped, name), name
    assert not isinstance(scoped, VerifiableStore)


def test_ranking_without_a_policy_refuses(raw):
    with pytest.raises(ConfigurationError, match="needs an access policy"):
        RelatedSearch(raw, HashingEmbedder())
    policy = AccessPolicy()
    with pytest.raises(ConfigurationError, match="not both"):
        RelatedSearch(raw, HashingEmbedder(), policy=policy, unrestricted=True)
    assert RelatedSearch(raw, HashingEmbedder(), unrestricted=True).search("anything", top_k=3) == []
    scoped = ScopedStore(raw, policy)
    assert RelatedSearch(scoped, HashingEmbedder(), snapshot_store=raw, policy=policy).policy is policy


def test_administration_and_operations_are_asked_of_the_policy(tmp_path):
    from devkb.access.accounts import AccountStore
    from devkb.access.readers import EVERYTHING, NOBODY, Reader

    accounts = AccountStore(tmp_path / "accounts.db")
    try:
        policy = AccessPolicy(lambda: accounts)
        admin, member = Reader("a@x", "admin"), Reader("m@x", "member")
        assert policy.may_administer(None) and policy.sees_operations(None)  # no accounts: the one user
        accounts.create_user("a@x", "A", "admin", "a-password-long")
        policy.forget()
        assert policy.may_administer(admin) and policy.may_administer(EVERYTHING)  # admin, operator key
        assert not policy.may_administer(member) and not policy.may_administer(NOBODY)
        assert not policy.may_administer(None)  # accounts exist: nobody signed in may not
        assert policy.sees_operations(admin) and not policy.sees_operations(member)
        assert not policy.sees_operations(None)
    finally:
        accounts.close()
