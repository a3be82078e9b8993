"""``devkb``: index, sync, ask, serve, status — the same components as the server, from a shell.

Exit codes: 0 ok, 1 a run or question failed, 2 bad input or configuration.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from tqdm import tqdm

from devkb.access.readers import EVERYTHING, Reader, reading_as
from devkb.cli import accounts, uploads
from devkb.cli.context import fail as _fail
from devkb.cli.context import open_container as _container
from devkb.container import Container, is_demo, prepare_store, shutdown
from devkb.errors import (
    ConfigurationError,
    DevkbError,
    SchemaMismatchError,
    StoreError,
    SyncInProgressError,
)
from devkb.indexing.run_status import RunStatus
from devkb.memory.model import STATUSES, Memory, Scope
from devkb.memory.service import MemoryError, MemoryService
from devkb.store.models import SourceType
from devkb.store.protocol import ReembeddableStore, VerifiableStore
from devkb.store.shared_state import GAP_KINDS

T = TypeVar("T")

app = typer.Typer(
    help="devkb: a knowledge base for Jira, Confluence and GitHub.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _reader(c: Container, email: str | None) -> Reader:
    """Whom a local command reads as: everything (the operator, who holds the data files), or the
    user ``--as`` names, with exactly that user's permissions."""
    if not email:
        return EVERYTHING
    user = c.accounts().user(email)
    if user is None:
        _fail(f"no user {email!r} (devkb users list)")
    if user.disabled:
        _fail(f"{user.email} is disabled")
    return c.access_policy().reader_for(user)


def _sync(container: Container, names: list[str], full: bool, allow_mass_delete: bool = False) -> bool:
    """Sync ``names`` (``RunManager.run_many``; side by side with ``DEVKB_SYNC_SIDE_BY_SIDE``), a
    progress bar each; then one summary line per source, in the order given."""
    runs = container.runs()
    bars = {
        name: tqdm(desc=f"{name}", unit="doc", dynamic_ncols=True, file=sys.stderr, position=i, leave=True)
        for i, name in enumerate(names)
    }
    guard = threading.Lock()  # bars are drawn from the threads of sources syncing side by side

    def progress(s: RunStatus) -> None:
        bar = bars.get(s.source)
        if bar is None:
            return
        with guard:
            if s.total is not None and bar.total != s.total:
                bar.total = s.total
            bar.n = s.done
            bar.set_postfix(
                phase=s.phase,
                new=s.documents_indexed,
                same=s.documents_unchanged,
                deleted=s.documents_deleted,
                retries=s.retries,
                refresh=False,
            )
            bar.refresh()

    try:
        outcome = runs.run_many(names, full=full, on_progress=progress, allow_mass_delete=allow_mass_delete)
    finally:
        for bar in bars.values():
            bar.close()
    ok = True
    for name, s in outcome.items():
        if isinstance(s, SyncInProgressError):
            typer.secho(f"{name}: {s}", fg=typer.colors.YELLOW, err=True)
            ok = False
        elif isinstance(s, DevkbError):
            typer.secho(f"{name}: sync failed: {s}", fg=typer.colors.RED, err=True)
            ok = False
        elif isinstance(s, Exception):
            raise s
        else:
            typer.echo(
                f"{name}: {s.documents_indexed} indexed, {s.documents_unchanged} unchanged, "
                f"{s.documents_deleted} deleted, {s.chunks_embedded} chunks embedded, "
                f"{s.references_written} references, {s.retries} retries"
                + (f", {s.skipped} skipped" if s.skipped else "")
            )
            if s.skipped:  # files or pages a loader could not read, each with its reason
                for line in s.errors[-s.skipped :][:20]:
                    typer.secho(f"  skipped {line}", fg=typer.colors.YELLOW, err=True)
    return ok


