"""Accounts through the API: sign-in and out, sessions and tokens that can be revoked, roles,
anonymous access off once accounts exist, unchanged behaviour without accounts, and single sign-on
through the app against a real OpenID Connect provider (panva's oidc-provider on loopback)."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.accounts_app import PASSWORDS, accounts_client, signed_in
from tests.integration.access.test_oidc_real_provider import CLIENT_ID, CLIENT_SECRET, _parse, _start_provider

pytestmark = pytest.mark.integration
ASK = {"question": "What is PAY-12 about?"}


@pytest.fixture
def app_client(demo_workspace, embedder, tmp_path):
    clients = []

    def make(users: bool = True, **settings):
        c = accounts_client(demo_workspace, embedder, tmp_path / f"d{len(clients)}", users=users, **settings)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.__exit__(None, None, None)


def test_without_accounts_the_server_behaves_as_before(app_client):
    c = app_client(users=False)
    assert c.get("/auth/status").json() == {"accounts": False, "user": None, "oidc": None, "demo_users": []}
    r = c.post("/ask", json=ASK)
    assert r.status_code == 200 and r.json()["sources"]
    assert c.get("/graph").status_code == 200
    assert c.get("/auth/me").status_code == 401  # nobody to be


def test_anonymous_access_is_off_once_accounts_exist(app_client):
    c = app_client()
    assert c.get("/health").status_code == 200
    assert c.get("/auth/status").json()["accounts"] is True
    for method, path, body in [
        ("POST", "/ask", ASK),
        ("GET", "/graph", None),
        ("GET", "/stats", None),
        ("GET", "/documents/jira:PAY-12", None),
        ("GET", "/sources", None),
        ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ]:
        r = c.request(method, path, json=body)
        assert r.status_code == 401, (path, r.status_code, r.text[:200])
        assert "sign in" in r.json()["detail"] or "token" in r.json()["detail"]


def test_sign_in_sign_out_and_the_session_is_revoked(app_client):
    c = app_client()
    bad = c.post("/auth/login", json={"email": "dave@acme.example", "password": "not-it-at-all"})
    assert bad.status_code == 401 and "wrong e-mail or password" in bad.json()["detail"]
    r = c.post("/auth/login", json={"email": "Dave@Acme.example", "password": PASSWORDS["dave@acme.example"]})
    assert r.status_code == 200 and r.json()["user"]["email"] == "dave@acme.example"
    cookie = r.cookies.get("devkb_auth")
    assert cookie and "httponly" in r.headers["set-cookie"].lower()
    assert c.get("/auth/me").json()["email"] == "dave@acme.example"
    assert c.post("/ask", json=ASK).status_code == 200
    assert c.post("/auth/logout").status_code == 204
    c.cookies.set("devkb_auth", cookie)  # the old cookie, replayed
    assert c.get("/auth/me").status_code == 401
    assert c.post("/ask", json=ASK).status_code == 401


def test_a_session_can_be_signed_out_from_another(app_client):
    c = app_client()
    first = signed_in(c, "bob@acme.example").cookies.get("devkb_auth")
    c.cookies.clear()
    signed_in(c, "bob@acme.example")
    sessions = c.get("/auth/sessions").json()
    assert len(sessions) == 2
    other = next(s for s in sessions if not s["current"])
    assert c.delete(f"/auth/sessions/{other['id']}").status_code == 204
    c.cookies.clear()
    c.cookies.set("devkb_auth", first)
    assert c.get("/auth/me").status_code == 401


def test_api_tokens_read_as_their_owner_and_can_be_revoked(app_client):
    c = app_client()
    signed_in(c, "carol@acme.example")
    created = c.post("/auth/tokens", json={"name": "script"}).json()
    assert created["token"].startswith("dkb_")
    assert [t["name"] for t in c.get("/auth/tokens").json()] == ["script"]
    assert "token" not in c.get("/auth/tokens").json()[0]
    c.post("/auth/logout")
    c.cookies.clear()
    bearer = {"Authorization": f"Bearer {created['token']}"}
    me = c.get("/auth/me", headers=bearer)
    assert me.status_code == 200 and me.json()["email"] == "carol@acme.example"
    assert c.get("/documents/jira:PAY-12", headers=bearer).status_code == 404  # carol may not read PAY
    assert c.post("/ask", json=ASK, headers=bearer).status_code == 200
    assert c.delete(f"/auth/tokens/{created['id']}", headers=bearer).status_code == 204
    assert c.get("/auth/me", headers=bearer).status_code == 401
    assert c.post("/ask", json=ASK, headers=bearer).status_code == 401
    assert c.get("/auth/me", headers={"Authorization": "Bearer dkb_forged"}).status_code == 401


def test_roles_admins_manage_users_members_do_not(app_client):
    c = app_client()
    signed_in(c, "bob@acme.example")
    assert c.get("/admin/users").status_code == 403
    assert c.post("/admin/shared", json={"document_ids": ["jira:PAY-12"]}).status_code == 403
    c.post("/auth/logout")
    signed_in(c, "alice@acme.example")
    assert {u["email"] for u in c.get("/admin/users").json()} == set(PASSWORDS)
    new = c.post(
        "/admin/users", json={"email": "erin@acme.example", "role": "member", "password": "erin-pass-123"}
    )
    assert new.status_code == 201
    dup = c.post("/admin/users", json={"email": "erin@acme.example", "password": "erin-pass-123"})
    assert dup.status_code == 409 and "exists" in dup.json()["detail"]
    assert c.post("/admin/users", json={"email": "not-an-email", "password": "x" * 9}).status_code == 422
    assert (
        c.post("/admin/users", json={"email": "short@acme.example", "password": "short"}).status_code == 422
    )
    assert c.patch("/admin/users/alice@acme.example", json={"disabled": True}).status_code == 400
    assert c.patch("/admin/users/nobody@acme.example", json={"role": "admin"}).status_code == 404
    # disabling signs the user out everywhere
    erin = TestClient(c.app, raise_server_exceptions=False)
    with erin:
        assert (
            erin.post(
                "/auth/login", json={"email": "erin@acme.example", "password": "erin-pass-123"}
            ).status_code
            == 200
        )
        assert c.patch("/admin/users/erin@acme.example", json={"disabled": True}).json()["disabled"] is True
        assert erin.get("/auth/me").status_code == 401
        again = erin.post("/auth/login", json={"email": "erin@acme.example", "password": "erin-pass-123"})
        assert again.status_code == 401


def test_passwords_are_stored_as_argon2id_and_guessing_is_throttled(app_client):
    c = app_client()
    accounts = c.app.state.container.accounts()
    row = accounts._one("SELECT password_hash FROM users WHERE email = ?", ("bob@acme.example",))
    assert str(row[0]).startswith("$argon2id$") and PASSWORDS["bob@acme.example"] not in str(row[0])
    codes = [
        c.post("/auth/login", json={"email": "bob@acme.example", "password": f"guess-{i}"}).status_code
        for i in range(11)
    ]
    assert codes[:10] == [401] * 10 and codes[10] == 429


def test_single_sign_on_through_the_app_against_a_real_provider(app_client, tmp_path):
    callback = "http://testserver/auth/oidc/callback"
    proc, issuer = _start_provider(tmp_path / "provider", CLIENT_SECRET, REDIRECT_URI=callback)
    try:
        c = app_client(
            oidc_issuer=issuer,
            oidc_client_id=CLIENT_ID,
            oidc_client_secret=CLIENT_SECRET,
            oidc_name="Acme SSO",
        )
        assert c.get("/auth/status").json()["oidc"] == {"name": "Acme SSO", "login_url": "/auth/oidc/login"}
        start = c.get("/auth/oidc/login", follow_redirects=False)
        assert start.status_code == 302
        location = start.headers["location"]
        with httpx.Client(follow_redirects=False, timeout=10) as browser:
            resp = browser.get(location)
            for _ in range(20):
                if resp.is_redirect:
                    location = urljoin(str(resp.url), resp.headers["location"])
                    if location.startswith(callback):
                        break
                    resp = browser.get(location)
                    continue
                page = _parse(resp.text)
                data = dict(page.form.fields)
                if data.get("prompt") == "login":
                    data.update(login="alice@example.com", password="wonderland")
                resp = browser.post(urljoin(str(resp.url), page.form.action), data=data)
            else:
                raise AssertionError("the provider never redirected back")
        done = c.get(urlsplit(location).path + "?" + urlsplit(location).query, follow_redirects=False)
        assert done.status_code == 302, done.text
        me = c.get("/auth/me").json()
        assert me == {
            "email": "alice@example.com",
            "name": "Alice Example",
            "role": "member",
            "disabled": False,
            "sso": True,
        }
        # a tampered callback is a clear 400, not a sign-in
        c.cookies.clear()
        bad = c.get("/auth/oidc/callback?code=x&state=y", follow_redirects=False)
        assert bad.status_code == 400 and "single sign-on failed" in bad.json()["detail"]
    finally:
        proc.terminate()
        proc.wait(10)


def test_one_call_gives_a_script_a_token(app_client):
    c = app_client()
    r = c.post("/auth/token", json={"email": "bob@acme.example", "password": PASSWORDS["bob@acme.example"]})
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    c.cookies.clear()
    assert (
        c.get("/auth/me", headers={"Authorization": f"Bearer {token}"}).json()["email"] == "bob@acme.example"
    )
    wrong = c.post("/auth/token", json={"email": "bob@acme.example", "password": "nope-nope"})
    assert wrong.status_code == 401


def test_the_cli_adds_users_and_prints_tokens(demo_workspace, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from devkb.cli.main import app

    monkeypatch.setenv("DEVKB_DATA_DIR", str(demo_workspace.copy_data(tmp_path / "d")))
    monkeypatch.setenv("DEVKB_SOURCES_FILE", str(demo_workspace.sources_file))
    run = CliRunner().invoke
    added = run(
        app,
        ["users", "add", "ops@acme.example", "--role", "admin", "--password-stdin"],
        input="ops-pass-1234\n",
    )
    assert added.exit_code == 0, added.output
    assert "ops@acme.example\tadmin" in run(app, ["users", "list"]).output
    token = run(app, ["token", "create", "ops@acme.example", "--name", "ci"])
    assert token.exit_code == 0 and token.output.strip().startswith("dkb_")
    missing = run(app, ["token", "create", "nobody@acme.example"])
    assert missing.exit_code == 2 and "no user" in missing.output
    dup = run(app, ["users", "add", "ops@acme.example", "--password-stdin"], input="ops-pass-1234\n")
    assert dup.exit_code == 2 and "exists" in dup.output
