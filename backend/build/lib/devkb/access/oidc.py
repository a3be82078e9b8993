"""OpenID Connect sign-in (authorization code flow with PKCE) against one provider.

Authlib does the protocol work: ``OAuth2Client`` (httpx) builds the authorization URL with the PKCE S256
challenge, exchanges the code with the client authentication the provider advertises, and calls userinfo;
``joserfc`` checks the ID token's signature against the provider's JWKS and Authlib's ``CodeIDToken`` checks
its claims (iss, aud, exp, iat, nonce, azp, at_hash).

The state, nonce and PKCE code verifier travel in a short-lived cookie (``start`` returns its value; the
caller sets it HttpOnly, SameSite=Lax, Max-Age ``COOKIE_MAX_AGE``). The cookie is signed with HMAC-SHA256
under a random key made when the process starts, so it does not survive a restart and is not shared between
worker processes: a sign-in started in one process must finish in the same one.

Every ``OidcError`` message is meant to be shown to the person signing in: it names what went wrong but
carries no secret, token or code.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.integrations.base_client import OAuthError  # type: ignore[import-untyped]
from authlib.integrations.httpx_client import OAuth2Client  # type: ignore[import-untyped]
from authlib.oidc.core import CodeIDToken  # type: ignore[import-untyped]
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

__all__ = ["COOKIE_MAX_AGE", "OidcError", "OidcIdentity", "OidcSignIn"]

COOKIE_MAX_AGE = 600  # seconds a started sign-in stays valid
_LEEWAY = 60  # seconds of clock skew allowed on the ID token's exp/iat
# Asymmetric algorithms only: the key must come from the provider's JWKS, never from the client secret.
_ALLOWED_ALGS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
    "Ed25519",
)
_COOKIE_KEY = secrets.token_bytes(32)  # per process; see the module docstring


def _transport_errors() -> tuple[type[Exception], ...]:
    """The HTTP failures of the client Authlib drives: it uses ``httpx2`` when installed, else ``httpx``."""
    errors: list[type[Exception]] = [httpx.HTTPError, httpx.InvalidURL]
    try:
        import httpx2
    except ImportError:  # pragma: no cover - Authlib then falls back to httpx
        return tuple(errors)
    return (*errors, httpx2.HTTPError, httpx2.InvalidURL)


_FETCH_ERRORS: tuple[type[Exception], ...] = (*_transport_errors(), ValueError)  # ValueError: not JSON


@dataclass(frozen=True)
class OidcIdentity:
    subject: str
    email: str
    name: str
    email_verified: bool


class OidcError(Exception):
    """A sign-in that cannot be completed; the message is safe to show to the user."""


def _b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _printable(text: object, limit: int = 200) -> str:
    """A provider-supplied string reduced to something harmless to echo back."""
    cleaned = re.sub(r"[^\w .,:;'()/@-]", "", str(text))
    return cleaned[:limit]


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"  # some providers send the claim as a string
    return None


class OidcSignIn:
    """Sign-in with one OpenID Connect provider, registered as one client."""

    def __init__(
        self,
        issuer: str,
        client_id: str,
        client_secret: str | None,
        scopes: str = "openid email profile",
        name: str = "single sign-on",
        timeout: float = 10.0,
    ) -> None:
        if not issuer or not client_id:
            raise ValueError("an OpenID Connect issuer and client id are required")
        self.issuer = issuer.rstrip("/")
        self.client_id = client_id
        self._client_secret = client_secret or None
        scope_list = scopes.split()
        if "openid" not in scope_list:
            scope_list.insert(0, "openid")
        self.scopes = " ".join(scope_list)
        self.name = name
        self.timeout = timeout
        self._lock = threading.Lock()
        self._metadata: dict[str, Any] | None = None
        self._jwks: dict[str, Any] | None = None

    def __repr__(self) -> str:  # never shows the secret
        return f"OidcSignIn(issuer={self.issuer!r}, client_id={self.client_id!r}, name={self.name!r})"

    # -- provider metadata -------------------------------------------------------------------------------

    def _client(self, **kwargs: Any) -> Any:
        return OAuth2Client(
            client_id=self.client_id,
            client_secret=self._client_secret,
            timeout=self.timeout,
            follow_redirects=False,
            **kwargs,
        )

    def _get_json(self, url: str, what: str) -> dict[str, Any]:
        try:
            with self._client() as client:
                resp = client.request("GET", url, withhold_token=True, headers={"Accept": "application/json"})
                resp.raise_for_status()
                data = resp.json()
        except _FETCH_ERRORS as exc:
            raise OidcError(f"Could not load the sign-in provider's {what}; try again later.") from exc
        if not isinstance(data, dict):
            raise OidcError(f"The sign-in provider's {what} is not a JSON object.")
        return data

    def metadata(self) -> dict[str, Any]:
        """The provider's discovery document, fetched once (a failed fetch is retried on the next call)."""
        with self._lock:
            if self._metadata is not None:
                return self._metadata
        data = self._get_json(f"{self.issuer}/.well-known/openid-configuration", "configuration")
        if str(data.get("issuer", "")).rstrip("/") != self.issuer:
            raise OidcError("The sign-in provider's configuration names a different issuer.")
        for key in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            if not isinstance(data.get(key), str):
                raise OidcError(f"The sign-in provider's configuration has no {key}.")
        with self._lock:
            self._metadata = data
        return data

    def _key_set(self, refresh: bool = False) -> KeySet:
        with self._lock:
            jwks = None if refresh else self._jwks
        if jwks is None:
            jwks = self._get_json(str(self.metadata()["jwks_uri"]), "signing keys")
            with self._lock:
                self._jwks = jwks
        try:
            return KeySet.import_key_set(jwks)  # type: ignore[arg-type]
        except (JoseError, ValueError, TypeError, KeyError) as exc:
            raise OidcError("The sign-in provider's signing keys could not be read.") from exc

    def _auth_methods(self) -> list[str]:
        """The token endpoint client authentication to try, in order: none for a public client, else
        client_secret_basic and/or client_secret_post as the provider advertises them (basic is the default
        of OpenID Connect Discovery when it advertises none)."""
        if self._client_secret is None:
            return ["none"]
        supported = self.metadata().get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        methods = [m for m in ("client_secret_basic", "client_secret_post") if m in supported]
        return methods or ["client_secret_basic"]

    # -- the state cookie --------------------------------------------------------------------------------

    def _seal(self, payload: dict[str, Any]) -> str:
        body = _b64e(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8"))
        mac = hmac.new(_COOKIE_KEY, body.encode("ascii"), hashlib.sha256).digest()
        return f"{body}.{_b64e(mac)}"

    def _unseal(self, cookie: str | None) -> dict[str, Any]:
        expired = OidcError("This sign-in has expired or was started elsewhere; please sign in again.")
        if not cookie or "." not in cookie:
            raise expired
        body, _, mac = cookie.partition(".")
        try:
            want = hmac.new(_COOKIE_KEY, body.encode("ascii"), hashlib.sha256).digest()
            if not hmac.compare_digest(want, _b64d(mac)):
                raise expired
            payload = json.loads(_b64d(body))
        except (UnicodeError, binascii.Error, ValueError) as exc:
            raise expired from exc
        if not isinstance(payload, dict):
            raise expired
        if payload.get("iss") != self.issuer or payload.get("cid") != self.client_id:
            raise expired
        exp = payload.get("exp")
        if not isinstance(exp, int) or exp < time.time():
            raise expired
        for key in ("state", "nonce", "verifier", "redirect_uri"):
            if not isinstance(payload.get(key), str):
                raise expired
        return payload

    # -- the flow ----------------------------------------------------------------------------------------

    def start(self, redirect_uri: str) -> tuple[str, str]:
        """(authorization URL to redirect the browser to, value for a short-lived HttpOnly cookie that
        carries state, nonce and the PKCE code verifier). Discovery is fetched once and cached; PKCE S256
        always."""
        meta = self.metadata()
        state = secrets.token_urlsafe(32)
        nonce = secrets.token_urlsafe(32)
        verifier = secrets.token_urlsafe(64)  # 86 characters, within RFC 7636's 43..128
        with self._client(
            scope=self.scopes, redirect_uri=redirect_uri, code_challenge_method="S256"
        ) as client:
            url, _ = client.create_authorization_url(
                meta["authorization_endpoint"], state=state, code_verifier=verifier, nonce=nonce
            )
        cookie = self._seal(
            {
                "iss": self.issuer,
                "cid": self.client_id,
                "state": state,
                "nonce": nonce,
                "verifier": verifier,
                "redirect_uri": redirect_uri,
                "exp": int(time.time()) + COOKIE_MAX_AGE,
            }
        )
        return str(url), cookie

    def finish(self, params: Mapping[str, str], cookie: str | None, redirect_uri: str) -> OidcIdentity:
        """Check state against the cookie, exchange the code, validate the ID token and read the identity."""
        if params.get("error"):
            error = _printable(params["error"], 60)
            description = _printable(params.get("error_description") or "", 200)
            detail = f"{error}: {description}" if description else error
            raise OidcError(f"The sign-in provider did not sign you in ({detail}).")
        saved = self._unseal(cookie)
        state = params.get("state")
        if not state:
            raise OidcError("The sign-in response has no state; please sign in again.")
        if not hmac.compare_digest(state.encode("utf-8"), str(saved["state"]).encode("utf-8")):
            raise OidcError(
                "The sign-in response does not match this browser's sign-in; please sign in again."
            )
        if saved["redirect_uri"] != redirect_uri:
            raise OidcError("The sign-in came back to a different address; please sign in again.")
        meta = self.metadata()
        iss = params.get("iss")  # RFC 9207: the authorization response names its issuer
        if iss is not None and iss != meta["issuer"]:
            raise OidcError("The sign-in response comes from a different provider.")
        if iss is None and meta.get("authorization_response_iss_parameter_supported"):
            raise OidcError("The sign-in response does not name its provider.")
        code = params.get("code")
        if not code:
            raise OidcError("The sign-in response has no authorization code.")

        methods = self._auth_methods()
        for attempt, method in enumerate(methods):
            client = self._client(token_endpoint_auth_method=method)
            try:
                token = client.fetch_token(
                    meta["token_endpoint"],
                    grant_type="authorization_code",
                    code=code,
                    redirect_uri=redirect_uri,
                    code_verifier=saved["verifier"],
                )
                break
            except OAuthError as exc:
                client.close()
                error = str(getattr(exc, "error", "") or "error")
                # A client registered for client_secret_post is refused with invalid_client when it sends
                # the secret the other way; client authentication fails before the code is looked at, so
                # the code is still good for the second try.
                if error == "invalid_client" and attempt + 1 < len(methods):
                    continue
                raise OidcError(
                    f"The sign-in provider did not accept the sign-in ({_printable(error, 60)})."
                ) from exc
            except _FETCH_ERRORS as exc:
                client.close()
                raise OidcError(
                    "Could not reach the sign-in provider's token endpoint; try again later."
                ) from exc
        try:
            if not isinstance(token.get("id_token"), str):
                raise OidcError("The sign-in provider returned no ID token.")
            claims = self._validate_id_token(meta, token, str(saved["nonce"]))

            if not claims.get("email") or not claims.get("name") or "email_verified" not in claims:
                userinfo = self._userinfo(client, meta)
                if userinfo and userinfo.get("sub") != claims["sub"]:
                    raise OidcError("The sign-in provider's user information is for a different user.")
                claims = {**userinfo, **{k: v for k, v in claims.items() if v not in (None, "")}}
        finally:
            client.close()

        email = claims.get("email")
        if not isinstance(email, str) or not email.strip():
            raise OidcError("The sign-in provider did not share an e-mail address; it is needed to sign in.")
        verified = _as_bool(claims.get("email_verified"))
        if verified is False:
            raise OidcError("The sign-in provider has not verified your e-mail address.")
        name = claims.get("name") or claims.get("preferred_username")
        if not isinstance(name, str) or not name.strip():
            given = " ".join(str(claims.get(k) or "") for k in ("given_name", "family_name")).strip()
            name = given or email
        return OidcIdentity(
            subject=str(claims["sub"]),
            email=email.strip(),
            name=name.strip(),
            email_verified=bool(verified),
        )

    def _validate_id_token(
        self, meta: Mapping[str, Any], token: Mapping[str, Any], nonce: str
    ) -> dict[str, Any]:
        advertised = meta.get("id_token_signing_alg_values_supported") or ["RS256"]
        algorithms = [alg for alg in advertised if alg in _ALLOWED_ALGS] or ["RS256"]
        registry = JWSRegistry(algorithms=algorithms, strict_check_header=False)
        raw = str(token["id_token"])
        try:
            try:
                decoded = jwt.decode(raw, self._key_set(), registry=registry)
            except InvalidKeyIdError:  # the provider may have rotated its keys since we cached them
                decoded = jwt.decode(raw, self._key_set(refresh=True), registry=registry)
            options = {
                "iss": {"essential": True, "value": meta["issuer"]},
                "aud": {"essential": True, "value": self.client_id},
                "exp": {"essential": True},
                "sub": {"essential": True},
            }
            params = {"nonce": nonce, "client_id": self.client_id, "access_token": token.get("access_token")}
            claims = CodeIDToken(decoded.claims, decoded.header, options, params)
            claims.validate(leeway=_LEEWAY)
        except JoseError as exc:
            what = _printable(getattr(exc, "description", "") or getattr(exc, "error", "") or "invalid", 120)
            raise OidcError(f"The sign-in provider's ID token is not valid ({what}).") from exc
        except (ValueError, TypeError) as exc:
            raise OidcError("The sign-in provider's ID token could not be read.") from exc
        return dict(claims)

    def _userinfo(self, client: Any, meta: Mapping[str, Any]) -> dict[str, Any]:
        endpoint = meta.get("userinfo_endpoint")
        if not isinstance(endpoint, str):
            return {}
        try:
            resp = client.get(endpoint, headers={"Accept": "application/json"})
            resp.raise_for_status()
            data = resp.json()
        except (*_FETCH_ERRORS, OAuthError) as exc:
            raise OidcError(
                "Could not read your profile from the sign-in provider; try again later."
            ) from exc
        if not isinstance(data, dict):  # a signed userinfo response (JWT) is not requested by this client
            raise OidcError("The sign-in provider's user information could not be read.")
        return data