@app.command()
def index(
    source: Annotated[str | None, typer.Option("--source", "-s", help="Only this source.")] = None,
    full: Annotated[bool, typer.Option(help="Re-read everything, not only changes.")] = False,
) -> None:
    """Index every configured source (or one), incrementally, with a progress bar."""
    c = _container()
    try:
        prepare_store(c)
        runs = c.runs()
        names = [source] if source else runs.ordered_names()
        for n in names:
            runs.loader(n)
        if is_demo(c.settings()):
            typer.echo("no sources configured: indexing the built-in demo workspace", err=True)
        if not _sync(c, names, full):
            raise typer.Exit(1)
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


@app.command()
def sync(
    name: Annotated[str, typer.Argument(help="Source name (see `devkb sources`).")],
    full: Annotated[bool, typer.Option(help="Re-read everything, not only changes.")] = False,
    allow_mass_delete: Annotated[
        bool, typer.Option(help="Allow deleting more than half of the source's documents.")
    ] = False,
) -> None:
    """Sync one source now, with a progress bar."""
    c = _container()
    try:
        prepare_store(c)
        c.runs().loader(name)
        if not _sync(c, [name], full, allow_mass_delete):
            raise typer.Exit(1)
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


@app.command()
def sources() -> None:
    """List the configured sources with their last sync."""
    c = _container()
    try:
        store = prepare_store(c)
        for cfg in c.sources():
            st = store.get_sync_state(cfg.name)
            last = st.last_success if st else None
            err = f"  last error: {st.last_error}" if st and st.last_error else ""
            counts = json.dumps(st.counts) if st else "{}"
            typer.echo(
                f"{cfg.name:<16} {cfg.type:<11} schedule={cfg.schedule or 'manual':<8} last={last or 'never'} {counts}{err}"
            )
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    source: Annotated[
        list[str] | None,
        typer.Option("--source", "-s", help="jira, confluence, github, files, web or upload; repeatable."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole response as JSON.")] = False,
    as_user: Annotated[
        str | None, typer.Option("--as", help="Answer from what this user may read (default: everything).")
    ] = None,
) -> None:
    """Ask a question and print the answer with its sources."""
    if not question.strip():
        _fail("the question is empty")
    c = _container()
    try:
        types = [SourceType.parse(s) for s in source] if source else None
    except ValueError as e:
        _fail(str(e))
        return
    try:
        prepare_store(c)
        with reading_as(_reader(c, as_user)):
            answer = c.ask().ask(question.strip(), types)
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
        return
    finally:
        shutdown(c)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "answer": answer.answer,
                    "mode": answer.mode,
                    "status": answer.status,
                    "confidence": answer.confidence.__dict__ if answer.confidence is not None else None,
                    "sources": [s.__dict__ for s in answer.sources],
                    "tool_calls": [t.__dict__ for t in answer.tool_calls],
                },
                indent=2,
            )
        )
        return
    typer.echo(answer.answer)
    confidence = answer.confidence
    level = f"; {confidence.level} confidence: {confidence.reason}" if confidence is not None else ""
    typer.echo(f"\n({answer.mode}; {answer.status.replace('_', ' ')}{level})")
    for i, s in enumerate(answer.sources, 1):
        typer.echo(f"[{i}] {s.title} — {s.url}")


@app.command()
def gaps(
    days: Annotated[float | None, typer.Option("--days", min=0.001, help="Only the last N days.")] = None,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", "-k", help="not_found, low_confidence or thumbs_down; repeatable."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=500, help="Topics shown at most.")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Knowledge gaps: questions answered "not found", with low confidence, or voted down, by topic."""
    kinds = kind or []
    unknown = sorted(set(kinds) - set(GAP_KINDS))
    if unknown:
        _fail(f"unknown gap kind {unknown[0]!r}: choose from {', '.join(GAP_KINDS)}")
    c = _container()
    try:
        store = prepare_store(c)
        report = c.knowledge_gaps().report(store, days, kinds, limit)
    except (ConfigurationError, SchemaMismatchError, StoreError) as e:
        _fail(str(e))
        return
    finally:
        shutdown(c)
    if as_json:
        typer.echo(json.dumps(dataclasses.asdict(report), indent=2, ensure_ascii=False))
        return
    if not report.topics:
        typer.echo("no knowledge gaps recorded" + (f" in the last {days:g} days" if days else ""))
        return
    kept = "" if report.questions_kept else " (question text not kept: key terms only)"
    typer.echo(f"{report.total} gaps in {len(report.topics)} topics{kept}")
    for t in report.topics:
        kinds_text = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(t.kinds.items()))
        typer.echo(f"\n{t.count}× {t.label}  ({kinds_text}; last {t.last_asked})")
        for question in t.questions[:3]:
            typer.echo(f"    “{question}”")
        for d in t.documents:
            typer.echo(f"    closest: {d.title} — {d.url}")


