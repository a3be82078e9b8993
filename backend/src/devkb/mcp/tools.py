"""The MCP tools, each a thin wrapper over what the agent and the API already use: ``RAGSearch``,
``GraphQuery`` and ``FetchNeighbors`` (agent/tools), ``AskService``, the store and the sync runs.

Descriptions are written for models; results are small and cited (``results.py``). Bad arguments
become tool errors (``isError``) with a message saying what to change, never a crash: the SDK
checks the declared types and ranges, and devkb's own errors (``DevkbError``: a bad filter, an
unknown edge kind, an unreachable store) are turned into ``ToolError`` here.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import inspect
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from devkb.access.readers import bound_to_current_reader
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.history import HistoryIntent
from devkb.agent.history import answer as history_answer
from devkb.agent.history.diffing import diff_sections
from devkb.agent.history.when import Window
from devkb.agent.tools.content import rebuild_content
from devkb.agent.tools.filters import DocumentFilters, keyword_parameters
from devkb.agent.tools.rag_search import MAX_TOP_K
from devkb.errors import DevkbError
from devkb.mcp.auth import may_administer
from devkb.mcp.parts import McpParts
from devkb.mcp.results import document_ref, evidence_result, neighbor_result, snippet
from devkb.memory.model import Memory
from devkb.memory.service import MemoryError, MemoryService
from devkb.memory.transcripts import MAX_SESSIONS, SessionIn
from devkb.sources.uploads import UploadError
from devkb.store.models import Document, Neighbor, SourceType

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
SourceName = Literal["jira", "confluence", "github", "files", "web", "upload", "memory"]
SOURCE_TYPES: dict[str, SourceType] = {
    "jira": SourceType.JIRA,
    "confluence": SourceType.CONFLUENCE,
    "github": SourceType.GITHUB,
    "files": SourceType.FILES,
    "web": SourceType.WEB,
    "upload": SourceType.UPLOAD,
    "memory": SourceType.MEMORY,
}
MAX_DOCUMENT_CHARS = 20_000
Sources = Annotated[list[SourceName] | None, Field(description="Only these sources (default: all).")]
Text = Annotated[str | None, Field(max_length=200)]


def _types(sources: list[SourceName] | None) -> list[SourceType] | None:
    return [SOURCE_TYPES[s] for s in sources] if sources else None


def _checked(fn: Callable[[], T]) -> T:
    """Run ``fn``; devkb's own errors become tool errors with their message."""
    try:
        return fn()
    except DevkbError as e:
        raise ToolError(str(e)) from e
    except ValueError as e:
        raise ToolError(f"invalid argument: {e}") from e


def _iso_day(value: str | None, name: str) -> str | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value).date().isoformat()
    except ValueError as e:
        raise ToolError(f"{name} must be a date like 2026-04-30, not {value!r}") from e


def _matches(doc: Document, fields: dict[str, str]) -> bool:
    """Whether ``doc``'s metadata has every field's value (case-insensitive; lists: any item)."""
    for name, wanted in fields.items():
        value = doc.metadata.get(name)
        values = value if isinstance(value, list) else [value]
        if not any(v is not None and str(v).casefold() == wanted.casefold() for v in values):
            return False
    return True


def _no_document(document_id: str) -> ToolError:
    return ToolError(f"no document {document_id!r}; `search` or `find` give valid ids")


def tool(description: str) -> Callable[[F], F]:
    """Mark a method of :class:`KnowledgeBaseTools` as an MCP tool with this description."""

    def mark(fn: F) -> F:
        fn.__dict__["mcp_description"] = description
        return fn

    return mark


