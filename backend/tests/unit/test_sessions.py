"""Chat sessions: the memory (isolation, FIFO cap, idle expiry, session bound, thread safety) and
the cookie middleware (HTTP-only cookie, header echo, forged or malformed ids → new session)."""

from __future__ import annotations

import threading
import uuid

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from devkb.api.sessions import SessionMiddleware
from devkb.conversations.memory import ChatMemory, StoredMessage, parse_session_id


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def msg(text: str, role: str = "user") -> StoredMessage:
    return StoredMessage(role, text, "2024-01-01T00:00:00+00:00")


def test_sessions_are_isolated():
    m = ChatMemory()
    a, b = m.create(), m.create()
    m.append(a, msg("secret of a"))
    assert [x.content for x in m.history(a)] == ["secret of a"]
    assert m.history(b) == []
    assert m.clear(b) == 0 and len(m.history(a)) == 1


def test_history_is_capped_fifo():
    m = ChatMemory(history_limit=50)
    sid = m.create()
    for i in range(60):
        m.append(sid, msg(f"m{i}"))
    h = [x.content for x in m.history(sid)]
    assert len(h) == 50 and h[0] == "m10" and h[-1] == "m59"


def test_idle_sessions_expire_and_use_keeps_them_alive():
    clock = Clock()
    m = ChatMemory(ttl_seconds=60, clock=clock)
    idle, busy = m.create(), m.create()
    m.append(idle, msg("x"))
    for _ in range(4):
        clock.now += 30
        assert m.touch(busy)
    assert not m.touch(idle) and m.history(idle) == []
    assert m.touch(busy) and len(m) == 1
    clock.now += 61
    assert len(m) == 0


def test_number_of_sessions_is_bounded_least_recently_used_first():
    m = ChatMemory(max_sessions=3)
    s = [m.create() for _ in range(3)]
    m.touch(s[0])
    s.append(m.create())
    assert len(m) == 3 and not m.touch(s[1]) and all(m.touch(x) for x in (s[0], s[2], s[3]))


def test_memory_is_thread_safe():
    m = ChatMemory(history_limit=1000, max_sessions=100)
    sids = [m.create() for _ in range(4)]

    def work(sid: str) -> None:
        for i in range(200):
            m.append(sid, msg(str(i)))
            m.history(sid)

    threads = [threading.Thread(target=work, args=(sid,)) for sid in sids for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(m.history(sid)) == 400 for sid in sids)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "abc",
        "00000000-0000-0000-0000-000000000000",
        str(uuid.uuid1()),
        "x" * 500,
        f"{uuid.uuid4()}; Path=/",
        "../../etc/passwd",
    ],
)
def test_malformed_ids_are_rejected(value):
    assert parse_session_id(value) is None


def make_app(memory: ChatMemory, secure: bool = False) -> Starlette:
    async def who(request: Request) -> JSONResponse:
        return JSONResponse({"session_id": request.state.session_id})

    app = Starlette(routes=[Route("/chat/whoami", who), Route("/health", lambda r: JSONResponse({}))])
    return SessionMiddleware(app, memory=lambda _: memory, secure=lambda _: secure)  # type: ignore[return-value]


def client(app) -> TestClient:
    return TestClient(app)


def test_cookie_is_set_http_only_and_echoed():
    memory = ChatMemory()
    with client(make_app(memory)) as c:
        r = c.get("/chat/whoami")
    sid = r.json()["session_id"]
    assert parse_session_id(sid) == sid and r.headers["x-session-id"] == sid
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"X-Session-ID={sid};")
    for part in ("HttpOnly", "SameSite=Lax", "Max-Age=2592000", "Path=/"):
        assert part in cookie
    assert "Secure" not in cookie
    with client(make_app(memory, secure=True)) as c:
        assert "; Secure" in c.get("/chat/whoami").headers["set-cookie"]


def test_known_session_is_kept_forged_or_malformed_gets_a_new_one():
    memory = ChatMemory()
    with client(make_app(memory)) as c:
        first = c.get("/chat/whoami").json()["session_id"]
        assert c.get("/chat/whoami").json()["session_id"] == first  # the cookie jar sends it back
    with client(make_app(memory)) as c:
        assert c.get("/chat/whoami", headers={"X-Session-ID": first}).json()["session_id"] == first
        forged = str(uuid.uuid4())  # well-formed, but this server never issued it
        for bad in (forged, "not-a-uuid", "", "1; DROP", "%00" * 10):
            c.cookies.clear()
            r = c.get("/chat/whoami", headers={"Cookie": f"X-Session-ID={bad}"})
            assert r.status_code == 200
            got = r.json()["session_id"]
            assert got not in (bad, first) and parse_session_id(got) == got
    assert len(memory) >= 6


def test_other_paths_get_no_session():
    memory = ChatMemory()
    with client(make_app(memory)) as c:
        r = c.get("/health")
    assert "set-cookie" not in r.headers and len(memory) == 0


def test_a_header_wins_over_the_cookie_and_new_starts_a_new_session():
    memory = ChatMemory()
    with client(make_app(memory)) as c:
        first = c.get("/chat/whoami").json()["session_id"]
        second = c.get("/chat/whoami", headers={"X-Session-ID": "new"}).json()["session_id"]
        assert second != first and c.cookies.get("X-Session-ID") == second  # the cookie follows
        assert c.get("/chat/whoami", headers={"X-Session-ID": first}).json()["session_id"] == first
        assert c.get("/chat/whoami").json()["session_id"] == first  # reopened: the cookie switched back
