"""All of devkb's configuration in one typed class: ``DEVKB_*`` environment variables and ``.env``.

Secrets are ``SecretStr``: they never appear in logs, reprs, errors or API responses.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DEVKB_", env_file=".env", extra="ignore")

    # -- where things live --------------------------------------------------------------
    data_dir: Path = Field(Path("data"), description="Directory of the embedded store and run state.")
    sources_file: Path | None = Field(
        None, description="YAML file with the sources and their schedules; unset = built-in demo workspace."
    )

    # -- store ------------------------------------------------------------------------------
    store: Literal["sqlite", "neo4j"] = "sqlite"
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"

    # -- embedder ---------------------------------------------------------------------------
    embedder: Literal["local", "onnx", "ollama", "openai"] = Field(
        "onnx",
        description="onnx: all-MiniLM-L6-v2 on ONNX Runtime (default, int8 ~2.5x torch); local: the same model on torch.",
    )
    onnx_precision: Literal["int8", "fp32"] = "int8"
    onnx_batch_size: int = Field(
        2, ge=1, le=256, description="Texts per ONNX Runtime call: small batches stay in the CPU caches."
    )
    onnx_max_tokens: int = Field(
        256,
        ge=8,
        le=512,
        description="Tokens of each chunk the ONNX embedder reads (the rest is cut); another value is "
        "another model name in the store, so changing it re-embeds.",
    )
    onnx_workers: int | None = Field(
        None, ge=1, le=64, description="Parallel single-threaded ONNX sessions (default: one per core)."
    )
    model_cache_dir: Path | None = Field(
        None, description="Where exported ONNX models are cached (default: DATA_DIR/models)."
    )
    embed_batch_size: int = Field(32, ge=1, le=1024)
    embed_concurrency: int = Field(
        4,
        ge=1,
        le=64,
        description="Batches in flight at once to a remote embedder (openai, ollama); "
        "in-process embedders use their own threads.",
    )
    sync_prefetch: int = Field(
        2,
        ge=0,
        le=16,
        description="Batches a sync reads ahead from the source while the current one is indexed (0: in line).",
    )
    sync_side_by_side: bool = Field(
        False,
        description="Sync several sources at once: pages and repositories side by side, then Jira and the "
        "rest side by side (one source per service at a time). Off by default: on 2 cores one process's "
        "interpreter lock bounds the sync and it measured no faster (docs/deployment.md).",
    )
    sync_write_process: bool = Field(
        True,
        description="On the embedded store, a sync's document writes and checkpoints run in a process of "
        "their own while the sync goes on with the next batch (in order; every other store call waits for "
        "them). Off: in the sync's own process (docs/deployment.md).",
    )
    ollama_embed_model: str = "nomic-embed-text"
    openai_embed_model: str = "text-embedding-3-small"

    blas_threads: int = Field(
        1,
        ge=0,
        le=64,
        description="BLAS threads per product in the server (its "
        "request threads run in parallel already); 0 = the library default.",
    )
    text_index_min_chunks: int | None = Field(
        100_000,
        ge=0,
        description="Embedded store: from this many chunks on, full-text search uses the BM25 impact "
        "index beside the database (built in the background when missing or stale) instead of "
        "FTS5's bm25(); unset (null) = always FTS5.",
    )
    vector_approx_min_chunks: int | None = Field(
        500_000,
        ge=1,
        description="Embedded store: from this many chunks on, vector search scans only the nearest "
        "partitions of an inverted file over the in-memory matrix (built in the background; exact "
        "until it is ready, and for filters keeping under half of the documents) instead of every "
        "vector; unset (null) = always exact.",
    )
    views_refresh_seconds: float = Field(
        30.0,
        gt=0,
        description="How often a server re-reads its in-memory views of the store (the retrieval "
        "snapshot; the access catalog every sixth of it, at most 5 s) when nothing tells it of a write: "
        "its own syncs, uploads and memories refresh them at once, and on the embedded store another "
        "process's writes (a CLI upload) are found by the next request.",
    )
    related_search_max_documents: int | None = Field(
        100_000,
        ge=0,
        description="Above this many documents RelatedSearch ranks candidates from the store's "
        "full-text and vector indexes instead of an in-memory snapshot of the whole store (~670 MiB "
        "per 100k chunks); 0 = never use the snapshot.",
    )
    adaptation: bool = Field(
        True,
        description="Learn a query adapter for retrieval from the deployment's own graph (issue "
        "links, commits, pull requests and pages naming issues) after syncs, used only where a "
        "validation slice of the graph says it helps (docs/evaluation.md, Adaptation).",
    )
    adaptation_min_pairs: int = Field(
        200,
        ge=1,
        description="Issue-to-issue pairs the graph must hold before retrieval is adapted to it; "
        "fewer keep the shipped defaults.",
    )
    adaptation_new_edges: int = Field(
        200,
        ge=1,
        description="Adapt again after a sync when the store holds at least this many edges more "
        "than the last adaptation saw (in the background).",
    )

    # -- history (docs/history.md) -----------------------------------------------------------
    history: bool = Field(
        True,
        description="Read and keep versions: Confluence page versions, Jira transitions, commit diffs.",
    )
    history_max_versions: int = Field(
        1000, ge=1, description="Newest versions kept per page (the Fluid handbook has up to 21)."
    )
    history_max_diff_bytes: int = Field(
        65536, ge=0, description="Diff kept per file of a commit, cut at a line end (Fluid's are ≤ 4,000)."
    )

    # -- extractive answers (docs/agent.md) ----------------------------------------------------
    sentence_meaning: bool = Field(
        False,
        description="Also order an answer's candidate sentences by their embedding cosine with the "
        "question (agent/meaning.py). Off: on a fresh held-out set it gained nothing, put a "
        "topic sentence before the reason, and added ~0.7 s at p90 (docs/evaluation.md).",
    )

    # -- LLM ---------------------------------------------------------------------------------
    llm_provider: Literal["auto", "ollama", "openai", "none"] = "auto"
    ollama_url: str = "http://127.0.0.1:11434"
    ollama_model: str = "qwen2.5:3b"
    openai_api_key: SecretStr | None = None
    openai_model: str = "gpt-4o-mini"
    openai_base_url: str | None = None
    agent_max_steps: int = Field(6, ge=1, le=20)
    llm_max_tokens: int = Field(
        1024,
        ge=16,
        le=32768,
        description="Cap on tokens per model reply (small models can loop until the context is full).",
    )
    llm_frame: bool = Field(
        False,
        description="With a model configured, it also fills the question frame (JSON schema as structured "
        "output, one more model call per question), cross-checked against the rules and the store; "
        "off (default): the rules alone.",
    )
    llm_logprobs: bool = Field(
        True,
        description="Ask the openai provider for token log-probabilities (the answer's confidence uses "
        "them); turn off for a model that rejects the parameter.",
    )

    # -- indexing -------------------------------------------------------------------------------
    chunk_size: int = Field(1000, ge=200, le=8000, description="Target characters per chunk.")
    chunk_overlap: int = Field(100, ge=0, le=2000)

    # -- API ------------------------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    api_key: SecretStr | None = None
    cors_origins: list[str] = Field(default_factory=list)
    cookie_secure: bool = False
    max_question_chars: int = Field(2000, ge=10, le=100_000)
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="Server processes sharing the port (devkb serve; docs/deployment.md recommends one "
        "per core on one machine); more than one needs chat_memory=store, so every process sees "
        "every session.",
    )
    request_threads: int = Field(
        40,
        ge=1,
        le=1000,
        description="Requests one server process works on at once (its thread pool for synchronous "
        "endpoints, anyio's default 40); the others wait their turn, first come first served.",
    )
    answer_slots: int = Field(
        0,
        ge=0,
        le=1000,
        description="Questions one server process answers without an LLM at once (retrieval, rules "
        "planner, extractive answer: CPU work that holds Python's GIL); the others wait their turn "
        "in arrival order without competing for it. 0 = one per core. Answers through an LLM, which "
        "mostly wait on the model, are not limited by it.",
    )
    access_log: bool = Field(
        True, description="A log line per request (uvicorn's access log); off behind a proxy that logs."
    )
    # -- team memory (memory/, docs/memory.md) -----------------------------------------------
    verified_answer_days: float = Field(
        90,
        gt=0,
        le=3650,
        description="Days a verified answer stays verified before it must be verified again.",
    )
    wordnet_dir: Path | None = Field(
        Path("/usr/share/wordnet"),
        description="WordNet 3.0's database (Debian package wordnet-base): synonyms and antonyms when a "
        "question is compared with a verified one; absent or unset: the folding table alone (logged).",
    )
    memory_private_retention_days: float | None = Field(
        None,
        gt=0,
        le=36500,
        description="Delete private memories superseded or retracted longer ago than this many days "
        "(the scheduler's memory retention job, every 6 hours; from the store and every index). "
        "Unset: kept for ever. Team memories and current private ones are never deleted by it.",
    )
    memory_reviewers: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Reviewers of team facts and verified answers per project or space, as JSON: "
        '{"project:PAY": ["bob@acme.example"], "space:ENG": ["carol@acme.example"]}. A reviewer verifies '
        "a team memory or an answer when every document it is about, derived from or cites is in a "
        "project or space they review; admins review everything.",
    )
    memory_private_summary_days: float | None = Field(
        None,
        gt=0,
        le=36500,
        description="Fold each person's private memories said in conversations (or by an agent) and "
        "recorded longer ago than this many days into their one summary memory (the scheduler's "
        "memory summaries job, every 6 hours; deterministic, the folded ones superseded and kept). "
        "Unset: no summaries.",
    )
    # -- uploads (api/routers/uploads.py, the MCP ingest tool) ---------------------------------
    uploads_enabled: bool = Field(
        True, description="Accept uploads (source `uploads`, files under data_dir/uploads)."
    )
    upload_max_bytes: int = Field(25_000_000, ge=1, le=1_000_000_000, description="Largest file accepted.")
    upload_quota_files_per_day: int = Field(
        200,
        ge=0,
        description="Files one person may upload in 24 hours (refused ones count too); 0: no limit.",
    )
    upload_quota_bytes_per_day: int = Field(
        500_000_000,
        ge=0,
        description="Bytes one person may upload in 24 hours (refused ones count too); 0: no limit.",
    )
    upload_concurrent_per_person: int = Field(
        2, ge=0, description="Uploads one person may have converting at once; 0: no limit."
    )
    upload_quota_admins: bool = Field(
        False, description="Hold admins (and the operator) to the same quotas; by default they are exempt."
    )
    # -- conversion of files, uploads and web pages (sources/formats, docs/security.md) ---------
    conversion_workers: int = Field(
        2,
        ge=1,
        le=32,
        description="PDF, DOCX and HTML are parsed in this many worker processes at most at once (the "
        "others wait); each is limited to conversion_memory_mb and conversion_seconds.",
    )
    conversion_memory_mb: int = Field(
        1024, ge=128, le=65_536, description="Address space of one conversion worker (RLIMIT_AS), in MiB."
    )
    conversion_seconds: float = Field(
        60, gt=0, le=3600, description="Longest one file may take to convert; the worker is then killed."
    )
    conversion_max_unpacked_bytes: int = Field(
        100_000_000,
        ge=1_000_000,
        description="An archive (DOCX) may unpack to this many bytes, all its entries together, "
        "counted while decompressing (never read from its headers).",
    )
    conversion_max_ratio: int = Field(
        100, ge=2, description="An archive may unpack to at most this many times its size (over 1 MB)."
    )
    conversion_max_entries: int = Field(10_000, ge=10, description="Entries in an archive (DOCX).")
    conversion_max_pages: int = Field(5_000, ge=1, description="Pages of a PDF (declared and found).")
    conversion_max_text_chars: int = Field(
        10_000_000, ge=1_000, description="Characters of text one file may yield."
    )
    session_ttl_seconds: int = Field(24 * 3600, ge=60)
    max_sessions: int = Field(10_000, ge=1)
    history_limit: int = Field(50, ge=1, le=1000)
    scheduler_enabled: bool = True

    # -- people and permissions (docs/security.md) ----------------------------------------------
    accounts_db: Path | None = Field(
        None,
        description="The accounts file (users, sessions, tokens, mirrored permissions); default <data dir>/accounts.db.",
    )
    demo_users: bool = Field(
        False,
        description="Demo workspace only: create the demo's users (shown on the sign-in page) and mirror "
        "the demo sources' permissions, so the demo runs with accounts (make run sets it).",
    )
    session_days: float = Field(14, gt=0, le=365, description="A sign-in session lasts this many days.")
    permission_sync_minutes: float = Field(
        10, gt=0, description="How often the sources' permissions are mirrored (independently of content)."
    )
    oidc_issuer: str | None = Field(None, description="OpenID Connect issuer URL; enables single sign-on.")
    oidc_client_id: str | None = None
    oidc_client_secret: SecretStr | None = None
    oidc_name: str = Field("single sign-on", description="The sign-in button's label, e.g. 'Okta'.")
    oidc_default_role: Literal["admin", "member"] = Field(
        "member", description="Role of a user created by their first single sign-on."
    )

    # -- conversations and replicas (docs/deployment.md) ----------------------------------------
    chat_memory: Literal["memory", "store"] = Field(
        "memory",
        description="memory: chat history per session in this process, gone on restart (the default, "
        "privacy by design); store: conversations in the graph store, shared by replicas, kept until "
        "deleted or expired.",
    )
    conversation_retention_days: float = Field(
        30, gt=0, description="store mode: conversations not used for this many days are deleted."
    )
    knowledge_gaps: Literal["auto", "questions", "terms", "off"] = Field(
        "auto",
        description="Questions answered 'not found' or with low confidence, and thumbs-down, recorded "
        "in the store for the admins' knowledge-gaps report (docs/knowledge-gaps.md). auto: the question "
        "text only when conversations are kept (chat_memory=store), else its key terms only; "
        "questions: always the text; terms: never the text; off: nothing. Kept "
        "conversation_retention_days.",
    )
    conversation_max_messages: int = Field(
        1000, ge=2, le=100_000, description="store mode: messages kept per conversation (oldest dropped)."
    )
    lease_seconds: float = Field(
        15, ge=1, le=3600, description="store mode: the scheduler leader's and a running sync's lease."
    )
    instance_id: str = Field(
        default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}",
        description="This replica's name in leases and sync runs (default host:pid).",
    )

    # -- sources (used when no sources file is given and not in demo mode) ------------------------
    jira_url: str | None = None
    jira_user: str | None = None
    jira_token: SecretStr | None = None
    jira_jql: str | None = None
    confluence_url: str | None = None
    confluence_user: str | None = None
    confluence_token: SecretStr | None = None
    github_url: str = "https://api.github.com"
    github_token: SecretStr | None = None

    @field_validator("data_dir")
    @classmethod
    def _absolute(cls, v: Path) -> Path:
        return v.expanduser().resolve()

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if self.store == "neo4j" and not self.neo4j_uri:
            raise ValueError("DEVKB_STORE=neo4j needs DEVKB_NEO4J_URI (e.g. bolt://localhost:7687)")
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("DEVKB_CHUNK_OVERLAP must be smaller than DEVKB_CHUNK_SIZE")
        if self.oidc_issuer and not self.oidc_client_id:
            raise ValueError(
                "DEVKB_OIDC_ISSUER needs DEVKB_OIDC_CLIENT_ID (the client registered at the provider)"
            )
        if self.workers > 1 and self.chat_memory != "store":
            raise ValueError(
                "DEVKB_WORKERS > 1 needs DEVKB_CHAT_MEMORY=store: a session must be readable by every "
                "server process (docs/deployment.md)"
            )
        if self.sources_file is not None and not self.sources_file.exists():
            raise ValueError(f"DEVKB_SOURCES_FILE {self.sources_file} does not exist")
        return self

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "graph.sqlite"

    @property
    def accounts_path(self) -> Path:
        return self.accounts_db if self.accounts_db is not None else self.data_dir / "accounts.db"