@app.command()
def status() -> None:
    """Store counts, embedding model and source states."""
    c = _container()
    try:
        store = prepare_store(c)
        s = store.stats()
        typer.echo(
            f"store: {c.settings().store}  documents={s.documents} chunks={s.chunks} references={s.references}"
        )
        typer.echo(f"embedding: {s.embedding_model} ({s.embedding_dimension}-d)")
        for t, n in sorted(s.documents_by_type.items()):
            typer.echo(f"  {t:<11} {n}")
        for k, n in sorted(s.references_by_kind.items()):
            typer.echo(f"  edge {k:<34} {n}")
        for st in store.list_sync_states():
            typer.echo(
                f"source {st.source}: last success {st.last_success or 'never'}"
                + (f", last error: {st.last_error}" if st.last_error else "")
            )
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


def _figures_line(label: str, figures: dict[str, object]) -> str:
    return f"{label:<38} nDCG@10 {figures['ndcg']:.3f}  Recall@10 {figures['recall']:.3f}  ({figures['queries']} queries)"


@app.command("eval")
def evaluate(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Related-issue retrieval on a time split of this deployment's own graph: adapted on the
    edges made before a date (deciding on its own validation slice), scored on the issue pairs
    made after it — beside the shipped defaults. Nothing in use changes."""
    c = _container()
    try:
        prepare_store(c)
        adaptation = c.adaptation()

        def progress(stage: str, done: int, total: int) -> None:
            if not as_json:
                typer.echo(f"  {stage} {done}/{total}", err=True)

        with reading_as(EVERYTHING):
            split = adaptation.evaluate(progress)
        report = split.to_json()
        if as_json:
            typer.echo(json.dumps(report, indent=2))
            return
        d = split.decision
        typer.echo(
            f"time split: {split.train_pairs} pairs before {split.test_from or '—'} (adaptation), "
            f"{split.test_pairs} after (test)"
        )
        typer.echo(
            f"adaptation on the earlier pairs: {d.status} (with an anchor: {d.methods['anchor']}, "
            f"text only: {d.methods['text']})" + (f" — {d.note}" if d.note else "")
        )
        for mode in ("anchor", "text"):
            label = "anchor = the issue" if mode == "anchor" else "text only"
            typer.echo(_figures_line(f"{label}, shipped defaults", report["defaults"][mode]))
            typer.echo(_figures_line(f"{label}, adapted", report["adapted"][mode]))
        projects = report["defaults"]["anchor"]["per_project"]
        for project, figures in projects.items():
            adapted = report["adapted"]["anchor"]["per_project"].get(project, figures)
            typer.echo(
                f"  project {project or '—':<10} anchor nDCG@10 {figures['ndcg']:.3f} → {adapted['ndcg']:.3f}"
                f"  ({figures['queries']} queries)"
            )
    except ValueError as e:
        _fail(str(e))
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


@app.command()
def adapt() -> None:
    """Adapt retrieval to this deployment's graph now (what runs in the background after syncs):
    the query adapter is written to the data directory when its validation slice says it helps,
    else the shipped defaults stay."""
    c = _container()
    try:
        prepare_store(c)
        adaptation = c.adaptation()
        with reading_as(EVERYTHING):
            decision = adaptation.run()
        typer.echo(f"adaptation: {decision.status}" + (f" — {decision.note}" if decision.note else ""))
        for name, figures in sorted(decision.validation.items()):
            typer.echo(f"  validation {name:<20} nDCG@10 {figures['ndcg@10']:.3f}")
        typer.echo(
            f"in use: with an anchor {decision.methods['anchor']}, text only {decision.methods['text']}"
        )
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default DEVKB_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default DEVKB_PORT).")] = None,
    index_first: Annotated[
        bool, typer.Option("--index/--no-index", help="Sync every source before serving.")
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            help="Server processes sharing the port (default DEVKB_WORKERS; more than one needs "
            "DEVKB_CHAT_MEMORY=store).",
        ),
    ] = None,
) -> None:
    """Serve the API (and the web app) with uvicorn."""
    import uvicorn

    from devkb.api.app import create_app, report_native_crashes

    report_native_crashes()
    if workers is not None:  # the workers read their settings from the environment too
        os.environ["DEVKB_WORKERS"] = str(workers)
    c = _container()
    settings = c.settings()
    if index_first:
        try:
            prepare_store(c)
            _sync(c, c.runs().ordered_names(), full=False)
            c.permission_sync().run_once()  # who may read what, before the first person asks
        except (ConfigurationError, SchemaMismatchError) as e:
            shutdown(c)
            _fail(str(e))
    try:
        prepare_store(c)
    except (ConfigurationError, SchemaMismatchError, DevkbError) as e:
        shutdown(c)
        _fail(str(e))
    logging.getLogger().setLevel(logging.INFO)
    bind_host, bind_port = host or settings.host, port or settings.port
    if settings.workers == 1:
        uvicorn.run(
            create_app(c), host=bind_host, port=bind_port, log_level="info", access_log=settings.access_log
        )
        return
    shutdown(c)  # each worker opens its own container (store, model, snapshot)
    uvicorn.run(
        "devkb.api.app:app_from_environment",
        factory=True,
        workers=settings.workers,
        host=bind_host,
        port=bind_port,
        log_level="info",
        access_log=settings.access_log,
    )


@app.command("mcp")
def mcp_stdio(
    as_user: Annotated[
        str | None, typer.Option("--as", help="Serve what this user may read (their permissions).")
    ] = None,
    read_all: Annotated[
        bool,
        typer.Option(
            "--all", help="Serve everything, as the operator who holds the data files (with accounts)."
        ),
    ] = False,
) -> None:
    """Serve devkb to a coding agent over MCP on stdin/stdout (docs/mcp.md).

    Without accounts it serves everything. With accounts it serves the user ``--as`` names; without
    ``--as`` it refuses to start unless ``--all`` says to serve everything (docs/mcp.md says why)."""
    c = _container()  # logs go to stderr: stdout carries the protocol
    try:
        prepare_store(c)
        if as_user and read_all:
            _fail("give --as EMAIL or --all, not both")
        if not as_user and not read_all and c.access_policy().enabled:
            _fail(
                "this deployment has accounts: name whose permissions the agent reads with "
                "--as EMAIL, or serve everything as the operator with --all"
            )
        reader = _reader(c, as_user)
        c.mcp_server(stdio_reader=reader).run("stdio")
    except DevkbError as e:
        _fail(str(e), 1)
    finally:
        shutdown(c)


@app.command()
def reindex(
    re_embed: Annotated[
        bool,
        typer.Option("--re-embed", help="Drop every chunk and embed again with the configured embedder."),
    ] = False,
) -> None:
    """Index every source from scratch; with --re-embed, switch the store to the configured embedding model."""
    c = _container()
    try:
        store = c.store()
        if re_embed:
            if not isinstance(store, ReembeddableStore):
                _fail("this store cannot reset its embedding model")
            store.reset_embedding_model()
        prepare_store(c)
        if not _sync(c, c.runs().ordered_names(), full=True):
            raise typer.Exit(1)
    except (ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


@app.command()
def migrate(
    to: Annotated[str, typer.Option("--to", help="Target backend: neo4j.")],
    allow_non_empty: Annotated[
        bool, typer.Option(help="Copy into a target that already holds documents.")
    ] = False,
) -> None:
    """Copy the embedded store into Neo4j (DEVKB_NEO4J_*) without re-embedding."""
    from devkb.container import store_resource
    from devkb.store.migrate import migrate as copy_store

    if to != "neo4j":
        _fail(f"--to must be neo4j, not {to!r}")
    c = _container()
    settings = c.settings()
    if not settings.neo4j_uri:
        _fail("set DEVKB_NEO4J_URI (and DEVKB_NEO4J_USER, DEVKB_NEO4J_PASSWORD) to the target server")
    source_settings = settings.model_copy(update={"store": "sqlite"})
    target_settings = settings.model_copy(update={"store": "neo4j"})
    src_res, dst_res = store_resource(source_settings), store_resource(target_settings)
    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage) or bars.setdefault(stage, tqdm(desc=stage, total=total, file=sys.stderr))
        bar.n = done
        bar.refresh()

    try:
        source, target = next(src_res), next(dst_res)
        if isinstance(target, VerifiableStore):
            target.verify()
        report = copy_store(source, target, progress, require_empty_target=not allow_non_empty)
        for bar in bars.values():
            bar.close()
        typer.echo(
            f"copied {report.documents} documents, {report.chunks} chunks, {report.references} references, "
            f"{report.sync_states} sync states to {settings.neo4j_uri} (no re-embedding)"
        )
    except DevkbError as e:
        _fail(str(e), 1)
    finally:
        for res in (src_res, dst_res):
            res.close()


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()


# -- people and permissions (docs/security.md): cli/accounts.py -----------------------------------
accounts.register(app)
uploads.register(app)  # devkb upload: cli/uploads.py


# -- team memory (docs/memory.md) -------------------------------------------------------------------
memory_app = typer.Typer(help="Memories: facts people and agents told devkb (private or team).")
app.add_typer(memory_app, name="memory")
AsUser = Annotated[
    str | None, typer.Option("--as", help="Act as this user (default: the operator, who reads everything).")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _memory_run(as_user: str | None, action: Callable[[MemoryService], T]) -> T:
    """Run ``action`` on the memory service as ``--as`` (exit 2 on bad input, 1 when not allowed)."""
    c = _container()
    try:
        prepare_store(c)
        with reading_as(_reader(c, as_user)):
            return action(c.memories())
    except MemoryError as e:
        _fail(str(e), 2 if e.status in (404, 409, 422) else 1)
    except (ValueError, ConfigurationError, SchemaMismatchError) as e:
        _fail(str(e))
    finally:
        shutdown(c)


def _print_memories(items: list[Memory], as_json: bool, scores: list[float] | None = None) -> None:
    if as_json:
        rows = [dataclasses.asdict(m) | ({"score": scores[i]} if scores else {}) for i, m in enumerate(items)]
        for row in rows:
            row.pop("gates", None)
        typer.echo(json.dumps(rows, indent=2))
        return
    for m in items:
        until = f" until {m.valid_until[:10]}" if m.valid_until else ""
        typer.echo(f"{m.id}  [{m.scope}, {m.status}, from {m.valid_from[:10]}{until}, {m.owner}]  {m.text}")


@memory_app.command("add")
def memory_add(
    text: Annotated[str, typer.Argument(help="The fact, in one sentence.")],
    team: Annotated[bool, typer.Option("--team", help="Share with every signed-in person.")] = False,
    subject: Annotated[str | None, typer.Option(help="What it is about (with --attribute).")] = None,
    attribute: Annotated[str | None, typer.Option(help="What it says of the subject.")] = None,
    valid_from: Annotated[
        str | None, typer.Option("--valid-from", help="When it became true (2026-12-15).")
    ] = None,
    as_user: AsUser = None,
    as_json: AsJson = False,
) -> None:
    """Remember a fact; a newer fact about the same subject and attribute supersedes the older."""
    if not text.strip():
        _fail("the memory is empty")
    m = _memory_run(
        as_user,
        lambda s: s.remember(
            text,
            scope="team" if team else "private",
            origin="agent",
            subject=subject,
            attribute=attribute,
            valid_from=valid_from,
        ),
    )
    _print_memories([m], as_json)


@memory_app.command("conversation")
def memory_conversation(
    path: Annotated[
        Path,
        typer.Argument(
            help='A JSON file: {"title"?, "conversation_id"?, "sessions": [{"date", "title"?, '
            '"turns": [{"speaker", "text", "time"?}]}]} (or the sessions list alone).'
        ),
    ],
    team: Annotated[bool, typer.Option("--team", help="A team conversation (admins).")] = False,
    as_user: AsUser = None,
) -> None:
    """Remember a long conversation, one memory per turn (the same file again writes nothing)."""
    if not path.is_file():
        _fail(f"no file {path}")
    if path.stat().st_size > 20_000_000:
        _fail(f"{path} is over 20 MB")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        _fail(f"{path} is not JSON: {e}")
    spec = raw if isinstance(raw, dict) else {"sessions": raw}
    title = spec.get("title") or ""
    conversation = spec.get("conversation_id")
    if not isinstance(title, str) or not (conversation is None or isinstance(conversation, str)):
        _fail("title and conversation_id must be text")
    told = _memory_run(
        as_user,
        lambda s: s.remember_conversation(
            spec.get("sessions"), title, "team" if team else "private", conversation
        ),
    )
    typer.echo(json.dumps({k: v for k, v in told.items() if k != "ids"}, indent=2))


@memory_app.command("list")
def memory_list(
    team: Annotated[bool, typer.Option("--team", help="Team memories only.")] = False,
    private: Annotated[bool, typer.Option("--private", help="Your private memories only.")] = False,
    status: Annotated[
        str | None, typer.Option(help="proposed, active, verified, superseded or retracted.")
    ] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Only those true then (2026-11-30).")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 100,
    as_user: AsUser = None,
    as_json: AsJson = False,
) -> None:
    """The memories you may read, newest first."""
    if team and private:
        _fail("give --team or --private, not both")
    if status is not None and status not in STATUSES:
        _fail(f"--status must be one of {', '.join(STATUSES)}")
    scope: Scope | None = "team" if team else "private" if private else None
    items = _memory_run(as_user, lambda s: s.list_memories(scope, status, as_of, None, limit))
    _print_memories(items, as_json)


@memory_app.command("search")
def memory_search(
    query: Annotated[str, typer.Argument(help="What to recall.")],
    as_of: Annotated[str | None, typer.Option("--as-of", help="What was true then (2026-11-30).")] = None,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    as_user: AsUser = None,
    as_json: AsJson = False,
) -> None:
    """Recall the memories that answer a query, as true now or --as-of a date."""
    if not query.strip():
        _fail("the query is empty")
    found = _memory_run(as_user, lambda s: s.search(query, as_of, limit))
    _print_memories([r.memory for r in found], as_json, [round(r.score, 4) for r in found])


@memory_app.command("export")
def memory_export(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file (default: print).")
    ] = None,
    as_user: AsUser = None,
) -> None:
    """Your own memories, every version with validity and sources, as JSON (as GET /memories/export)."""
    if output is not None and output.is_dir():
        _fail(f"--output {output} is a directory")
    data = _memory_run(as_user, lambda s: s.export())
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if output is None:
        typer.echo(text)
        return
    try:
        output.write_text(text + "\n", encoding="utf-8")
    except OSError as e:
        _fail(f"cannot write {output}: {e}")
    typer.echo(f"exported {data['count']} memories to {output}")


@memory_app.command("forget")
def memory_forget(
    memory_id: Annotated[str, typer.Argument(help="The memory's id (memory:…).")],
    as_user: AsUser = None,
) -> None:
    """Delete a memory and its history."""
    ids = _memory_run(as_user, lambda s: s.forget(memory_id))
    typer.echo(f"forgot {len(ids)} version(s): {', '.join(ids)}")


@memory_app.command("verify")
def memory_verify(
    memory_id: Annotated[str, typer.Argument(help="The memory's id (memory:…).")],
    as_user: AsUser = None,
    as_json: AsJson = False,
) -> None:
    """Verify a memory (admins; or your own private memory)."""
    _print_memories([_memory_run(as_user, lambda s: s.verify(memory_id))], as_json)
