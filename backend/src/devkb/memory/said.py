"""Questions about conversations told to devkb (``memory/transcripts.py``): "what did Colin say
about the keyboard demo?", "who said the demo was finally done?", "when did James test the nightly
build?". ``AskService`` asks :meth:`SaidTurns.answer` first (after a verified answer); it answers
only from the turns the asker may read, and only when the evidence is there:

- the question's **topic** is its content words (Snowball stems) less the words of asking ("what
  did … say", "who", "when") and the speakers it names;
- a **speaker is named** when a word of the question is a word of the name of someone who speaks
  in the turns found ("Colin", "heidi valles");
- a turn **answers** when it holds at least ``COVERAGE`` of the topic (its words, its session's
  title) and, if the question names speakers, one of them said it. The answer quotes the best
  turns — speaker, the day it was said (as the speaker's calendar had it), the words — and cites
  them;
- a question that names a speaker whose turns are found but none of which is about the topic is
  answered "not found" ("… said nothing about that in the conversations you told me"), with the
  closest turns as related;
- otherwise (no turn, or a question about something else) it returns None and the question goes
  the usual way, so a store without conversations answers exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from devkb.memory.conversations import ASKING
from devkb.memory.model import Memory
from devkb.memory.service import MemoryService
from devkb.memory.verified import content_stems
from devkb.store.models import SourceType

COVERAGE = 0.5  # share of the topic's words a turn must hold
DEPTH = 60  # turns ranked by full text and vectors before the checks
MOST = 3  # turns quoted
QUOTE = 1500  # characters of a turn quoted
# words of asking about what people said, not of its topic
SAYING = content_stems(
    "say said saying tell told mention mentioned suggest suggested according think thought who whom "
    "when what which why how where did does do was were is are the a an of to in on for with him her "
    "them they he she his their someone somebody anyone person people"
)


@dataclass(frozen=True)
class Said:
    """An answer from turns: ``found`` false when a named speaker said nothing on the topic."""

    found: bool
    text: str
    turns: tuple[Memory, ...]
    coverage: float


def _stems(text: str) -> set[str]:
    """Content stems, with words joined by - _ / . split apart too (``unblock-buildkite-pr-job``,
    a URL's path): what a turn holds is often in its links."""
    return content_stems(text) | content_stems(text.translate(_APART))


_APART = str.maketrans(dict.fromkeys("-_/.#=?&:()[]<>`*", " "))


def _names(m: Memory) -> set[str]:
    return {w for w in content_stems(m.speaker) if len(w) > 2}


class SaidTurns:
    def __init__(self, memories: MemoryService) -> None:
        self.memories = memories

    def answer(self, question: str) -> Said | None:
        words = _stems(question)
        if not words:
            return None
        store = self.memories.reader_store
        hits = store.keyword_search(question, DEPTH, types=[SourceType.MEMORY])
        if not any(h.document.metadata.get("origin") == "transcript" for h in hits):
            return None  # no conversation holds these words: the usual way (and no embedding)
        ranked = [
            r.memory for r in self.memories.search(question, limit=DEPTH) if r.memory.origin == "transcript"
        ]
        if not ranked:
            return None
        named = {w for m in ranked for w in _names(m) if w in words}
        topic = words - SAYING - ASKING - named
        if not topic:
            return None

        def coverage(m: Memory) -> float:
            held = _stems(f"{m.text} {m.session_title}")
            return len(topic & held) / len(topic)

        by = [m for m in ranked if not named or _names(m) & named]
        scored = sorted(((coverage(m), -i, m) for i, m in enumerate(by)), key=lambda x: x[:2], reverse=True)
        best = scored[0][0] if scored else 0.0
        if best >= COVERAGE:
            kept = [m for c, _, m in scored if c >= max(COVERAGE, best - 0.2)][:MOST]
            return Said(True, _quote(kept), tuple(kept), best)
        if named and by:
            who = sorted({m.speaker for m in by})
            closest = [m for _, _, m in scored[:MOST]]
            text = (
                f"{' or '.join(who)} said nothing about that in the conversations you told me. "
                f"Closest: {_quote(closest, short=True)}"
            )
            return Said(False, text, tuple(closest), best)
        return None


def _quote(turns: Sequence[Memory], short: bool = False) -> str:
    lines = []
    for n, m in enumerate(turns, start=1):
        words = " ".join(m.text.split())
        most = 200 if short else QUOTE
        words = words if len(words) <= most else words[: most - 1].rstrip() + "…"
        lines.append(f"{m.speaker} said on {m.said_on}: “{words}” [{n}]")
    return "\n".join(lines)
