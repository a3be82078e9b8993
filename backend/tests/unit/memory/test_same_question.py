"""When a new question means a verified one (``agent/same_question.py``), without a model: the
cosine is given. Questions that differ in a slot — another issue key, person, period, version,
project, state or issue type — never mean the same, however close their embeddings (cosine 0.99
here); a swapped word or another kind of answer asked for neither; paraphrases do."""

from __future__ import annotations

from datetime import date

import pytest

from devkb.agent.same_question import SameQuestion, decide, read, slots_differ
from devkb.memory.verified import SameWords

TODAY = date(2026, 12, 7)
KEYS = ("PAY", "WEB")


def same(verified: str, question: str, similarity: float = 0.99) -> bool:
    ok, _ = decide(read(verified, TODAY, KEYS), read(question, TODAY, KEYS), similarity)
    return ok


@pytest.mark.parametrize(
    ("verified", "other", "slot"),
    [
        ("What is the workaround for PAY-123?", "What is the workaround for PAY-124?", "documents"),
        ("What is the workaround for PAY-123?", "What is the workaround for WEB-123?", "documents"),
        ("What did Marcus Chen work on last week?", "What did Priya Nair work on last week?", "names"),
        ("Who reviews Priya's pull requests?", "Who reviews Marcus's pull requests?", "names"),
        ("What did Marcus Chen work on last week?", "What did Marcus Chen work on this week?", "period"),
        ("What did Marcus Chen work on last week?", "What did Marcus Chen work on last month?", "period"),
        (
            "What did the platform team ship in Q3 2026?",
            "What did the platform team ship in Q2 2026?",
            "period",
        ),
        (
            "What did the platform team ship in Q3 2026?",
            "What did the platform team ship in Q3 2025?",
            "period",
        ),
        ("Who owns the billing service?", "Who owned the billing service in 2024?", "period"),
        ("What changed in release 4.2?", "What changed in release 4.3?", "marks"),
        ("What changed in release 4.2?", "What changed in release 4.2.1?", "marks"),
        ("What is the SLA for P1 incidents?", "What is the SLA for P2 incidents?", "marks"),
        (
            "How many open bugs does the WEB project have?",
            "How many open bugs does the PAY project have?",
            "scope",
        ),
        (
            "How many open bugs does the WEB project have?",
            "How many closed bugs does the WEB project have?",
            "state",
        ),
        (
            "How many open bugs does the WEB project have?",
            "How many open tasks does the WEB project have?",
            "type",
        ),
    ],
)
def test_a_question_with_another_slot_never_means_the_same(verified: str, other: str, slot: str) -> None:
    assert slots_differ(read(verified, TODAY, KEYS), read(other, TODAY, KEYS)) == slot
    assert not same(verified, other)
    assert not SameQuestion(lambda: KEYS, lambda: TODAY).near(verified, other)  # no embedding computed


@pytest.mark.parametrize(
    ("verified", "other"),
    [
        ("When does the payments freeze start?", "When does the payments freeze end?"),  # swapped in place
        ("Where is the staging database hosted?", "Where is the production database hosted?"),
        ("Which CI system do we use?", "Which CD system do we use?"),
        (
            "Who owns the billing service?",
            "Who owns the billing dashboard?",
        ),  # a light word for a word of its own
        ("When is the next release cut?", "When was the last release cut?"),
        ("How do I rotate the webhook signing secret?", "How often is the webhook signing secret rotated?"),
        ("Which CI system do we use?", "How long does CI take?"),  # a duration: asked by one only
        ("When does the payments freeze start?", "Who approved the payments freeze?"),  # a time, a person
        ("How long do we keep application logs?", "Where are application logs stored?"),
        ("What is the workaround for PAY-123?", "When will PAY-123 be fixed?"),
        ("How do I get a staging API key?", "How do I revoke a staging API key?"),
        ("Is the Apple Pay button enabled?", "Who enabled the Apple Pay button?"),  # yes or no; a person
        ("Is the Apple Pay button enabled?", "When was the Apple Pay button enabled?"),
        ("Who approves production deploys?", "Who approved the last production deploy?"),  # one of them
    ],
)
def test_a_swapped_word_or_another_kind_of_answer_is_another_question(verified: str, other: str) -> None:
    assert not same(verified, other)


