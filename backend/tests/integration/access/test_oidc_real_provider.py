"""OpenID Connect sign-in (devkb.access.oidc) against a real provider: panva's ``oidc-provider`` (npm),
started on 127.0.0.1 by ``tools/oidc-provider/provider.mjs``. httpx plays the browser: it follows the
provider's own development login and consent pages (devInteractions) up to the redirect back to the
client, whose Location header carries the code and state."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx
import pytest

from devkb.access import oidc
from devkb.access.oidc import OidcError, OidcIdentity, OidcSignIn

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[4]
PROVIDER_DIR = REPO_ROOT / "tools" / "oidc-provider"
REDIRECT_URI = "http://127.0.0.1:1/callback"  # never contacted: the test reads the Location header
CLIENT_ID = "devkb-test"
CLIENT_SECRET = "s3cret-for-the-test-provider-only"
ALICE = {"sub": "alice-0001", "email": "alice@example.com", "name": "Alice Example", "password": "wonderland"}
BOB = {"sub": "bob-0002", "email": "bob@example.com", "name": "Bob Unverified", "password": "builder"}
USERS = [ALICE, {**BOB, "email_verified": False}]


@dataclass
class Provider:
    issuer: str
    client_secret: str | None


def _start_provider(tmp: Path, client_secret: str | None, **extra_env: str) -> tuple[subprocess.Popen, str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; the real OpenID Connect provider cannot run")
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        pytest.skip(
            "tools/oidc-provider/node_modules is missing; run scripts/setup.sh (npm ci in tools/oidc-provider)"
        )
    env = {
        **os.environ,
        "PORT": "0",  # the launcher binds a free port and names it in its "ready" line
        "CLIENT_ID": CLIENT_ID,
        "CLIENT_SECRET": client_secret or "",
        "REDIRECT_URI": REDIRECT_URI,
        "USERS": json.dumps(USERS),
        **extra_env,
    }
    tmp.mkdir(parents=True, exist_ok=True)
    # A start that misses its deadline (a loaded machine) is tried once more before the test fails; the
    # failure names both attempts' exit status, time taken and output.
    failures = []
    for attempt in (1, 2):
        started = _start_once(node, env, tmp / f"provider-{attempt}")
        if isinstance(started, str):
            failures.append(f"attempt {attempt}: {started}")
            continue
        return started
    pytest.fail("oidc-provider did not start:\n" + "\n".join(failures))


def _start_once(
    node: str, env: dict[str, str], stem: Path, timeout: float = 90.0
) -> tuple[subprocess.Popen, str] | str:
    """The running provider and its issuer, or why it did not start."""
    out, err = stem.with_suffix(".out"), stem.with_suffix(".err")
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            [node, str(PROVIDER_DIR / "provider.mjs")],
            cwd=PROVIDER_DIR,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        for line in out.read_text().splitlines():
            if line.startswith("ready "):
                return proc, line.split(" ", 1)[1].strip()
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    elapsed = time.monotonic() - began
    status = "still running" if proc.poll() is None else f"exited with {proc.returncode}"
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    return f"{status} after {elapsed:.1f} s\nstdout: {out.read_text()}\nstderr: {err.read_text()}"


@pytest.fixture(scope="module")
def start_provider(tmp_path_factory) -> Iterator[Callable[..., Provider]]:
    """Starts real providers on demand; every one is stopped when the module's tests are done."""
    procs: list[subprocess.Popen] = []

    def start(client_secret: str | None = CLIENT_SECRET, **extra_env: str) -> Provider:
        proc, issuer = _start_provider(tmp_path_factory.mktemp("oidc-provider"), client_secret, **extra_env)
        procs.append(proc)
        return Provider(issuer, client_secret)

    try:
        yield start
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


@pytest.fixture(scope="module")
def provider(start_provider) -> Provider:
    """A confidential client (client_secret_basic); scope claims come from userinfo (the library's default)."""
    return start_provider()


@pytest.fixture
def sign_in(provider) -> OidcSignIn:
    return OidcSignIn(provider.issuer, CLIENT_ID, provider.client_secret, name="Test SSO", timeout=10)


