import pytest

from payments.idempotency import (
    DEFAULT_TTL,
    IdempotencyConflict,
    IdempotencyStore,
    RequestInProgress,
    run_once,
)

BODY = {"amount": 1999, "currency": "EUR", "source": "tok_visa_4242"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0

    def __call__(self) -> float:
        return self.now


def charge(counter):
    def process(body):
        counter.append(body)
        return 201, {"id": f"pay_{len(counter)}", "amount": body["amount"]}

    return process


def test_repeat_returns_stored_response():
    store, calls = IdempotencyStore(), []
    first = run_once(store, "m_1", "k1", BODY, charge(calls))
    second = run_once(store, "m_1", "k1", BODY, charge(calls))
    assert first == second == (201, {"id": "pay_1", "amount": 1999})
    assert len(calls) == 1


def test_keys_are_scoped_per_merchant():
    store, calls = IdempotencyStore(), []
    run_once(store, "m_1", "k1", BODY, charge(calls))
    run_once(store, "m_2", "k1", BODY, charge(calls))
    assert len(calls) == 2


def test_in_flight_repeat_is_rejected():
    store = IdempotencyStore()
    assert store.begin("m_1", "k1", BODY) is None
    with pytest.raises(RequestInProgress):
        store.begin("m_1", "k1", BODY)


def test_failure_releases_the_key():
    store, calls = IdempotencyStore(), []

    def boom(body):
        raise ConnectionError("meridian unreachable")

    with pytest.raises(ConnectionError):
        run_once(store, "m_1", "k1", BODY, boom)
    run_once(store, "m_1", "k1", BODY, charge(calls))
    assert len(calls) == 1


def test_same_key_different_body_conflicts():
    store = IdempotencyStore()
    run_once(store, "m_1", "k1", BODY, charge([]))
    with pytest.raises(IdempotencyConflict):
        store.begin("m_1", "k1", {**BODY, "amount": 2999})


def test_keys_expire_after_ttl():
    clock, calls = Clock(), []
    store = IdempotencyStore(clock=clock)
    run_once(store, "m_1", "k1", BODY, charge(calls))
    clock.now += DEFAULT_TTL + 1
    run_once(store, "m_1", "k1", BODY, charge(calls))
    assert len(calls) == 2


def test_key_survives_the_48_hour_retry_window():
    # PAY-15: a merchant retried after 30 hours and was charged twice with the old 24h TTL.
    clock, calls = Clock(), []
    store = IdempotencyStore(clock=clock)
    run_once(store, "m_1", "k1", BODY, charge(calls))
    clock.now += 48 * 3600
    run_once(store, "m_1", "k1", BODY, charge(calls))
    assert len(calls) == 1
