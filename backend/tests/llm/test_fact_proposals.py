"""Facts proposed from a conversation by the real model (SmolLM2-135M through llama.cpp's server,
its output constrained to the JSON schema): one pass over what bob said, and only what his own
words hold is proposed — as his private, *proposed* memories, which he accepts by verifying.
Whatever the 135M model writes, nothing it invents is stored: each proposal's words are bob's,
each rejection says why, and a failure is in the reply."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from devkb.container import shutdown
from devkb.memory.proposals import ungrounded
from devkb.store.shared_state import ConversationMessage
from devkb_devtools.testkit.llama_server import LlamaServer, LlmUnavailable, build
from tests.integration.memory.conftest import client_for, memory_container, sign_in

pytestmark = [pytest.mark.integration, pytest.mark.real_llm]

SAID = [
    "Remember that the payments freeze starts on 15 December.",
    "We moved CI from Jenkins to GitHub Actions in November.",
    "The staging database is restored from backup every Sunday night.",
]


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    try:
        built = build()
    except LlmUnavailable as e:
        pytest.skip(f"real-model tier skipped: {e}")
    with LlamaServer(built, tmp_path_factory.mktemp("llama") / "llama-server.log") as server:
        yield server


def test_the_model_proposes_only_what_bob_said_as_his_proposed_memories(
    llm: LlamaServer, tmp_path: Any, embedder: Any
) -> None:
    c = memory_container(
        tmp_path,
        embedder,
        chat_memory="store",
        llm_provider="openai",
        openai_base_url=llm.openai_base_url,
        openai_model=llm.model,
        llm_max_tokens=120,
    )
    client = client_for(c)
    try:
        # bob's conversation as the chat keeps it (his lines and devkb's answers), written through
        # the conversation store: only the model's pass is timed by this test, not three answers
        state, conv, now = c.shared_state(), "conv-bob-facts", time.time()
        state.create_conversation(conv, "bob@acme.example", "Team facts", now)
        for line in SAID:
            stamp = datetime.now(UTC).isoformat()
            state.append_message(conv, ConversationMessage("user", line, stamp), now, keep_last=100)
            reply = "The knowledge base does not say. Deploys happen on Tuesdays."  # never proposed
            state.append_message(conv, ConversationMessage("assistant", reply, stamp), now, keep_last=100)
        sign_in(client, "bob@acme.example")
        assert any(x["id"] == conv for x in client.get("/conversations").json())
        before = {m["id"] for m in client.get("/memories").json()}

        r = client.post(f"/conversations/{conv}/facts")
        assert r.status_code == 200, r.text
        body = r.json()
        print(
            "proposed:",
            [m["text"] for m in body["proposed"]],
            "rejected:",
            body["rejected"],
            "error:",
            body["error"],
        )
        # SmolLM2 copies bob's sentences when asked to (it wrote all three in every trial run);
        # a failure would be in body["error"], and is a failure here
        assert body["error"] is None, body
        assert len(body["proposed"]) >= 2, body
        said = "\n".join(SAID)
        for m in body["proposed"]:
            assert ungrounded(m["text"], said) is None, m["text"]
            assert "Tuesdays" not in m["text"]  # devkb's own answers are not bob's facts
            assert (m["scope"], m["status"], m["owner"]) == ("private", "proposed", "bob@acme.example")
        for rejected in body["rejected"]:
            assert rejected["reason"], rejected
        mine = client.get("/memories").json()
        new = [m for m in mine if m["id"] not in before]
        assert {m["id"] for m in new} == {m["id"] for m in body["proposed"]}  # nothing else written

        # bob accepts one: it is his current memory, and nobody else sees it
        if body["proposed"]:
            first = body["proposed"][0]["id"]
            assert client.post(f"/memories/{first}/verify").json()["status"] == "verified"
            sign_in(client, "carol@acme.example")
            assert client.get(f"/memories/{first}").status_code == 404
            assert client.post(f"/conversations/{conv}/facts").status_code == 404
    finally:
        client.__exit__(None, None, None)
        shutdown(c)
