"""``/ask``, ``/ask/stream`` and ``/chat`` on the real app and container (no LLM), over the agent
test corpus and the demo workspace: answers, sessions and their isolation, follow-ups (and a
follow-up with nothing to refer to), a session named in the body refused, and the SSE event
sequence — in-process and from a uvicorn server on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from dependency_injector import providers
from fastapi.testclient import TestClient

from devkb.api.app import create_app
from devkb.config.settings import Settings
from devkb.container import Container
from devkb.errors import StoreUnavailableError
from tests.agent_corpus import COMMIT_ID
from tests.demo_workspace import make_container as demo_container

pytestmark = pytest.mark.integration


def make_container(agent_corpus: Path, tmp: Path, embedder, **settings) -> Container:
    shutil.copy(agent_corpus / "graph.sqlite", tmp / "graph.sqlite")
    c = Container()
    c.settings.override(providers.Object(Settings(data_dir=tmp, llm_provider="none", **settings)))
    c.embedder.override(providers.Object(embedder))
    c.project_keys.override(providers.Object(lambda: {"PAY"}))
    return c


@pytest.fixture
def app(agent_corpus, tmp_path, embedder):
    return create_app(make_container(agent_corpus, tmp_path, embedder), start_background=False)


def events(lines: Iterator[str]) -> list[tuple[str, dict]]:
    out, kind = [], None
    for line in lines:
        if line.startswith("event: "):
            kind = line[len("event: ") :]
        elif line.startswith("data: "):
            out.append((kind, json.loads(line[len("data: ") :])))
    return out


def check_sequence(evs: list[tuple[str, dict]]) -> None:
    kinds = [k for k, _ in evs]
    assert kinds[0] == "status" and evs[0][1] == {"stage": "retrieving"}
    first_token = kinds.index("token")
    assert "tool_call" in kinds[:first_token]
    assert evs[first_token - 1] == ("status", {"stage": "generating"})
    assert kinds[-2:] == ["citations", "done"]
    assert set(kinds) == {"status", "tool_call", "token", "citations", "done"}
    done = evs[-1][1]
    assert evs[-2][1]["sources"] == done["sources"]
    assert "".join(p["text"] for k, p in evs if k == "token").strip() == done["answer"]
    assert [p for k, p in evs if k == "tool_call"] == done["tool_calls"]


def test_ask_answers_and_remembers_per_session(app):
    with TestClient(app) as a, TestClient(app) as b:
        r = a.post("/ask", json={"question": "What is the status of PAY-2?"})
        assert r.status_code == 200, r.text
        body = r.json()
        sid = body["session_id"]
        assert r.headers["x-session-id"] == sid and a.cookies.get("X-Session-ID") == sid
        assert body["mode"] == "extractive" and body["provider"] == "none"
        assert body["sources"][0]["document_id"] == "jira:PAY-2" and "[1]" in body["answer"]
        assert [t["tool"] for t in body["tool_calls"]] == ["GraphQuery", "FilterDocs"]

        b.post("/ask", json={"question": "How are refund webhooks retried?"})
        ha, hb = a.get("/chat/history").json(), b.get("/chat/history").json()
        assert ha["session_id"] == sid and hb["session_id"] != sid
        assert [m["role"] for m in ha["messages"]] == ["user", "assistant"]
        assert ha["messages"][0]["content"] == "What is the status of PAY-2?"
        assert ha["messages"][1]["sources"][0]["document_id"] == "jira:PAY-2"
        assert "PAY-2" not in json.dumps(hb["messages"][0]) and hb["messages"][0]["content"].startswith(
            "How are"
        )

        assert a.post("/chat/clear").json() == {"session_id": sid, "cleared": 2}
        assert a.get("/chat/history").json()["messages"] == []
        assert len(b.get("/chat/history").json()["messages"]) == 2


def test_follow_up_carries_over_the_previous_documents(app):
    with TestClient(app) as c:
        c.post("/ask", json={"question": "What is PAY-1 about?"})
        r = c.post("/ask", json={"question": "Which commits touched it?"}).json()
        assert r["tool_calls"][0]["arguments"]["document_ids"] == ["jira:PAY-1"]
        assert r["sources"][0]["document_id"] == COMMIT_ID


def test_forged_or_malformed_cookie_gets_a_new_session(app):
    with TestClient(app) as c:
        for bad in (str(uuid.uuid4()), "garbage", "' OR 1=1"):
            c.cookies.clear()
            r = c.post("/ask", json={"question": "PAY-1"}, headers={"Cookie": f"X-Session-ID={bad}"})
            assert r.status_code == 200 and r.json()["session_id"] not in (bad,)
            assert (
                c.get("/chat/history", headers={"Cookie": f"X-Session-ID={r.json()['session_id']}"}).json()[
                    "messages"
                ][0]["content"]
                == "PAY-1"
            )


def test_stream_sends_the_event_sequence(app):
    with TestClient(app) as c:
        with c.stream("POST", "/ask/stream", json={"question": "Which commits reference PAY-1?"}) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            sid = r.headers["x-session-id"]
            evs = events(r.iter_lines())
        check_sequence(evs)
        done = evs[-1][1]
        assert done["session_id"] == sid and done["sources"][0]["document_id"] == COMMIT_ID
        assert [m["role"] for m in c.get("/chat/history").json()["messages"]] == ["user", "assistant"]
        assert c.post("/ask/stream", json={"question": "x" * 5000}).status_code == 422


def test_stream_reports_errors_as_an_event(agent_corpus, tmp_path, embedder):
    class Broken:
        def ask(self, *a, **kw):
            kw["on_event"]("status", {"stage": "retrieving"})
            raise StoreUnavailableError("the store is not reachable")

    container = make_container(agent_corpus, tmp_path, embedder)
    container.ask.override(providers.Object(Broken()))
    with (
        TestClient(create_app(container, start_background=False)) as c,
        c.stream("POST", "/ask/stream", json={"question": "anything"}) as r,
    ):
        evs = events(r.iter_lines())
    assert evs == [("status", {"stage": "retrieving"}), ("error", {"detail": "the store is not reachable"})]


@pytest.fixture
def server(agent_corpus, tmp_path, embedder):
    yield from serve(create_app(make_container(agent_corpus, tmp_path, embedder), start_background=False))


@pytest.fixture
def demo_server(demo_workspace, tmp_path, embedder):
    """``devkb serve``'s app on a copy of the indexed demo workspace, from uvicorn on loopback."""
    data = demo_workspace.copy_data(tmp_path / "data")
    container = demo_container(data, demo_workspace.sources_file, embedder)
    yield from serve(create_app(container, start_background=False))


