"""``/auth``: sign in and out (password or OpenID Connect), who am I, my sessions and API tokens.

``GET /auth/status`` is open (the web app asks it first); sign-in routes are open; the rest need a
signed-in user. Sessions live in an HttpOnly, SameSite=Lax cookie (``devkb_auth``); scripts use an
API token (``Authorization: Bearer``). Signing in or out also drops the chat session cookie, so a
shared browser never hands one person's conversation to the next.
"""

from __future__ import annotations

import threading
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import RedirectResponse

from devkb.access.accounts import AccountStore, User
from devkb.api.account_schemas import (
    AuthStatus,
    DemoUserOut,
    LoginIn,
    LoginOut,
    OidcOut,
    SessionOut,
    TokenCreated,
    TokenIn,
    TokenLoginIn,
    TokenOut,
    UserOut,
)
from devkb.api.authentication import AUTH_COOKIE, request_user
from devkb.api.deps import ContainerDep, SettingsDep
from devkb.api.schemas import ErrorResponse
from devkb.api.security import SIGN_IN
from devkb.api.sessions import COOKIE as CHAT_COOKIE

router = APIRouter(prefix="/auth", tags=["auth"])
E401: dict[int | str, dict[str, Any]] = {401: {"model": ErrorResponse, "description": "Not signed in."}}
E404: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "Not found among yours."}
}
SIGN_IN_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Wrong e-mail or password, or a disabled account."},
    429: {"model": ErrorResponse, "description": "Too many failed sign-ins: wait a few minutes."},
}

OIDC_COOKIE = "devkb_oidc"
_FAILURES_LOCK = threading.Lock()
MAX_FAILURES = 10  # per e-mail and client within FAILURE_WINDOW
FAILURE_WINDOW = 300.0


def signed_in(request: Request) -> User:
    user = request_user(request)
    if user is None:
        raise HTTPException(401, SIGN_IN, headers={"WWW-Authenticate": "Bearer"})
    return user


UserDep = Annotated[User, Depends(signed_in)]


def _accounts(container: ContainerDep) -> AccountStore:
    accounts: AccountStore = container.accounts()
    return accounts


AccountsDep = Annotated[AccountStore, Depends(_accounts)]


def _set_session_cookie(response: Response, secret: str, max_age: int, secure: bool) -> None:
    response.set_cookie(
        AUTH_COOKIE, secret, max_age=max_age, httponly=True, samesite="lax", secure=secure, path="/"
    )
    response.delete_cookie(CHAT_COOKIE, path="/")


def _failures(request: Request) -> dict[str, list[float]]:
    """Failed sign-ins per e-mail and client, of this app (this process)."""
    with _FAILURES_LOCK:
        found: dict[str, list[float]] | None = getattr(request.app.state, "sign_in_failures", None)
        if found is None:
            found = request.app.state.sign_in_failures = {}
        return found


def _throttle(request: Request, key: str) -> None:
    now = time.monotonic()
    failures = _failures(request)
    with _FAILURES_LOCK:
        recent = [t for t in failures.get(key, []) if now - t < FAILURE_WINDOW]
        failures[key] = recent
        if len(recent) >= MAX_FAILURES:
            raise HTTPException(429, "too many failed sign-ins: wait a few minutes and try again")


def _failed(request: Request, key: str) -> None:
    failures = _failures(request)
    with _FAILURES_LOCK:
        failures.setdefault(key, []).append(time.monotonic())
        if len(failures) > 100_000:
            failures.clear()


@router.get("/status", response_model=AuthStatus, operation_id="authStatus")
def status(request: Request, container: ContainerDep, settings: SettingsDep) -> AuthStatus:
    """Whether accounts exist, who is signed in, how to sign in (and, on the demo, as whom)."""
    user = request_user(request)
    demo = [
        DemoUserOut(email=u.email, password=u.password, role=u.role, sees=u.sees)
        for u in container.demo_users()
    ]
    return AuthStatus(
        accounts=container.access_policy().enabled,
        user=UserOut.of(user) if user else None,
        oidc=OidcOut(name=settings.oidc_name) if settings.oidc_issuer else None,
        demo_users=demo,
    )


@router.post("/login", response_model=LoginOut, operation_id="login", responses=SIGN_IN_ERRORS)
def login(
    body: LoginIn, request: Request, response: Response, accounts: AccountsDep, settings: SettingsDep
) -> LoginOut:
    """Sign in with e-mail and password; sets the session cookie."""
    client = request.client.host if request.client else "?"
    key = f"{body.email.strip().lower()}|{client}"
    _throttle(request, key)
    user = accounts.check_password(body.email, body.password)
    if user is None:
        _failed(request, key)
        raise HTTPException(401, "wrong e-mail or password (or the account is disabled)")
    secret, _ = accounts.create_session(user.email, "password")
    _set_session_cookie(response, secret, int(accounts.session_seconds), settings.cookie_secure)
    return LoginOut(user=UserOut.of(user))


@router.post(
    "/token",
    response_model=TokenCreated,
    status_code=201,
    operation_id="tokenByPassword",
    responses=SIGN_IN_ERRORS,
)
def token_by_password(body: TokenLoginIn, request: Request, accounts: AccountsDep) -> TokenCreated:
    """A new API token for a script, in one call with e-mail and password (no cookie):
    ``curl -s -H 'Content-Type: application/json' -d '{"email":…,"password":…}' <server>/auth/token``."""
    client = request.client.host if request.client else "?"
    key = f"{body.email.strip().lower()}|{client}"
    _throttle(request, key)
    user = accounts.check_password(body.email, body.password)
    if user is None:
        _failed(request, key)
        raise HTTPException(401, "wrong e-mail or password (or the account is disabled)")
    secret, info = accounts.create_token(user.email, body.name)
    return TokenCreated(**TokenOut.of(info).model_dump(), token=secret)


