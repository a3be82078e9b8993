"""Serves the built web app (``backend/src/devkb/static``, the Angular build output) at ``/``.

Files are served as they are; any other GET path that is not an API path gets ``index.html``, so
the app's own routes (``/explore``, ``/sync``) survive a reload. API paths keep their JSON 404s
and 405s: the catch-all's path pattern excludes them. When the app is not built, every page says
how to build it. Registered last, so every API route matches first.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.convertors import Convertor, register_url_convertor
from starlette.types import ASGIApp, Receive, Scope, Send

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

# First path segments that belong to the API: never answered with the app.
API_PREFIXES = frozenset(
    {
        "ask",
        "changes",
        "chat",
        "graph",
        "documents",
        "sources",
        "stats",
        "feedback",
        "health",
        "docs",
        "redoc",
        "openapi.json",
        "mcp",
        "conversations",
        "uploads",
    }
)


class _ClientPath(Convertor[str]):
    """Any path whose first segment is not an API prefix: API paths never reach the app's
    catch-all, so they keep their own 404 and 405 answers."""

    regex = "(?!(?:" + "|".join(re.escape(p) for p in sorted(API_PREFIXES)) + ")(?:/|$)).*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("devkb_client_path", _ClientPath())

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>devkb</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>devkb</h1>
<p>The web app is not built yet. Run <code>make run</code> (it builds the app and serves it here).</p>
<p>The API is up: see <a href="/docs">/docs</a>.</p>
</body></html>
"""


def _resolve(static_dir: Path, path: str) -> Path | None:
    """The file under ``static_dir`` that ``path`` names, or None (also for anything outside it)."""
    if not path:
        return None
    candidate = (static_dir / path).resolve()
    try:
        candidate.relative_to(static_dir.resolve())
    except ValueError:
        return None
    return candidate if candidate.is_file() else None


def mount_spa(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Add the catch-all GET route that serves the app and its files."""

    async def serve(path: str = "") -> Response:
        index = static_dir / "index.html"
        if not index.is_file():
            return HTMLResponse(NOT_BUILT, status_code=503 if path else 200)
        found = _resolve(static_dir, path)
        if found is not None:
            # Build output names carry a content hash (chunk-XYZ.js): cache them for good.
            hashed = found.suffix in {".js", ".css"} and "-" in found.stem
            headers = {"Cache-Control": "public, max-age=31536000, immutable" if hashed else "no-cache"}
            return FileResponse(found, headers=headers)
        if "." in path.rsplit("/", 1)[-1]:
            raise HTTPException(404, "Not Found")  # a missing file, not a client route
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    app.add_api_route("/", serve, methods=["GET", "HEAD"], include_in_schema=False)
    app.add_api_route("/{path:devkb_client_path}", serve, methods=["GET", "HEAD"], include_in_schema=False)


# Paths the app has pages for that the API also answers. A browser opening or reloading one of
# them (a navigation: it accepts text/html and not JSON) gets the app, which routes it to its page;
# scripts and the app's own requests (JSON) get the API as before.
APP_PAGES_ON_API_PATHS = frozenset({"graph", "sources", "documents", "chat", "conversations", "changes"})


class BrowserNavigation:
    """Pure ASGI: a browser navigation to an API-shaped app URL is served the app's index.html."""

    def __init__(self, app: ASGIApp, static_dir: Path = STATIC_DIR) -> None:
        self.app = app
        self.static_dir = static_dir

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and scope["path"].strip("/").split("/", 1)[0] in APP_PAGES_ON_API_PATHS
            and _is_navigation(scope)
            and (self.static_dir / "index.html").is_file()
        ):
            response = FileResponse(self.static_dir / "index.html", headers={"Cache-Control": "no-cache"})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _is_navigation(scope: Scope) -> bool:
    accept = ""
    for key, value in scope.get("headers", []):
        if key == b"accept":
            accept = value.decode("latin-1").lower()
            break
    return "text/html" in accept and "application/json" not in accept
