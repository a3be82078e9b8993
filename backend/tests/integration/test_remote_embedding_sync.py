"""A sync with a remote embedder sends each batch's chunks ahead (``ChunkEmbedder.embed_ahead``)
and takes the vectors when the batch reaches the store: every stored chunk must carry the vector
the server computed for its own text, whatever order the requests came back in."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from devkb_devtools.bench.pipeline_speed import SimulatedEmbeddingServer, dense_vector, remote_embedder
from devkb_devtools.bench.workspace import Workspace, corpus


def test_every_chunk_embedded_ahead_is_stored_with_its_own_vector(tmp_path: Path) -> None:
    demo = corpus("demo")
    assert demo is not None
    with SimulatedEmbeddingServer(rate=20_000) as server:
        embedder = remote_embedder(server, concurrency=4)
        with Workspace(demo, tmp_path / "data", embedder, vendor_check=False) as ws:
            ws.sync_all()
            store = ws.store
            with sqlite3.connect(store.path) as db:
                rows = db.execute("SELECT id, content FROM chunks").fetchall()
            vectors = store.chunk_embeddings([r[0] for r in rows])
        sent = server.stats()
    assert len(rows) > 100 and len(vectors) == len(rows)
    for chunk_id, content in rows:
        assert np.allclose(vectors[chunk_id], dense_vector(content), atol=1e-6), chunk_id
    assert sent["server_texts"] >= len(rows)  # each chunk sent (at least) once