def with_filters(*names: str) -> Callable[[F], F]:
    """Give a tool method the document filters (all of them, or these) as keyword parameters, read
    off the one model (``agent/tools/filters.py``); the method receives them in its ``**`` argument."""

    def apply(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        added = [p for p in keyword_parameters(DocumentFilters) if not names or p.name in names]
        fn.__dict__["__signature__"] = signature.replace(parameters=[*own, *added])
        return fn

    return apply


class KnowledgeBaseTools:
    """The MCP tools, one method each (``@tool`` gives the description the client sees);
    :func:`register_tools` adds every marked method to the server in the order written here."""

    def __init__(self, parts: McpParts) -> None:
        self.parts = parts

    @tool(
        description="Semantic and keyword search over every indexed document (issues, pages, commits, "
        "pull requests, files). Returns the best documents with ids, URLs and a snippet; use "
        "`get_document` to read one. Narrow it with `sources` and exact fields (project, status, "
        "repository, …)."
    )
    @with_filters("project", "status", "issue_type", "repository", "kind", "space")
    def search(
        self,
        query: Annotated[str, Field(description="What to look for, in words or keywords.", min_length=1)],
        sources: Sources = None,
        top_k: Annotated[int, Field(description="How many documents (1-20).", ge=1, le=MAX_TOP_K)] = 8,
        anchor: Annotated[
            str | None,
            Field(description="Id of the document the search is about; documents related to it rank first."),
        ] = None,
        **filters: Any,
    ) -> dict[str, Any]:
        fields = {k: v for k, v in filters.items() if v}
        scope = Scope.for_sources(_types(sources))
        # with field filters, rank the most candidates RAGSearch gives and keep those that match
        k = MAX_TOP_K if fields else top_k
        docs = _checked(lambda: self.parts.toolbox().rag_search.run(scope, query, k, anchor))
        kept = [d for d in docs if _matches(d.document, fields)][:top_k]
        return {"query": query, "filters": fields, "results": [evidence_result(d) for d in kept]}

    @tool(
        description="Ask devkb a question in plain language; it plans its own searches and graph "
        "lookups and answers with numbered citations [n] that refer to the returned sources. "
        "Slower than `search`; sends progress notifications while it works."
    )
    async def ask(
        self,
        question: Annotated[str, Field(description="The question.", min_length=1, max_length=2000)],
        ctx: Context,  # type: ignore[type-arg]
        sources: Sources = None,
    ) -> dict[str, Any]:
        steps = 0

        def on_event(kind: str, payload: dict[str, Any]) -> None:
            nonlocal steps
            if kind in ("status", "tool_call"):
                steps += 1
                message = payload.get("stage") or f"tool {payload.get('tool')}"
                anyio.from_thread.run(ctx.report_progress, steps, None, str(message))

        answer = await anyio.to_thread.run_sync(
            bound_to_current_reader(
                lambda: _checked(lambda: self.parts.ask().ask(question, _types(sources), on_event=on_event))
            )
        )
        cited = [
            {"n": i, "id": c.document_id, "title": c.title, "type": c.type, "url": c.url}
            | {"snippet": snippet(c.snippet)}
            for i, c in enumerate(answer.sources, start=1)
        ]
        confidence = asdict(answer.confidence) if answer.confidence is not None else None
        return {
            "answer": answer.answer,
            "mode": answer.mode,
            "status": answer.status,
            "confidence": confidence,
            "sources": cited,
        }

    @tool(description="Read one document: its metadata (status, assignee, author, …) and its text.")
    def get_document(
        self,
        document_id: Annotated[str, Field(description="A document id, e.g. jira:PAY-12.", min_length=1)],
        max_chars: Annotated[
            int, Field(description="At most this much text (100-20000).", ge=100, le=MAX_DOCUMENT_CHARS)
        ] = 6000,
    ) -> dict[str, Any]:
        found = _checked(lambda: self.parts.store().get_document(document_id))
        if found is None:
            raise _no_document(document_id)
        text = rebuild_content(found.document, found.chunks)
        return {
            **document_ref(found.document),
            "metadata": found.document.metadata,
            "text": text[:max_chars],
            "truncated": len(text) > max_chars,
        }

    @tool(
        description="Documents linked to a document in the graph: the commits and pull requests that "
        "fixed an issue, issues it blocks or depends on, pages it mentions, files a commit changed. "
        "Each result says how it is linked (kind, direction, evidence)."
    )
    def neighbors(
        self,
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
        limit: Annotated[int, Field(description="At most this many (1-40).", ge=1, le=40)] = 25,
    ) -> dict[str, Any]:
        if _checked(lambda: self.parts.store().get_documents([document_id])) == []:
            raise _no_document(document_id)
        types = _types(sources)
        edges: dict[str, Neighbor] = {}

        def accept(n: Neighbor) -> bool:
            if types is not None and n.document.type not in types:
                return False
            edges.setdefault(n.document.id, n)
            return True

        fetch = self.parts.toolbox().fetch_neighbors
        found = _checked(lambda: fetch.run(Scope(), [document_id], kinds, direction, limit, accept))
        return {
            "document_id": document_id,
            "neighbors": [_neighbor(e, edges[e.document.id]) for e in found if e.document.id in edges],
        }

    @tool(
        description="Find documents by exact fields (the graph's own fields, no ranking): Jira key, "
        "project, issue type, status, priority, resolution, assignee, reporter, component, fix version, "
        "label; GitHub repository, file path, kind, pull request number, commit SHA, author; "
        "Confluence space; title words; updated dates. Newest first."
    )
    @with_filters()
    def find(
        self,
        sources: Sources = None,
        limit: Annotated[int, Field(description="At most this many (1-25).", ge=1, le=25)] = 10,
        **fields: Any,
    ) -> dict[str, Any]:
        filters = _checked(lambda: DocumentFilters.parse(fields))
        if filters.is_empty():
            raise ToolError("give at least one field to match (for free text, use `search`)")
        scope = Scope.for_sources(_types(sources))
        docs = _checked(lambda: self.parts.toolbox().graph_query.run(scope, fields=filters, limit=limit))
        return {"results": [evidence_result(d) for d in docs]}

    @tool(
        description="What changed in a time range: a digest of the changes (issue transitions, page "
        "edits with the sections they changed, commits with their files), grouped and counted, newest "
        "first, and the documents updated between two dates; optionally in one source or one Jira "
        "project / Confluence space."
    )
    def what_changed(
        self,
        since: Annotated[
            str | None, Field(description="From this date (YYYY-MM-DD); default: 7 days ago.")
        ] = None,
        until: Annotated[str | None, Field(description="Up to this date (YYYY-MM-DD); default: now.")] = None,
        source: Annotated[SourceName | None, Field(description="Only this source.")] = None,
        project: Annotated[Text, Field(description="Only this Jira project key.")] = None,
        limit: Annotated[int, Field(description="At most this many (1-25).", ge=1, le=25)] = 25,
    ) -> dict[str, Any]:
        start = _iso_day(since, "since") or (datetime.now(UTC) - timedelta(days=7)).date().isoformat()
        end = _iso_day(until, "until")
        if end is not None and end < start:
            raise ToolError(f"until ({end}) is before since ({start})")
        fields = {"updated_from": start, "updated_to": end, "project": project}
        scope = Scope.for_sources(_types([source]) if source else None)
        docs = _checked(lambda: self.parts.toolbox().graph_query.run(scope, fields=fields, limit=limit))
        docs.sort(key=lambda d: d.document.updated_at, reverse=True)
        last = datetime.fromisoformat(end) if end else datetime.now(UTC)
        window = Window(
            f"{start}T00:00:00+00:00",
            (last + timedelta(days=1)).date().isoformat() + "T00:00:00+00:00",
            f"between {start} and {last.date().isoformat()}",
        )
        intent = HistoryIntent(
            "digest",
            scope_keys=(project,) if project else (),
            window=window,
            types=tuple(_types([source]) or ()) if source else (),
        )
        digest = _checked(lambda: history_answer(intent, self.parts.store(), last.date()))
        return {
            "since": start,
            "until": end,
            "digest": digest.text,
            "cited": [document_ref(d.document) for d in digest.evidence],
            "documents": [evidence_result(d) for d in docs],
        }

    @tool(
        description="A document's history, oldest first: a Confluence page's versions (author, date, "
        "edit message), a Jira issue's transitions (field, from, to, who, when), a commit's changed "
        "files with their diffs."
    )
    def history(
        self,
        document_id: Annotated[str, Field(description="A document id, e.g. jira:PAY-12.", min_length=1)],
        limit: Annotated[
            int, Field(description="At most this many, newest kept (1-200).", ge=1, le=200)
        ] = 50,
    ) -> dict[str, Any]:
        store = self.parts.store()
        found = _checked(lambda: store.get_documents([document_id]))
        if not found:
            raise _no_document(document_id)
        versions = _checked(lambda: store.versions(document_id))[-limit:]
        return {
            **document_ref(found[0]),
            "versions": [
                {
                    k: v
                    for k, v in {
                        "kind": x.kind,
                        "number": x.seq,
                        "valid_from": x.valid_from,
                        "valid_until": x.valid_until,
                        "author": x.author,
                        "message": x.message,
                        "field": x.field,
                        "from": x.from_value,
                        "to": x.to_value,
                        "commit": x.ref,
                        "diff": x.body[:2000] if x.kind == "diff" else None,
                    }.items()
                    if v not in (None, "")
                }
                for x in versions
            ],
        }

    @tool(
        description="Compare two versions of a Confluence page (default: a version with the current one): "
        "the sections changed, added and removed, and a unified diff."
    )
    def compare_versions(
        self,
        document_id: Annotated[str, Field(description="A page id, e.g. confluence:page:123.", min_length=1)],
        from_version: Annotated[int, Field(description="The older version number.", ge=1)],
        to_version: Annotated[
            int | None, Field(description="The newer one (default: current).", ge=1)
        ] = None,
    ) -> dict[str, Any]:
        store = self.parts.store()
        versions = {v.seq: v for v in _checked(lambda: store.versions(document_id, ["page"]))}
        if not versions:
            raise _no_document(document_id)
        newer = to_version or max(versions)
        if from_version not in versions or newer not in versions:
            raise ToolError(f"{document_id} has versions {sorted(versions)}; pick two of them")
        a, b = versions[from_version], versions[newer]
        sections = diff_sections(a.body, b.body)
        unified = "\n".join(
            difflib.unified_diff(
                a.body.splitlines(), b.body.splitlines(), f"version {a.seq}", f"version {b.seq}", lineterm=""
            )
        )
        return {
            "document_id": document_id,
            "from": {"number": a.seq, "date": a.valid_from, "author": a.author, "message": a.message},
            "to": {"number": b.seq, "date": b.valid_from, "author": b.author, "message": b.message},
            "sections": {"changed": sections.changed, "added": sections.added, "removed": sections.removed},
            "summary": sections.summary(),
            "diff": unified[:MAX_DOCUMENT_CHARS],
            "truncated": len(unified) > MAX_DOCUMENT_CHARS,
        }

    @tool(
        description="The configured sources (Jira, Confluence, GitHub), what they read and their last sync."
    )
    def list_sources(self) -> dict[str, Any]:
        runs = self.parts.runs()
        states = {s.source: s for s in self.parts.store().list_sync_states()}
        policy = self.parts.store().policy
        if not policy.sees_operations(policy.reader()):  # counts and errors describe every document
            return {"sources": [{"name": n, "type": str(runs.loaders[n].type)} for n in runs.ordered_names()]}
        out = []
        for name in runs.ordered_names():
            state = states.get(name)
            out.append(
                {
                    "name": name,
                    "type": str(runs.loaders[name].type),
                    "syncing": runs.current(name) is not None,
                    "last_success": state.last_success if state else None,
                    "last_error": state.last_error if state else None,
                    "documents": (state.counts or {}).get("documents") if state else None,
                }
            )
        return {"sources": out}

    @tool(
        description="Sync one source now (admin only) and wait for it; reports progress. Returns the "
        "run's counts."
    )
    async def sync_source(
        self,
        name: Annotated[str, Field(description="The source's name (see `list_sources`).", min_length=1)],
        ctx: Context,  # type: ignore[type-arg]
        full: Annotated[bool, Field(description="Re-read everything, not only what changed.")] = False,
    ) -> dict[str, Any]:
        if not may_administer(ctx.request_context.request, self.parts.settings, self.parts.store().policy):
            raise ToolError(
                "sync_source is an admin action: connect with an admin's token or the server's API key "
                "(over stdio: devkb mcp --as an admin, or --all)"
            )
        runs = self.parts.runs()
        if name not in runs.loaders:
            raise ToolError(f"no source named {name!r}; configured: {', '.join(runs.ordered_names())}")
        status = _checked(lambda: runs.start(name, full=full))
        while not status.finished:
            await ctx.report_progress(status.done, status.total, f"{status.phase}: {status.done} documents")
            await anyio.sleep(0.5)
        snap = status.snapshot()
        await ctx.report_progress(status.done, status.total or status.done, status.state)
        if status.state != "succeeded":
            errors = "; ".join(status.errors[-3:]) or "see the server log"
            raise ToolError(f"the sync of {name} failed: {errors}")
        keys = ("id", "state", "documents_indexed", "documents_unchanged", "documents_deleted")
        return {k: snap[k] for k in (*keys, "started_at", "finished_at")}

    @tool(
        description="Add a document to the knowledge base (a design note, a runbook, a file from your "
        "workspace): give its file name (the extension says the format: .md, .txt, .html, .py, …) and "
        "its text, or its bytes in base64 for PDF and DOCX. It is indexed when this returns and "
        "private to you until an admin shares it. The same file name again is a new version of your "
        "document. Returns its document id and version."
    )
    def ingest(
        self,
        filename: Annotated[
            str, Field(description="File name with extension, e.g. runbook.md.", min_length=1)
        ],
        content: Annotated[str | None, Field(description="The text of a text file.")] = None,
        content_base64: Annotated[
            str | None, Field(description="The bytes of a binary file (PDF, DOCX), base64-encoded.")
        ] = None,
    ) -> dict[str, Any]:
        if self.parts.uploads is None:
            raise ToolError("uploads are disabled on this server")
        if (content is None) == (content_base64 is None):
            raise ToolError("give exactly one of content and content_base64")
        try:
            data = (
                content.encode()
                if content is not None
                else base64.b64decode(content_base64 or "", validate=True)
            )
        except (binascii.Error, ValueError) as e:
            raise ToolError(f"content_base64 is not valid base64: {e}") from e
        reader = self.parts.store().policy.reader()
        if reader.role == "nobody":
            raise ToolError("sign in to upload: this server has accounts")
        ingest = _checked(self.parts.uploads)
        try:
            done = ingest.ingest(filename, data, reader.email or "operator", reader.unrestricted)
        except UploadError as e:
            raise ToolError(f"{e} (HTTP {e.status})") from e
        return {
            "document_id": done.document_id,
            "title": done.title,
            "bytes": done.record.bytes,
            "version": done.record.version,
            "private": True,
        }

    # -- team memory (memory/, docs/memory.md): names and argument names as the MCP memory servers
    # use them (content to store, query and a limit to search, an id to delete) ------------------
    def _memories(self) -> MemoryService:
        if self.parts.memories is None:
            raise ToolError("memory is not available on this server")
        return self.parts.memories()

    @tool(
        description='Remember a fact for later ("the build needs Node 20", "the payments freeze starts on 15 '
        'December"). Private to you by default; scope=team shares it with every signed-in person (an '
        "admin's or a reviewer's of its project or space at once, anyone else's proposed until a reviewer "
        "verifies it). A newer fact about the same "
        "subject and attribute supersedes the older one, which stays in history (see `recall` with as_of). "
        "Returns the memory with its id."
    )
    def remember(
        self,
        content: Annotated[
            str, Field(description="The fact, in one sentence.", min_length=1, max_length=4000)
        ],
        scope: Annotated[
            Literal["private", "team"], Field(description="private (default) or team.")
        ] = "private",
        subject: Annotated[
            str | None, Field(description="What it is about; with attribute (default: derived from content).")
        ] = None,
        attribute: Annotated[
            str | None, Field(description="What it says of the subject (e.g. start, owner).")
        ] = None,
        valid_from: Annotated[
            str | None, Field(description="When it became true: a date like 2026-12-15 (default now).")
        ] = None,
        about: Annotated[list[str] | None, Field(description="Ids of documents it is about.")] = None,
    ) -> dict[str, Any]:
        m = _memory_call(
            lambda: self._memories().remember(
                content,
                scope=scope,
                origin="agent",
                subject=subject,
                attribute=attribute,
                valid_from=valid_from,
                about=about or (),
            )
        )
        return memory_result(m)

    @tool(
        description="Remember a long conversation (a meeting, a chat, an issue's comment thread) so that "
        "questions about it can be answered later (`ask`, `recall`): sessions, each with its date, of "
        "turns, each with its speaker and words. Each turn is stored as a memory of yours (private by "
        "default; scope=team needs an admin), dated by its session (or its own time), citeable by "
        "speaker and date. Sending the same conversation again stores nothing twice. Returns the "
        "conversation's id and how many turns were written."
    )
    def remember_conversation(
        self,
        sessions: Annotated[
            list[SessionIn],
            Field(description="The sessions, oldest first.", min_length=1, max_length=MAX_SESSIONS),
        ],
        title: Annotated[str, Field(description="What the conversation is (optional).", max_length=300)] = "",
        scope: Annotated[
            Literal["private", "team"], Field(description="private (default) or team (admins).")
        ] = "private",
        conversation_id: Annotated[
            str | None,
            Field(
                description="Your id for it (default: derived from title and first session).", max_length=100
            ),
        ] = None,
    ) -> dict[str, Any]:
        raw = [s.model_dump() for s in sessions]
        return _memory_call(
            lambda: self._memories().remember_conversation(raw, title, scope, conversation_id)
        )

    @tool(
        description="Recall facts remembered by you or your team that answer a query: what is true now, or "
        "as_of a date (what was true then). One result per subject and attribute, best first."
    )
    def recall(
        self,
        query: Annotated[str, Field(description="What to recall, in words.", min_length=1, max_length=4000)],
        as_of: Annotated[str | None, Field(description="A date like 2026-11-30: what was true then.")] = None,
        limit: Annotated[int, Field(description="How many memories (1-50).", ge=1, le=50)] = 10,
    ) -> dict[str, Any]:
        found = _memory_call(lambda: self._memories().search(query, as_of, limit))
        return {"memories": [{**memory_result(r.memory), "score": round(r.score, 4)} for r in found]}

    @tool(
        description="Forget a memory (yours, or a team memory if you are an admin): it and its history are "
        "deleted from the knowledge base. Returns the ids deleted."
    )
    def forget(
        self, memory_id: Annotated[str, Field(description="The memory's id (memory:…).", min_length=1)]
    ) -> dict[str, Any]:
        return {"deleted": _memory_call(lambda: self._memories().forget(memory_id))}

    @tool(
        description="Verify a memory (admins, or a reviewer of the project or space a team memory is about; "
        "or your own private memory): it is marked verified, and a proposed team memory becomes current, "
        "superseding what it replaces."
    )
    def verify(
        self, memory_id: Annotated[str, Field(description="The memory's id (memory:…).", min_length=1)]
    ) -> dict[str, Any]:
        return memory_result(_memory_call(lambda: self._memories().verify(memory_id)))


def _memory_call(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except MemoryError as e:
        raise ToolError(str(e)) from e
    except ValueError as e:
        raise ToolError(f"invalid argument: {e}") from e


def memory_result(m: Memory) -> dict[str, Any]:
    keys = ("id", "text", "scope", "owner", "status", "recorded_at", "valid_from", "valid_until", "origin")
    out: dict[str, Any] = {k: getattr(m, k) for k in keys}
    out.update(
        subject=m.subject, attribute=m.attribute, supersedes=m.supersedes, superseded_by=m.superseded_by
    )
    if m.verified_by:
        out.update(verified_by=m.verified_by, verified_at=m.verified_at)
    if m.speaker:  # a turn of a conversation (remember_conversation)
        out.update(speaker=m.speaker, conversation=m.conversation, turn=m.turn, said=m.said)
    return out


def register_tools(mcp: FastMCP, parts: McpParts) -> None:
    tools = KnowledgeBaseTools(parts)
    for name, member in vars(KnowledgeBaseTools).items():
        description = getattr(member, "mcp_description", None)
        if description is not None:
            mcp.add_tool(getattr(tools, name), name=name, description=description)


def _neighbor(e: EvidenceDoc, n: Neighbor) -> dict[str, Any]:
    return {
        **neighbor_result(n),
        "evidence": n.evidence,
        "how": e.relation,
        "snippet": snippet(e.passages[0]),
    }
