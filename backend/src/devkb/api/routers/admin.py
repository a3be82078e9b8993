"""``/admin``: users, documents shared with every member, the permission sync, the knowledge
gaps and retrieval's adaptation to the graph — admins only
(``AdminDep``; with accounts: a signed-in admin or the operator's API key)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as Path_
from pydantic import BaseModel, Field

from devkb.access.accounts import AccountStore, UserExistsError
from devkb.api.account_schemas import (
    PermissionSourceOut,
    PermissionsOut,
    SharedIn,
    SharedOut,
    UserIn,
    UserOut,
    UserPatch,
)
from devkb.api.authentication import request_user
from devkb.api.deps import ContainerDep, GapsDep, SettingsDep, StoreDep
from devkb.api.routers.feedback import read_votes
from devkb.api.schemas import (
    AdaptationFiguresOut,
    AdaptationOut,
    AdaptationStatusOut,
    ErrorResponse,
    GapReportOut,
)
from devkb.api.security import AdminDep

router = APIRouter(prefix="/admin", tags=["admin"], dependencies=[AdminDep])


def _accounts(container: ContainerDep) -> AccountStore:
    accounts: AccountStore = container.accounts()
    return accounts


@router.get("/users", response_model=list[UserOut], operation_id="listUsers")
def list_users(container: ContainerDep) -> list[UserOut]:
    return [UserOut.of(u) for u in _accounts(container).users()]


@router.post(
    "/users",
    response_model=UserOut,
    status_code=201,
    operation_id="createUser",
    responses={409: {"model": ErrorResponse, "description": "A user with that e-mail exists."}},
)
def create_user(body: UserIn, container: ContainerDep) -> UserOut:
    """Create a user (a password for local sign-in; without one the user signs in by SSO)."""
    try:
        user = _accounts(container).create_user(body.email, body.name, body.role, body.password)
    except UserExistsError as e:
        raise HTTPException(409, str(e)) from e
    container.access_policy().forget()
    return UserOut.of(user)


@router.patch(
    "/users/{email}",
    response_model=UserOut,
    operation_id="updateUser",
    responses={400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}},
)
def update_user(email: str, body: UserPatch, request: Request, container: ContainerDep) -> UserOut:
    """Change a user's name, role, password, or disable them (which signs them out everywhere)."""
    accounts = _accounts(container)
    me = request_user(request)
    if me is not None and me.email == email.strip().lower() and (body.disabled or body.role == "member"):
        raise HTTPException(400, "you cannot disable yourself or take away your own admin role")
    try:
        user = accounts.update_user(email, role=body.role, disabled=body.disabled, name=body.name)
        if body.password is not None:
            accounts.set_password(user.email, body.password)
    except LookupError:
        raise HTTPException(404, f"no user {email!r}") from None
    container.access_policy().forget()
    return UserOut.of(user)


@router.get("/shared", response_model=SharedOut, operation_id="listShared")
def list_shared(container: ContainerDep) -> SharedOut:
    """Documents shared with every member."""
    return SharedOut(changed=0, shared=sorted(_accounts(container).shared_ids()))


@router.post(
    "/shared", response_model=SharedOut, operation_id="setShared", responses={404: {"model": ErrorResponse}}
)
def set_shared(body: SharedIn, request: Request, container: ContainerDep) -> SharedOut:
    """Share documents with every member (``shared: false`` takes it back). Unknown ids are refused."""
    store = container.store()
    known = {d.id for d in store.get_documents(body.document_ids)}
    missing = [i for i in body.document_ids if i not in known]
    if missing and body.shared:
        raise HTTPException(404, f"no such documents: {', '.join(missing[:5])}")
    me = request_user(request)
    accounts = _accounts(container)
    changed = accounts.set_shared(body.document_ids, body.shared, me.email if me else "operator")
    container.access_policy().forget()
    return SharedOut(changed=changed, shared=sorted(accounts.shared_ids()))


@router.get("/permissions", response_model=PermissionsOut, operation_id="permissionSyncStatus")
def permissions(container: ContainerDep, settings: SettingsDep) -> PermissionsOut:
    """The permission sync of each source: last run, pairs mirrored, error."""
    sync = container.permission_sync()
    return PermissionsOut(
        interval_minutes=settings.permission_sync_minutes,
        sources=[PermissionSourceOut(**s) for s in sync.snapshot()],
    )


