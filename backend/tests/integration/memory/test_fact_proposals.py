"""Facts proposed from a conversation (``POST /conversations/{id}/facts``) when the language model
cannot help: with none configured the route says so (503, what to do instead); with one configured
but unreachable (a real closed port on loopback) the failure is in the reply and nothing is
proposed. The real model's pass is in ``tests/llm/test_fact_proposals.py``."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from devkb.container import shutdown
from tests.integration.memory.conftest import client_for, memory_container, sign_in

pytestmark = pytest.mark.integration


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed when the block ends: nothing listens there


def conversation_of(client: Any) -> str:
    r = client.post("/ask", json={"question": "Remember that the payments freeze starts on 15 December"})
    assert r.status_code == 200, r.text
    listed = client.get("/conversations").json()
    assert listed, "the conversation was not kept"
    return str(listed[0]["id"])


def test_without_a_model_proposing_facts_says_what_to_do_instead(tmp_path: Any, embedder: Any) -> None:
    c = memory_container(tmp_path, embedder, chat_memory="store", llm_provider="none")
    client = client_for(c)
    try:
        sign_in(client, "bob@acme.example")
        conv = conversation_of(client)
        r = client.post(f"/conversations/{conv}/facts")
        assert r.status_code == 503 and "Remember that" in r.json()["detail"], r.text
        sign_in(client, "carol@acme.example")
        assert client.post(f"/conversations/{conv}/facts").status_code == 404  # not hers
    finally:
        client.__exit__(None, None, None)
        shutdown(c)


def test_an_unreachable_model_is_a_visible_failure_and_proposes_nothing(tmp_path: Any, embedder: Any) -> None:
    c = memory_container(
        tmp_path,
        embedder,
        chat_memory="store",
        llm_provider="openai",
        openai_base_url=f"http://127.0.0.1:{closed_port()}/v1",
    )
    client = client_for(c)
    try:
        sign_in(client, "bob@acme.example")
        conv = conversation_of(client)
        before = client.get("/memories", params={"status": "proposed"}).json()
        r = client.post(f"/conversations/{conv}/facts")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["proposed"] == [] and body["error"], body
        assert "the language model failed" in body["error"]
        assert client.get("/memories", params={"status": "proposed"}).json() == before
    finally:
        client.__exit__(None, None, None)
        shutdown(c)
