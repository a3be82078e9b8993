"""A conversation in LoCoMo's shape (two speakers, sessions dated "2:10 pm on 25 May, 2023", photos
with captions), written here, told to a real ``devkb serve`` over MCP ``remember_conversation`` and
asked over MCP ``ask`` by the LoCoMo evaluation's own machinery (``locomo_eval``): "when" is
answered with the day a relative word meant, a question about one speaker is not answered from
what the other said (nor from a turn that only calls them by name), and a turn that asks is
answered by the reply that follows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from devkb_devtools.bench.server_process import DevkbServer
from devkb_devtools.evaluation import locomo_eval as ev

pytestmark = pytest.mark.integration


def turn(speaker: str, n: str, text: str, caption: str = "") -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": n, "text": text} | ({"blip_caption": caption} if caption else {})


SAMPLE: dict[str, Any] = {
    "sample_id": "test-priya-tomas",
    "conversation": {
        "speaker_a": "Priya",
        "speaker_b": "Tomas",
        "session_1_date_time": "2:10 pm on 25 May, 2023",
        "session_1": [
            turn("Tomas", "D1:1", "Hey Priya! Long time no chat. What's new with you?"),
            turn(
                "Priya",
                "D1:2",
                "Hi Tomas! I ran my first half marathon last Saturday, along the river. My legs still hurt!",
                "a photo of a woman holding a finisher medal",
            ),
            turn("Tomas", "D1:3", "Congrats, Priya! Which band played at your sister's wedding last month?"),
            turn("Priya", "D1:4", "It was The Lanterns, a folk trio from Leeds. Everybody danced!"),
            turn(
                "Tomas", "D1:5", "Nice! I started restoring an old sailboat two days ago, it needs new sails."
            ),
        ],
        "session_2_date_time": "9:05 am on 14 July, 2023",
        "session_2": [
            turn(
                "Tomas",
                "D2:1",
                "Thanks, Priya! After the regatta I realized the sailboat needs a new keel too.",
            ),
            turn(
                "Priya",
                "D2:2",
                "Oh no! Since the half marathon I have been volunteering at the animal shelter.",
            ),
        ],
    },
    "qa": [
        {"question": "When did Priya run a half marathon?", "answer": "20 May 2023", "category": 2},
        {"question": "When did Tomas start restoring the sailboat?", "answer": "23 May 2023", "category": 2},
        {
            "question": "Which band played at Priya's sister's wedding?",
            "answer": "The Lanterns",
            "category": 4,
        },
        {"question": "What did Tomas realize after the regatta?", "answer": "new keel", "category": 4},
        # asked of the other speaker: Priya is only called by name in Tomas's turn
        {"question": "What did Priya realize after the regatta?", "category": 5},
    ],
}


def test_a_locomo_shaped_conversation_told_and_asked_over_mcp(tmp_path: Path) -> None:
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources: []\n", encoding="utf-8")
    env = {"DEVKB_SOURCES_FILE": str(sources), "DEVKB_API_KEY": ev.KEY}
    with DevkbServer(tmp_path / "data", env=env) as server:
        out = anyio.run(ev.run_sample, server.base_url + "/mcp", SAMPLE, {1, 2, 3, 4, 5}, True)
    assert out["told"]["turns"] == 7 and out["told"]["sessions"] == 2
    rows = {r["question"]: r for r in out["rows"]}
    wrong = {q: (r["status"], str(r["answer"])[:300]) for q, r in rows.items() if not r["right"]}
    assert not wrong, wrong
    # "when": the day the speaker meant, first, in the words LoCoMo's gold uses as well
    when = str(rows["When did Priya run a half marathon?"]["answer"])
    assert when.startswith("The Saturday before 25 May 2023 (20 May 2023)"), when
    # the question that asked is quoted with the reply that answered it
    band = str(rows["Which band played at Priya's sister's wedding?"]["answer"])
    assert "Which band played" in band and band.index("Which band played") < band.index("The Lanterns"), band
    assert rows["What did Priya realize after the regatta?"]["status"] == "not_found"


CLUBS: dict[str, Any] = {
    "sample_id": "test-clubs",
    "conversation": {
        "speaker_a": "Tomas",
        "speaker_b": "Priya",
        "session_1_date_time": "3:00 pm on 2 June, 2023",
        "session_1": [
            turn("Tomas", "D1:1", "I joined a chess club in March, we meet on Tuesdays."),
            turn("Priya", "D1:2", "Nice! What else have you been up to?"),
            turn(
                "Tomas", "D1:3", "I also joined the rowing club on the river, the mornings are cold though."
            ),
            turn("Priya", "D1:4", "Brr. I went to the cinema with my sister last night."),
            turn(
                "Tomas", "D1:5", "And I joined a book club with my neighbours last week, we are reading Dune."
            ),
            turn("Priya", "D1:6", "Dune is great, you will love it."),
            turn("Tomas", "D1:7", "Oh, and I joined the choir club at work, I sing bass."),
        ],
    },
    "qa": [
        # several things asked for: the few best turns of that person, not the best three
        {"question": "What clubs has Tomas joined?", "answer": "chess", "category": 1},
    ],
}


def test_a_question_asking_for_several_things_gets_the_persons_turns_on_it(tmp_path: Path) -> None:
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources: []\n", encoding="utf-8")
    env = {"DEVKB_SOURCES_FILE": str(sources), "DEVKB_API_KEY": ev.KEY}
    with DevkbServer(tmp_path / "data", env=env) as server:
        out = anyio.run(ev.run_sample, server.base_url + "/mcp", CLUBS, {1}, True)
    rows = {r["question"]: r for r in out["rows"]}
    clubs = str(rows["What clubs has Tomas joined?"]["answer"])
    for club in ("chess club", "rowing club", "book club", "choir club"):
        assert club in clubs, clubs
    assert "cinema" not in clubs, clubs  # Priya's turns are not Tomas's clubs
