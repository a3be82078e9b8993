"""Graph stores: the protocol, the data model, and the backends (embedded SQLite, Neo4j)."""