@pytest.mark.parametrize(
    ("verified", "paraphrase", "similarity"),
    [
        ("When does the payments freeze start?", "When does the payment freeze begin?", 0.9),
        ("What is the workaround for PAY-123?", "How can I get around the PAY-123 bug?", 0.86),
        ("What is the workaround for PAY-123?", "Is there a workaround for PAY-123?", 0.9),  # not yes/no
        ("Which CI system do we use?", "What do we use for continuous integration?", 0.46),  # same words
        (
            "What is the SLA for P1 incidents?",
            "What is the service level agreement for priority 1 incidents?",
            0.46,
        ),
        ("How many open bugs does the WEB project have?", "How many bugs are still open in WEB?", 0.88),
        (
            "What did the platform team ship in Q3 2026?",
            "What did the platform team ship in the third quarter of 2026?",
            0.84,
        ),
        ("How long do we keep application logs?", "For how many days do we keep app logs?", 0.89),
        ("Why was OPS-88 reopened?", "Why did someone reopen OPS-88?", 0.94),
        (
            "What is the refund limit for support agents?",
            "Up to what amount may support agents refund?",
            0.87,
        ),
    ],
)
def test_paraphrases_mean_the_same(verified: str, paraphrase: str, similarity: float) -> None:
    assert same(verified, paraphrase, similarity)
    assert SameQuestion(lambda: KEYS, lambda: TODAY).near(verified, paraphrase)


def test_the_embedding_still_decides_what_words_do_not() -> None:
    # a paraphrase in other words needs a close embedding; the same one far apart is not served
    assert same(
        "How do I get access to the production Kubernetes cluster?",
        "How to get prod Kubernetes access?",
        0.77,
    )
    assert not same(
        "How do I get access to the production Kubernetes cluster?", "How to get prod Kubernetes access?", 0.6
    )


def test_relative_periods_are_read_on_the_day_of_the_question() -> None:
    days = iter([date(2026, 12, 7), date(2026, 12, 14)])
    meaning = SameQuestion(lambda: (), lambda: next(days))
    first = meaning.reading("What did Marcus Chen work on last week?")
    second = meaning.reading("What did Marcus Chen work on last week?")
    assert first.frame.period != second.frame.period  # a week later, "last week" is another week


def test_without_the_agent_the_words_and_the_embedding_decide() -> None:
    words = SameWords()
    assert words.near("When does the payments freeze start?", "When does the payment freeze begin?")
    assert not words.near("When does the payments freeze start?", "When does the payments freeze end?")
    assert words.same("a", "b", 0.9) and not words.same("a", "b", 0.5)


