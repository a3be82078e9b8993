"""``GET /health``: store, embedder and LLM, each ok or an error message."""

from __future__ import annotations

from fastapi import APIRouter

from devkb.api.deps import ContainerDep
from devkb.api.schemas import ComponentHealth, HealthResponse, ReplicaInfo
from devkb.scheduling.leader import LeaderElection

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthResponse, operation_id="health")
def health(container: ContainerDep) -> HealthResponse:
    """Say whether the store, the embedder and the LLM are usable."""
    try:
        stats = container.store().stats()
        if container.access_policy().enabled:  # open to anyone: no counts once accounts exist
            store = ComponentHealth(ok=True, detail="reachable")
        else:
            store = ComponentHealth(ok=True, detail=f"{stats.documents} documents, {stats.chunks} chunks")
    except Exception as e:  # reported, not raised
        store = ComponentHealth(ok=False, detail=f"{type(e).__name__}: {e}"[:300])
    emb = container.embedder()
    problem = emb.check()
    embedder = ComponentHealth(ok=problem is None, detail=problem or emb.model_name)
    llm_status = getattr(container, "llm_status", None)
    if llm_status is not None:
        ok, detail = llm_status()()
        llm = ComponentHealth(ok=ok, detail=detail)
    else:
        llm = ComponentHealth(ok=True, detail="none: extractive answers")
    status = "ok" if store.ok and embedder.ok else "degraded"
    settings = container.settings()
    background = container.background()
    leader = background.is_leader if isinstance(background, LeaderElection) else background.running
    replica = ReplicaInfo(
        instance=settings.instance_id, chat_memory=settings.chat_memory, scheduler_leader=leader
    )
    return HealthResponse(status=status, store=store, embedder=embedder, llm=llm, replica=replica)
