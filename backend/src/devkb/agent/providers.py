"""Which chat generator answers: ``DEVKB_LLM_PROVIDER`` = ``ollama`` | ``openai`` | ``none`` |
``auto`` (default: Ollama when it answers ``GET /api/tags`` within a second and has the
configured model, otherwise no LLM).

``auto`` is probed again after ``probe_ttl`` seconds, so starting Ollama after devkb switches
answers to the LLM without a restart. Generators are created on first use, never at import.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from devkb.config.settings import Settings

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 1.0


@dataclass(frozen=True)
class LlmChoice:
    provider: str  # ollama | openai | none
    generator: Any | None  # a Haystack chat generator that supports tools, or None
    ok: bool
    detail: str
    # ask the final answer for token log-probabilities (the openai provider; Ollama's generator
    # cannot pass the flag)
    logprobs: bool = False


def probe_ollama(url: str, model: str, timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    """``(usable, detail)``: is an Ollama server at ``url`` serving ``model``?"""
    try:
        r = httpx.get(url.rstrip("/") + "/api/tags", timeout=timeout)
        r.raise_for_status()
        names = {str(m.get("name") or m.get("model") or "") for m in r.json().get("models", [])}
    except (httpx.HTTPError, ValueError, AttributeError) as e:
        return False, f"Ollama not reachable at {url}: {type(e).__name__}"
    wanted = {model, f"{model}:latest"} if ":" not in model else {model}
    if not names & wanted:
        return False, f"Ollama at {url} has no model {model!r} (ollama pull {model})"
    return True, f"ollama {model} at {url}"


class LlmProvider:
    def __init__(
        self,
        settings: Settings,
        probe: Callable[[str, str], tuple[bool, str]] = probe_ollama,
        probe_ttl: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.probe = probe
        self.probe_ttl = probe_ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._cached: tuple[float, LlmChoice] | None = None
        self._generators: dict[str, Any] = {}

    def current(self) -> LlmChoice:
        with self._lock:
            now = self.clock()
            if self._cached is not None and (now - self._cached[0] < self.probe_ttl):
                return self._cached[1]
            choice = self._choose()
            self._cached = (now, choice)
            return choice

    def last_choice(self) -> LlmChoice | None:
        """The choice made last, however old, without probing or waiting for a probe (None before
        the first): for the event loop, which must not block on a network probe."""
        cached = self._cached
        return cached[1] if cached is not None else None

    def status(self) -> tuple[bool, str]:
        """For ``GET /health``: ``(ok, detail)``."""
        c = self.current()
        return c.ok, c.detail

    def invalidate(self) -> None:
        with self._lock:
            self._cached = None

    # -- internals --------------------------------------------------------------------------
    def _choose(self) -> LlmChoice:
        s = self.settings
        if s.llm_provider == "none":
            return LlmChoice("none", None, True, "none: extractive answers")
        if s.llm_provider == "openai":
            if s.openai_api_key is None and s.openai_base_url is None:
                return LlmChoice(
                    "none", None, False, "openai: DEVKB_OPENAI_API_KEY is not set; extractive answers"
                )
            where = f" at {s.openai_base_url}" if s.openai_base_url else ""
            return LlmChoice(
                "openai", self._generator("openai"), True, f"openai {s.openai_model}{where}", s.llm_logprobs
            )
        ok, detail = self.probe(s.ollama_url, s.ollama_model)
        if s.llm_provider == "ollama":
            # configured explicitly: use it even when the probe fails (the answer falls back per question)
            return LlmChoice("ollama", self._generator("ollama"), ok, detail)
        if ok:
            return LlmChoice("ollama", self._generator("ollama"), True, f"auto: {detail}")
        return LlmChoice("none", None, True, f"auto: {detail}; extractive answers")

    def _generator(self, provider: str) -> Any:
        gen = self._generators.get(provider)
        if gen is None:
            gen = self._generators[provider] = build_generator(self.settings, provider)
        return gen


def build_generator(settings: Settings, provider: str) -> Any:
    if provider == "ollama":
        from haystack_integrations.components.generators.ollama import OllamaChatGenerator

        return OllamaChatGenerator(
            model=settings.ollama_model,
            url=settings.ollama_url,
            timeout=120,
            # deterministic, and room for several tool results (Ollama's default context is small)
            generation_kwargs={"temperature": 0, "num_ctx": 8192, "num_predict": settings.llm_max_tokens},
        )
    if provider == "openai":
        from haystack.components.generators.chat import OpenAIChatGenerator
        from haystack.utils import Secret

        # a local OpenAI-compatible server (llama.cpp, vLLM, LM Studio) usually wants no key
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "no-key"
        return OpenAIChatGenerator(
            api_key=Secret.from_token(key),
            model=settings.openai_model,
            api_base_url=settings.openai_base_url,
            timeout=120,
            generation_kwargs={"temperature": 0, "max_tokens": settings.llm_max_tokens},
        )
    raise ValueError(f"unknown LLM provider {provider!r}")


def frame_asker(llm: LlmProvider) -> Callable[[], Callable[[str, str], str] | None]:
    """For the planner: the configured model's way to fill the question frame (agent/frame/llm.py),
    looked up per question (None while no model is chosen: the rules frame alone)."""
    from devkb.agent.frame.llm import ollama_asker, openai_asker

    askers: dict[str, Callable[[str, str], str]] = {}

    def current() -> Callable[[str, str], str] | None:
        choice = llm.last_choice()
        if choice is None or choice.generator is None or not llm.settings.llm_frame:
            return None
        if choice.provider not in askers:
            s = llm.settings
            askers[choice.provider] = (
                ollama_asker(s.ollama_url, s.ollama_model)
                if choice.provider == "ollama"
                else openai_asker(choice.generator)
            )
        return askers[choice.provider]

    return current


def json_asker(llm: LlmProvider) -> Callable[[], Callable[[str, str, dict[str, Any]], str] | None]:
    """The configured model asked for JSON that follows a schema (``ask(instructions, text,
    schema) -> JSON text``; llama.cpp/OpenAI ``response_format``, Ollama ``format``), or None when
    no model is configured — for one-pass jobs such as facts proposed from a conversation."""

    def current() -> Callable[[str, str, dict[str, Any]], str] | None:
        choice = llm.current()
        if choice.generator is None:
            return None
        if choice.provider == "ollama":
            s = llm.settings

            def ask_ollama(instructions: str, text: str, schema: dict[str, Any]) -> str:
                r = httpx.post(
                    s.ollama_url.rstrip("/") + "/api/chat",
                    json={
                        "model": s.ollama_model,
                        "stream": False,
                        "format": schema,
                        "options": {"temperature": 0},
                        "messages": [
                            {"role": "system", "content": instructions},
                            {"role": "user", "content": text},
                        ],
                    },
                    timeout=120,
                )
                r.raise_for_status()
                return str(r.json()["message"]["content"])

            return ask_ollama
        generator = choice.generator

        def ask_openai(instructions: str, text: str, schema: dict[str, Any]) -> str:
            from haystack.dataclasses import ChatMessage

            out = generator.run(
                messages=[ChatMessage.from_system(instructions), ChatMessage.from_user(text)],
                generation_kwargs={
                    "response_format": {
                        "type": "json_schema",
                        "json_schema": {"name": "reply", "schema": schema},
                    },
                    "max_tokens": 600,
                    "temperature": 0,
                },
            )
            return str(out["replies"][0].text or "")

        return ask_openai

    return current
