"""Which history question is asked (``recognise``): read from the parsed question, never from
the store. Five kinds, checked in this order:

- ``timeline`` — how something evolved ("how has the retry design evolved", "history of PAY-12");
- ``first`` — when an issue first reached a state and who moved it ("when did PAY-12 move to Done");
- ``page_at`` — what a page said at a version or on a date, and how it differs from today;
- ``state`` — an issue's status, assignee, resolution or fix version on a date;
- ``digest`` — what changed in a project, space, repository or document in a window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from devkb.agent.history.when import Window, days_in, instant_in, window_in
from devkb.agent.question import ParsedQuestion
from devkb.store.models import SourceType

TIMELINE = re.compile(
    r"\bevol(?:ve[sd]?|ving|ution)\b|\btimeline\b|\bhistory of\b|\bchanged over time\b", re.IGNORECASE
)
FIRST_WHEN = re.compile(
    r"\bwhen\b.*\b(?:move[sd]?|go|went|get|got|reach(?:ed)?|transition(?:ed)?|become|became|"
    r"turn(?:ed)?|closed|resolved|reopened|started|done|fixed)\b",
    re.IGNORECASE,
)
FIRST_WHO = re.compile(
    r"\bwho\s+(?:first\s+)?(?:moved|closed|resolved|reopened|transitioned|started|put|set)\b", re.IGNORECASE
)
PAGE_AT = re.compile(
    r"\b(?:say|said|says|look(?:ed)?\s+like|read|contain(?:ed)?|written|wording|differ(?:s|ed|ence)?|diff|"
    r"compare[sd]?|versions?\s+\d+|v\d+)\b",
    re.IGNORECASE,
)
VERSION = re.compile(r"\b(?:version|v)\s*#?\s*(\d{1,4})\b", re.IGNORECASE)
STATE_WORDS = re.compile(
    r"\b(?:status|state|assign(?:ee|ed)|owner|resolution|resolved|fix\s*versions?|stand|stood|what was)\b",
    re.IGNORECASE,
)
# a digest is asked for by how the question starts: "what changed / what's new / show the
# changes" even without a window; words that also describe content ("what happened in the
# incident", "what was changed to prevent it") only with a window and in the question's first clause
DIGEST_STRONG = re.compile(
    r"^\s*(?:what(?:'s|\s+has|\s+have|\s+is)?\s+(?:changed|new)\b|"
    r"(?:show|list|give)(?:\s+me)?(?:\s+the)?(?:\s+(?:recent|latest))?\s+(?:changes|activity)\b|"
    r"(?:recent\s+)?changes\s+(?:in|to)\b|digest\b)",
    re.IGNORECASE,
)
DIGEST_WEAK = re.compile(
    r"^\s*(?:what|which)\b.*\b(?:happened|updated|edited|committed|moved|changed|changes)\b", re.IGNORECASE
)
_CLAUSE_END = re.compile(r",|;|\band\s+(?:what|who|when|why|how|which)\b", re.IGNORECASE)
FIELDS = (
    (re.compile(r"\bstatus|state|stand|stood\b", re.IGNORECASE), "status"),
    (re.compile(r"\bassign(?:ee|ed)|owner\b", re.IGNORECASE), "assignee"),
    (re.compile(r"\bresolution|resolved\b", re.IGNORECASE), "resolution"),
    (re.compile(r"\bfix\s*versions?|release\b", re.IGNORECASE), "fix version"),
)
ALL_FIELDS = ("status", "assignee", "resolution", "fix version")
_TOPIC_STOP = re.compile(
    r"\b(?:how|has|have|had|did|does|do|the|our|we|a|an|of|evolved?|evolution|timeline|history|"
    r"approach|over|time|changed|been|is|was|for|to|in|on)\b",
    re.IGNORECASE,
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
    window: Window | None = None
    text: str = ""  # the question, for title matching and topics
    types: tuple[SourceType, ...] = ()  # only documents of these sources (empty: all)

    @property
    def topic(self) -> str:
        words = _TOPIC_STOP.sub(" ", re.sub(r"[^\w\s-]", " ", self.text))
        return " ".join(words.split())


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
    version = VERSION.search(text)
    if TIMELINE.search(text):
        return HistoryIntent("timeline", **common)  # type: ignore[arg-type]
    if keys and (FIRST_WHO.search(text) or (FIRST_WHEN.search(text) and not days_in(text))):
        return HistoryIntent("first", **common)  # type: ignore[arg-type]
    instant = instant_in(text)
    window = window_in(text, today)
    first_clause = _CLAUSE_END.split(text, maxsplit=1)[0]
    digest = bool(DIGEST_STRONG.search(text) or (window is not None and DIGEST_WEAK.search(first_clause)))
    if not keys and PAGE_AT.search(text) and (version or instant) and not digest:
        at, day = instant if instant else ("", None)
        return HistoryIntent(
            "page_at",
            version=int(version.group(1)) if version else None,
            at=at,
            at_day=day,
            **common,  # type: ignore[arg-type]
        )
    if keys and instant and (STATE_WORDS.search(text) or not digest):
        fields = tuple(name for p, name in FIELDS if p.search(text)) or ALL_FIELDS
        return HistoryIntent("state", fields=fields, at=instant[0], at_day=instant[1], **common)  # type: ignore[arg-type]
    if digest:
        return HistoryIntent("digest", window=window, **common)  # type: ignore[arg-type]
    return None
