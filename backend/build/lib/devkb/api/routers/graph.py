"""``GET /graph``: a page of the graph (Document nodes and REFERENCES edges) for the explorer."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from devkb.api.deps import StoreDep
from devkb.api.schemas import ErrorResponse, GraphEdge, GraphNode, GraphResponse, SourceParam, parse_sources
from devkb.store.models import Document, GraphPage, SourceType

router = APIRouter(prefix="/graph", tags=["graph"])
MAX_NODES = 2000


def graph_out(page: GraphPage) -> GraphResponse:
    return GraphResponse(
        nodes=[
            GraphNode(id=d.id, type=d.type.value, title=d.title, url=d.url, metadata=d.metadata)
            for d in page.nodes
        ],
        edges=[
            GraphEdge(source=e.from_id, target=e.to_id, kind=e.kind, evidence=e.evidence) for e in page.edges
        ],
    )


@router.get(
    "", response_model=GraphResponse, operation_id="getGraph", responses={422: {"model": ErrorResponse}}
)
def get_graph(
    store: StoreDep,
    limit: Annotated[int, Query(ge=1, le=MAX_NODES, description=f"Maximum nodes (1–{MAX_NODES}).")] = 300,
    types: Annotated[
        list[SourceParam] | None, Query(max_length=3, description="jira, confluence, github")
    ] = None,
    kinds: Annotated[list[str] | None, Query(max_length=50)] = None,
    around: Annotated[
        list[str] | None, Query(max_length=200, description="Centre on these document ids.")
    ] = None,
) -> GraphResponse:
    """The best-connected documents (or those around given ids) with the edges among them."""
    try:
        parsed = parse_sources(types)
    except ValueError as e:  # an unknown type is bad input, not a server error
        raise HTTPException(422, f"types: {e}") from e
    page = store.graph_page(
        limit=limit,
        types=[SourceType.parse(t) for t in parsed] if parsed else None,
        kinds=kinds or None,
        around=around or None,
    )
    return graph_out(page)


@router.get("/search", response_model=GraphResponse, operation_id="searchGraph")
def search_graph(
    store: StoreDep,
    q: Annotated[str, Query(min_length=1, max_length=200)],
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> GraphResponse:
    """Documents whose id or title contains ``q`` (no edges): an exact id or issue key first
    ("PAY-7" → the issue PAY-7, then the commits that mention it), then titles starting with it."""
    term = q.strip()
    exact = store.get_documents(list(dict.fromkeys([term, f"jira:{term.upper()}"])))
    found = exact + store.find_documents({"id": term}, limit=limit)
    found += store.find_documents(title_contains=term, limit=limit)
    seen: dict[str, Document] = {}
    for d in found:
        seen.setdefault(d.id, d)
    exact_ids = {d.id for d in exact}
    lowered = term.lower()

    def rank(d: Document) -> int:
        if d.id in exact_ids:
            return 0
        return 1 if d.title.lower().startswith(lowered) else 2

    ordered = sorted(seen.values(), key=rank)  # stable: the store's order within a rank
    return graph_out(GraphPage(nodes=ordered[:limit], edges=[]))