@router.post("/permissions/sync", response_model=PermissionsOut, operation_id="syncPermissions")
def sync_permissions(container: ContainerDep, settings: SettingsDep) -> PermissionsOut:
    """Mirror every source's permissions now (waits for it)."""
    sync = container.permission_sync()
    sync.run_once()
    return PermissionsOut(
        interval_minutes=settings.permission_sync_minutes,
        sources=[PermissionSourceOut(**s) for s in sync.snapshot()],
    )


@router.get(
    "/gaps",
    response_model=GapReportOut,
    operation_id="listKnowledgeGaps",
    responses={403: {"model": ErrorResponse, "description": "Not an admin."}},
)
def list_gaps(
    gaps: GapsDep,
    store: StoreDep,
    settings: SettingsDep,
    days: Annotated[float | None, Query(gt=0, le=3650, description="Only the last N days.")] = None,
    kind: Annotated[
        list[Literal["not_found", "low_confidence", "thumbs_down"]] | None,
        Query(description="Only these kinds of gap."),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> GapReportOut:
    """Questions the sources could not answer, grouped by topic, with the closest documents; and
    the answers people voted down, with the reasons they gave."""
    votes = read_votes(Path(settings.data_dir))
    return GapReportOut.model_validate(asdict(gaps.report(store, days, kind or (), limit, votes)))


def _method(decision: dict[str, Any], mode: str) -> Literal["defaults", "adapter", "ranker"]:
    """What a mode uses; a decision written before the ranker refit only had the adapter."""
    method = (decision.get("methods") or {}).get(mode)
    if method in ("defaults", "adapter", "ranker"):
        return method  # type: ignore[no-any-return]
    return "adapter" if decision.get("use_anchor" if mode == "anchor" else "use_text") else "defaults"


def _adaptation(container: ContainerDep, settings: SettingsDep) -> AdaptationOut:
    adaptation = container.adaptation()
    decision = adaptation.decision() or {}
    evaluation = adaptation.evaluation() or {}
    figures = []
    for mode in ("anchor", "text"):
        before = (evaluation.get("defaults") or {}).get(mode)
        after = (evaluation.get("adapted") or {}).get(mode)
        if before and after:
            figures.append(
                AdaptationFiguresOut(
                    mode=mode,
                    defaults_ndcg=round(before["ndcg"], 4),
                    adapted_ndcg=round(after["ndcg"], 4),
                    defaults_recall=round(before["recall"], 4),
                    adapted_recall=round(after["recall"], 4),
                    queries=before["queries"],
                )
            )
    return AdaptationOut(
        enabled=settings.adaptation,
        status=AdaptationStatusOut(**asdict(adaptation.status)),
        in_use_with_anchor=bool(decision.get("use_anchor")),
        in_use_text_only=bool(decision.get("use_text")),
        method_with_anchor=_method(decision, "anchor"),
        method_text_only=_method(decision, "text"),
        decision=decision.get("status"),
        note=str(decision.get("note") or ""),
        test_from=evaluation.get("test_from"),
        train_pairs=evaluation.get("train_pairs"),
        test_pairs=evaluation.get("test_pairs"),
        figures=figures,
        evaluated=evaluation.get("created"),
    )


@router.get(
    "/retrieval/adaptation",
    response_model=AdaptationOut,
    operation_id="retrievalAdaptation",
    responses={403: {"model": ErrorResponse, "description": "Not an admin."}},
)
def retrieval_adaptation(container: ContainerDep, settings: SettingsDep) -> AdaptationOut:
    """Retrieval adapted to this deployment's graph: what is in use, the last decision, and the
    time-split figure (the shipped defaults beside the adapted search on pairs made after a date)."""
    return _adaptation(container, settings)


@router.post(
    "/retrieval/adaptation",
    response_model=AdaptationOut,
    status_code=202,
    operation_id="adaptRetrieval",
    responses={
        403: {"model": ErrorResponse, "description": "Not an admin."},
        409: {"model": ErrorResponse, "description": "An adaptation is running already."},
    },
)
def adapt_retrieval(container: ContainerDep, settings: SettingsDep) -> AdaptationOut:
    """Run the time-split evaluation and adapt now, in the background (progress in ``status``)."""
    if not container.adaptation().start(evaluate=True):
        raise HTTPException(409, "an adaptation is running already")
    return _adaptation(container, settings)


class QuotaUseOut(BaseModel):
    person: str
    files: int = Field(description="files sent in the last 24 hours (refused ones included)")
    bytes: int = Field(description="bytes sent in the last 24 hours")
    converting: int = Field(description="conversions running now")


class UploadQuotasOut(BaseModel):
    files_per_day: int
    bytes_per_day: int
    concurrent: int
    admins_bounded: bool
    people: list[QuotaUseOut]


@router.get("/uploads/quotas", response_model=UploadQuotasOut, operation_id="uploadQuotas")
def upload_quotas(container: ContainerDep) -> UploadQuotasOut:
    """The upload quotas (docs/security.md) and each person's use of them in the last 24 hours."""
    quota = container.uploads().quota
    limits = quota.limits
    return UploadQuotasOut(
        files_per_day=limits.files_per_day,
        bytes_per_day=limits.bytes_per_day,
        concurrent=limits.concurrent,
        admins_bounded=limits.admins_bounded,
        people=[
            QuotaUseOut(person=p, files=u.files, bytes=u.bytes, converting=u.running)
            for p, u in quota.usage().items()
        ],
    )


# -- reviewers of team memories and verified answers, per project or space (docs/memory.md) --------
SCOPE_PATTERN = r"^(project|space):[A-Za-z0-9_~-]{1,64}$"


class ReviewersIn(BaseModel):
    people: list[str] = Field(
        max_length=200, description="E-mails of existing users; an empty list removes the scope's reviewers."
    )


class ReviewerScopeOut(BaseModel):
    scope: str = Field(description="project:KEY (Jira) or space:KEY (Confluence).")
    people: list[str] = Field(description="Named here by admins.")
    configured: list[str] = Field(description="Named by DEVKB_MEMORY_REVIEWERS (read-only here).")


def _reviewer_scopes(container: ContainerDep) -> list[ReviewerScopeOut]:
    memories = container.memories()
    granted = {k: sorted(v) for k, v in _reviewer_map_of(_accounts(container).reviewers()).items()}
    configured = {k: sorted(v) for k, v in memories.configured.items()}
    return [
        ReviewerScopeOut(scope=k, people=granted.get(k, []), configured=configured.get(k, []))
        for k in sorted({*granted, *configured})
    ]


def _reviewer_map_of(raw: dict[str, list[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for k, v in raw.items():
        kind, _, key = k.partition(":")
        out.setdefault(f"{kind.lower()}:{key.upper()}", []).extend(v)
    return out


@router.get("/reviewers", response_model=list[ReviewerScopeOut], operation_id="listReviewers")
def list_reviewers(container: ContainerDep) -> list[ReviewerScopeOut]:
    """Who reviews team memories and verified answers about each project or space, besides admins."""
    return _reviewer_scopes(container)


@router.put(
    "/reviewers/{scope}",
    response_model=list[ReviewerScopeOut],
    operation_id="setReviewers",
    responses={
        404: {"model": ErrorResponse, "description": "A person with no account."},
        422: {"model": ErrorResponse, "description": "A malformed scope."},
    },
)
def set_reviewers(
    scope: Annotated[str, Path_(pattern=SCOPE_PATTERN, description="project:KEY or space:KEY")],
    body: ReviewersIn,
    container: ContainerDep,
) -> list[ReviewerScopeOut]:
    """Name the people who review a project's or space's team memories and verified answers (they
    verify, and their team memories about it are current at once); an empty list removes them."""
    accounts = _accounts(container)
    unknown = [p for p in body.people if accounts.user(p) is None]
    if unknown:
        raise HTTPException(
            404,
            f"no such user: {', '.join(p[:100] for p in sorted(set(unknown))[:5])} (create the account first)",
        )
    kind, _, key = scope.partition(":")
    accounts.set_reviewers(f"{kind.lower()}:{key.upper()}", body.people)
    return _reviewer_scopes(container)
