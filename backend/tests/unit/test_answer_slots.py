"""``AnswerSlots``: at most n threads inside at once, re-entrant within a thread."""

from __future__ import annotations

import threading
import time

from devkb.agent.ask_service import AnswerSlots


def test_at_most_n_threads_are_inside_at_once() -> None:
    slots = AnswerSlots(2)
    inside, most = 0, 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        with slots():
            with lock:
                inside += 1
                most = max(most, inside)
            time.sleep(0.02)
            with lock:
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most == 2
    assert inside == 0


def test_a_thread_holding_a_slot_enters_again_without_waiting() -> None:
    slots = AnswerSlots(1)
    done = threading.Event()

    def nested() -> None:
        with slots(), slots(), slots():
            pass
        with slots():  # released fully: the one slot is free again
            done.set()

    t = threading.Thread(target=nested)
    t.start()
    t.join(5)
    assert done.is_set(), "a nested slot waited for itself"
    with slots():  # and another thread gets it afterwards
        pass


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
