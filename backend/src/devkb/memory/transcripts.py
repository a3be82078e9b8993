"""A long conversation told to devkb (MCP ``remember_conversation``, ``POST /memories/conversations``):
sessions, each with its date, of turns, each with its speaker and words — a meeting, a chat, an
issue's comment thread. Each turn becomes one memory (``Memory``, origin ``transcript``) of the
caller, private or team, valid from the moment it was said, with its speaker, its conversation and
its place in it (``turn_ref``: ``<conversation>#s<session>t<turn>``), so that retrieval finds turns
and answers cite them with who said what, when.

Checked before anything is written (``TranscriptError``, a 422): sizes are bounded so that a
hostile caller cannot make the server embed without end — at most ``MAX_SESSIONS`` sessions,
``MAX_TURNS`` turns, ``MAX_TURN_CHARS`` per turn and ``MAX_TOTAL_CHARS`` in all.

Ids are derived from the content (owner, scope, conversation, session date, position, speaker,
words): telling devkb the same conversation again writes nothing new; a changed turn is a new
memory (the old one stays until forgotten)."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, Field

from devkb.errors import DevkbError
from devkb.memory.model import PREFIX, Memory, Scope, gates_for, parse_when

MAX_SESSIONS = 1000
MAX_TURNS = 10_000
MAX_TURN_CHARS = 20_000
MAX_TOTAL_CHARS = 2_000_000
MAX_SPEAKER = 200
MAX_TITLE = 300
NAMESPACE = uuid.UUID("6f1c3f0e-9a51-4c1e-8f55-2b1f2a4c7d10")


class TurnIn(BaseModel):
    """A turn as MCP and the API take it (typed, bounded; ``parse_sessions`` checks the rest)."""

    speaker: Annotated[
        str,
        Field(
            description="Who said it (or `role`).",
            min_length=1,
            max_length=MAX_SPEAKER,
            validation_alias=AliasChoices("speaker", "role"),
        ),
    ]
    text: Annotated[
        str,
        Field(
            description="What they said (or `content`).",
            min_length=1,
            max_length=MAX_TURN_CHARS,
            validation_alias=AliasChoices("text", "content"),
        ),
    ]
    time: Annotated[
        str | None, Field(description="When, if not the session's date (ISO-8601).", max_length=40)
    ] = None


class SessionIn(BaseModel):
    date: Annotated[
        str,
        Field(
            description="When the session was held: 2023-05-08, an ISO-8601 date-time, "
            "'1:56 pm on 8 May, 2023' or '2023/05/08 (Mon) 13:56'.",
            max_length=60,
        ),
    ]
    turns: Annotated[list[TurnIn], Field(min_length=1, max_length=MAX_TURNS)]
    title: Annotated[
        str | None, Field(description="The session's topic (optional).", max_length=MAX_TITLE)
    ] = None


class TranscriptError(DevkbError):
    """A conversation that cannot be stored as given (a 422 with what to change)."""


@dataclass(frozen=True)
class Turn:
    speaker: str
    text: str
    said_at: str  # ISO UTC
    said_on: str  # the day it was said, as the speaker's calendar had it (YYYY-MM-DD)


@dataclass(frozen=True)
class Session:
    date: str  # ISO UTC, the session's start
    title: str
    turns: tuple[Turn, ...]


def _text(value: Any, what: str, most: int, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise TranscriptError(f"{what} must be text")
    clean = " ".join(value.split())
    if required and not clean:
        raise TranscriptError(f"{what} is empty")
    if len(clean) > most:
        raise TranscriptError(f"{what} is over {most} characters ({len(clean)})")
    return clean


_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap])?\.?m?\.?", re.IGNORECASE)
_SLASHED = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})")
_MONTHS = "january february march april may june july august september october november december".split()


def iso_date(raw: str) -> str:
    """A session's date as people and datasets write it → ISO-8601 (local, as written): ISO itself,
    ``2023/05/20 (Sat) 02:21``, ``1:56 pm on 8 May, 2023``, ``May 8, 2023``, ``8 May 2023``; text
    it cannot read is returned as it is (and refused by ``parse_when``)."""
    text = " ".join(raw.split())
    if len(text) >= 10 and text[4] == "-" and text[:4].isdigit():
        return text
    clock = _CLOCK.search(text)
    hour = minute = 0
    if clock:
        hour, minute = int(clock.group(1)), int(clock.group(2))
        half = (clock.group(3) or "").lower()
        hour = hour % 12 + (12 if half == "p" else 0) if half else hour
        text = text[: clock.start()] + " " + text[clock.end() :]
    slashed = _SLASHED.match(text)
    if slashed:
        year, month, day = (int(g) for g in slashed.groups())
    else:
        words = re.findall(r"[a-z]+|\d+", text.lower())
        month = next(
            (i for w in words for i, m in enumerate(_MONTHS, 1) if len(w) >= 3 and m.startswith(w)), 0
        )
        years = [int(w) for w in words if w.isdigit() and len(w) == 4]
        days = [int(w) for w in words if w.isdigit() and len(w) <= 2 and 1 <= int(w) <= 31]
        if not (month and years and days):
            return raw
        year, day = years[0], days[0]
    if not (0 <= hour < 24 and 0 <= minute < 60):
        return raw
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:00"


def _when(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TranscriptError(f"{what} must be a date like 2026-12-15 or an ISO-8601 date-time")
    try:
        found = parse_when(iso_date(value), what)
    except ValueError as e:
        raise TranscriptError(str(e)) from e
    if found is None:
        raise TranscriptError(f"{what} is empty")
    return found


def parse_sessions(raw: Any) -> list[Session]:
    """``[{date, title?, turns: [{speaker, text, time?}]}]`` → sessions, checked and bounded."""
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)) or not raw:
        raise TranscriptError("sessions must be a non-empty list of {date, turns}")
    if len(raw) > MAX_SESSIONS:
        raise TranscriptError(f"at most {MAX_SESSIONS} sessions per call, not {len(raw)}")
    out: list[Session] = []
    turns = chars = 0
    for i, s in enumerate(raw, start=1):
        where = f"session {i}"
        if not isinstance(s, Mapping):
            raise TranscriptError(f"{where} must be an object with date and turns")
        date = _when(s.get("date"), f"{where}: date")
        title = _text(s.get("title"), f"{where}: title", MAX_TITLE, required=False)
        items = s.get("turns")
        if not isinstance(items, Sequence) or isinstance(items, (str, bytes)) or not items:
            raise TranscriptError(f"{where}: turns must be a non-empty list of {{speaker, text}}")
        turns += len(items)
        if turns > MAX_TURNS:
            raise TranscriptError(f"at most {MAX_TURNS} turns per call")
        kept: list[Turn] = []
        for j, t in enumerate(items, start=1):
            at = f"{where}, turn {j}"
            if not isinstance(t, Mapping):
                raise TranscriptError(f"{at} must be an object with speaker and text")
            text = _text(t.get("text", t.get("content")), f"{at}: text", MAX_TURN_CHARS)
            chars += len(text)
            if chars > MAX_TOTAL_CHARS:
                raise TranscriptError(f"at most {MAX_TOTAL_CHARS} characters of turns per call")
            said = _when(t["time"], f"{at}: time") if t.get("time") else date
            day = iso_date(str(t["time"] if t.get("time") else s.get("date"))).strip()[:10]
            speaker = _text(t.get("speaker", t.get("role")), f"{at}: speaker", MAX_SPEAKER)
            kept.append(Turn(speaker, text, said, day))
        out.append(Session(date, title, tuple(kept)))
    return out


def conversation_id(owner: str, title: str, sessions: Sequence[Session]) -> str:
    """A conversation's id when the caller gives none: from its owner, title and first session."""
    first = sessions[0].date if sessions else ""
    return "c" + hashlib.sha256(f"{owner}\n{title}\n{first}".encode()).hexdigest()[:16]


def turn_ref(conversation: str, session: int, turn: int) -> str:
    return f"{conversation}#s{session}t{turn}"


def memories_of(
    sessions: Sequence[Session], conversation: str, title: str, scope: Scope, owner: str, recorded_at: str
) -> list[Memory]:
    """One memory per turn, its id derived from what it is (the same turn → the same id)."""
    gates = gates_for(scope, owner, [])
    out: list[Memory] = []
    for si, s in enumerate(sessions, start=1):
        for ti, t in enumerate(s.turns, start=1):
            ref = turn_ref(conversation, si, ti)
            digest = "\n".join((owner, scope, ref, s.date, t.said_at, t.speaker, t.text))
            out.append(
                Memory(
                    id=f"{PREFIX}{uuid.uuid5(NAMESPACE, digest)}",
                    text=t.text,
                    scope=scope,
                    owner=owner,
                    status="active",
                    recorded_at=recorded_at,
                    valid_from=t.said_at,
                    origin="transcript",
                    speaker=t.speaker,
                    conversation=conversation,
                    conversation_title=title,
                    session_title=s.title,
                    turn=ref,
                    said_day=t.said_on,
                    gates=gates,
                )
            )
    return out