def serve(app) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def test_stream_over_http_from_uvicorn(server):
    with httpx.Client(base_url=server, timeout=60) as c:
        with c.stream(
            "POST",
            "/ask/stream",
            json={"question": "How are refund webhooks retried?", "sources": ["GitHub"]},
        ) as r:
            assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
            evs = events(r.iter_lines())
        check_sequence(evs)
        assert {s["type"] for s in evs[-1][1]["sources"]} == {"GITHUB"}
        # the session cookie came back and the follow-up sees the history
        history = c.get("/chat/history").json()
        assert history["session_id"] == evs[-1][1]["session_id"] and len(history["messages"]) == 2
        assert c.get("/health").json()["llm"] == {"ok": True, "detail": "none: extractive answers"}


def test_graph_search_puts_the_exact_issue_first(app):
    """Searching "PAY-1" (any case) opens the issue PAY-1, not a commit whose title mentions it."""
    with TestClient(app) as c:
        for q in ("PAY-1", "pay-1", " PAY-1 "):
            nodes = c.get("/graph/search", params={"q": q}).json()["nodes"]
            assert nodes[0]["id"] == "jira:PAY-1", (q, [n["id"] for n in nodes])
            assert len(nodes) > 1  # the commit, pull request and pages that mention it follow


def test_feedback_is_stored_with_its_question_and_bad_votes_are_refused(app, tmp_path):
    with TestClient(app) as c:
        r = c.post(
            "/feedback",
            json={
                "question": "What is PAY-1?",
                "answer": "Refunds [1].",
                "rating": "down",
                "document_ids": ["jira:PAY-1"],
            },
        )
        assert r.status_code == 201 and r.json()["stored"] is True
        assert c.post("/feedback", json={"question": "q", "answer": "a", "rating": "meh"}).status_code == 422
        assert c.post("/feedback", json={"question": "", "answer": "a", "rating": "up"}).status_code == 422
        data_dir = app.state.container.settings().data_dir
    lines = (data_dir / "feedback.jsonl").read_text().splitlines()
    assert len(lines) == 1
    vote = json.loads(lines[0])
    assert (
        vote["rating"] == "down"
        and vote["question"] == "What is PAY-1?"
        and vote["document_ids"] == ["jira:PAY-1"]
    )


