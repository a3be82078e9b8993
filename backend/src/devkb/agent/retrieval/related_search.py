"""``RelatedSearch``: the ranking behind ``RAGSearch`` — lexical, dense and (with an anchor
document) metadata and graph features of every document, combined by a linear model learnt on
the development split of the Fluid related-issue task (``ranker_weights.json``; measurements
and every experiment in docs/evaluation.md).

    search(query)                       text model: BM25 (text, titles) + dense (chunk max-sim,
                                        first chunk)
    search(query, anchor="jira:K-1")    anchor model: the text features plus the anchor's title,
                                        same project, creation-time proximity, reporter,
                                        assignee, components, versions, co-citation; the anchor
                                        itself is never returned

Up to ``max_documents`` documents are scored from an in-memory ``CorpusSnapshot`` of the whole
store (refreshed at most every ``refresh_seconds``, re-reading only changed documents); a query
costs one embedding, a few sparse column sums and one matrix-vector product. The snapshot holds
every document's tokens and vectors (~26 s and ~670 MiB to build per 100k chunks,
docs/benchmarks.md), so above ``max_documents`` the same model ranks **candidates** instead:
the store's own indexes (full text and vectors, ``candidate_chunks`` chunks each; plus, with
an anchor, the anchor and its co-cited documents) select the documents, a snapshot of just
those is read and the features are computed on it — nothing is held between queries, so
start-up and memory do not grow with the store. ``RelatedSearch`` is a ``HybridSearch`` with
the same ``search`` signature, and falls back to it while the store has no documents.
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from devkb.access.policy import AccessPolicy
from devkb.agent.hybrid_search import DocumentHit, HybridSearch
from devkb.agent.patterns import ISSUE_KEY
from devkb.agent.retrieval.adaptation import AdapterFile, QueryAdapter
from devkb.agent.retrieval.features import anchor_features, dense_features, lexical_features, prf_features
from devkb.agent.retrieval.snapshot import CorpusSnapshot, SnapshotLoader
from devkb.errors import ConfigurationError
from devkb.indexing.embedders.base import TextEmbedder
from devkb.store.models import ChunkHit, SourceType
from devkb.store.protocol import CountingStore, GraphStore

log = logging.getLogger(__name__)
# Vector search of the candidate mode's first stage, beside full text in the caller's thread.
_FIRST_STAGE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="related-first-stage")

WEIGHTS_FILE = Path(__file__).with_name("ranker_weights.json")
# REFERENCES kinds that are issue links themselves: not evidence of co-citation.
LINK_KINDS = frozenset({"jira-issuelink"})


def load_weights(path: Path = WEIGHTS_FILE) -> dict[str, dict[str, float]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {name: {k: float(v) for k, v in model.items()} for name, model in data["models"].items()}


DENSE = ("dense_max", "dense_first")


class RelatedSearch(HybridSearch):
    def __init__(
        self,
        store: GraphStore,
        embedder: TextEmbedder,
        candidates: int = 50,
        refresh_seconds: float = 30.0,
        weights: Mapping[str, Mapping[str, float]] | None = None,
        rerank_depth: int = 400,
        dense_scan: int | None = None,
        cocitation_limit: int = 1000,
        prf: int = 0,
        max_documents: int | None = 100_000,
        snapshot_store: GraphStore | None = None,
        policy: AccessPolicy | None = None,
        unrestricted: bool = False,
        candidate_chunks: int = 50,
        candidate_cache: int = 2000,
        adapter: AdapterFile | QueryAdapter | None = None,
    ) -> None:
        """``rerank_depth``: documents the lexical (and anchor) features select for the dense
        features and the final score. ``dense_scan``: also add the best documents of a dense scan
        of every chunk vector — by default 100 without an anchor (a short question may share no
        word with its answer), 0 with one (the anchor features select well, the scan is the
        slowest step). ``prf``: pseudo-relevance feedback from the first stage's best ``prf``
        documents (features ``bm25_prf``, ``dense_prf``; 0 = off). ``snapshot_store``: the
        unscoped store the snapshot is built from (default ``store``); ``policy``: who may read
        what — every ranking is restricted to the current reader's documents (``access/``).
        Without a policy it refuses to be built (fail closed: a ranking over the whole snapshot
        would show every document) unless ``unrestricted=True`` says on purpose that every
        caller reads everything (evaluation, benchmarks, a single-user tool).
        ``candidate_chunks``: above ``max_documents``, chunks each of full-text and vector search
        whose documents are ranked (the candidates); ``candidate_cache``: documents kept read
        and tokenized between queries (re-used while their content hash holds).
        ``adapter``: this deployment's adaptation (``adaptation.py``; an ``AdapterFile`` re-reads
        it when a background adaptation replaces it) — in the modes it was judged to help, the
        query vector is moved by its matrix before the dense scan and the dense features, or the
        ranking uses its refitted weights."""
        if policy is None and not unrestricted:
            raise ConfigurationError(
                "RelatedSearch needs an access policy (or unrestricted=True for a caller that reads everything)"
            )
        if policy is not None and unrestricted:
            raise ConfigurationError("RelatedSearch: give an access policy or unrestricted=True, not both")
        super().__init__(store, embedder, candidates)
        self.snapshot_store = snapshot_store or store
        self.policy = policy
        self.loader = SnapshotLoader(self.snapshot_store, embedder.dimension)
        self._masks: dict[tuple[int, str], np.ndarray] = {}
        self.refresh_seconds = refresh_seconds
        self.weights = {k: dict(v) for k, v in (weights or load_weights()).items()}
        self.rerank_depth = rerank_depth
        self.dense_scan = dense_scan
        self.cocitation_limit = cocitation_limit
        self.prf = prf
        self.max_documents = max_documents
        self.candidate_chunks = candidate_chunks
        self.candidate_cache = candidate_cache
        self.adapter = adapter
        self._snapshot: CorpusSnapshot | None = None
        self._checked = 0.0
        self._lock = threading.Lock()
        self._reload = threading.Lock()  # one reload at a time: a later one always lands last
        self._refreshing = False
        self._size_checked = -float("inf")
        self._within_limit = True

    # -- snapshot -------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Build the snapshot now rather than on the first query."""
        if self.available():
            self.snapshot()

    def start_warm_up(self) -> threading.Thread:
        """``warm_up`` in a background thread (server start): a first question arriving meanwhile
        waits for this build instead of starting its own."""

        def build() -> None:
            try:
                self.warm_up()
            except Exception:  # the first query retries and reports
                log.exception("building the retrieval snapshot at start failed")

        thread = threading.Thread(target=build, name="related-search-warm-up", daemon=True)
        thread.start()
        return thread

    def available(self) -> bool:
        """Whether the store is within ``max_documents`` (re-checked every ``refresh_seconds``)."""
        if self.max_documents is None:
            return True
        now = time.monotonic()
        if now - self._size_checked >= self.refresh_seconds:
            store = self.snapshot_store  # counted cheaply where the backend can
            count = store.document_count() if isinstance(store, CountingStore) else len(store.document_ids())
            within = count <= self.max_documents
            if not within and (self._within_limit or self._snapshot is not None):
                log.warning(
                    "RelatedSearch without a snapshot: %d documents > DEVKB_RELATED_SEARCH_MAX_DOCUMENTS=%d; "
                    "ranking candidates from the store's indexes",
                    count,
                    self.max_documents,
                )
                with self._lock:
                    self._snapshot = None  # free its memory
            self._within_limit, self._size_checked = within, now
        return self._within_limit

    def snapshot(self) -> CorpusSnapshot:
        """The current snapshot. The first call builds it; later calls return it at once and,
        every ``refresh_seconds``, start a background reload of what changed in the store."""
        with self._lock:
            if self._snapshot is None:
                self._snapshot = self.loader.load(None)
                self._checked = time.monotonic()
            elif not self._refreshing and time.monotonic() - self._checked >= self.refresh_seconds:
                self._refreshing = True
                threading.Thread(target=self._refresh, name="related-search-refresh", daemon=True).start()
            return self._snapshot

    def refresh(self) -> CorpusSnapshot:
        """Reload what changed now (blocking)."""
        self._refresh()
        assert self._snapshot is not None
        return self._snapshot

    def refresh_if_built(self) -> None:
        """Reload what changed now, if a snapshot was built (a memory written or forgotten, an
        upload or a sync's documents must be found, or never found again, by the next question —
        not after ``refresh_seconds``). Returns once the new snapshot is in place, also when a
        background reload that began before the write was running (it is waited for, then the
        store read again; a first build in progress is waited for the same way)."""
        with self._lock:  # held by a first build
            built = self._snapshot is not None
        if built:
            self._refresh()

    def _refresh(self) -> None:
        try:
            with self._reload:  # a reload that began before a write cannot replace a later one
                fresh = self.loader.load(self._snapshot)
                with self._lock:
                    self._snapshot = fresh
        except Exception:
            log.exception("refreshing the retrieval snapshot failed")
        finally:
            with self._lock:
                self._checked = time.monotonic()
                self._refreshing = False

    # -- who reads -------------------------------------------------------------------------
    def readable_mask(self, snapshot: CorpusSnapshot) -> np.ndarray:
        """Which snapshot documents the current reader may read (all for the operator)."""
        if self.policy is None:
            return np.ones(snapshot.n, dtype=bool)
        reader = self.policy.reader()
        if reader.unfiltered:  # an admin's mask leaves out other people's private memories
            return np.ones(snapshot.n, dtype=bool)
        key = (id(snapshot), f"{reader.cache_key}\x01{self.policy.version()}")
        with self._lock:
            mask = self._masks.get(key)
        if mask is None:
            policy = self.policy
            mask = np.fromiter((policy.may_read(reader, d) for d in snapshot.documents), bool, snapshot.n)
            with self._lock:
                if len(self._masks) > 256 or any(k[0] != id(snapshot) for k in self._masks):
                    self._masks = {k: v for k, v in self._masks.items() if k[0] == id(snapshot)}
                    if len(self._masks) > 256:
                        self._masks.clear()
                self._masks[key] = mask
        return mask.copy()

    # -- the query vector -------------------------------------------------------------------
    def current_adapter(self) -> QueryAdapter | None:
        if isinstance(self.adapter, AdapterFile):
            return self.adapter.current()
        return self.adapter

    def query_vector(self, query: str, anchored: bool, project: str | None = None) -> np.ndarray | None:
        """The query's embedding, moved by the deployment's adapter where it was judged to help
        (``project``: the anchor's)."""
        if not query.strip():
            return None
        vector = np.asarray(self.embedder.embed([query])[0], dtype=np.float32)
        adapter = self.current_adapter()
        return adapter.apply(vector) if adapter is not None and adapter.used(anchored, project) else vector

    def model(self, anchored: bool, project: str | None = None) -> Mapping[str, float]:
        """The linear model in use for the mode (``project``: the anchor's): this deployment's
        refitted weights where its adaptation chose them (``adaptation.py``), else the shipped ones."""
        adapter = self.current_adapter()
        refitted = adapter.model(anchored, project) if adapter is not None else None
        return refitted if refitted is not None else self.weights["anchor" if anchored else "text"]

    # -- features -------------------------------------------------------------------------
    def resolve_anchor(self, snapshot: CorpusSnapshot, anchor: str | None) -> int | None:
        """The snapshot position of ``anchor`` (a document id, or a bare Jira key) — only a
        document the reader may read: a hidden one must not steer the ranking."""
        if not anchor:
            return None
        anchor = anchor.strip()
        found = snapshot.position.get(anchor)
        if found is None and ISSUE_KEY.fullmatch(anchor.upper()):
            found = snapshot.position.get(f"jira:{anchor.upper()}")
        if found is None or not self.readable_mask(snapshot)[found]:
            return None
        return found

    def cocited(self, anchor_id: str, leave_out: Collection[str] = ()) -> Counter[str]:
        """Documents sharing a REFERENCES neighbour (other than through issue links) with the
        anchor, with how many they share. Direct neighbours are left out: the graph tools
        reach them already. ``leave_out``: documents whose direct edge with the anchor is
        ignored (a pair being learnt from must not describe itself: adaptation)."""
        first = [
            n
            for n in self.store.neighbors([anchor_id], "both", limit=self.cocitation_limit)
            if n.kind not in LINK_KINDS and n.document.id not in leave_out
        ]
        direct = {n.document.id for n in first}
        counts: Counter[str] = Counter()
        if not direct:
            return counts
        seen: set[tuple[str, str]] = set()
        for n in self.store.neighbors(sorted(direct), "both", limit=self.cocitation_limit):
            other = n.document.id
            if n.kind in LINK_KINDS or other == anchor_id or other in direct or (n.via, other) in seen:
                continue
            seen.add((n.via, other))
            counts[other] += 1
        return counts

    def score(
        self,
        feats: Mapping[str, np.ndarray],
        anchored: bool,
        skip: tuple[str, ...] = (),
        weights: Mapping[str, float] | None = None,
    ) -> np.ndarray:
        """The model's linear score (without the features in ``skip``); ``weights``: this model
        instead of the search's own."""
        model = weights if weights is not None else self.model(anchored)
        n = len(feats["bm25"])
        total = np.full(n, model.get("bias", 0.0), dtype=np.float32)
        for name, w in model.items():
            if name != "bias" and name not in skip and name in feats:
                total += np.float32(w) * feats[name]
        return total

    def rank(
        self,
        query: str,
        anchor: str | None = None,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
        snapshot: CorpusSnapshot | None = None,
        vector: np.ndarray | None = None,
        depth: int | None = None,
        leave_out: Collection[str] = (),
        weights: Mapping[str, float] | None = None,
    ) -> tuple[CorpusSnapshot, np.ndarray, dict[str, np.ndarray], np.ndarray, bool]:
        """Candidates (snapshot positions, best first), their features and final scores, and the
        per-chunk cosines of the candidates (for passages); the last value says whether an
        anchor was used. ``snapshot``: rank these documents (default: the whole store's
        snapshot); ``vector``: the query's embedding when already computed; ``depth``: the
        first stage's candidates (default ``rerank_depth``); ``leave_out``: documents whose
        direct edges with the anchor the co-citation ignores; ``weights``: this linear model
        instead of the one in use (adaptation judges its candidates with them)."""
        snapshot = snapshot if snapshot is not None else self.snapshot()
        a = self.resolve_anchor(snapshot, anchor)
        project = str((snapshot.documents[a].metadata or {}).get("project") or "") if a is not None else None
        if weights is None:
            weights = self.model(a is not None, project)
        feats = lexical_features(snapshot, query)
        if a is not None:
            feats.update(anchor_features(snapshot, a, self.cocited(snapshot.ids[a], leave_out)))
        allowed = snapshot.type_mask(types) & self.readable_mask(snapshot)
        if document_ids is not None:
            wanted = [snapshot.position[i] for i in document_ids if i in snapshot.position]
            only = np.zeros(snapshot.n, dtype=bool)
            only[wanted] = True
            allowed &= only
        if a is not None:
            allowed[a] = False
        pool = np.flatnonzero(allowed)
        if pool.size == 0:
            return snapshot, pool, {}, np.zeros(0, np.float32), a is not None
        first = self.score(feats, a is not None, skip=DENSE, weights=weights)[pool]
        depth = min(depth or self.rerank_depth, pool.size)
        chosen = pool[np.argpartition(-first, depth - 1)[:depth]]
        if vector is None and query.strip():
            vector = self.query_vector(query, a is not None, project)
        scan = self.dense_scan if self.dense_scan is not None else (0 if a is not None else 100)
        if scan and vector is not None and snapshot.vectors.size:
            chosen = np.union1d(chosen, pool[snapshot.top_dense(pool, vector, scan)])
        cand = {name: values[chosen] for name, values in feats.items()}
        dense, sims = dense_features(snapshot, chosen, vector)
        cand.update(dense)
        if self.prf:
            feedback = pool[np.argsort(-first, kind="stable")[: self.prf]]
            cand.update(prf_features(snapshot, feedback, chosen))
        scores = self.score(cand, a is not None, weights=weights)
        order = np.argsort(-scores, kind="stable")
        _, offsets = snapshot.chunk_rows(chosen)
        cand = {name: values[order] for name, values in cand.items()}
        cand["_score"] = scores[order]
        cand["_offsets"] = offsets[order]
        cand["_counts"] = snapshot.chunk_count[chosen][order]
        return snapshot, chosen[order], cand, sims, a is not None

    # -- candidates (above max_documents) ------------------------------------------------
    def candidate_snapshot(
        self,
        query: str,
        vector: np.ndarray | None,
        anchor: str | None = None,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> CorpusSnapshot:
        """A snapshot of the documents the store's indexes find for ``query`` (through the
        reader's store: only readable documents), with the anchor and its co-cited documents."""
        n = self.candidate_chunks
        dense: Future[list[ChunkHit]] | None = None
        if vector is not None:  # the exact scan runs beside full text (both release the GIL)
            dense = _FIRST_STAGE.submit(  # in this context: the reader's scope goes along
                contextvars.copy_context().run,
                self.store.vector_search,
                vector.tolist(),
                n,
                types=types,
                document_ids=document_ids,
            )
        hits = (
            self.store.keyword_search(query, n, types=types, document_ids=document_ids)
            if query.strip()
            else []
        )
        ids = dict.fromkeys(h.document.id for h in hits)
        # read the full-text candidates while the vector scan runs (it releases the GIL)
        known = self.loader.entries(list(ids), cache=self.candidate_cache)
        if dense is not None:
            ids.update(dict.fromkeys(h.document.id for h in dense.result()))
        if anchor:
            anchor = anchor.strip()
            found = self.store.get_document(anchor)
            if found is None and ISSUE_KEY.fullmatch(anchor.upper()):
                found = self.store.get_document(f"jira:{anchor.upper()}")
            if found is not None:
                ids[found.document.id] = None
                ids.update(dict.fromkeys(self.cocited(found.document.id)))
        return self.loader.snapshot_of(list(ids), cache=self.candidate_cache, known=known)

    def rank_candidates(
        self,
        query: str,
        anchor: str | None = None,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> tuple[CorpusSnapshot, np.ndarray, dict[str, np.ndarray], np.ndarray, bool]:
        """``rank`` over the candidates of ``candidate_snapshot`` (no whole-store snapshot)."""
        vector = self.query_vector(query, bool(anchor and anchor.strip()))
        snapshot = self.candidate_snapshot(query, vector, anchor, types, document_ids)
        if snapshot.n == 0:
            return snapshot, np.zeros(0, np.int64), {}, np.zeros(0, np.float32), False
        return self.rank(query, anchor, types, document_ids, snapshot=snapshot, vector=vector)

    # -- search ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        top_k: int = 8,
        types: Sequence[SourceType] | None = None,
        document_ids: Sequence[str] | None = None,
        chunks_per_document: int = 2,
        anchor: str | None = None,
    ) -> list[DocumentHit]:
        if not self.available():
            snapshot, docs, cand, sims, _ = self.rank_candidates(query, anchor, types, document_ids)
            if snapshot.n == 0:
                return super().search(query, top_k, types, document_ids, chunks_per_document)
        else:
            snapshot = self.snapshot()
            if snapshot.n == 0:
                return super().search(query, top_k, types, document_ids, chunks_per_document)
            snapshot, docs, cand, sims, _ = self.rank(query, anchor, types, document_ids)
        hits = []
        for j, i in enumerate(docs[: max(0, top_k)]):
            doc = snapshot.documents[i]
            start = int(cand["_offsets"][j])
            own = sims[start : start + int(cand["_counts"][j])] if sims.size else np.zeros(0, np.float32)
            chunks = [ChunkHit(c, doc, s) for c, s in snapshot.best_chunks(int(i), own, chunks_per_document)]
            hits.append(DocumentHit(doc, float(cand["_score"][j]), chunks))
        return hits
