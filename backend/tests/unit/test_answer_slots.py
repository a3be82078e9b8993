"""Answer slots: at most ``answer_slots`` questions in the rules path at once, and ``POST /ask``'s
limiter of the same count when no LLM answers."""

from __future__ import annotations

import threading
import time

from devkb.agent.answer import Answer
from devkb.agent.ask_service import AskService


def test_at_most_n_questions_are_answered_by_the_rules_at_once() -> None:
    """``AskService`` lets ``answer_slots`` threads into the rules path at once; the rest wait."""
    service = AskService(planner=None, answer_slots=2)  # type: ignore[arg-type]  # the rules path is replaced
    inside, most = 0, 0
    lock = threading.Lock()

    def rules(*_args: object) -> Answer:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        time.sleep(0.02)
        with lock:
            inside -= 1
        return Answer(answer="a", sources=[], question="q")

    service._ask_rules = rules  # type: ignore[method-assign,assignment]
    threads = [threading.Thread(target=service.ask, args=("q",)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most == 2
    assert inside == 0


class _Service:
    def __init__(self, extractive: bool, slots: int) -> None:
        self.extractive = extractive
        self.answer_slots = slots

    def answers_extractively(self, probe: bool = True) -> bool:
        assert not probe, "the event loop must not wait on a probe of the model's server"
        return self.extractive


def test_ask_waits_for_a_slot_only_when_no_llm_answers() -> None:
    import asyncio

    from devkb.api.routers.ask import _answer_limiter

    async def limiters() -> tuple[object, object, object]:
        extractive = _Service(True, 3)
        first = _answer_limiter(extractive)  # type: ignore[arg-type]
        again = _answer_limiter(extractive)  # type: ignore[arg-type]
        with_llm = _answer_limiter(_Service(False, 3))  # type: ignore[arg-type]
        return first, again, with_llm

    first, again, with_llm = asyncio.run(limiters())
    assert first is not None and first is again  # one limiter per service and event loop
    assert first.total_tokens == 3  # type: ignore[attr-defined]
    assert with_llm is None  # the thread pool's own limiter: an LLM answer mostly waits on the model


def test_the_event_loop_reads_the_last_llm_choice_without_probing() -> None:
    from devkb.agent.ask_service import AskService
    from devkb.agent.providers import LlmProvider
    from devkb.config.settings import Settings

    probes: list[str] = []

    def probe(url: str, model: str) -> tuple[bool, str]:
        probes.append(url)
        return False, "unreachable"

    llm = LlmProvider(Settings(llm_provider="auto"), probe=probe)
    service = AskService(planner=None, runner=object(), llm=llm)  # type: ignore[arg-type]
    assert service.answers_extractively(probe=False) is False  # not probed yet: not assumed extractive
    assert probes == []
    assert (
        service.answers_extractively() is True
    )  # the probe: Ollama unreachable, so auto answers extractively
    assert len(probes) == 1
    assert service.answers_extractively(probe=False) is True  # the last choice, no second probe
    assert len(probes) == 1
