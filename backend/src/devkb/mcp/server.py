"""The MCP server: devkb's cross-source graph as tools and resources for coding agents.

Built with the official SDK's ``FastMCP`` over the parts the container wires (store, the agent's
typed tools, ``AskService``, the sync runs), so MCP answers exactly what the API answers. Tools
return small, cited results (``results.py``); bad arguments become tool errors (``isError``) with
a message saying what to change, never a crash. ``sync_source`` is an admin action: on HTTP it
needs the API key when one is configured (``http.py``), over stdio the local user is the admin.

    tools      search · ask · get_document · neighbors · find · what_changed · list_sources · sync_source
    resources  devkb://document/{document_id}
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from devkb.agent.evidence import Scope
from devkb.container import Container
from devkb.errors import DevkbError
from devkb.mcp.http import may_administer
from devkb.mcp.results import document_ref, evidence_result, neighbor_result, snippet
from devkb.store.models import SourceType

SourceName = Literal["jira", "confluence", "github"]
SOURCE_TYPES: dict[str, SourceType] = {
    "jira": SourceType.JIRA,
    "confluence": SourceType.CONFLUENCE,
    "github": SourceType.GITHUB,
}
MAX_DOCUMENT_CHARS = 20_000
INSTRUCTIONS = (
    "devkb is a team's knowledge base over its Jira issues, Confluence pages and GitHub repositories "
    "(commits, pull requests, files), linked as a graph: which commit fixed an issue, which page an "
    "issue points to, which pull request changed a documented file. Start with `search` or `find`; "
    "follow links with `neighbors`; read one document with `get_document`; `ask` answers a question "
    "with citations. Document ids look like jira:PAY-12, confluence:page:2000005, "
    "github:owner/repo:pull:8, github:owner/repo:commit:<sha>, github:owner/repo:file:<path>."
)


def _types(sources: list[SourceName] | None) -> list[SourceType] | None:
    return [SOURCE_TYPES[s] for s in sources] if sources else None


def _checked(fn: Callable[[], Any]) -> Any:
    """Run ``fn``; devkb's own errors (bad filters, unknown ids, unreachable store) become tool
    errors with their message."""
    try:
        return fn()
    except DevkbError as e:
        raise ToolError(str(e)) from e
    except ValueError as e:
        raise ToolError(f"invalid argument: {e}") from e


def _iso_day(value: str | None, name: str) -> str | None:
    if value is None or value == "":
        return None
    try:
        return datetime.fromisoformat(value).date().isoformat()
    except ValueError as e:
        raise ToolError(f"{name} must be a date like 2026-04-30, not {value!r}") from e


def build_mcp_server(container: Container, host: str = "127.0.0.1") -> FastMCP:
    """The MCP server over ``container``'s parts; ``host`` tunes the SDK's DNS-rebinding guard
    (on for loopback, where no API key may protect the server)."""
    # stateless: every request stands alone, so any replica behind a load balancer can serve it
    mcp = FastMCP(
        "devkb", instructions=INSTRUCTIONS, host=host, streamable_http_path="/mcp", stateless_http=True
    )

    @mcp.tool(
        description="Semantic and keyword search over every indexed document (issues, pages, commits, "
        "pull requests, files). Returns the best documents with ids, URLs and a snippet; use "
        "`get_document` to read one."
    )
    def search(
        query: Annotated[str, Field(description="What to look for, in words or keywords.", min_length=1)],
        sources: Annotated[
            list[SourceName] | None, Field(description="Only these sources (default: all).")
        ] = None,
        top_k: Annotated[int, Field(description="How many documents (1-20).", ge=1, le=20)] = 8,
        anchor: Annotated[
            str | None,
            Field(description="Id of the document the search is about; documents related to it rank first."),
        ] = None,
    ) -> dict[str, Any]:
        scope = Scope.for_sources(_types(sources))
        docs = _checked(lambda: container.toolbox().rag_search.run(scope, query, top_k, anchor))
        return {"query": query, "results": [evidence_result(d) for d in docs]}

    @mcp.tool(
        description="Ask devkb a question in plain language; it plans its own searches and graph "
        "lookups and answers with numbered citations [n] that refer to the returned sources."
    )
    async def ask(
        question: Annotated[str, Field(description="The question.", min_length=1, max_length=2000)],
        ctx: Context,  # type: ignore[type-arg]
        sources: Annotated[
            list[SourceName] | None, Field(description="Only these sources (default: all).")
        ] = None,
    ) -> dict[str, Any]:
        steps = 0

        def on_event(kind: str, payload: dict[str, Any]) -> None:
            nonlocal steps
            if kind in ("status", "tool_call"):
                steps += 1
                message = payload.get("stage") or f"tool {payload.get('tool')}"
                anyio.from_thread.run(ctx.report_progress, steps, None, str(message))

        answer = await anyio.to_thread.run_sync(
            lambda: _checked(lambda: container.ask().ask(question, _types(sources), on_event=on_event))
        )
        return {
            "answer": answer.answer,
            "mode": answer.mode,
            "sources": [
                {
                    "n": i,
                    "id": c.document_id,
                    "title": c.title,
                    "type": c.type,
                    "url": c.url,
                    "snippet": snippet(c.snippet),
                }
                for i, c in enumerate(answer.sources, start=1)
            ],
        }

    @mcp.tool(description="Read one document: its metadata (status, assignee, author, …) and its text.")
    def get_document(
        document_id: Annotated[str, Field(description="A document id, e.g. jira:PAY-12.", min_length=1)],
        max_chars: Annotated[
            int, Field(description="At most this much text (100-20000).", ge=100, le=MAX_DOCUMENT_CHARS)
        ] = 6000,
    ) -> dict[str, Any]:
        found = _checked(lambda: container.store().get_document(document_id))
        if found is None:
            raise ToolError(f"no document {document_id!r}; `search` or `find` give valid ids")
        text = "\n\n".join(c.content for c in sorted(found.chunks, key=lambda c: c.chunk_index))
        return {
            **document_ref(found.document),
            "metadata": found.document.metadata,
            "text": text[:max_chars],
            "truncated": len(text) > max_chars,
        }

    @mcp.tool(
        description="Documents linked to a document in the graph: the commits and pull requests that "
        "fixed an issue, issues it blocks or depends on, pages it mentions, files a commit changed."
    )
    def neighbors(
        document_id: Annotated[str, Field(description="The document's id.", min_length=1)],
        direction: Annotated[
            Literal["out", "in", "both"],
            Field(description="out: what it references; in: what references it; both."),
        ] = "both",
        kinds: Annotated[
            list[str] | None,
            Field(description="Only these link kinds, e.g. jira-key-in-commit-message, jira-issuelink."),
        ] = None,
        sources: Annotated[
            list[SourceName] | None, Field(description="Only neighbours from these sources.")
        ] = None,
        limit: Annotated[int, Field(description="At most this many (1-100).", ge=1, le=100)] = 25,
    ) -> dict[str, Any]:
        store = container.store()
        if _checked(lambda: store.get_documents([document_id])) == []:
            raise ToolError(f"no document {document_id!r}; `search` or `find` give valid ids")
        found = _checked(lambda: store.neighbors([document_id], direction, kinds, _types(sources), limit))
        return {"document_id": document_id, "neighbors": [neighbor_result(n) for n in found]}

    @mcp.tool(
        description="Find documents by exact fields: Jira key, project, status, assignee, …; GitHub "
        "repository, kind, author; Confluence space; title words; updated dates. Newest first."
    )
    def find(
        key: Annotated[str | None, Field(description="Jira key(s), comma-separated, e.g. PAY-12.")] = None,
        project: Annotated[str | None, Field(description="Jira project key, e.g. PAY.")] = None,
        issue_type: Annotated[str | None, Field(description="Bug, Story, Task, …")] = None,
        status: Annotated[str | None, Field(description="Open, In Progress, Closed, …")] = None,
        priority: Annotated[str | None, Field(description="Blocker, Critical, Major, …")] = None,
        assignee: Annotated[str | None, Field(description="Assignee's display name.")] = None,
        reporter: Annotated[str | None, Field(description="Reporter's display name.")] = None,
        component: Annotated[str | None, Field(description="Jira component.")] = None,
        fix_version: Annotated[str | None, Field(description="Jira fix version.")] = None,
        repository: Annotated[str | None, Field(description="GitHub repository owner/name.")] = None,
        kind: Annotated[
            Literal["file", "pull", "commit", "issue"] | None, Field(description="GitHub document kind.")
        ] = None,
        author: Annotated[str | None, Field(description="Commit or pull request author.")] = None,
        space: Annotated[str | None, Field(description="Confluence space key.")] = None,
        title: Annotated[str | None, Field(description="Words the title contains.")] = None,
        updated_from: Annotated[str | None, Field(description="Updated on or after (YYYY-MM-DD).")] = None,
        updated_to: Annotated[str | None, Field(description="Updated on or before (YYYY-MM-DD).")] = None,
        limit: Annotated[int, Field(description="At most this many (1-25).", ge=1, le=25)] = 10,
    ) -> dict[str, Any]:
        fields = {
            "key": key,
            "project": project,
            "issue_type": issue_type,
            "status": status,
            "priority": priority,
            "assignee": assignee,
            "reporter": reporter,
            "component": component,
            "fix_version": fix_version,
            "repository": repository,
            "kind": kind,
            "author": author,
            "space": space,
            "title": title,
            "updated_from": _iso_day(updated_from, "updated_from"),
            "updated_to": _iso_day(updated_to, "updated_to"),
        }
        if all(v is None for v in fields.values()):
            raise ToolError("give at least one field to match (for free text, use `search`)")
        scope = Scope()
        docs = _checked(lambda: container.toolbox().graph_query.run(scope, fields=fields, limit=limit))
        return {"results": [evidence_result(d) for d in docs]}

    @mcp.tool(
        description="What changed in a time range: documents updated between two dates, newest first, "
        "optionally in one source or Jira project."
    )
    def what_changed(
        since: Annotated[
            str | None, Field(description="From this date (YYYY-MM-DD); default: 7 days ago.")
        ] = None,
        until: Annotated[str | None, Field(description="Up to this date (YYYY-MM-DD); default: now.")] = None,
        source: Annotated[SourceName | None, Field(description="Only this source.")] = None,
        project: Annotated[str | None, Field(description="Only this Jira project key.")] = None,
        limit: Annotated[int, Field(description="At most this many (1-100).", ge=1, le=100)] = 25,
    ) -> dict[str, Any]:
        start = _iso_day(since, "since") or (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
        end = _iso_day(until, "until")
        if end is not None and end < start:
            raise ToolError(f"until ({end}) is before since ({start})")
        filters = {"project": project} if project else None
        types = _types([source]) if source else None
        docs = _checked(
            lambda: container.store().find_documents(
                filters, types=types, updated_from=start, updated_to=end, limit=limit
            )
        )
        docs.sort(key=lambda d: d.updated_at, reverse=True)
        return {"since": start, "until": end, "documents": [document_ref(d) for d in docs]}

    @mcp.tool(
        description="The configured sources (Jira, Confluence, GitHub), what they read and their last sync."
    )
    def list_sources() -> dict[str, Any]:
        runs = container.runs()
        states = {s.source: s for s in container.store().list_sync_states()}
        out = []
        for name in runs.ordered_names():
            loader = runs.loaders[name]
            state = states.get(name)
            current = runs.current(name)
            out.append(
                {
                    "name": name,
                    "type": str(loader.type),
                    "syncing": current is not None,
                    "last_success": state.last_success if state else None,
                    "last_error": state.last_error if state else None,
                    "documents": (state.counts or {}).get("documents") if state else None,
                }
            )
        return {"sources": out}

    @mcp.tool(
        description="Sync one source now (admin only) and wait for it; reports progress. Returns the "
        "run's counts."
    )
    async def sync_source(
        name: Annotated[str, Field(description="The source's name (see `list_sources`).", min_length=1)],
        ctx: Context,  # type: ignore[type-arg]
        full: Annotated[bool, Field(description="Re-read everything, not only what changed.")] = False,
    ) -> dict[str, Any]:
        if not may_administer(ctx.request_context.request, container.settings()):
            raise ToolError("sync_source is an admin action: connect with the server's API key")
        runs = container.runs()
        if name not in runs.loaders:
            raise ToolError(f"no source named {name!r}; configured: {', '.join(runs.ordered_names())}")
        status = _checked(lambda: runs.start(name, full=full))
        while not status.finished:
            await ctx.report_progress(status.done, status.total, f"{status.phase}: {status.done} documents")
            await anyio.sleep(0.5)
        snap = status.snapshot()
        await ctx.report_progress(status.done, status.total or status.done, status.state)
        if status.state != "succeeded":
            raise ToolError(
                f"the sync of {name} failed: {'; '.join(status.errors[-3:]) or 'see the server log'}"
            )
        keys = (
            "id",
            "state",
            "documents_indexed",
            "documents_unchanged",
            "documents_deleted",
            "started_at",
            "finished_at",
        )
        return {k: snap[k] for k in keys}

    @mcp.resource(
        "devkb://document/{document_id}",
        name="document",
        description="A devkb document as text: title, URL, metadata and content.",
        mime_type="text/markdown",
    )
    def document_resource(document_id: str) -> str:
        document_id = urllib.parse.unquote(document_id)  # ids with "/" come percent-encoded
        found = _checked(lambda: container.store().get_document(document_id))
        if found is None:
            raise ValueError(f"no document {document_id!r}")
        d = found.document
        meta = "\n".join(f"- {k}: {v}" for k, v in sorted(d.metadata.items()) if v not in (None, "", []))
        body = "\n\n".join(c.content for c in sorted(found.chunks, key=lambda c: c.chunk_index))
        return f"# {d.title}\n\n{d.url}\n\n{meta}\n\n{body[:MAX_DOCUMENT_CHARS]}\n"

    return mcp