@router.post("/logout", status_code=204, operation_id="logout")
def logout(request: Request, accounts: AccountsDep) -> Response:
    """Sign out: the session is revoked and the cookies cleared."""
    session = getattr(request.state, "auth_session", None)
    if session is not None:
        accounts.revoke_session(session.id)
    response = Response(status_code=204)
    response.delete_cookie(AUTH_COOKIE, path="/")
    response.delete_cookie(CHAT_COOKIE, path="/")
    return response


@router.get("/me", response_model=UserOut, operation_id="me", responses=E401)
def me(user: UserDep) -> UserOut:
    return UserOut.of(user)


@router.get("/sessions", response_model=list[SessionOut], operation_id="listSessions", responses=E401)
def sessions(request: Request, user: UserDep, accounts: AccountsDep) -> list[SessionOut]:
    """My signed-in sessions (browsers)."""
    current = getattr(request.state, "auth_session", None)
    return [SessionOut.of(s, current.id if current else None) for s in accounts.sessions(user.email)]


@router.delete(
    "/sessions/{session_id}", status_code=204, operation_id="revokeSession", responses={**E401, **E404}
)
def revoke_session(session_id: str, user: UserDep, accounts: AccountsDep) -> Response:
    """Sign one of my sessions out (takes effect on its next request)."""
    if not accounts.revoke_session(session_id, user.email):
        raise HTTPException(404, f"no session {session_id!r} of yours")
    return Response(status_code=204)


@router.get("/tokens", response_model=list[TokenOut], operation_id="listTokens", responses=E401)
def tokens(user: UserDep, accounts: AccountsDep) -> list[TokenOut]:
    """My API tokens (not their secrets)."""
    return [TokenOut.of(t) for t in accounts.tokens(user.email)]


@router.post(
    "/tokens", response_model=TokenCreated, status_code=201, operation_id="createToken", responses=E401
)
def create_token(body: TokenIn, user: UserDep, accounts: AccountsDep) -> TokenCreated:
    """A new API token: it reads what I may read. The secret is shown only in this response."""
    secret, info = accounts.create_token(user.email, body.name)
    return TokenCreated(**TokenOut.of(info).model_dump(), token=secret)


@router.delete("/tokens/{token_id}", status_code=204, operation_id="revokeToken", responses={**E401, **E404})
def revoke_token(token_id: str, user: UserDep, accounts: AccountsDep) -> Response:
    """Revoke one of my tokens (takes effect on its next request)."""
    if not accounts.revoke_token(token_id, user.email):
        raise HTTPException(404, f"no token {token_id!r} of yours")
    return Response(status_code=204)


# -- OpenID Connect --------------------------------------------------------------------------------
def _redirect_uri(request: Request) -> str:
    return str(request.url_for("oidc_callback"))


@router.get(
    "/oidc/login",
    operation_id="oidcLogin",
    include_in_schema=True,
    responses={302: {"description": "To the provider."}, 404: {"model": ErrorResponse}},
)
def oidc_login(request: Request, container: ContainerDep, settings: SettingsDep) -> RedirectResponse:
    """Start single sign-on: redirects to the provider."""
    sign_in = container.oidc()
    if sign_in is None:
        raise HTTPException(404, "single sign-on is not configured (DEVKB_OIDC_ISSUER)")
    url, cookie = sign_in.start(_redirect_uri(request))
    response = RedirectResponse(url, status_code=302)
    response.set_cookie(
        OIDC_COOKIE,
        cookie,
        max_age=600,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/auth/oidc",
    )
    return response


@router.get(
    "/oidc/callback",
    name="oidc_callback",
    operation_id="oidcCallback",
    responses={
        302: {"description": "Signed in: to the web app."},
        400: {"model": ErrorResponse},
        403: {"model": ErrorResponse},
        404: {"model": ErrorResponse},
    },
)
def oidc_callback(request: Request, container: ContainerDep, settings: SettingsDep) -> Response:
    """The provider's redirect back: the user is signed in (created on first sign-on)."""
    from devkb.access.oidc import OidcError

    sign_in = container.oidc()
    if sign_in is None:
        raise HTTPException(404, "single sign-on is not configured (DEVKB_OIDC_ISSUER)")
    try:
        identity = sign_in.finish(
            dict(request.query_params), request.cookies.get(OIDC_COOKIE), _redirect_uri(request)
        )
    except OidcError as e:
        raise HTTPException(400, f"single sign-on failed: {e}") from e
    accounts: AccountStore = container.accounts()
    user = accounts.oidc_user(identity.subject, identity.email, identity.name, settings.oidc_default_role)
    if user.disabled:
        raise HTTPException(403, f"{user.email} is disabled")
    secret, _ = accounts.create_session(user.email, "oidc")
    response = RedirectResponse("/", status_code=302)
    _set_session_cookie(response, secret, int(accounts.session_seconds), settings.cookie_secure)
    response.delete_cookie(OIDC_COOKIE, path="/auth/oidc")
    return response
