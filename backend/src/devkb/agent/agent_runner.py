"""The LLM path: a Haystack ``Agent`` with a tool-capable chat generator and the four tools bound
to this question's ``Scope``; it chooses and chains the tools itself, within a step limit.

The final text is always grounded: when the model answered without calling any tool, or ran
out of steps before answering, the rule planner retrieves and the model answers once more from
those documents only.

The answer comes with the final reply's token log-probabilities when asked (``logprobs``, the
``openai`` provider) and the server returned them — Haystack puts them in the reply's ``meta`` —
for the answer's confidence (``confidence.token_signal``). Only the grounded generation (no tools)
asks: the agent's turns offer tools and stream, and llama.cpp's server refuses log-probabilities
with tools and streaming together (HTTP 400), so an answer the agent wrote itself carries none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from haystack.components.agents import Agent
from haystack.dataclasses import ChatMessage, ChatRole, StreamingChunk

from devkb.agent.answer import HistoryTurn
from devkb.agent.evidence import Scope
from devkb.agent.planner import Planner
from devkb.agent.prompts import REWRITE_PROMPT, SYSTEM_PROMPT, grounded_request, rewrite_request
from devkb.agent.tools import Toolbox
from devkb.agent.tools.rendering import render_documents

log = logging.getLogger(__name__)

TokenSink = Callable[[str], None]
MAX_REWRITE_CHARS = 1000
LOGPROBS = {"logprobs": True}  # OpenAI chat completions: the reply's token log-probabilities


@dataclass(frozen=True)
class Generated:
    """The model's final answer text and its tokens' ``(text, log-probability)``, ``None`` when
    the provider returned no log-probabilities."""

    text: str
    tokens: list[tuple[str, float]] | None = None


def token_logprobs(meta: Mapping[str, Any] | None) -> list[tuple[str, float]] | None:
    """The reply's tokens and log-probabilities from a Haystack reply's ``meta["logprobs"]``: one
    ``{"content": [{"token", "logprob", …}, …]}`` when not streamed, a list of them (one per chunk)
    when streamed; entries ``{"token", "logprob"}`` directly are read too. ``None`` when absent."""
    raw = (meta or {}).get("logprobs")
    parts = raw if isinstance(raw, list) else [raw] if raw else []
    out: list[tuple[str, float]] = []
    for part in parts:
        entries = part.get("content") if isinstance(part, dict) and "content" in part else [part]
        for e in entries or []:
            if isinstance(e, dict) and isinstance(e.get("token"), str) and e.get("logprob") is not None:
                out.append((e["token"], float(e["logprob"])))
    return out or None


class AgentRunner:
    def __init__(self, toolbox: Toolbox, planner: Planner, max_steps: int = 6) -> None:
        self.toolbox = toolbox
        self.planner = planner
        self.max_steps = max_steps

    def rewrite(self, generator: Any, history: Sequence[HistoryTurn], question: str) -> str:
        """A follow-up question made standalone from the conversation (unchanged without history)."""
        if not any(t.role == "user" for t in history):
            return question
        replies = generator.run(
            messages=[
                ChatMessage.from_system(REWRITE_PROMPT),
                ChatMessage.from_user(rewrite_request(history, question)),
            ]
        )["replies"]
        text = (replies[0].text or "").strip() if replies else ""
        text = text.splitlines()[0].strip().strip('"').strip() if text else ""
        return text[:MAX_REWRITE_CHARS] if text else question

    def answer(
        self,
        generator: Any,
        scope: Scope,
        question: str,
        on_token: TokenSink | None = None,
        logprobs: bool = False,
    ) -> Generated:
        """Run the agent; return its final answer (citations numbered as ``scope`` numbers them)."""
        agent = Agent(
            chat_generator=generator,
            tools=self.toolbox.bind(scope),
            system_prompt=SYSTEM_PROMPT,
            max_agent_steps=self.max_steps,
            raise_on_tool_invocation_failure=False,
            tool_concurrency_limit=1,  # the tools share the question's selection: keep the model's order
        )
        callback = _streaming_callback(on_token)
        result = agent.run(messages=[ChatMessage.from_user(question)], streaming_callback=callback)
        last = result.get("last_message")
        final = last if last is not None and last.is_from(ChatRole.ASSISTANT) else None
        text = (final.text or "").strip() if final is not None else ""
        if not scope.calls:
            log.info("the model called no tool; retrieving by rules and answering from that")
            self.planner.run(scope, question)
            return self.grounded(generator, scope, question, on_token, logprobs)
        if not text:  # out of steps, or an empty reply
            return self.grounded(generator, scope, question, on_token, logprobs)
        return Generated(text, token_logprobs(final.meta) if final is not None else None)

    def grounded(
        self,
        generator: Any,
        scope: Scope,
        question: str,
        on_token: TokenSink | None = None,
        logprobs: bool = False,
    ) -> Generated:
        """One generation from the selected documents only (no tools)."""
        documents = render_documents(scope, scope.selection, "Documents")
        replies = generator.run(
            messages=[
                ChatMessage.from_system(SYSTEM_PROMPT),
                ChatMessage.from_user(grounded_request(question, documents)),
            ],
            streaming_callback=_streaming_callback(on_token),
            **({"generation_kwargs": LOGPROBS} if logprobs else {}),
        )["replies"]
        if not replies:
            return Generated("")
        return Generated((replies[0].text or "").strip(), token_logprobs(replies[0].meta))


def _streaming_callback(on_token: TokenSink | None) -> Callable[[StreamingChunk], None] | None:
    if on_token is None:
        return None

    def on_chunk(chunk: StreamingChunk) -> None:
        if chunk.tool_call_result is not None or chunk.tool_calls or chunk.reasoning:
            return
        if chunk.content:
            on_token(chunk.content)

    return on_chunk
