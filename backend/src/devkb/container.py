"""The one place that wires devkb's components together (dependency-injector).

settings ─┬─ store (sqlite | neo4j)
          ├─ embedder (local | onnx | ollama | openai)
          ├─ source configs (sources file | DEVKB_JIRA_* | the `devkb.workspaces` demo) → loaders
          ├─ link context builder → indexing pipeline → source sync → run manager
          ├─ hybrid search → toolbox (RAGSearch, GraphQuery, FetchNeighbors, FilterDocs)
          │     → planner (rules, no LLM) ─┐
          ├─ llm provider (auto | ollama | openai | none) → agent runner ─┴→ ask service
          ├─ chat memory (sessions), knowledge gaps, llm status (for /health)
          └─ accounts → access policy → reader store (the store as the current reader may see it:
             what the agent, the API and MCP read; indexing writes and reads the store itself)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, TypeVar

from dependency_injector import containers, providers
from pydantic import SecretStr

from devkb.access.accounts import AccountStore
from devkb.access.permission_sync import PermissionSync
from devkb.access.policy import AccessPolicy
from devkb.access.scoped_store import ScopedStore
from devkb.agent.agent_runner import AgentRunner
from devkb.agent.ask_service import AskService
from devkb.agent.knowledge_gaps import KnowledgeGaps
from devkb.agent.meaning import SentenceMeaning
from devkb.agent.planner import Planner
from devkb.agent.providers import LlmProvider, frame_asker, json_asker
from devkb.agent.retrieval import RelatedSearch
from devkb.agent.retrieval.adaptation import ADAPTER_DIR, AdapterFile, GraphAdaptation
from devkb.agent.same_question import SameQuestion, Words
from devkb.agent.tools import Toolbox
from devkb.config.secrets import masker_for
from devkb.config.settings import Settings
from devkb.config.sources_file import SourceConfig, load_sources_file
from devkb.config.workspaces import WorkspaceUser, find_workspace
from devkb.conversations.memory import ChatMemory, SessionMemory
from devkb.conversations.store_memory import StoreChatMemory
from devkb.errors import ConfigurationError
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.pipeline import IndexingPipeline
from devkb.indexing.references.backfill import ReferenceBackfill, SyncWithBackfill
from devkb.indexing.references.context_builder import LinkContextBuilder
from devkb.indexing.references.extractor import ReferenceExtractor
from devkb.indexing.run_manager import RunManager
from devkb.indexing.splitting.by_kind import default_segmenters
from devkb.indexing.sync import SourceSync
from devkb.indexing.upload_quota import QuotaLimits
from devkb.indexing.uploads import UploadIngest
from devkb.mcp.parts import McpParts
from devkb.mcp.server import build_mcp_server
from devkb.memory.conversations import ConversationRecall
from devkb.memory.lexicon import WordNet
from devkb.memory.said import SaidTurns
from devkb.memory.service import MemoryService
from devkb.memory.verified import VerifiedAnswers
from devkb.scheduling import SyncScheduler
from devkb.scheduling.leader import LeaderElection
from devkb.sources.base import HistoryPolicy, SourceLoader
from devkb.sources.formats import ConversionLimits
from devkb.sources.formats.sandbox import configure as configure_conversion
from devkb.sources.registry import build_loader
from devkb.sources.uploads import UploadStore
from devkb.store.protocol import GenerationStore, GraphStore, VerifiableStore
from devkb.store.shared_state import SharedState

log = logging.getLogger(__name__)
T = TypeVar("T")


def build_sqlite_store(settings: Settings) -> GraphStore:
    from devkb.store.sqlite import SQLiteGraphStore

    return SQLiteGraphStore(
        settings.sqlite_path,
        text_index_min_chunks=settings.text_index_min_chunks,
        vector_approx_min_chunks=settings.vector_approx_min_chunks,
    )


def build_embedder(settings: Settings) -> TextEmbedder:
    if settings.embedder == "local":
        from devkb.indexing.embedders.local_minilm import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder(batch_size=settings.embed_batch_size)
    if settings.embedder == "onnx":
        from devkb.indexing.embedders.onnx_minilm import OnnxMiniLMEmbedder

        return OnnxMiniLMEmbedder(
            cache_dir=settings.model_cache_dir or settings.data_dir / "models",
            precision=settings.onnx_precision,
            batch_size=settings.onnx_batch_size,
            max_seq_length=settings.onnx_max_tokens,
            workers=settings.onnx_workers,
        )
    from devkb.indexing.embedders.remote_embedder import ollama_embedder, openai_embedder

    if settings.embedder == "ollama":
        return ollama_embedder(settings.ollama_url, settings.ollama_embed_model, settings.embed_concurrency)
    key = settings.openai_api_key
    if key is None and settings.openai_base_url:
        key = SecretStr("no-key")  # a self-hosted OpenAI-compatible server needs none (like the LLM)
    if key is None:
        raise ConfigurationError(
            "DEVKB_EMBEDDER=openai needs DEVKB_OPENAI_API_KEY, or DEVKB_OPENAI_BASE_URL for a self-hosted server"
        )
    return openai_embedder(
        key,
        settings.openai_embed_model,
        settings.openai_base_url,
        settings.embed_concurrency,
        settings.embed_batch_size,
    )


def neo4j_driver_resource(settings: Settings) -> Generator[Any, None, None]:
    """The Neo4j driver (``DEVKB_STORE=neo4j``): the container opens and closes it; the store
    only borrows it. Tests override this provider with a recording driver."""
    from devkb.store.neo4j.factory import neo4j_driver_resource as open_driver

    yield from open_driver(settings)


def store_resource(
    settings: Settings, driver: Callable[[], Any] | None = None
) -> Generator[GraphStore, None, None]:
    """The configured store; for Neo4j over ``driver`` (the container's), else over its own."""
    if settings.store == "neo4j":
        from devkb.store.neo4j import Neo4jGraphStore

        if driver is not None:
            yield Neo4jGraphStore(driver(), settings.neo4j_database)
            return
        own = neo4j_driver_resource(settings)
        try:
            yield Neo4jGraphStore(next(own), settings.neo4j_database)
        finally:
            own.close()
        return
    store = build_sqlite_store(settings)
    try:
        yield store
    finally:
        store.close()


def indexing_store(settings: Settings, store: GraphStore) -> GraphStore:
    """The store indexing writes through: with DEVKB_SYNC_WRITE_PROCESS on the embedded store, its
    document writes and checkpoints run in a process of their own, closed with the store
    (store/sqlite/write_process.py)."""
    from devkb.store.sqlite import SQLiteGraphStore
    from devkb.store.sqlite.write_process import WriteProcess

    if settings.sync_write_process and isinstance(store, SQLiteGraphStore):
        return store.offloaded(WriteProcess)
    return store


def shared_state_resource(settings: Settings, store: GraphStore) -> Iterator[SharedState]:
    """Conversations, leases and sync runs in the configured store (persistent mode only)."""
    if settings.store == "neo4j":
        from devkb.store.neo4j import Neo4jGraphStore
        from devkb.store.neo4j.shared_state import Neo4jSharedState

        assert isinstance(store, Neo4jGraphStore)
        yield Neo4jSharedState(store)
        return
    from devkb.store.sqlite.shared_state import SQLiteSharedState

    state = SQLiteSharedState(settings.sqlite_path)
    try:
        yield state
    finally:
        state.close()


def build_chat_memory(settings: Settings, shared: providers.Provider[SharedState]) -> SessionMemory:
    """The session memory of ``DEVKB_CHAT_MEMORY``: this process (default) or the store."""
    if settings.chat_memory == "store":
        return StoreChatMemory(
            shared(),
            history_limit=settings.history_limit,
            max_messages=settings.conversation_max_messages,
            retention_days=settings.conversation_retention_days,
        )
    return ChatMemory(
        ttl_seconds=settings.session_ttl_seconds,
        max_sessions=settings.max_sessions,
        history_limit=settings.history_limit,
    )


def build_knowledge_gaps(settings: Settings, shared: providers.Provider[SharedState]) -> KnowledgeGaps:
    """Knowledge gaps in the configured store (the store is opened on the first gap, once: two
    requests opening the resource together made two, and the one dropped closed its connections
    under the other — a crash under load)."""
    lock = threading.Lock()
    opened: list[SharedState] = []

    def state() -> SharedState:
        with lock:
            if not opened:
                opened.append(shared())
            return opened[0]

    return KnowledgeGaps(
        state,
        mode=settings.knowledge_gaps,
        keeps_conversations=settings.chat_memory == "store",
        retention_days=settings.conversation_retention_days,
    )


def conversion_limits(settings: Settings) -> ConversionLimits:
    return ConversionLimits(
        max_unpacked_bytes=settings.conversion_max_unpacked_bytes,
        max_ratio=settings.conversion_max_ratio,
        max_entries=settings.conversion_max_entries,
        max_pages=settings.conversion_max_pages,
        max_text_chars=settings.conversion_max_text_chars,
        seconds=settings.conversion_seconds,
        memory_bytes=settings.conversion_memory_mb * 1024 * 1024,
    )


def build_loaders(settings: Settings, configs: list[SourceConfig]) -> list[SourceLoader]:
    """The enabled sources' loaders; the process's file conversion set to the settings' limits
    first (every loader that reads files converts them through it)."""
    configure_conversion(conversion_limits(settings), settings.conversion_workers)
    return [build_loader(c) for c in configs if c.enabled]


class StoreViews:
    """What this process keeps of the store between reads — the access catalog of the reader
    store, the retrieval snapshot — each registered with how to read it again when it is built.
    ``refresh`` re-reads them all, in the order registered, at the end of every sync that
    succeeded, before the run returns to its caller: an upload acknowledged "indexed" (API, MCP,
    CLI), a deletion and a sync's documents are found, or gone, for the next question by every
    path, not after a view's own refresh period. Another process's writes reach these views by
    their periods (``RelatedSearch.refresh_seconds``, ``ScopedStore.catalog_seconds``) — or, on a
    store that counts its writes (``GenerationStore``: the embedded store), at the next request
    after them (``catch_up``, called by the API for every request): a ``devkb upload`` or
    ``devkb memory add`` in another process beside a running server is found by the next question."""

    def __init__(self, generation: Callable[[], int] | None = None) -> None:
        self._refreshers: list[tuple[str, Callable[[], object]]] = []
        self._lock = threading.Lock()
        self._generation = generation
        self._catching = threading.Lock()
        # views built from now on read what is written up to now
        self._seen = self._read_generation()

    def _read_generation(self) -> int | None:
        if self._generation is None:
            return None
        try:
            return self._generation()
        except Exception:  # a store that cannot be read now: the views' periods still hold
            log.debug("reading the store's write generation failed", exc_info=True)
            return None

    def catch_up(self) -> bool:
        """Re-read every view when the store was written since they were last read — by another
        process, or by this one outside a sync; one request re-reads, the others that arrive
        meanwhile wait for it. True when it re-read."""
        now = self._read_generation()
        if now is None or now == self._seen:
            return False
        with self._catching:
            if self._seen is not None and now <= self._seen:
                return False  # another request re-read them meanwhile
            self._seen = now  # writes during the re-read bump it again: the next request re-reads
            self.refresh()
        return True

    def add(self, name: str, refresh: Callable[[], object]) -> None:
        with self._lock:
            self._refreshers.append((name, refresh))

    def refresh(self, _status: object = None) -> None:
        now = self._read_generation()
        if now is not None and (self._seen is None or now > self._seen):
            self._seen = now
        with self._lock:
            refreshers = list(self._refreshers)
        for name, refresh in refreshers:
            try:
                refresh()
            except Exception:  # one view failing leaves the others refreshed
                log.exception("refreshing %s after a sync failed", name)


def viewed(views: StoreViews, name: str, view: T, refresh: Callable[[T], object]) -> T:
    """``view``, registered with ``views`` to be refreshed after syncs by ``refresh(view)``."""
    views.add(name, lambda: refresh(view))
    return view


def build_runs(
    settings: Settings,
    sync: SourceSync,
    loaders: list[SourceLoader],
    shared: providers.Provider[SharedState],
    views: StoreViews,
) -> RunManager:
    if settings.chat_memory == "store":  # replicas: one run per source across all of them
        runs = RunManager(
            sync,
            loaders,
            shared=shared(),
            instance=settings.instance_id,
            lease_seconds=settings.lease_seconds,
            side_by_side=settings.sync_side_by_side,
        )
    else:
        runs = RunManager(sync, loaders, side_by_side=settings.sync_side_by_side)
    runs.after_run.append(views.refresh)  # first: other hooks (adaptation) read the fresh views
    return runs


def housekeeping_jobs(
    settings: Settings, memories: Callable[[], MemoryService]
) -> list[tuple[str, Callable[[], object]]]:
    """The scheduler's housekeeping: memory summaries when ``memory_private_summary_days`` is set,
    then memory retention when ``memory_private_retention_days`` is."""
    jobs: list[tuple[str, Callable[[], object]]] = []
    fold = settings.memory_private_summary_days
    if fold is not None:
        jobs.append(("memory summaries", lambda: memories().summarise_private(fold)))
    days = settings.memory_private_retention_days
    if days is not None:
        jobs.append(("memory retention", lambda: memories().purge_private(days)))
    return jobs


def build_background(
    settings: Settings, scheduler: SyncScheduler, shared: providers.Provider[SharedState]
) -> SyncScheduler | LeaderElection:
    """What ``serve`` starts in the background: the scheduler, or — with replicas sharing a store —
    the election that runs it on exactly one of them."""
    if settings.chat_memory == "store":
        return LeaderElection(shared(), scheduler, settings.instance_id, settings.lease_seconds)
    return scheduler


def demo_resource() -> Iterator[list[SourceConfig]]:
    """The built-in demo workspace (the ``devkb.workspaces`` entry point ``demo``, offered by the
    development tooling): its servers on loopback while the container runs; yields its sources."""
    workspace = find_workspace("demo")
    if workspace is None:
        raise ConfigurationError(
            "no sources are configured (DEVKB_SOURCES_FILE or DEVKB_JIRA_URL) and no demo workspace is "
            "installed: configure a source, or install the development tooling "
            "(pip install -e backend/devtools)"
        )
    running = workspace.start()
    try:
        yield running.sources
    finally:
        running.stop()


def source_configs(settings: Settings, demo: providers.Provider[list[SourceConfig]]) -> list[SourceConfig]:
    """The configured sources, and ``uploads`` (files people upload) unless disabled or
    configured explicitly."""
    configs = _configured_sources(settings, demo)
    if settings.uploads_enabled and not any(c.type == "uploads" or c.name == "uploads" for c in configs):
        configs.append(uploads_config(settings))
    return configs


def uploads_config(settings: Settings) -> SourceConfig:
    return SourceConfig(
        name="uploads", type="uploads", path=str(settings.data_dir / "uploads"), schedule="manual"
    )


def _configured_sources(
    settings: Settings, demo: providers.Provider[list[SourceConfig]]
) -> list[SourceConfig]:
    if settings.sources_file is not None:
        return load_sources_file(Path(settings.sources_file))
    if settings.jira_url:
        return [
            SourceConfig(
                name="jira",
                type="jira",
                url=settings.jira_url,
                user=settings.jira_user,
                token_env="DEVKB_JIRA_TOKEN" if settings.jira_token else None,
                jql=settings.jira_jql,
            )
        ]
    return list(demo())


def build_upload_ingest(settings: Settings, runs: RunManager) -> UploadIngest:
    """Uploads go to the ``uploads`` source; 404 from the API when uploads are disabled."""
    if not settings.uploads_enabled or "uploads" not in runs.loaders:
        raise ConfigurationError("uploads are disabled (DEVKB_UPLOADS_ENABLED=false)")
    loader = runs.loaders["uploads"]
    store = getattr(loader, "store", None)
    if not isinstance(store, UploadStore):
        raise ConfigurationError("the source named uploads is not an uploads source")
    quota = QuotaLimits(
        files_per_day=settings.upload_quota_files_per_day,
        bytes_per_day=settings.upload_quota_bytes_per_day,
        concurrent=settings.upload_concurrent_per_person,
        admins_bounded=settings.upload_quota_admins,
    )
    return UploadIngest(store, runs, "uploads", settings.upload_max_bytes, quota)


def known_project_keys(store: GraphStore) -> set[str]:
    """Jira project keys the sources reported at their last sync (their link hints)."""
    keys: set[str] = set()
    for state in store.list_sync_states():
        keys.update((state.extra.get("link_hints") or {}).get("project_keys", []))
    return keys


def project_keys_reader(store: GraphStore) -> Callable[[], frozenset[str]]:
    """``known_project_keys``, read again only when the store has changed where it can tell
    (the embedded store's write generation, which every write and every process bumps): every
    question asks for them twice, and reading every source's state and its JSON each time was
    ~2% of a question's CPU. A store that cannot tell is read every time."""
    generation = getattr(store, "generation", None)
    lock = threading.Lock()
    cached: list[tuple[int, frozenset[str]]] = []

    def read() -> frozenset[str]:
        if not callable(generation):
            return frozenset(known_project_keys(store))
        with lock:
            now = int(generation())
            if not cached or cached[0][0] != now:
                cached[:] = [(now, frozenset(known_project_keys(store)))]
            return cached[0][1]

    return read


def accounts_resource(settings: Settings) -> Iterator[AccountStore]:
    """Users, sessions, tokens and mirrored permissions (``DEVKB_ACCOUNTS_DB``)."""
    accounts = AccountStore(settings.accounts_path, session_days=settings.session_days)
    try:
        yield accounts
    finally:
        accounts.close()


def demo_users(settings: Settings) -> list[WorkspaceUser]:
    """The demo workspace's users, when the demo runs with accounts (``DEVKB_DEMO_USERS``)."""
    if not (settings.demo_users and is_demo(settings)):
        return []
    workspace = find_workspace("demo")
    return list(workspace.users()) if workspace is not None else []


def ensure_demo_users(container: Container) -> None:
    """Create the demo's users on a demo server with ``DEVKB_DEMO_USERS`` (once: existing users
    are left as they are)."""
    users: list[WorkspaceUser] = container.demo_users()
    if not users:
        return
    accounts: AccountStore = container.accounts()
    if accounts.user_count() > 0:
        return
    for u in users:
        if accounts.user(u.email) is None:
            accounts.create_user(u.email, u.name, u.role, u.password)
    container.access_policy().forget()


def build_oidc(settings: Settings) -> Any:
    """OpenID Connect sign-in when ``DEVKB_OIDC_ISSUER`` is set, else None."""
    if not settings.oidc_issuer or not settings.oidc_client_id:
        return None
    from devkb.access.oidc import OidcSignIn

    secret = settings.oidc_client_secret.get_secret_value() if settings.oidc_client_secret else None
    return OidcSignIn(settings.oidc_issuer, settings.oidc_client_id, secret, name=settings.oidc_name)


def is_demo(settings: Settings) -> bool:
    return settings.sources_file is None and not settings.jira_url


class Container(containers.DeclarativeContainer):
    settings = providers.Singleton(Settings)

    neo4j_driver = providers.Resource(neo4j_driver_resource, settings)  # opened only for DEVKB_STORE=neo4j
    store = providers.Resource(store_resource, settings, neo4j_driver.provider)
    embedder = providers.Singleton(build_embedder, settings)

    demo = providers.Resource(demo_resource)
    sources = providers.Singleton(source_configs, settings, demo.provider)
    loaders = providers.Singleton(build_loaders, settings, sources)

    # What indexing writes through: the store, with its writes in a process of their own
    # (DEVKB_SYNC_WRITE_PROCESS, embedded store only); readers use ``store`` itself.
    indexing_store = providers.Singleton(indexing_store, settings, store)
    link_context = providers.Singleton(LinkContextBuilder, indexing_store, loaders)
    extractor = providers.Singleton(ReferenceExtractor)
    pipeline = providers.Singleton(
        lambda s, store, emb, ext, ctx: IndexingPipeline(
            store,
            emb,
            ext,
            ctx.current,
            chunk_size=s.chunk_size,
            chunk_overlap=s.chunk_overlap,
            embed_batch_size=s.embed_batch_size,
            segmenters=default_segmenters(),
        ),
        settings,
        indexing_store,
        embedder,
        extractor,
        link_context,
    )
    secret_masker = providers.Singleton(masker_for, settings, sources.provider)  # API, logs, sync errors
    sync = providers.Singleton(
        lambda store, pipeline, ext, ctx, masker, s: SyncWithBackfill(
            store,
            pipeline,
            ReferenceBackfill(store, ext, ctx.current),
            before_run=ctx.refresh,
            redact=masker.text,
            history=HistoryPolicy(s.history, s.history_max_versions, s.history_max_diff_bytes),
            prefetch=s.sync_prefetch,
        ),
        indexing_store,
        pipeline,
        extractor,
        link_context,
        secret_masker,
        settings,
    )
    shared_state = providers.Resource(shared_state_resource, settings, store)  # persistent mode only
    store_views = providers.Singleton(  # refreshed after each sync of this process, and after others' writes
        lambda store: StoreViews(store.generation if isinstance(store, GenerationStore) else None), store
    )
    runs = providers.Singleton(build_runs, settings, sync, loaders, shared_state.provider, store_views)
    knowledge_gaps = providers.Singleton(build_knowledge_gaps, settings, shared_state.provider)
    uploads = providers.Singleton(build_upload_ingest, settings, runs)

    accounts = providers.Resource(accounts_resource, settings)
    access_policy = providers.Singleton(AccessPolicy, accounts.provider)
    reader_store = providers.Singleton(  # every read made for a person
        lambda s, store, policy, views: viewed(
            views,
            "the access catalog",
            ScopedStore(store, policy, catalog_seconds=min(5.0, s.views_refresh_seconds / 6)),
            ScopedStore.forget_catalog,
        ),
        settings,
        store,
        access_policy,
        store_views,
    )
    demo_users = providers.Singleton(demo_users, settings)
    oidc = providers.Singleton(build_oidc, settings)
    permission_sync = providers.Singleton(
        lambda s, loaders, accounts, policy, masker: PermissionSync(
            loaders, accounts, policy, interval_seconds=s.permission_sync_minutes * 60, redact=masker.text
        ),
        settings,
        loaders.provider,
        accounts.provider,
        access_policy.provider,
        secret_masker,
    )

    search = providers.Singleton(  # HybridSearch + learnt ranking (agent/retrieval), scoped to the reader
        lambda s, reader_store, store, emb, policy, views: viewed(
            views,
            "the retrieval snapshot",
            RelatedSearch(
                reader_store,
                emb,
                max_documents=s.related_search_max_documents,
                refresh_seconds=s.views_refresh_seconds,
                snapshot_store=store,
                policy=policy,
                adapter=AdapterFile(s.data_dir / ADAPTER_DIR, emb.dimension) if s.adaptation else None,
            ),
            RelatedSearch.refresh_if_built,
        ),
        settings,
        reader_store,
        store,
        embedder,
        access_policy,
        store_views,
    )
    adaptation = providers.Singleton(  # the search adapted to this deployment's graph, after syncs
        lambda s, store, search, emb: GraphAdaptation(
            store,
            search,
            s.data_dir / ADAPTER_DIR,
            min_pairs=s.adaptation_min_pairs,
            new_edges=s.adaptation_new_edges,
            enabled=s.adaptation,
            judge=RelatedSearch(store, emb, unrestricted=True, weights=search.weights),
        ),
        settings,
        store,
        search,
        embedder,
    )
    project_keys = providers.Singleton(project_keys_reader, store)
    # team memory (memory/, docs/memory.md): written through the indexing pipeline, read as the reader
    memories = providers.Singleton(
        lambda pipeline, store, reader_store, emb, search, s, accounts: MemoryService(
            pipeline,
            store,
            reader_store,
            emb,
            changed=[reader_store.forget_catalog, search.refresh_if_built],
            reviewers=s.memory_reviewers,
            granted=lambda: accounts().reviewers(),  # named by admins (PUT /admin/reviewers/{scope})
        ),
        pipeline,
        indexing_store,
        reader_store,
        embedder,
        search,
        settings,
        accounts.provider,
    )
    scheduler = providers.Singleton(
        lambda s, runs, sources, memories: SyncScheduler(
            runs, sources, enabled=s.scheduler_enabled, housekeeping=housekeeping_jobs(s, memories)
        ),
        settings,
        runs.provider,
        sources.provider,
        memories.provider,
    )
    background = providers.Singleton(build_background, settings, scheduler, shared_state.provider)
    background_start = providers.Callable(lambda bg: bg.start, background)
    background_stop = providers.Callable(lambda bg: bg.stop, background)
    verified_answers = providers.Singleton(  # WordNet's synonyms and antonyms, and the embedder's for words
        lambda memories, s, keys, emb: VerifiedAnswers(
            memories,
            days=s.verified_answer_days,
            meaning=SameQuestion(keys, lexicon=Words(WordNet(s.wordnet_dir), emb.embed)),
        ),
        memories,
        settings,
        project_keys,
        embedder,
    )
    conversation_recall = providers.Singleton(
        lambda s, shared: ConversationRecall(shared if s.chat_memory == "store" else None),
        settings,
        shared_state.provider,
    )
    sentence_meaning = providers.Singleton(
        lambda s, emb: SentenceMeaning(emb.embed) if s.sentence_meaning else None, settings, embedder
    )
    toolbox = providers.Singleton(
        Toolbox,
        reader_store,
        search,
        project_keys,
        memories=memories,
        conversations=conversation_recall,
        meaning=sentence_meaning,
    )
    llm = providers.Singleton(LlmProvider, settings)
    json_model = providers.Singleton(json_asker, llm)  # one-pass JSON jobs (facts from a conversation)
    planner = providers.Singleton(
        lambda toolbox, keys, llm: Planner(toolbox, keys, frame_model=frame_asker(llm)),
        toolbox,
        project_keys,
        llm,
    )
    llm_status = providers.Singleton(lambda llm: llm.status, llm)
    agent_runner = providers.Singleton(
        lambda s, toolbox, planner: AgentRunner(toolbox, planner, max_steps=s.agent_max_steps),
        settings,
        toolbox,
        planner,
    )
    ask = providers.Singleton(
        lambda planner, runner, llm, s, verified, memories: AskService(
            planner,
            runner,
            llm,
            answer_slots=s.answer_slots or None,
            verified=verified,
            said=SaidTurns(memories),
        ),
        planner,
        agent_runner,
        llm,
        settings,
        verified_answers,
        memories,
    )
    chat_memory = providers.Singleton(build_chat_memory, settings, shared_state.provider)
    # a fresh MCP server per call (the SDK runs a server's HTTP session manager once); its parts
    # are this container's singletons, created on first use (devkb/mcp)
    mcp_parts = providers.Factory(
        McpParts,
        settings,
        reader_store.provider,
        toolbox.provider,
        ask.provider,
        runs.provider,
        uploads.provider,
        memories.provider,
    )
    mcp_server = providers.Factory(build_mcp_server, mcp_parts)


def prepare_store(container: Container) -> GraphStore:
    """Open the store and check it against the embedder (fails fast with a clear message)."""
    store: GraphStore = container.store()
    emb = container.embedder()
    if isinstance(store, VerifiableStore):
        store.verify(emb.model_name, emb.dimension)  # reachable, authenticated, same embedding dimension
    store.ensure_schema(emb.model_name, emb.dimension)
    return store


def shutdown(container: Container) -> None:
    """Close what was opened (store connections or driver, demo emulators)."""
    try:
        container.shutdown_resources()
    except Exception:
        log.exception("shutting down resources failed")
