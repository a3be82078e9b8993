"""Subject and attribute of a memory's sentence (``memory/subject.py``): the examples of its
docstring, the supersession scenarios of ``tests/data/memory`` (the newer fact shares the older
one's pair, no other fact about the subject does), and a sentence the rules cannot read gets no
pair rather than a wrong one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devkb.memory.subject import NONE, Topic, strip_lead, topic_of

DATA = Path(__file__).resolve().parents[2] / "data" / "memory"


@pytest.mark.parametrize(
    ("text", "subject", "attribute"),
    [
        ("the payments freeze starts on 15 December", "payments freeze", "start"),
        ("Remember that the payments freeze starts on 18 December", "payments freeze", "start"),
        ("The payments freeze ends on 5 January", "payments freeze", "end"),
        ("we no longer use Jenkins", "we", "use jenkin"),
        ("We use Jenkins for CI", "we", "use jenkin"),
        ("the build needs Node 20", "build", "need node"),
        ("the build will need Node 22", "build", "need node"),
        ("CI is GitHub Actions", "ci", "be"),
        ("the owner of the payments freeze is Alice", "payments freeze", "owner"),
        ("the freeze's owner is Bob", "freeze", "owner"),
        ("Jira project PAY is owned by the payments team", "jira project pay", "own"),
        ("The invoice PDF uses the new logo", "invoice pdf", "use logo"),
        ("The ledger service depends on Kafka", "ledger service", "depend kafka"),
    ],
)
def test_examples(text: str, subject: str, attribute: str) -> None:
    assert topic_of(text) == Topic(subject, attribute)


@pytest.mark.parametrize("text", ["", "hello", "Kafka!", "remember that"])
def test_no_pair_for_what_the_rules_cannot_read(text: str) -> None:
    assert topic_of(text) == NONE and not NONE.known


def test_lead_ins_are_dropped() -> None:
    assert (
        strip_lead("Remember that: for the team, the VPN expires on 30 June") == "the VPN expires on 30 June"
    )
    assert strip_lead("Remembering names is hard") == "Remembering names is hard"


def _rates(name: str) -> tuple[int, int, int]:
    scenarios = json.loads((DATA / name).read_text(encoding="utf-8"))["scenarios"]
    same = collisions = 0
    for s in scenarios:
        old, new = topic_of(s["old"]), topic_of(s["new"])
        same += old.known and old == new
        collisions += sum(topic_of(o) == new for o in s["others"] if topic_of(o).known)
    return len(scenarios), same, collisions


def test_the_scenarios_pair_up_and_touch_nothing_else() -> None:
    n, same, collisions = _rates("supersession.json")
    assert n >= 50 and same == n and collisions == 0


def test_held_out_scenarios_as_measured() -> None:
    """Written after the rules were settled, never used to change them (docs/memory.md quotes the
    figure): 18 of 20 pair up; a miss supersedes nothing, and nothing else is touched."""
    n, same, collisions = _rates("supersession_heldout.json")
    assert (n, collisions) == (20, 0)
    assert same >= 18