# -- the browser --------------------------------------------------------------------------------------------


@dataclass
class Form:
    action: str = ""
    method: str = "get"
    fields: dict[str, str] = field(default_factory=dict)


class _FormParser(HTMLParser):
    """The first <form> of a page: its action, method and named inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.form: Form | None = None
        self._in_form = False
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and self.form is None:
            self.form = Form(action=a.get("action", ""), method=a.get("method", "get").lower())
            self._in_form = True
        elif tag == "input" and self._in_form and self.form is not None and a.get("name"):
            self.form.fields[a["name"]] = a.get("value", "")
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False


def _parse(html: str) -> _FormParser:
    parser = _FormParser()
    parser.feed(html)
    return parser


def browse(
    auth_url: str, login: str, password: str, *, abort: bool = False, browser: httpx.Client | None = None
) -> dict[str, str]:
    """Follow the provider's pages as a person would (sign in, consent) until it redirects to REDIRECT_URI;
    return that redirect's query parameters. ``abort`` follows the page's cancel link instead of signing in."""
    own = browser is None
    client = browser or httpx.Client(follow_redirects=False, timeout=10)
    seen: list[str] = []
    try:
        resp = client.get(auth_url)
        for _ in range(20):
            if resp.is_redirect:
                location = urljoin(str(resp.url), resp.headers["location"])
                seen.append(location)
                if location.startswith(REDIRECT_URI):
                    return dict(parse_qsl(urlsplit(location).query))
                resp = client.get(location)
                continue
            assert resp.status_code == 200, f"{resp.status_code} from {resp.url}: {resp.text[:500]}"
            page = _parse(resp.text)
            assert page.form is not None, f"no form at {resp.url}: {resp.text[:500]}"
            if abort:
                cancel = [href for href in page.links if href.rstrip("/").endswith("/abort")]
                assert cancel, f"no cancel link at {resp.url}"
                resp = client.get(urljoin(str(resp.url), cancel[0]))
                continue
            data = dict(page.form.fields)
            if data.get("prompt") == "login":
                data["login"] = login
                data["password"] = password
            assert page.form.method == "post"
            resp = client.post(urljoin(str(resp.url), page.form.action), data=data)
        raise AssertionError(f"no redirect to the client after 20 steps: {seen}")
    finally:
        if own:
            client.close()


def sign_in_as(sign_in: OidcSignIn, user: dict[str, str]) -> tuple[dict[str, str], str]:
    """(the callback's query parameters, the cookie value) of one completed browser sign-in."""
    url, cookie = sign_in.start(REDIRECT_URI)
    return browse(url, user["email"], user["password"]), cookie


# -- the happy paths ----------------------------------------------------------------------------------------


def test_authorization_url_uses_pkce_s256_state_and_nonce(sign_in, provider):
    url, cookie = sign_in.start(REDIRECT_URI)
    query = dict(parse_qsl(urlsplit(url).query))
    assert url.startswith(provider.issuer + "/")
    assert query["response_type"] == "code"
    assert query["client_id"] == CLIENT_ID
    assert query["redirect_uri"] == REDIRECT_URI
    assert query["code_challenge_method"] == "S256"
    assert len(query["code_challenge"]) == 43
    assert query["state"] and query["nonce"]
    assert set(query["scope"].split()) == {"openid", "email", "profile"}
    assert cookie and CLIENT_SECRET not in cookie
    assert sign_in.name == "Test SSO"


@pytest.fixture
def userinfo_calls(monkeypatch) -> list[dict]:
    """Records what the userinfo endpoint answered, to tell which path supplied the e-mail and name."""
    calls: list[dict] = []
    real = OidcSignIn._userinfo

    def spy(self, client, meta):
        calls.append(real(self, client, meta))
        return calls[-1]

    monkeypatch.setattr(OidcSignIn, "_userinfo", spy)
    return calls


def test_sign_in_end_to_end_reads_the_identity(sign_in, userinfo_calls):
    params, cookie = sign_in_as(sign_in, ALICE)
    assert set(params) >= {"code", "state", "iss"}
    identity = sign_in.finish(params, cookie, REDIRECT_URI)
    # this provider keeps scope claims out of the code flow's ID token: they came from userinfo
    assert [c.get("email") for c in userinfo_calls] == [ALICE["email"]]
    assert identity == OidcIdentity(
        subject=ALICE["sub"], email=ALICE["email"], name=ALICE["name"], email_verified=True
    )


@pytest.mark.parametrize(
    ("secret", "env"),
    [
        pytest.param(CLIENT_SECRET, {"CLIENT_AUTH": "client_secret_post"}, id="client_secret_post"),
        pytest.param(None, {}, id="public-client"),
        pytest.param(CLIENT_SECRET, {"ID_TOKEN_CLAIMS": "1"}, id="claims-in-id-token"),
    ],
)
def test_sign_in_with_other_client_setups(start_provider, userinfo_calls, secret, env):
    """A client registered for client_secret_post (the provider advertises basic and post and refuses the
    method the client is not registered for, so the client falls back from basic to post), a public client
    (no secret, token_endpoint_auth_method none), and a provider that puts email/name into the ID token."""
    provider = start_provider(secret, **env)
    sign_in = OidcSignIn(provider.issuer, CLIENT_ID, secret)
    params, cookie = sign_in_as(sign_in, ALICE)
    identity = sign_in.finish(params, cookie, REDIRECT_URI)
    assert (identity.subject, identity.email, identity.name) == (ALICE["sub"], ALICE["email"], ALICE["name"])
    assert identity.email_verified is True
    assert len(userinfo_calls) == (0 if env.get("ID_TOKEN_CLAIMS") else 1)


def test_login_by_subject_works_too(sign_in):
    url, cookie = sign_in.start(REDIRECT_URI)
    params = browse(url, ALICE["sub"], ALICE["password"])
    assert sign_in.finish(params, cookie, REDIRECT_URI).email == ALICE["email"]


# -- what must fail -----------------------------------------------------------------------------------------


def test_tampered_state_is_refused(sign_in):
    params, cookie = sign_in_as(sign_in, ALICE)
    with pytest.raises(OidcError, match="does not match"):
        sign_in.finish({**params, "state": params["state"][:-2] + "xx"}, cookie, REDIRECT_URI)
    with pytest.raises(OidcError, match="no state"):
        sign_in.finish({k: v for k, v in params.items() if k != "state"}, cookie, REDIRECT_URI)


def test_wrong_or_tampered_cookie_is_refused(sign_in):
    params, cookie = sign_in_as(sign_in, ALICE)
    _, other_cookie = sign_in.start(REDIRECT_URI)  # a valid cookie of another sign-in
    with pytest.raises(OidcError, match="does not match"):
        sign_in.finish(params, other_cookie, REDIRECT_URI)
    body, mac = cookie.split(".")
    forged = body[:-3] + ("AAA" if body[-3:] != "AAA" else "BBB") + "." + mac
    for bad in (None, "", "garbage", forged, cookie + "x"):
        with pytest.raises(OidcError, match="expired"):
            sign_in.finish(params, bad, REDIRECT_URI)
    # the cookie is bound to one provider/client: another client's sign-in does not accept it
    stranger = OidcSignIn(sign_in.issuer, "someone-else", CLIENT_SECRET)
    with pytest.raises(OidcError, match="expired"):
        stranger.finish(params, cookie, REDIRECT_URI)
    # the untouched pair still works: none of the refusals above used the code
    assert sign_in.finish(params, cookie, REDIRECT_URI).subject == ALICE["sub"]


def test_expired_cookie_is_refused(sign_in, monkeypatch):
    params, cookie = sign_in_as(sign_in, ALICE)
    later = time.time() + oidc.COOKIE_MAX_AGE + 5
    monkeypatch.setattr(oidc.time, "time", lambda: later)
    with pytest.raises(OidcError, match="expired"):
        sign_in.finish(params, cookie, REDIRECT_URI)


def test_replayed_code_is_refused(sign_in):
    params, cookie = sign_in_as(sign_in, ALICE)
    assert sign_in.finish(params, cookie, REDIRECT_URI).email == ALICE["email"]
    with pytest.raises(OidcError, match="invalid_grant"):
        sign_in.finish(params, cookie, REDIRECT_URI)


def test_code_with_another_sign_ins_verifier_is_refused(sign_in):
    """PKCE: a code and state moved into another browser's sign-in (other verifier, other nonce) fail."""
    params, _ = sign_in_as(sign_in, ALICE)
    url, cookie = sign_in.start(REDIRECT_URI)
    hijack = {**params, "state": dict(parse_qsl(urlsplit(url).query))["state"]}
    with pytest.raises(OidcError, match="invalid_grant"):
        sign_in.finish(hijack, cookie, REDIRECT_URI)


def test_missing_code_and_other_redirect_uri_are_refused(sign_in):
    params, cookie = sign_in_as(sign_in, ALICE)
    with pytest.raises(OidcError, match="no authorization code"):
        sign_in.finish({k: v for k, v in params.items() if k != "code"}, cookie, REDIRECT_URI)
    with pytest.raises(OidcError, match="different address"):
        sign_in.finish(params, cookie, "http://127.0.0.1:2/elsewhere")
    with pytest.raises(OidcError, match="different provider"):
        sign_in.finish({**params, "iss": "http://127.0.0.1:9/"}, cookie, REDIRECT_URI)


def test_provider_error_parameter_is_reported(sign_in):
    url, cookie = sign_in.start(REDIRECT_URI)
    state = dict(parse_qsl(urlsplit(url).query))["state"]
    with pytest.raises(OidcError, match="access_denied"):
        sign_in.finish({"error": "access_denied", "state": state}, cookie, REDIRECT_URI)
    with pytest.raises(OidcError, match="access_denied") as caught:
        sign_in.finish(
            {"error": "access_denied", "error_description": "<script>alert(1)</script>", "state": state},
            cookie,
            REDIRECT_URI,
        )
    assert "<" not in str(caught.value)


def test_person_cancelling_at_the_provider_is_reported(sign_in):
    """The provider's own cancel link ends the flow with error=access_denied on the redirect."""
    url, cookie = sign_in.start(REDIRECT_URI)
    params = browse(url, "", "", abort=True)
    assert params["error"] == "access_denied"
    with pytest.raises(OidcError, match="access_denied"):
        sign_in.finish(params, cookie, REDIRECT_URI)


def test_wrong_client_secret_is_a_token_endpoint_failure(provider):
    wrong = OidcSignIn(provider.issuer, CLIENT_ID, "not-the-secret")
    params, cookie = sign_in_as(wrong, ALICE)
    with pytest.raises(OidcError, match="invalid_client") as caught:
        wrong.finish(params, cookie, REDIRECT_URI)
    assert "not-the-secret" not in str(caught.value)
    assert params["code"] not in str(caught.value)


def test_unverified_email_is_refused(sign_in):
    params, cookie = sign_in_as(sign_in, BOB)
    with pytest.raises(OidcError, match="not verified"):
        sign_in.finish(params, cookie, REDIRECT_URI)


def test_no_email_scope_means_no_email_and_is_refused(provider):
    sign_in = OidcSignIn(provider.issuer, CLIENT_ID, provider.client_secret, scopes="openid profile")
    params, cookie = sign_in_as(sign_in, ALICE)
    with pytest.raises(OidcError, match="e-mail address"):
        sign_in.finish(params, cookie, REDIRECT_URI)


def test_wrong_password_is_refused_by_the_provider(sign_in):
    url, _ = sign_in.start(REDIRECT_URI)
    with pytest.raises(AssertionError, match="401"):
        browse(url, ALICE["email"], "not-her-password")


def test_unreachable_provider_is_a_clear_error():
    with pytest.raises(OidcError, match="Could not load"):
        OidcSignIn("http://127.0.0.1:1", CLIENT_ID, None, timeout=2).start(REDIRECT_URI)