@pytest.mark.parametrize(
    ("verified", "question", "same_meaning"),
    [
        # an indirect question is the question it embeds: not yes or no
        (
            "Which version of jQuery does Infusion 3.0 ship with?",
            "Does anyone know which version of jQuery Infusion 3.0 ships with?",
            True,
        ),
        ("Who maintains the Uploader?", "can someone tell me who maintains the Uploader", True),
        (
            "Why is the Infusion build failing on Node 18?",
            "any idea why the Infusion build is failing on Node 18?",
            True,
        ),
        (
            "Why is the Infusion build failing on Node 18?",
            "how come the Infusion build is failing on Node 18",
            True,
        ),
        ("How do I run the Infusion unit tests?", "What's the way to run the Infusion unit tests?", True),
        # … unless it embeds "if" / "whether": yes or no, not "who"
        (
            "Who enabled the high contrast theme?",
            "does anyone know if the high contrast theme is enabled?",
            False,
        ),
        # "them" is not a person
        ("Who is assigned to PAY-12?", "Who has PAY-12 assigned to them?", True),
        # a project key with or without "project"; the direction of a link
        ("How many open bugs does the WEB project have?", "how many bugs are still open in WEB?", True),
        ("What is blocking WEB-7?", "What is WEB-7 blocking?", False),
        # a resolution said any way is one state, and says the issue was closed
        ("Why was FLUID-6145 closed as won't fix?", "FLUID-6145 closed as wontfix - why?", True),
        ("Why was FLUID-6145 closed as won't fix?", "why did FLUID-6145 get marked wont fix", True),
        ("Why was FLUID-6145 closed as won't fix?", "Why was FLUID-6145 closed?", False),
        ("Why was FLUID-6145 closed as won't fix?", "Why was FLUID-6145 closed as a duplicate?", False),
        # a yes-or-no question after a short opening phrase, or ending "or not"
        (
            "Is the high contrast theme enabled by default in UI Options?",
            "By default, is UI Options' high contrast theme enabled?",
            True,
        ),
        (
            "Who enabled the high contrast theme by default?",
            "By default, is the high contrast theme enabled?",
            False,
        ),
        (
            "Is the Apple Pay button enabled on the checkout page?",
            "Apple Pay button on the checkout page: enabled or not?",
            True,
        ),
        (
            "Which Apple Pay button is enabled on the checkout page?",
            "Apple Pay button on the checkout page: enabled or not?",
            False,
        ),
    ],
)
def test_how_people_ask_in_chat(verified: str, question: str, same_meaning: bool) -> None:
    assert same(verified, question) is same_meaning


@pytest.mark.parametrize(
    ("verified", "question", "same_meaning"),
    [
        # a fragment that asks no kind ("… - supported?", "is there … support") asks yes or no
        ("Does the Video Player support captions?", "Video Player - captions supported?", True),
        ("Does the Video Player support captions?", "is there caption support in the video player", True),
        (
            "Does the Video Player support captions?",
            "How many captions does the Video Player support?",
            False,
        ),
        # "how" and an auxiliary ask the manner: not when
        ("When was PAY-123 fixed?", "How was PAY-123 fixed?", False),
        ("How does the release train work?", "How does the release train work, step by step?", True),
        # "what hours" asks a time
        ("When is the support desk staffed?", "What hours is the support desk staffed?", True),
        # a link is a place; where to subscribe is how to subscribe
        ("Where is the standup video link?", "What is the link for the standup video?", True),
        (
            "How do I subscribe to the release announcements list?",
            "Where do I subscribe to the release announcements list?",
            True,
        ),
        # "the next" is meant by a when-question in the present or future, not in the past
        ("When does the mobile release train leave?", "When does the next mobile release train leave?", True),
        ("When was the mobile release cut?", "When was the next mobile release cut?", False),
        ("When was the mobile release cut?", "When was the last mobile release cut?", False),
    ],
)
def test_sixth_stop_kinds_asked(verified: str, question: str, same_meaning: bool) -> None:
    assert same(verified, question) is same_meaning


def test_opened_is_a_verb_not_the_state_open() -> None:
    # "who opened PAY-123" asks who reported it: no state is said; "open bugs" still says one
    a, b = read("Who reported PAY-123?", TODAY, KEYS), read("who opened PAY-123", TODAY, KEYS)
    assert slots_differ(a, b) is None
    bot = read("Which bot opens dependency update pull requests?", TODAY, KEYS)
    assert slots_differ(bot, read("Which bot creates dependency update pull requests?", TODAY, KEYS)) is None
    bugs = read("How many open bugs does the WEB project have?", TODAY, KEYS)
    assert slots_differ(bugs, read("How many bugs does the WEB project have?", TODAY, KEYS)) == "state"
