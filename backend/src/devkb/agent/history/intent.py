"""Which history question is asked (``recognise``): read from the parsed question, never from
the store. Five kinds, checked in this order:

- ``timeline`` — how something evolved ("how has the retry design evolved", "history of PAY-12");
- ``first`` — when an issue first reached a state and who moved it ("when did PAY-12 move to Done");
- ``page_at`` — what a page said at a version or on a date, and how it differs from today;
- ``state`` — an issue's status, assignee, resolution or fix version on a date;
- ``digest`` — what changed in a project, space, repository or document in a window.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from devkb.agent.history.when import CLASSES, Window, days_in, instant_in, time_words, window_in
from devkb.agent.question import ParsedQuestion
from devkb.agent.words import KEYWORD, first, search, table, words, words_of
from devkb.store.models import SourceType

TIMELINE_WORDS = frozenset({"evolve", "evolves", "evolved", "evolving", "evolution", "timeline"})
TIMELINE_PHRASES = (("history", "of"), ("changed", "over", "time"))
FIRST_WHEN = table(
    (
        "when ... move|moves|moved|go|went|get|got|reach|reached|transition|transitioned|become|became|turn|"
        "turned|closed|resolved|reopened|started|done|fixed",
        "first",
    ),
)
FIRST_WHO_VERBS = (
    "moved", "closed", "resolved", "reopened", "transitioned", "started", "put", "set", "changed", "switched",
    "marked",
)  # fmt: skip
# "who moved …", "which person set PAY-7 to Closed", "what user changed the status of …"
FIRST_WHO_ASKERS = (("who",), ("who", "first"), ("which", "person"), ("what", "person"), ("which", "user"),
                    ("what", "user"), ("which", "engineer"), ("who", "was", "it", "that"))  # fmt: skip
FIRST_WHO = tuple((*a, v) for v in FIRST_WHO_VERBS for a in FIRST_WHO_ASKERS)
PAGE_AT = table(
    (
        "say|said|says|read|contain|contained|written|wording|differ|differs|differed|difference|diff",
        "page_at",
    ),
    ("compare|compares|compared", "page_at"),
    ("look|looked like", "page_at"),
    ("version|versions <num>", "page_at"),
    ("<v> of", "page_at"),  # "v3 of the page"; "the payments API v2" names a product
    classes={"v": lambda w: w[:1] == "v" and w[1:].isdigit()},
)
# "version 3", "v3 of the page"; "the retry policy v1 and v2 issues" name products, not page versions
# a page's version: "version 3", "v3 of the page" — not a fix version, not a release ("version 1.3")
VERSION = table(
    ("~fix version n=<num4>", "version"),
    ("v=<v4> of", "version"),
    classes={
        **CLASSES,
        "num4": lambda w: w.isdigit() and len(w) <= 4,
        "v4": lambda w: w[:1] == "v" and w[1:].isdigit() and len(w) <= 5,
    },
)
# the Jira fields a state question asks about, by the words that name them
FIELD_WORDS = (
    (frozenset({"status", "state", "stand", "stood"}), (), "status"),
    (frozenset({"assignee", "assigned", "owner"}), (), "assignee"),
    (frozenset({"resolution", "resolved"}), (), "resolution"),
    (
        frozenset({"fixversion", "fixversions", "release"}),
        (("fix", "version"), ("fix", "versions")),
        "fix version",
    ),
)
STATE_PHRASES = (("what", "was"),)
# a digest is asked for by how the question starts: "what changed / what's new / show the
# changes" even without a window; words that also describe content ("what happened in the
# incident", "what was changed to prevent it") only with a window and in the question's first clause
DIGEST_STRONG = table(
    ("^ what s|has|have|is? changed|new", "digest"),
    ("^ show|list|give me? the? recent|latest? changes|activity", "digest"),
    ("^ recent? changes in|to", "digest"),
    ("^ digest", "digest"),
)
DIGEST_WEAK = table(("^ what|which ... happened|updated|edited|committed|moved|changed|changes", "digest"))
# the first clause ends at a comma, a semicolon or "and" opening another question
_NEXT_QUESTION = table(("and what|who|when|why|how|which", "clause"))
ALL_FIELDS = ("status", "assignee", "resolution", "fix version")
_TOPIC_STOP = frozenset(
    "how has have had did does do the our we a an of evolve evolved evolution timeline history approach "
    "over time changed been is was for to in on".split()
)


@dataclass(frozen=True)
class HistoryIntent:
    kind: str  # timeline | first | page_at | state | digest
    issue_keys: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()  # quoted titles
    scope_keys: tuple[str, ...] = ()  # Jira project / Confluence space keys
    repositories: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    version: int | None = None
    at: str = ""  # state / page_at on a day: the end of that day (UTC ISO, exclusive)
    at_day: date | None = None
    at_label: str = ""  # how the answer names ``at`` when it is not a day: "at the end of March 2026"
    window: Window | None = None
    text: str = ""  # the question, for title matching and topics
    types: tuple[SourceType, ...] = ()  # only documents of these sources (empty: all)

    @property
    def topic(self) -> str:
        said = words(self.text, KEYWORD, lower=False)
        return " ".join(w for w in said if w.lower() not in _TOPIC_STOP)


def _filters(parsed: ParsedQuestion, name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for lk in parsed.lookups.lookups for v in lk.filters.get(name, ())))


def recognise(parsed: ParsedQuestion, today: date) -> HistoryIntent | None:
    """The history question ``parsed`` asks, or None when it asks something else."""
    text = parsed.text
    keys = parsed.issue_keys
    titles = tuple(
        dict.fromkeys(
            lk.title_contains for lk in parsed.lookups.lookups if lk.label == "title" and lk.title_contains
        )
    )
    common = {
        "issue_keys": keys,
        "titles": titles,
        "scope_keys": _filters(parsed, "project") + _filters(parsed, "space"),
        "repositories": _filters(parsed, "repository"),
        "paths": _filters(parsed, "path"),
        "text": text,
    }
    version = first(VERSION, time_words(text))
    if set(parsed.words) & TIMELINE_WORDS or parsed.has(*TIMELINE_PHRASES):
        return HistoryIntent("timeline", **common)  # type: ignore[arg-type]
    if keys and (parsed.has(*FIRST_WHO) or (first(FIRST_WHEN, parsed.words) and not days_in(text, today))):
        return HistoryIntent("first", **common)  # type: ignore[arg-type]
    instant = instant_in(text, today=today)
    window = window_in(text, today)
    label = ""
    if instant is None and window is not None and window.last_day is not None:
        # "what did the page say in March": as it stood at the end of that month
        instant = window.end, window.last_day
        label = f"at the end of {window.label.removeprefix('in ')}"
    digest = bool(
        first(DIGEST_STRONG, parsed.words) or (window is not None and first(DIGEST_WEAK, _first_clause(text)))
    )
    if not keys and first(PAGE_AT, parsed.words) and (version or instant) and not digest:
        at, day = instant if instant else ("", None)
        return HistoryIntent(
            "page_at",
            version=_version_number(version[0].captured) if version else None,
            at=at,
            at_day=day,
            at_label=label,
            **common,  # type: ignore[arg-type]
        )
    named = [
        name for words, phrases, name in FIELD_WORDS if set(parsed.words) & words or parsed.has(*phrases)
    ]
    if keys and instant and (named or parsed.has(*STATE_PHRASES) or not digest):
        fields = tuple(named) or ALL_FIELDS
        at, day = instant
        return HistoryIntent("state", fields=fields, at=at, at_day=day, at_label=label, **common)  # type: ignore[arg-type]
    if digest:
        return HistoryIntent("digest", window=window, **common)  # type: ignore[arg-type]
    return None


def _first_clause(text: str) -> tuple[str, ...]:
    """The words of ``text`` up to its first comma, semicolon or "and what / who / …"."""
    head = text.split(",", 1)[0].split(";", 1)[0]
    said = words_of(head)
    cut = search(_NEXT_QUESTION[0][0], said)
    return said[: cut.start] if cut else said


def _version_number(captured: Mapping[str, str]) -> int:
    return int(captured["n"] if "n" in captured else captured["v"][1:])
