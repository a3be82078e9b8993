"""Access control and secret hygiene of the API.

- **API key** (``DEVKB_API_KEY``, header ``X-API-Key``, compared in constant time). When it is
  configured every API route except ``/health`` needs it; the web app's static files stay open.
- **Admin actions** (``POST /sources/{name}/sync`` and any future change of sources) always need
  the key; with no key configured they are allowed only from a loopback client, and never from a
  cross-site browser request (its ``Origin`` is neither this host nor a configured CORS origin).
- **CORS** only for ``DEVKB_CORS_ORIGINS`` (none by default: the web app is same-origin).
- **Secrets** (the key, tokens, passwords) are masked in every response body and log record, as a
  second line of defence behind ``SecretStr``: an upstream error that echoes a token cannot leak it.

Errors: 401 ``{"detail": ...}`` for a missing or wrong key, 403 for an admin action that is not
allowed; neither message contains a secret.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit

from fastapi import Depends, FastAPI, HTTPException, Request, Security
from fastapi.middleware.cors import CORSMiddleware
from fastapi.security import APIKeyHeader
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from devkb.access.keys import is_loopback, key_matches
from devkb.access.policy import AccessPolicy
from devkb.config.secrets import SecretMasker, install_log_masking
from devkb.config.settings import Settings

API_KEY_HEADER = "X-API-Key"

api_key_header = APIKeyHeader(
    name=API_KEY_HEADER,
    auto_error=False,
    scheme_name="ApiKey",
    description="The API key (DEVKB_API_KEY). Required for every API route but /health when a key is "
    "configured; admin actions need it always, unless no key is configured and the client is on loopback.",
)


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.container.settings()
    return settings


def _unauthorized() -> HTTPException:
    return HTTPException(
        401,
        f"missing or invalid API key: send it in the {API_KEY_HEADER} header",
        headers={"WWW-Authenticate": "ApiKey"},
    )


SIGN_IN = (
    "sign in first: POST /auth/login (the web app's sign-in page), or send an API token as "
    "'Authorization: Bearer <token>' (devkb token create, or the web app's API tokens)"
)


def _accounts_state(request: Request) -> tuple[bool, Any, bool]:
    """(accounts exist, the signed-in user or None, the operator's API key was sent) —
    set by ``api/authentication.ReaderMiddleware``."""
    state = request.state
    return (
        bool(getattr(state, "accounts", False)),
        getattr(state, "user", None),
        bool(getattr(state, "operator", False)),
    )


async def require_api_key(
    request: Request, key: Annotated[str | None, Security(api_key_header)] = None
) -> None:
    """With accounts: a signed-in user (or the operator's key). Without: passes when no key is
    configured or the request carries the configured one. ``async``: it reads only the request and
    the settings, so it runs on the event loop instead of costing every request a thread hop."""
    accounts, user, operator = _accounts_state(request)
    if accounts:
        if user is None and not operator:
            raise HTTPException(401, SIGN_IN, headers={"WWW-Authenticate": "Bearer"})
        return
    settings = _settings(request)
    if settings.api_key is not None and not key_matches(key, settings):
        raise _unauthorized()


def is_cross_site(request: Request, allowed_origins: Iterable[str]) -> bool:
    """Whether a browser sent this request from another site (``Origin`` header)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") == "cross-site"
    if origin in set(allowed_origins):
        return False
    return urlsplit(origin).netloc.lower() != (request.headers.get("host") or "").lower()


def require_admin(request: Request, key: Annotated[str | None, Security(api_key_header)] = None) -> None:
    """Admin actions. With accounts: an admin (or the operator's key), from the web app's own
    origin when signed in by cookie. Without: the API key when one is configured, else a
    same-site request from loopback."""
    settings = _settings(request)
    accounts, user, operator = _accounts_state(request)
    if accounts:
        if operator:
            return
        if user is None:
            raise HTTPException(401, SIGN_IN, headers={"WWW-Authenticate": "Bearer"})
        policy: AccessPolicy = request.app.state.container.access_policy()
        if not policy.may_administer(getattr(request.state, "reader", None)):
            raise HTTPException(403, f"admins only: {user.email} is a {user.role}")
        if is_cross_site(request, settings.cors_origins):
            raise HTTPException(403, "cross-site admin request refused: call from the web app's own origin")
        return
    if settings.api_key is not None:
        if not key_matches(key, settings):
            raise _unauthorized()
        return
    client = request.client.host if request.client else None
    if not is_loopback(client):
        raise HTTPException(
            403,
            "admin actions from a non-loopback client need an API key: set DEVKB_API_KEY "
            f"on the server and send it in the {API_KEY_HEADER} header",
        )
    if is_cross_site(request, settings.cors_origins):
        raise HTTPException(
            403, "cross-site admin request refused: set DEVKB_API_KEY, or call from the web app's own origin"
        )


ApiKeyDep = Depends(require_api_key)
AdminDep = Depends(require_admin)


OPEN_ROUTERS = frozenset({"health", "auth"})


def router_dependencies(module_name: str) -> list[Any]:
    """Dependencies every route of a router module gets: all but ``health`` need the API key."""
    return [] if module_name.rsplit(".", 1)[-1] in OPEN_ROUTERS else [ApiKeyDep]


class SecretMaskingMiddleware:
    """Pure ASGI: masks secrets in every response body chunk (streams stay streams)."""

    def __init__(self, app: ASGIApp, masker: SecretMasker) -> None:
        self.app = app
        self.masker = masker

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        masker = self.masker
        if scope["type"] != "http" or not masker:
            await self.app(scope, receive, send)
            return

        async def masked(message: Message) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                message = {**message, "body": masker.data(message["body"])}
            await send(message)

        await self.app(scope, receive, masked)


# -- configuration shown by the API ----------------------------------------------------------------


def redact_url(url: str) -> str:
    """A URL without user info (``https://user:token@host`` → ``https://host``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


_SECRET_KEYS = ("token", "password", "secret", "api_key", "apikey", "authorization", "credential")


def redact_config(value: Any) -> Any:
    """A loader's ``describe()`` output without secrets: keys that name one are dropped, URLs lose
    their user info."""
    if isinstance(value, dict):
        return {
            k: redact_config(v)
            for k, v in value.items()
            if not any(s in str(k).lower() for s in _SECRET_KEYS) or str(k).endswith("_env")
        }
    if isinstance(value, list):
        return [redact_config(v) for v in value]
    if isinstance(value, str) and "://" in value:
        return redact_url(value)
    return value


# -- wiring -----------------------------------------------------------------------------------------


def install(app: FastAPI, settings: Settings, masker: SecretMasker) -> None:
    """Add secret masking of responses and logs, and CORS when origins are configured, to ``app``."""
    install_log_masking(masker)
    app.add_middleware(SecretMaskingMiddleware, masker=masker)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_credentials=True,
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type", API_KEY_HEADER, "X-Session-ID", "Authorization"],
            expose_headers=["X-Session-ID"],
        )
