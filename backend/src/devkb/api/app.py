"""The FastAPI app factory."""

from __future__ import annotations

import faulthandler
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from devkb import __version__
from devkb.api import openapi_errors, security
from devkb.api.authentication import ReaderMiddleware
from devkb.api.blas_threads import limit_blas_threads
from devkb.api.routers import (
    admin,
    ask,
    auth,
    changes,
    chat,
    conversations,
    documents,
    feedback,
    graph,
    health,
    memories,
    sources,
    stats,
    uploads,
)
from devkb.api.sessions import SESSION_FIELD, SESSION_NOT_IN_BODY, SessionMiddleware
from devkb.api.spa import BrowserNavigation, mount_spa
from devkb.container import Container, ensure_demo_users, prepare_store, shutdown
from devkb.errors import (
    ConfigurationError,
    DevkbError,
    InvalidQueryError,
    SchemaMismatchError,
    StoreUnavailableError,
    SyncInProgressError,
)
from devkb.mcp.auth import McpAuthGate
from devkb.mcp.http import MCP_PATH, McpEndpoint

log = logging.getLogger(__name__)


def _errors(app: FastAPI) -> None:
    def handler(status: int) -> Callable[[Request, Exception], Awaitable[JSONResponse]]:
        async def respond(_: Request, exc: Exception) -> JSONResponse:
            return JSONResponse({"detail": str(exc)}, status_code=status)

        return respond

    app.add_exception_handler(InvalidQueryError, handler(400))
    app.add_exception_handler(ConfigurationError, handler(400))
    app.add_exception_handler(SyncInProgressError, handler(409))
    app.add_exception_handler(StoreUnavailableError, handler(503))
    app.add_exception_handler(SchemaMismatchError, handler(503))
    app.add_exception_handler(DevkbError, handler(500))

    async def validation(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        parts = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            msg = _unknown_field(loc) if err.get("type") == "extra_forbidden" else err.get("msg")
            parts.append(f"{loc}: {msg}" if loc else str(msg))
        return JSONResponse({"detail": "; ".join(parts) or "invalid request"}, status_code=422)

    app.add_exception_handler(RequestValidationError, validation)


@asynccontextmanager
async def _serve(container: Container, start_background: bool) -> AsyncIterator[None]:
    """The server's life: the store checked, the scheduler and the retrieval snapshot started,
    everything closed at the end."""
    limit_blas_threads(container.settings().blas_threads)  # request threads, not BLAS pools
    anyio.to_thread.current_default_thread_limiter().total_tokens = container.settings().request_threads
    prepare_store(container)
    ensure_demo_users(container)
    if start_background:
        # what the background threads and every request share is built here, once, on this
        # thread first: dependency_injector's Resource and Singleton providers are not
        # thread-safe, and the accounts store opened twice at once by the permission sync's thread
        # and a request's middleware had one of the two closed (the discarded generator's
        # `finally`) under the other — a crash
        container.accounts(), container.access_policy(), container.loaders()
    starters = getattr(container, "background_start", None)
    if start_background and starters is not None:
        starters()()
    if start_background:  # permissions are mirrored on a schedule of their own
        container.permission_sync().start()
    if start_background:  # built here, not by the first request's (async) dependencies on the loop
        container.ask(), container.chat_memory(), container.knowledge_gaps(), container.reader_store()
    warming = None
    if start_background:  # the retrieval snapshot, so the first question does not build it
        warm_up = getattr(container.search(), "start_warm_up", None)
        if warm_up is not None:
            warming = warm_up()
    adaptation = getattr(container, "adaptation", None)
    if start_background and adaptation is not None:  # adapt retrieval after syncs (background)
        container.runs().after_run.append(adaptation().after_sync)
    try:
        yield
    finally:
        stoppers = getattr(container, "background_stop", None)
        if stoppers is not None:
            stoppers()()
        if start_background:
            container.permission_sync().stop()
        if warming is not None:  # the store is not closed under a build still reading it
            warming.join(timeout=60)
        shutdown(container)


def _unknown_field(loc: str) -> str:
    """What a 422 says of a field the request does not have (its bodies are closed)."""
    if loc == SESSION_FIELD:
        return SESSION_NOT_IN_BODY
    return "unknown field; the documented fields are at /docs"


VENDOR = "/vendor"  # Swagger UI and ReDoc, copied from npm packages into the web app's build


def _api_docs(app: FastAPI) -> None:
    """Swagger UI at /docs and ReDoc at /redoc, from the web app's own assets (no CDN)."""

    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="devkb API",
            swagger_js_url=f"{VENDOR}/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url=f"{VENDOR}/swagger-ui/swagger-ui.css",
            swagger_favicon_url=f"{VENDOR}/swagger-ui/favicon-32x32.png",
        )

    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url="/openapi.json",
            title="devkb API",
            redoc_js_url=f"{VENDOR}/redoc/redoc.standalone.js",
            redoc_favicon_url=f"{VENDOR}/swagger-ui/favicon-32x32.png",
            with_google_fonts=False,
        )

    app.add_api_route("/docs", swagger, include_in_schema=False)
    app.add_api_route("/redoc", redoc, include_in_schema=False)


