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
- turns are **chosen by meaning as well as words**: each candidate's cosine to the question (the
  all-MiniLM vectors the store already holds for the turns, one embedding of the question) is
  added to its share of the topic to rank them; a turn holding some but less than ``COVERAGE``
  of the topic still answers when its meaning is near (``NEAR``) and, if the question names a
  person, it is theirs telling of themselves ("I", "my", "we" in its sentence on the topic — "How
  was your race?" is about the one spoken to); a turn far in meaning (below ``FLOOR``) does not
  answer on words alone;
- a question asking for **several things** ("What activities does Melanie do?", "Where has she
  camped?") quotes the few best turns of that person rather than the best and its equals;
- otherwise (no turn, or a question about something else) it returns None and the question goes
  the usual way, so a store without conversations answers exactly as before (one indexed look-up
  for an asker with no conversation).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from devkb.memory.conversations import ASKING
from devkb.memory.model import TURN_KIND, Memory, from_document
from devkb.memory.relative import meanings
from devkb.memory.service import MemoryService
from devkb.memory.verified import content_stems
from devkb.store.models import SourceType

COVERAGE = 0.5  # share of the topic's words a turn must hold
DEPTH = 60  # turns ranked by full text and vectors before the checks
MOST = 3  # turns quoted
MANY = 5  # turns quoted for a question asking for several things
# cosine(question, turn), all-MiniLM-L6-v2: tuned on LoCoMo sample 1 (docs/evaluation.md)
NEAR = 0.62  # a turn holding less than COVERAGE of the topic (some of it) answers from this near
FLOOR = 0.15  # a turn this far does not answer on words alone
MEANING = 1.0  # weight of the cosine beside the share of the topic in a turn's rank
MARGIN = 0.3  # turns quoted besides the best: ranked within this of it (words and meaning)
QUOTE = 1500  # characters of a turn quoted
# words of asking about what people said, not of its topic
SAYING = content_stems(
    "say said saying tell told mention mentioned suggest suggested according think thought who whom "
    "when what which why how where did does do was were is are the a an of to in on for with him her "
    "them they he she his their someone somebody anyone person people "
    # light words that say nothing of a topic ("when did she go … during the summer")
    "go goes going went gone during after while since until into onto from her its both also ever"
)


MONTHS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_TOKEN = re.compile(r"\d{4}-\d{2}-\d{2}|[a-z]+|\d+")


@dataclass(frozen=True)
class Day:
    """The day, month or year a question names ("on June 4", "in November 2015", "2015-06-04"):
    turns said then, and the question's words that named it (not its topic)."""

    year: int | None
    month: int | None
    day: int | None
    words: frozenset[str]

    def holds(self, said_day: str) -> bool:
        try:
            y, m, d = (int(x) for x in said_day[:10].split("-"))
        except ValueError:
            return False
        return (
            (self.year is None or y == self.year)
            and (self.month is None or m == self.month)
            and (self.day is None or d == self.day)
        )


def day_in(question: str) -> Day | None:
    """The date a question names: an ISO day, or a month name with a day number beside it and a
    year anywhere; a number or a year alone is not one ("version 1.9", "in 2015")."""
    tokens = _TOKEN.findall(question.lower())
    for t in tokens:
        if len(t) == 10 and t[4] == "-":
            y, m, d = (int(x) for x in t.split("-"))
            return Day(y, m, d, frozenset({t}))
    years = [t for t in tokens if t.isdigit() and len(t) == 4 and 1900 <= int(t) <= 2100]
    for i, t in enumerate(tokens):
        month = MONTHS.get(t)
        if month is None or ((t == "may" or len(t) <= 4) and not _dayish(tokens, i) and not years):
            continue  # "may" (a verb), "jan" (a name): a month only with a day or a year beside
        day = next((int(tokens[j]) for j in (i + 1, i - 1) if _dayish(tokens, j, at=j)), None)
        words = {t, *(years[:1])} | ({str(day)} if day else set())
        return Day(int(years[0]) if years else None, month, day, frozenset(words))
    return None


def _dayish(tokens: Sequence[str], i: int, at: int | None = None) -> bool:
    def ok(j: int) -> bool:
        return (
            0 <= j < len(tokens) and tokens[j].isdigit() and 1 <= int(tokens[j]) <= 31 and len(tokens[j]) <= 2
        )

    return ok(at) if at is not None else ok(i + 1) or ok(i - 1)


# words that ask what someone said: the people named are then the speakers, not the topic
SAYS = content_stems(
    "say said says tell told mention mentioned suggest suggested propose proposed ask asked write "
    "wrote report reported according recommend recommended"
)


@dataclass(frozen=True)
class Said:
    """An answer from turns: ``found`` false when a named speaker said nothing on the topic;
    ``coverage`` the best turn's share of the topic, plus its cosine to the question when found."""

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
        if not store.find_documents({"kind": TURN_KIND}, limit=1):  # the field index alone
            return None  # the asker has no conversation: one indexed look-up, nothing searched
        hits = store.keyword_search(question, DEPTH, types=[SourceType.MEMORY])
        if not any(h.document.metadata.get("origin") == "transcript" for h in hits):
            return None  # no conversation holds these words: the usual way (and no embedding)
        when = day_in(question)
        depth = DEPTH if when is None else DEPTH * 4  # the day's turns may rank low on words
        ranked = [
            r.memory for r in self.memories.search(question, limit=depth) if r.memory.origin == "transcript"
        ]
        if not ranked:
            return None
        if when is not None:
            then = [m for m in ranked if when.holds(m.said_on)]
            if then:  # turns said that day (month, year); else the date is not one of theirs
                ranked = then
                words -= _stems(" ".join(when.words))
        named = {w for m in ranked for w in _names(m) if w in words}
        says = bool(words & SAYS)  # "what did Colin say …": Colin's turns; "what is Colin's …": any
        topic = words - SAYING - ASKING - named
        if not topic:
            return None
        callers = {w for o in ranked for w in o.speaker.lower().split()}

        def about(m: Memory) -> bool:
            """Whether a turn is about a person the question names: one that tells and is
            theirs, or names them other than to call them ("Thanks, Caroline!" is said to her,
            not about her); one that asks the topic is about whom it asks, not who asks."""
            if _asks(m.text, topic):
                return not _names(m) & named
            return bool(_names(m) & named or _stems(_unaddressed(m.text, callers)) & named)

        def coverage(m: Memory) -> float:
            if named and not says and not about(m):
                return 0.0  # "what did Caroline realise …": a turn by her, or one about her
            have = _stems(f"{_unaddressed(m.text, callers)} {m.session_title}")
            return len(topic & have) / len(topic)

        by = [m for m in ranked if not (named and says) or _names(m) & named]
        near = self._cosines(question, by)
        rows = []
        for i, m in enumerate(by):
            share = coverage(m)
            fits = not (named and not says and not about(m))  # a person named: theirs or about them
            cos = near.get(m.id, 0.0) if fits else 0.0
            unknown = m.id not in near  # no vector stored for it (yet): words alone decide
            answers = fits and (
                (share >= COVERAGE and (cos >= FLOOR or unknown))
                or (share > 0 and cos >= NEAR and (not named or _tells(m.text, topic)))
            )
            rows.append((share + MEANING * cos, answers, not _asks(m.text, topic), -i, share, m))
        rows.sort(key=lambda r: r[:4], reverse=True)
        answering = [r for r in rows if r[1]]
        if answering:
            top = answering[0][0]
            if _many(question):
                kept = [r[5] for r in answering][:MANY]
            else:
                most = max(r[4] for r in answering)  # and those holding as much of the topic
                kept = [r[5] for r in answering if r[0] >= top - MARGIN or r[4] >= most - 0.2][:MOST]
            shown = self._with_replies(kept, topic)
            lead = _when(question, shown, topic)
            return Said(True, lead + _quote(shown), tuple(shown), round(top, 4))
        best = max((r[4] for r in rows), default=0.0)
        if named and by:
            who = sorted({m.speaker for m in by if _names(m) & named} or {m.speaker for m in by})
            closest = [r[5] for r in rows[:MOST]]
            text = (
                f"{' or '.join(who)} said nothing about that in the conversations you told me. "
                f"Closest: {_quote(closest, short=True)}"
            )
            return Said(False, text, tuple(closest), best)
        return None

    def _cosines(self, question: str, turns: Sequence[Memory]) -> dict[str, float]:
        """cosine(question, turn) of each turn, from the vectors the store holds for the turns
        (a turn is indexed like a document when it is remembered): one embedding of the question,
        one vector look-up limited to these turns, their stored vectors."""
        if not turns:
            return {}
        store = self.memories.reader_store
        vector = self.memories.embedder.embed([question])[0]
        ids = [m.id for m in turns]
        hits = store.vector_search(vector, 4 * len(ids), types=[SourceType.MEMORY], document_ids=ids)
        stored = store.chunk_embeddings([h.chunk.id for h in hits])
        out: dict[str, float] = {}
        for h in hits:
            v = stored.get(h.chunk.id)
            if v is not None:
                out[h.document.id] = max(out.get(h.document.id, -1.0), cosine(vector, v))
        return out

    def _with_replies(self, kept: Sequence[Memory], topic: set[str]) -> list[Memory]:
        """The kept turns, each that asks about the topic ("What concert was it?") followed by
        the next turn of its session, the reply that answers it."""
        out: list[Memory] = []
        for m in kept:
            if m not in out:
                out.append(m)
            if _asks(m.text, topic):
                reply = self._next(m)
                if reply is not None and reply not in out:
                    out.append(reply)
        return out

    def _next(self, m: Memory) -> Memory | None:
        """The turn after ``m`` in its session (its place is ``<conversation>#s<n>t<k>``): among
        the turns said that day, one look-up by title."""
        head, _, k = m.turn.rpartition("t")
        if not head or not k.isdigit():
            return None
        wanted = f"{head}t{int(k) + 1}"
        docs = self.memories.reader_store.find_documents(
            {"kind": TURN_KIND}, types=[SourceType.MEMORY], title_contains=f" on {m.said_on}:", limit=500
        )
        for d in docs:
            found = from_document(d)
            if found is not None and found.turn == wanted and found.conversation == m.conversation:
                return found
        return None


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    size = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return float(dot / size) if size else 0.0


# a question asking for several things: "What activities does Melanie do?", "Where has she
# camped?", "What are Melanie's pets' names?" — a plural it asks for, or what someone has done
_SEVERAL = re.compile(
    r"(?i)^\s*(?:what|which|where|who)\b(?:\s+[\w+'-]+)?\s+(?:has|have|are|were)\b"
    r"|^\s*(?:what|which)\s+(?:[\w+'-]+\s+)?(?:activities|things|kinds|types|ways|events|places|books|items|hobbies"
    r"|names|countries|states|cities|sports|games|instruments|pets|foods|dishes|songs|bands|artists|movies|shows"
    r"|classes|courses|subjects|symbols|causes|changes|gifts|plans|goals|projects|jobs|exercises|desserts|paintings)\b"
)


# words a speaker tells of themselves with: a turn on the topic without them ("How was your
# charity race?", "Congrats on the race!") is about the one spoken to
_SELF = frozenset("i i'm i've i'd i'll me my mine myself we we're we've we'd we'll us our ours".split())


def _tells(text: str, topic: set[str]) -> bool:
    """Whether a turn's sentence on the topic is its speaker telling of themselves."""
    words = re.findall(r"[a-z']+", _best_sentence(text, topic).lower().replace("\u2019", "'"))
    return bool(_SELF.intersection(words))


def _many(question: str) -> bool:
    return bool(_SEVERAL.search(question))


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# words said to the person spoken to, before their name: "Thanks, Caroline!", "Hey Mel,"
_CALLING = (
    "hey hi hello thanks thank you wow yeah yes yep oh congrats sure bye aw aww woah whoa ok okay "
    "absolutely definitely totally great cool nice awesome sorry glad no worries dear"
).split()


def _unaddressed(text: str, names: set[str]) -> str:
    """The text less the names it calls its listener by ("Thanks, Caroline!", "Melanie, look",
    "That's great, Mel!"): a name right before , ! . ? and after the sentence's start, a comma
    or a word of greeting."""
    words = [w for w in names if len(w) > 2]
    if not words:
        return text
    name = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    calling = "|".join(_CALLING)
    pattern = rf"(?i)(^|[.!?,]\s*|\b(?:{calling})\b,?\s+)(?:{name})\b(?=\s*[,!.?]|\s*$)"
    return re.sub(pattern, r"\1", text)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(" ".join(text.split())) if s]


def _best_sentence(text: str, topic: set[str]) -> str:
    """The sentence of a turn that holds most of the topic (the first of equals)."""
    parts = _sentences(text)
    if not parts:
        return ""
    return max(parts, key=lambda s: (len(topic & _stems(s)), -parts.index(s)))


def _asks(text: str, topic: set[str]) -> bool:
    """Whether the turn asks about the topic rather than tells it: its sentence on the topic is
    a question."""
    return _best_sentence(text, topic).rstrip().endswith("?")


# "when did …": the question asks for a time, answered first with the day the speaker meant
WHEN = content_stems("when date day year month")


def _when(question: str, turns: Sequence[Memory], topic: set[str]) -> str:
    """For a question asking when, the time the best telling turn meant, first: what its
    relative words meant on the day it was said ("last Saturday", said on 25 May 2023: "the
    Saturday before 25 May 2023 (20 May 2023)"), else the day it was said. Empty otherwise."""
    first = question.lower().split()[:1]
    if not (first == ["when"] or (content_stems(" ".join(question.lower().split()[:3])) & WHEN)):
        return ""
    telling = [m for m in turns if not _asks(m.text, topic)] or list(turns)
    if not telling:
        return ""
    # the turn that says when (its words on the topic hold a time), else the best
    m = next((t for t in telling if meanings(_best_sentence(t.text, topic), t.said_on)), telling[0])
    sentence = _best_sentence(m.text, topic)
    meant = meanings(sentence, m.said_on) or meanings(m.text, m.said_on)
    if meant:
        text = meant[0].text
        said = text.replace(": ", " (", 1) + ")" if ": " in text else text
        return f"{said[0].upper()}{said[1:]}: {m.speaker} said “{meant[0].phrase}” on {_day(m.said_on)}.\n"
    return f"{m.speaker} said it on {_day(m.said_on)}.\n"


def _day(iso: str) -> str:
    """``2010-12-15`` → ``15 December 2010 (2010-12-15)``: as people say it, and as machines read it."""
    try:
        y, m, d = (int(x) for x in iso[:10].split("-"))
        month = [name for name, n in MONTHS.items() if n == m][0]  # the full name is listed first
    except (ValueError, IndexError):
        return iso
    return f"{d} {month.capitalize()} {y} ({iso[:10]})"


def relative_days(text: str, said_on: str) -> list[str]:
    """What a turn's relative words meant on the day it was said: "yesterday: 7 May 2023", "last
    saturday: the Saturday before 25 May 2023 (20 May 2023)", "last week: the week before 8 May
    2023" (``memory/relative.py``) — so that "when did …" finds the day."""
    out: list[str] = []
    for m in meanings(text, said_on):
        line = f"{m.phrase}: {m.text.replace(': ', ' (', 1) + ')' if ': ' in m.text else m.text}"
        if line not in out:
            out.append(line)
    return out


def _quote(turns: Sequence[Memory], short: bool = False) -> str:
    lines = []
    for n, m in enumerate(turns, start=1):
        words = " ".join(m.text.split())
        most = 200 if short else QUOTE
        words = words if len(words) <= most else words[: most - 1].rstrip() + "…"
        meant = "" if short else "; ".join(relative_days(m.text, m.said_on))
        lines.append(
            f"{m.speaker} said on {_day(m.said_on)}: “{words}”{f' ({meant})' if meant else ''} [{n}]"
        )
    return "\n".join(lines)
