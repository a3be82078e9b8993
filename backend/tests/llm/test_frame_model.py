"""The real model fills the question frame (agent/frame/llm.py): llama.cpp's ``llama-server``
(built from PyPI, cached) serves SmolLM2-135M-Instruct on loopback; its output is constrained by
the frame's JSON schema (``response_format: json_schema``), validated with pydantic and
cross-checked against the rules frame and a real store. Nothing is scripted: the 135M model's
choices are whatever it writes; the tests hold the plumbing and the cross-check to account."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from devkb_devtools.testkit.llama_server import LlamaServer, LlmUnavailable, build

pytestmark = [pytest.mark.integration, pytest.mark.real_llm]


@pytest.fixture(scope="module")
def llm(tmp_path_factory) -> Iterator[LlamaServer]:
    try:
        built = build()
    except LlmUnavailable as e:
        pytest.skip(f"real-model tier skipped: {e}")
    with LlamaServer(built, tmp_path_factory.mktemp("llama") / "llama-server.log") as server:
        yield server


def test_the_real_model_fills_the_frame_schema_and_the_cross_check_keeps_only_what_holds(
    llm: LlamaServer, agent_store
) -> None:
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.utils import Secret

    from devkb.agent.frame import extract
    from devkb.agent.frame.llm import ModelFrame, fill, openai_asker
    from devkb.agent.frame.resolve import StoreResolver
    from devkb.agent.question import parse_question

    generator = OpenAIChatGenerator(
        api_key=Secret.from_token("no-key"), model=llm.model, api_base_url=llm.openai_base_url, timeout=120
    )
    asker = openai_asker(generator)
    resolver = StoreResolver(agent_store, {"PAY"})
    questions = [
        "How many bugs in PAY were created in March 2024?",
        "What did Ada Lovelace work on last week?",
        "Which open bugs are assigned to Ada Lovelace?",
    ]
    for q in questions:
        rules = extract(parse_question(q, {"PAY"}), resolver, date(2026, 12, 7))
        raw = asker("Fill the JSON for this question.", q)
        # the schema constrained the model: its text is always a valid frame
        model = ModelFrame.model_validate_json(raw)
        assert model.shape in ModelFrame.model_fields["shape"].annotation.__args__  # type: ignore[union-attr]
        got = fill(rules, asker, resolver, date(2026, 12, 7))
        assert got.error is None, got.error
        # nothing the model said that is not in the question or not known to the store is kept
        for p in got.frame.people:
            assert p.resolved is None or p.resolved in ("Ada Lovelace",) or p in rules.people
        assert set(got.frame.scope.projects) <= {"PAY"}
        # the rules' conditions are never lost to the model
        assert rules.slots() <= got.frame.slots()
        assert got.by in ("rules", "rules+model")
