"""LLM-mode confidence: the model's token log-probabilities combined with the evidence
(``agent/confidence.py``), and the log-probabilities read off Haystack's reply ``meta`` in both
shapes the OpenAI chat generator gives (``agent/agent_runner.py``)."""

from __future__ import annotations

import math

import pytest

from devkb.agent.agent_runner import token_logprobs
from devkb.agent.answer import Confidence
from devkb.agent.confidence import TOKEN_WEIGHT, combine, token_signal, with_tokens

LN = math.log


def test_the_signal_leaves_out_citation_markers_and_whitespace() -> None:
    tokens = [("Retries", LN(0.9)), (" use", LN(0.8)), (" [", LN(0.01)), ("3", LN(0.01)), ("]", LN(0.01))]
    tokens += [(" ", LN(0.02)), ("back", LN(0.4)), ("off", LN(0.9)), (" [1, 2]", LN(0.05)), (".", LN(0.9))]
    s = token_signal(tokens)
    assert s is not None
    assert s.tokens == 5  # Retries, use, back, off, .
    assert s.probability == pytest.approx((0.9 * 0.8 * 0.4 * 0.9 * 0.9) ** (1 / 5))
    assert s.low == 1  # "back" at 0.4


def test_no_content_token_is_no_signal() -> None:
    assert token_signal([]) is None
    assert token_signal([("[", -3.0), ("2", -3.0), ("]", -3.0), ("\n", -1.0)]) is None


def test_the_pool_leans_on_the_evidence_and_moves_with_the_model() -> None:
    assert combine(0.8, 0.8) == pytest.approx(0.8)
    assert combine(0.9, 0.2) < 0.9 and combine(0.9, 0.2) > 0.5  # the evidence leads (weight < ½)
    assert combine(0.6, 0.95) > 0.6
    assert combine(0.7, 0.3) < combine(0.7, 0.6) < combine(0.7, 0.9)  # monotone in the model's signal
    # the weight is the share in log-odds: logit p = (1 − w) logit e + w logit m
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    assert logit(combine(0.9, 0.3)) == pytest.approx(
        (1 - TOKEN_WEIGHT) * logit(0.9) + TOKEN_WEIGHT * logit(0.3)
    )
    assert 0 < combine(1.0, 0.0) < 1  # clipped, never certain


def test_the_reason_says_what_the_token_probabilities_were() -> None:
    evidence = Confidence(0.9, "high", "2 sources agree; the question's words found: 3 of 3")
    s = token_signal([("A", LN(0.5)), (" b", LN(0.5)), (" c", LN(0.2))])
    c = with_tokens(evidence, s)
    assert c.probability < 0.9 and c.level in ("high", "medium")
    assert c.reason.startswith(evidence.reason)
    assert "token probabilities average 0.37, 1 of 3 below 0.5" in c.reason
    assert "\n" not in c.reason


def test_without_token_probabilities_the_evidence_stays() -> None:
    evidence = Confidence(0.62, "medium", "1 source; the question's words found: 2 of 3")
    c = with_tokens(evidence, None)
    assert (c.probability, c.level) == (0.62, "medium")
    assert (
        c.reason == "1 source; the question's words found: 2 of 3; no token probabilities from the provider"
    )


def test_log_probabilities_from_a_reply_not_streamed() -> None:
    meta = {
        "model": "m",
        "logprobs": {
            "content": [
                {"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []},
                {"token": "!", "logprob": -2.0, "bytes": [33], "top_logprobs": []},
            ],
            "refusal": None,
        },
    }
    assert token_logprobs(meta) == [("Hi", -0.1), ("!", -2.0)]


def test_log_probabilities_from_a_streamed_reply_one_part_per_chunk() -> None:
    meta = {
        "logprobs": [
            {"content": [{"token": "Hi", "logprob": -0.1}], "refusal": None},
            {"content": [{"token": " there", "logprob": -0.3}, {"token": ".", "logprob": 0.0}]},
        ]
    }
    assert token_logprobs(meta) == [("Hi", -0.1), (" there", -0.3), (".", 0.0)]


def test_no_log_probabilities_is_none() -> None:
    assert token_logprobs({"model": "m"}) is None
    assert token_logprobs({"logprobs": None}) is None
    assert token_logprobs(None) is None
    assert token_logprobs({"logprobs": [{"content": None}]}) is None
