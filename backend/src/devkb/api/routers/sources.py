"""``/sources``: status of every source, start a sync, follow a run."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request

from devkb.api.deps import ContainerDep, RunsDep, StoreDep
from devkb.api.routers.convert import run_out
from devkb.api.schemas import ErrorResponse, RunOut, SourceOut, SyncStarted
from devkb.api.security import AdminDep, redact_config
from devkb.errors import SyncInProgressError

router = APIRouter(prefix="/sources", tags=["sources"])


@router.get("", response_model=list[SourceOut], operation_id="listSources")
def list_sources(
    request: Request, container: ContainerDep, store: StoreDep, runs: RunsDep
) -> list[SourceOut]:
    """Every configured source with its status, last and next run, counts and last error. With
    accounts, members see each source's name, type, status and schedule only: counts, runs,
    errors and configuration describe every document, not only the ones they may read."""
    restricted = not container.access_policy().sees_operations(getattr(request.state, "reader", None))
    scheduler = getattr(container, "scheduler", None)
    next_runs: dict[str, str | None] = scheduler().next_runs() if scheduler is not None else {}
    out = []
    for cfg in container.sources():
        if not cfg.enabled or cfg.name not in runs.loaders:
            continue
        state = store.get_sync_state(cfg.name)
        current = runs.current(cfg.name)
        last_error = state.last_error if state else None
        if current is not None:
            status = "running"
        elif last_error:
            status = "failed"
        elif state is None or state.last_success is None:
            status = "never-synced"
        else:
            status = "idle"
        if restricted:
            out.append(
                SourceOut(
                    name=cfg.name,
                    type=cfg.type,
                    status=status,
                    schedule=cfg.schedule,
                    last_success=state.last_success if state else None,
                    last_error=None,
                    next_run=next_runs.get(cfg.name),
                    counts={},
                    current_run=None,
                    last_run=None,
                    config={},
                )
            )
            continue
        out.append(
            SourceOut(
                name=cfg.name,
                type=cfg.type,
                status=status,
                schedule=cfg.schedule,
                last_success=state.last_success if state else None,
                last_error=last_error,
                next_run=next_runs.get(cfg.name),
                counts=(state.counts if state else {}),
                current_run=run_out(current),
                last_run=run_out(runs.last_run(cfg.name)),
                config=redact_config(runs.loaders[cfg.name].describe()),
            )
        )
    return out


@router.post(
    "/{name}/sync",
    response_model=SyncStarted,
    status_code=202,
    operation_id="syncSource",
    responses={404: {"model": ErrorResponse}, 409: {"model": ErrorResponse}},
    dependencies=[AdminDep],
)
def sync_source(name: str, runs: RunsDep, full: bool = False) -> SyncStarted:
    """Start a sync of one source (an admin action); 409 if one is already running."""
    if name not in runs.loaders:
        raise HTTPException(404, f"no source named {name!r}")
    try:
        status = runs.start(name, full=full)
    except SyncInProgressError as e:
        raise HTTPException(409, str(e)) from e
    return SyncStarted(run_id=status.id, source=name, status_url=f"/sources/{name}/runs/{status.id}")


@router.get(
    "/{name}/runs/{run_id}",
    response_model=RunOut,
    operation_id="getRun",
    responses={404: {"model": ErrorResponse}},
)
def get_run(request: Request, container: ContainerDep, name: str, run_id: str, runs: RunsDep) -> RunOut:
    """Progress of one run: phase, items done/total, errors (with accounts: admins only)."""
    if not container.access_policy().sees_operations(getattr(request.state, "reader", None)):
        raise HTTPException(403, "sync runs are shown to admins only")
    run = runs.get_run(name, run_id)
    if run is None:
        raise HTTPException(404, f"no run {run_id!r} of source {name!r}")
    return RunOut(**run.snapshot())
