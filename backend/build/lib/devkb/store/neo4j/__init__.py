"""The Neo4j backend: ``Neo4jGraphStore`` on an injected ``neo4j.Driver`` (see ``docs/neo4j.md``)."""

from devkb.store.neo4j.store import Neo4jGraphStore

__all__ = ["Neo4jGraphStore"]
