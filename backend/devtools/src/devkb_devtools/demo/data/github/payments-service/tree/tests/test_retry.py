import random

import pytest

from payments.retry import RetriesExhausted, RetryableError, RetryPolicy, call_with_retry, is_retryable_status


def flaky(failures: int, error: RetryableError):
    calls = {"n": 0}

    def fn():
        calls["n"] += 1
        if calls["n"] <= failures:
            raise error
        return "ok"

    return fn, calls


def test_retries_503_until_success():
    fn, calls = flaky(2, RetryableError("HTTP 503", status=503))
    sleeps = []
    assert call_with_retry(fn, RetryPolicy(), sleep=sleeps.append) == "ok"
    assert calls["n"] == 3
    assert len(sleeps) == 2


def test_gives_up_after_max_attempts():
    fn, calls = flaky(10, RetryableError("HTTP 503", status=503))
    with pytest.raises(RetriesExhausted) as info:
        call_with_retry(fn, RetryPolicy(max_attempts=3), sleep=lambda s: None)
    assert info.value.attempts == 3
    assert calls["n"] == 3


def test_backoff_is_capped():
    policy = RetryPolicy(base_delay=1.0, max_delay=2.0)
    assert all(0.0 <= policy.backoff(attempt) <= 2.0 for attempt in range(1, 10))


def test_retry_after_is_honoured_and_capped():
    policy = RetryPolicy(max_delay=5.0)
    assert policy.backoff(1, retry_after=3) == 3
    assert policy.backoff(1, retry_after=120) == 5.0


def test_429_is_retryable():
    assert is_retryable_status(429)
    assert not is_retryable_status(400)


def test_post_without_idempotency_key_is_not_retried():
    # PAY-8 / PAY-13: the first attempt may have created the charge.
    fn, calls = flaky(1, RetryableError("read timeout"))
    with pytest.raises(RetriesExhausted):
        call_with_retry(fn, RetryPolicy(), method="POST", headers={}, sleep=lambda s: None)
    assert calls["n"] == 1


def test_post_with_idempotency_key_is_retried():
    fn, calls = flaky(1, RetryableError("read timeout"))
    headers = {"Idempotency-Key": "2f1c6a0e-5b7d-4f3e-9c61-0d3c1f1b7a11"}
    assert call_with_retry(fn, RetryPolicy(), method="POST", headers=headers, sleep=lambda s: None) == "ok"
    assert calls["n"] == 2


def test_policies_do_not_share_jitter():
    # PAY-25: two workers seeded identically must still be independent from the module RNG.
    random.seed(1234)
    a = RetryPolicy(rng=random.Random(1)).backoff(3)
    b = RetryPolicy(rng=random.Random(2)).backoff(3)
    assert a != b