UNRESOLVED = ("and who worked on it?", "what is its status?", "when did it change?")


def ask_over_http(c: httpx.Client, question: str, sid: str | None = None) -> httpx.Response:
    """``POST /ask`` with only the ``X-Session-ID`` header naming the session (no cookie)."""
    c.cookies.clear()
    r = c.post("/ask", json={"question": question}, headers={"X-Session-ID": sid or "new"})
    assert r.status_code == 200, r.text
    return r


def test_a_session_named_in_the_body_is_refused_and_names_the_field(demo_server):
    """A script sending ``session_id`` in the body gets a 422 saying where a session is named —
    never a silently new session; the header names it."""
    with httpx.Client(base_url=demo_server, timeout=120) as c:
        first = ask_over_http(c, "What is PAY-7 about?")
        sid = first.json()["session_id"]
        assert first.headers["x-session-id"] == sid
        for path in ("/ask", "/ask/stream"):
            c.cookies.clear()
            r = c.post(path, json={"question": "and who worked on it?", "session_id": sid})
            assert r.status_code == 422 and r.headers["content-type"].startswith("application/json")
            detail = r.json()["detail"]
            assert detail.startswith("session_id: unknown field") and "X-Session-ID" in detail, detail
        c.cookies.clear()
        r = c.post("/ask", json={"question": "What is PAY-7 about?", "sourcess": ["jira"]})
        assert r.status_code == 422 and r.json()["detail"].startswith("sourcess: unknown field"), r.text
        # nothing refused was remembered: the session holds its one question and answer
        history = c.get("/chat/history", headers={"X-Session-ID": sid}).json()
        assert [m["content"] for m in history["messages"] if m["role"] == "user"] == ["What is PAY-7 about?"]
        schema = c.get("/openapi.json").json()["components"]["schemas"]["AskRequest"]
        assert schema["additionalProperties"] is False and "X-Session-ID" in schema["description"]


def test_a_follow_up_resolves_through_the_session_header(demo_server):
    with httpx.Client(base_url=demo_server, timeout=120) as c:
        sid = ask_over_http(c, "What is PAY-7 about?").json()["session_id"]
        body = ask_over_http(c, "and who worked on it?", sid).json()
        assert body["session_id"] == sid and body["status"] == "answered", body
        assert body["tool_calls"][0]["arguments"]["document_ids"] == ["jira:PAY-7"]
        assert body["answer"].startswith("PAY-7: assignee Daniel Okafor; reporter Priya Raman")


@pytest.mark.parametrize("question", UNRESOLVED)
def test_a_follow_up_with_nothing_to_refer_to_asks_which_document_is_meant(demo_server, question):
    """No session, no earlier turn: "it" names nothing. The answer says so and asks which issue,
    page or document is meant — no tool runs, no source is cited, nothing is rated as an answer."""
    with httpx.Client(base_url=demo_server, timeout=120) as c:
        body = ask_over_http(c, question).json()
        assert body["status"] == "not_found" and body["sources"] == [] and body["tool_calls"] == [], body
        assert "refers to something said earlier" in body["answer"]
        assert "Which one do you mean?" in body["answer"]
        assert "nothing earlier names a document" in body["confidence"]["reason"]
        # streamed the same way
        c.cookies.clear()
        with c.stream("POST", "/ask/stream", json={"question": question}) as r:
            evs = events(r.iter_lines())
        assert [k for k, _ in evs][-2:] == ["citations", "done"] and evs[-1][1]["answer"] == body["answer"]
        # a question back is no knowledge gap: the sources were never asked
        assert c.get("/admin/gaps").json()["total"] == 0
        ask_over_http(c, "What is our parental leave policy?")  # a real gap, for contrast
        assert c.get("/admin/gaps").json()["total"] == 1


def test_it_in_a_question_that_names_its_own_topic_is_answered_as_usual(demo_server):
    with httpx.Client(base_url=demo_server, timeout=120) as c:
        for question in (
            "How do I configure the Meridian client so it retries in production?",
            "how do I configure it for production?",
            "Is it possible to replay parked webhook deliveries?",
        ):
            body = ask_over_http(c, question).json()
            assert "refers to something said earlier" not in body["answer"], (question, body)
            assert body["tool_calls"] and body["sources"], (question, body)
