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
