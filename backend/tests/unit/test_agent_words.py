"""The agent's one tokeniser and its word-pattern matcher (``agent/words.py``), and the one table
of lexical shapes (``agent/patterns.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from devkb.agent import patterns, words
from devkb.agent.words import (
    KEYWORD,
    NAME,
    NUMERIC,
    QUOTE,
    compile_pattern,
    finditer,
    first,
    name_words,
    scan,
    search,
    table,
    words_of,
)

AGENT = Path(words.__file__).resolve().parent


def test_one_tokeniser_in_several_settings() -> None:
    text = "Marcus's PAY-12 fix_up café, v4.7 on 2026-05-07 (don't)"
    assert words_of(text) == (
        "marcus", "s", "pay", "12", "fix_up", "café", "v4", "7", "on", "2026", "05", "07", "don", "t",
    )  # fmt: skip
    assert "pay-12" in words.words(text, KEYWORD)
    assert "don't" in words.words(text, QUOTE)
    assert {"v4.7", "2026-05-07"} <= set(words.words(text, NUMERIC))
    assert words.words(text, NAME)[:4] == ("marcus", "s", "pay", "12")
    assert words.tokens_of("Marcus Chen")[0] == "Marcus"
    assert name_words("Tomás O'Brien") == ["tomas", "o", "brien"]
    with pytest.raises(ValueError):
        words.word_pattern("#")


def test_the_matcher_reads_its_syntax() -> None:
    ws = words_of("What does PAY-12 depend on, and what is blocked?")
    assert search("does|do|did {A} depend|rely", ws, [("pay", "12")]) is not None
    assert search("does|do|did {A} depend|rely", ws, [("pay", "13")]) is None
    assert search("^ what", ws) is not None and search("^ does", ws) is None
    assert search("block*", ws) is not None  # a prefix
    assert search("when ... closed", words_of("when was it finally closed")) is not None
    assert search("fixed !in", words_of("fixed in 1.2")) is None
    assert search("fixed !in", words_of("it was fixed")) is not None
    assert search("~fix version <num>", words_of("fix version 3")) is None
    assert search("~fix version <num>", words_of("page version 3")) is not None
    assert search("a !,?+<num>", ("a", ",", "5")) is None  # a negative look at two words
    found = search("which=last|past n=<num>? days", words_of("the past 3 days"))
    assert found is not None and found.captured == {"which": "past", "n": "3"}
    # greedy optional words, backtracking: "how long did PAY 12 take"
    assert search("how long did _ _? _? take", words_of("how long did PAY-12 take?")) is not None
    assert [f.start for f in finditer("open", words_of("open, open and open"))] == [0, 1, 3]


def test_a_table_reads_as_one_alternation() -> None:
    rows = table(("in progress", "In Progress"), ("open", "Open"), ("in", "in"))
    ws = words_of("open or in progress or in")
    assert [m for _, m in scan(rows, ws)] == ["Open", "In Progress", "in"]
    hit = first(rows, ws)
    assert hit is not None and hit[1] == "Open"


def test_a_pattern_must_need_a_word() -> None:
    with pytest.raises(ValueError):
        compile_pattern("a? ...")
    with pytest.raises(ValueError):
        compile_pattern("<nosuchclass>")


def test_lexical_shapes_are_compiled_in_one_place() -> None:
    assert set(patterns.SHAPES) == {name for name, _, _ in patterns.ROWS}
    assert patterns.ISSUE_KEY.fullmatch("PAY-12") and not patterns.ISSUE_KEY.fullmatch("PAY-012")
    assert patterns.CITATION.findall("see [1, 2] and [3]") == ["1, 2", "3"]
    # the modules converted here hold no regular expression of their own
    converted = (
        "question.py", "identifiers.py", "ask_service.py", "confidence.py", "history/when.py",
        "history/intent.py", "history/compose.py", "history/diffing.py", "tools", "retrieval",
    )  # fmt: skip
    for name in converted:
        for path in [AGENT / name] if name.endswith(".py") else sorted((AGENT / name).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "re"
                ):
                    assert node.attr in ("Match", "Pattern"), f"{path.name} calls re.{node.attr}"
