"""Conversations told to devkb over MCP (``remember_conversation``) and asked about over MCP
(``ask``): a slice of the conversation evaluation on a real ``devkb serve`` (real Fluid comment
threads, questions written from them), re-telling writes nothing, bad input is a tool error; and a
person's conversation never reaches anyone else (``/ask`` and MCP ``recall`` with each person's
token)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from devkb_devtools.bench.server_process import DevkbServer
from devkb_devtools.evaluation import conversation_eval as ev
from tests.integration.memory.conftest import sign_in
from tests.integration.memory.test_memory_leak_matrix import mcp

pytestmark = pytest.mark.integration

SLICE = ("t01", "t02", "t04", "t07", "t13", "t18", "t22", "t23")  # facts, who, when, not said
BOB, CAROL = "bob@acme.example", "carol@acme.example"


def test_conversation_told_and_asked_over_mcp(tmp_path: Path) -> None:
    spec = json.loads(ev.PARTS["tuning"].read_text(encoding="utf-8"))
    sessions = ev.sessions_of(spec["conversation"]["issues"])
    questions = [q for q in spec["questions"] if q["id"] in SLICE]
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources: []\n", encoding="utf-8")
    env = {"DEVKB_SOURCES_FILE": str(sources), "DEVKB_API_KEY": ev.KEY}

    async def go(url: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {ev.KEY}"}
        async with (
            httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120, read=600)) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            args = {"title": spec["conversation"]["title"], "sessions": sessions}
            first = ev._payload(await session.call_tool("remember_conversation", args))
            again = ev._payload(await session.call_tool("remember_conversation", args))
            bad = await session.call_tool(
                "remember_conversation",
                {"sessions": [{"date": "soon", "turns": [{"speaker": "a", "text": "b"}]}]},
            )
            empty = await session.call_tool("remember_conversation", {"sessions": []})
            answers = {
                q["id"]: ev._payload(await session.call_tool("ask", {"question": q["question"]}))
                for q in questions
            }
            return {"first": first, "again": again, "bad": bad, "empty": empty, "answers": answers}

    with DevkbServer(tmp_path / "data", env=env) as server:
        out = anyio.run(go, server.base_url + "/mcp")
    assert out["first"]["written"] == out["first"]["turns"] == sum(len(s["turns"]) for s in sessions)
    assert out["again"]["written"] == 0 and out["again"]["unchanged"] == out["first"]["turns"]
    assert out["again"]["conversation"] == out["first"]["conversation"]
    assert out["bad"].isError and "date" in out["bad"].content[0].text
    assert out["empty"].isError
    right = {q["id"] for q in questions if ev.right(q, out["answers"][q["id"]])}
    assert len(right) >= len(questions) - 1, {
        i: out["answers"][i]["answer"][:200] for i in SLICE if i not in right
    }
    cited = out["answers"]["t02"]["sources"]
    assert cited and cited[0]["type"] == "MEMORY" and "Justin Obara on 2017-11-01" in cited[0]["snippet"]


def test_a_persons_conversation_reaches_no_one_else(memory_world: Any) -> None:
    c, client, _ = memory_world
    sign_in(client, BOB)
    token = client.post("/auth/tokens", json={"name": "conversations"}).json()["token"]
    sessions = [
        {
            "date": "2026-03-02",
            "turns": [
                {"speaker": "Bob", "text": "The quarkspill migration window is Sunday at 04:00."},
                {"speaker": "Dana", "text": "Then the quarkspill rollback owner is Priyanka."},
            ],
        },
    ]
    told = mcp(client, token, "remember_conversation", {"sessions": sessions, "title": "ops sync"})
    assert told.status_code == 200 and '"written": 2' in told.text.replace('\\"', '"'), told.text
    team = mcp(client, token, "remember_conversation", {"sessions": sessions, "scope": "team"})
    assert "admin" in team.text  # a member stores a conversation for themselves only
    question = "Who did Dana say owns the quarkspill rollback?"
    r = client.post("/ask", json={"question": question})
    assert (
        r.status_code == 200
        and "Priyanka" in r.json()["answer"]
        and "Dana said on 2 March 2026 (2026-03-02)" in r.json()["answer"]
    )
    for other in (CAROL, "alice@acme.example"):  # a member, and an admin
        sign_in(client, other)
        r = client.post("/ask", json={"question": question})
        assert r.status_code == 200 and "Priyanka" not in r.text and "quarkspill rollback owner" not in r.text
        other_token = client.post("/auth/tokens", json={"name": "c"}).json()["token"]
        assert "quarkspill" not in mcp(client, other_token, "recall", {"query": "quarkspill rollback"}).text


def test_rest_remember_conversation(memory_world: Any) -> None:
    """``POST /memories/conversations``: the same as MCP's tool, with the API's errors."""
    _, client, _ = memory_world
    sign_in(client, CAROL)
    body = {
        "title": "design review",
        "sessions": [
            {
                "date": "2026-04-01T15:00:00+02:00",
                "turns": [{"speaker": "Eve", "text": "Zorbleflux needs a cache."}],
            }
        ],
    }
    r = client.post("/memories/conversations", json=body)
    assert r.status_code == 201 and r.json()["written"] == 1, r.text
    again = client.post("/memories/conversations", json=body)
    assert again.status_code == 201 and again.json()["written"] == 0 and again.json()["unchanged"] == 1
    assert client.post("/memories/conversations", json={**body, "scope": "team"}).status_code == 403
    bad = client.post(
        "/memories/conversations",
        json={"sessions": [{"date": "2026-13-45", "turns": [{"speaker": "a", "text": "b"}]}]},
    )
    assert bad.status_code == 422 and "date" in bad.text
    assert client.post("/memories/conversations", json={"sessions": []}).status_code == 422
    r = client.post("/ask", json={"question": "What did Eve say zorbleflux needs?"})
    assert "Eve said on 1 April 2026 (2026-04-01)" in r.json()["answer"] and "cache" in r.json()["answer"]
    chat = {  # a session dated as chat datasets write it, a turn saying "yesterday"
        "sessions": [
            {
                "date": "1:56 pm on 8 May, 2023",
                "turns": [{"role": "Eve", "content": "I went to the quokka meetup yesterday."}],
            }
        ]
    }
    assert client.post("/memories/conversations", json=chat).status_code == 201
    r = client.post("/ask", json={"question": "When did Eve go to the quokka meetup?"})
    assert "yesterday: 7 May 2023" in r.json()["answer"], r.json()["answer"]
    client.cookies.clear()
    assert client.post("/memories/conversations", json=body).status_code == 401


def test_a_hostile_body_is_refused_before_it_is_read(memory_world: Any) -> None:
    """Over 32 MB to the conversation endpoints: 413 by its Content-Length, nothing parsed."""
    _, client, _ = memory_world
    sign_in(client, CAROL)
    huge = (
        b'{"sessions": [{"date": "2026-01-01", "turns": [{"speaker": "a", "text": "'
        + b"x" * 33_000_000
        + b'"}]}]}'
    )
    r = client.post("/memories/conversations", content=huge, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over" in r.json()["detail"]
    r = client.post(
        "/mcp",
        content=huge,
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
    )
    assert r.status_code == 413
    assert client.get("/health").status_code == 200
