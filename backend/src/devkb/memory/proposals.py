"""Facts proposed from a conversation by a language model, in one pass whose failures are visible.

The model reads what the person said in one stored conversation and returns, constrained to a JSON
schema, the lasting facts it holds ("the payments freeze starts on 15 December"). Nothing it says
is stored as it says it: each fact must be **grounded** — most of its content words said by the
person in that conversation, not by devkb's answers — and not a question; each one kept becomes a
*proposed private memory* of that person, which they accept (verify) or drop. What the model failed
to do (unreachable, not JSON, a fact not grounded) is returned beside what was proposed, never
hidden. Without a model nothing is proposed, and "Remember that …" still works."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from devkb.memory.subject import content_words, strip_lead

MAX_FACTS = 8
MAX_FACT_CHARS = 300
MAX_INPUT_CHARS = 12_000
WORDS_PER_MISS = 6  # a fact may hold one word the person did not say per this many of its words

INSTRUCTIONS = (
    "Copy every sentence below that states a fact about the team, its projects, systems, dates or "
    "decisions, word for word; leave out questions and greetings. Reply with JSON: "
    '{"facts": ["..."]}.'
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_FACTS,
            "items": {"type": "string", "maxLength": MAX_FACT_CHARS},
        }
    },
    "required": ["facts"],
}

AskJson = Callable[[str, str, dict[str, Any]], str]


@dataclass
class Candidates:
    facts: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (fact, why)
    error: str | None = None


def said_text(person_lines: Sequence[str]) -> str:
    """What the person said, newest last, cut to ``MAX_INPUT_CHARS`` from the end."""
    text = "\n".join(line.strip() for line in person_lines if line.strip())
    return text[-MAX_INPUT_CHARS:]


def ungrounded(fact: str, said: str) -> str | None:
    """Why ``fact`` is not proposed (None: it may be). Its content words must be the person's:
    all of them in a short fact ("the freeze ends on 15 December" is not "starts"), all but one
    in six in a longer one (a model's rewording)."""
    words = content_words(fact)
    if not fact.strip():
        return "empty"
    if fact.rstrip().endswith("?"):
        return "a question, not a fact"
    if not words:
        return "no content words"
    heard = set(content_words(said))
    missing = [w for w in words if w not in heard]
    if len(missing) > len(words) // WORDS_PER_MISS:
        share = 1 - len(missing) / len(words)
        return f"not what the person said ({share:.0%} of its words are theirs)"
    return None


def clean(fact: str) -> str:
    """One line, no list number ("2. "), no "Remember that" before the fact itself."""
    text = " ".join(str(fact).split())[:MAX_FACT_CHARS]
    head, _, rest = text.partition(" ")
    if rest and head.rstrip(".)").isdigit():
        text = rest
    return strip_lead(text).strip()


def candidates(person_lines: Sequence[str], ask: AskJson) -> Candidates:
    """One pass of the model over what the person said; every failure is returned, not raised."""
    said = said_text(person_lines)
    out = Candidates()
    if not said:
        out.error = "the person said nothing in this conversation"
        return out
    try:
        raw = ask(INSTRUCTIONS, said, SCHEMA)
    except Exception as e:  # unreachable, timed out, refused: visible, never the caller's crash
        out.error = f"the language model failed: {type(e).__name__}: {e}"[:300]
        return out
    try:
        data = json.loads(raw)
        facts = data["facts"] if isinstance(data, dict) else None
        if not isinstance(facts, list):
            raise ValueError("no list named facts")
    except (ValueError, KeyError, TypeError) as e:
        out.error = f"the language model's reply is not the asked JSON ({e}): {raw[:200]!r}"
        return out
    seen: set[str] = set()
    for item in facts[:MAX_FACTS]:
        fact = clean(item)
        why = ungrounded(fact, said)
        if why is None and fact.lower() in seen:
            why = "said twice"
        if why is not None:
            out.rejected.append((fact, why))
            continue
        seen.add(fact.lower())
        out.facts.append(fact)
    return out
