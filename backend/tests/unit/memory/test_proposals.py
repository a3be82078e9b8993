"""Which facts a model offers are proposed: grounded in what the person said, not a question."""

from __future__ import annotations

import json

from devkb.memory.proposals import MAX_FACTS, candidates, ungrounded

SAID = [
    "Remember, our payments freeze starts on 15 December.",
    "We moved CI from Jenkins to GitHub Actions last month.",
    "When is the next release?",
]


def test_a_fact_in_the_persons_words_is_grounded_and_others_are_not() -> None:
    said = "\n".join(SAID)
    assert ungrounded("The payments freeze starts on 15 December.", said) is None
    assert ungrounded("CI moved from Jenkins to GitHub Actions.", said) is None
    assert "not what the person said" in (ungrounded("The office closes at 18:00 on Fridays.", said) or "")
    assert ungrounded("When is the next release?", said) == "a question, not a fact"
    assert ungrounded("   ", said) == "empty"
    # a word swapped in a short fact is not theirs (the 135M model wrote this one)
    assert "not what the person said" in (ungrounded("The payment freeze ends on 15 December.", said) or "")


def test_one_pass_keeps_grounded_facts_and_says_why_others_were_not() -> None:
    reply = json.dumps(
        {
            "facts": [
                "The payments freeze starts on 15 December.",
                "2. Remember that the payments freeze starts on 15 December.",
                "Deploys are on Tuesdays.",
                "When is the next release?",
            ]
        }
    )
    asked: list[str] = []

    def ask(instructions: str, text: str, schema: dict) -> str:
        asked.append(text)
        assert schema["properties"]["facts"]["maxItems"] == MAX_FACTS
        return reply

    out = candidates(SAID, ask)
    assert len(asked) == 1 and "Jenkins" in asked[0]  # one pass over what the person said
    assert out.facts == ["The payments freeze starts on 15 December."]
    assert [why for _, why in out.rejected] == [
        "said twice",
        "not what the person said (0% of its words are theirs)",
        "a question, not a fact",
    ]
    assert out.error is None


def test_a_reply_that_is_not_the_asked_json_is_a_visible_failure() -> None:
    out = candidates(SAID, lambda i, t, s: "Sure! Here are the facts: freeze on 15 December")
    assert out.facts == [] and out.error and "not the asked JSON" in out.error
    out = candidates(SAID, lambda i, t, s: json.dumps({"facts": "the freeze"}))
    assert out.facts == [] and out.error
    assert candidates([], lambda i, t, s: "{}").error == "the person said nothing in this conversation"