def report_native_crashes() -> None:
    """A server process that dies in native code (a library's segmentation fault or abort) first
    writes every thread's Python stack to its standard error — the server's log —, so the crash
    can be traced to the call that made it. Only for server processes: in-process apps (tests,
    embedding) keep their host's own setting."""
    try:
        faulthandler.enable(all_threads=True)
    except (OSError, ValueError, AttributeError) as e:  # a standard error without a file descriptor
        log.warning("no stack report on a crash in native code: %s", e)


def app_from_environment() -> FastAPI:
    """The app of one of ``devkb serve --workers N``'s processes (uvicorn's factory): its own
    container from the environment, its own instance id in leases and sync runs."""
    report_native_crashes()
    instance = os.environ.get("DEVKB_INSTANCE_ID")
    if instance:  # one name given to all the workers: each still needs its own
        os.environ["DEVKB_INSTANCE_ID"] = f"{instance}/{os.getpid()}"
    return create_app(Container())


# bodies read whole as JSON (a conversation told to devkb: memory/transcripts.py bounds it at
# 2,000,000 characters of turns, which JSON-escaped stays far below this): larger is a 413 before
# anything is parsed, so a hostile body cannot fill the server's memory
BOUNDED_BODIES = {"/mcp": 32_000_000, "/memories/conversations": 32_000_000}


class BodyLimit:
    """Pure ASGI middleware: a request to a path of ``limits`` whose body is longer than its limit
    (by its Content-Length, or as it streams in) gets a 413 and is not read further."""

    def __init__(self, app: ASGIApp, limits: dict[str, int]) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        most = self.limits.get(scope.get("path", "")) if scope.get("type") == "http" else None
        if most is None:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > most:
            await _too_large(send, most)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > most:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await _too_large(send, most)


class _TooLarge(Exception):
    pass


async def _too_large(send: Send, most: int) -> None:
    body = json.dumps({"detail": f"the request body is over {most} bytes"}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class StoreCatchUp:
    """Pure ASGI middleware: before a request is handled, the process's views of the store (the
    access catalog, the retrieval snapshot) are re-read when the store was written since — by
    ``devkb upload`` or ``devkb memory add`` in another process, say (``StoreViews.catch_up``; one
    counter read, in a worker thread, when nothing changed)."""

    def __init__(self, app: ASGIApp, catch_up: Callable[[], bool]) -> None:
        self.app = app
        self.catch_up = catch_up

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            try:
                await anyio.to_thread.run_sync(self.catch_up)
            except Exception:  # the views' periods still hold; the request goes on
                log.exception("catching up with the store's writes failed")
        await self.app(scope, receive, send)


def create_app(container: Container | None = None, start_background: bool = True) -> FastAPI:
    container = container or Container()

    mcp_endpoint = McpEndpoint(container.mcp_server)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with mcp_endpoint.running(), _serve(container, start_background):
            yield

    app = FastAPI(
        title="devkb",
        version=__version__,
        description="A knowledge base for software teams: Jira, Confluence and GitHub as a graph, answered with citations.",
        lifespan=lifespan,
        docs_url=None,  # served below from local assets: /docs works offline
        redoc_url=None,
    )
    app.state.container = container
    _api_docs(app)
    _errors(app)
    for module in (
        health,
        auth,
        admin,
        ask,
        chat,
        conversations,
        documents,
        changes,
        feedback,
        graph,
        stats,
        sources,
        uploads,
        memories,
    ):
        app.include_router(module.router, dependencies=security.router_dependencies(module.__name__))
    app.add_middleware(
        SessionMiddleware,
        memory=lambda _scope: container.chat_memory(),
        secure=lambda _scope: container.settings().cookie_secure,
    )
    security.install(app, container.settings(), container.secret_masker())  # CORS, secret masking
    openapi_errors.install(app, container.settings().max_question_chars)
    # the MCP endpoint (streamable HTTP), behind the API key (mcp/http.py)
    app.router.routes.append(Route(MCP_PATH, endpoint=McpAuthGate(mcp_endpoint, container.settings())))
    mount_spa(app)  # last: the web app's catch-all must not shadow any API route
    app.add_middleware(BrowserNavigation)  # a browser opening /graph, /sources, … gets the app
    # another process's writes (a CLI upload, a second server) reach this one's views by the next request
    app.add_middleware(StoreCatchUp, catch_up=lambda: container.store_views().catch_up())
    app.add_middleware(BodyLimit, limits=BOUNDED_BODIES)  # before anything reads a body
    # outermost: who is calling, for everything below (routers, sessions, MCP) — access/readers.py
    app.add_middleware(
        ReaderMiddleware,
        policy=container.access_policy,
        accounts=container.accounts,
        settings=container.settings,
    )
    return app
