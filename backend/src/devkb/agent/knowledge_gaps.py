"""Knowledge gaps: what people asked that the sources could not answer, grouped by topic so a team
sees what to write down (docs/knowledge-gaps.md).

Three things make a gap: an answer with status ``not_found``; an answer whose confidence is below
``LOW_CONFIDENCE_BELOW`` (or whose status is ``partial``); a thumbs-down on an answer. Gaps live in
the configured store (``SharedState``: SQLite or Neo4j) and expire like conversations.

**Privacy.** The question text is stored only when the deployment keeps what people ask anyway
(``DEVKB_KNOWLEDGE_GAPS=auto`` with ``DEVKB_CHAT_MEMORY=store``, or ``questions``); otherwise
(the default in-memory chat) a gap keeps only its normalised key terms — the stemmed content
words the grouping uses — and the documents it came closest to. ``off`` records nothing.

**Grouping** (explainable, no model): a question's key terms are its content words, lower-cased
and stemmed, without stop words and words that only say what kind of text is wanted ("page",
"docs", "explain"). Two gaps belong to one topic when they share at least half of the key terms
of the one with fewer (and at least one); topics are the connected groups of that relation. A
topic is named by its most frequent terms and lists its closest documents — those most often
cited or offered as "related, but not an answer" by its gaps.
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from devkb.agent.answer import Answer
from devkb.agent.confidence import META_WORDS
from devkb.agent.tools.filter_docs import keywords, stem
from devkb.store.models import Document
from devkb.store.protocol import GraphStore
from devkb.store.shared_state import Gap, SharedState

LOW_CONFIDENCE_BELOW = 0.5  # the "low" level's upper bound (agent/confidence.py)
EXPIRY_EVERY_SECONDS = 3600.0
GROUPED_AT_MOST = 5000  # newest gaps considered by one report
GapMode = Literal["auto", "questions", "terms", "off"]


# Function words and question verbs that say nothing about a topic, on top of the keyword
# stop list: "what happens if it does not retry after a timeout" is about retries and timeouts,
# not about "after · happen · if · not" (a topic the gaps page once showed). Stemmed like the
# keywords they are compared with.
_NOT_TOPICS = frozenset(
    stem(w)
    for w in (
        "after again against all also always because been before being both but could each even ever "
        "every few get gets got had happen happens happened happening having he her here hers him his "
        "if just least less like many may might more most much must my never no nor not now off once "
        "only other ours out over own same she should so some still such them they too under until up "
        "upon us very want wanted was were while whom whose would yet one ones go goes going went work "
        "works worked working way ways able case cases actually really currently anymore instead "
        "between during through without within okay ok yes hi hello thanks thank"
    ).split()
)
_PUNCTUATION = "\"'`()[]{}<>,;:!?“”‘’«»"
_JOINERS = frozenset("-_./#:@")


def identifiers(question: str) -> set[str]:
    """The identifiers a question names, kept whole (lower-cased, not stemmed): a word that mixes
    letters with digits or joins parts with ``- _ . / # :`` — ``PAY-7``, ``v2``, ``retry.py``,
    ``X-Request-Id``, ``api/v2``, ``ERR_TIMEOUT``, ``409`` stays a number word."""
    out = set()
    for token in question.split():
        word = token.strip(_PUNCTUATION).rstrip(".").lower()
        if len(word) < 2:
            continue
        letters = any(c.isalpha() for c in word)
        digits = any(c.isdigit() for c in word)
        joined = any(c in _JOINERS for c in word[1:-1])
        parts = "".join(" " if c in _JOINERS else c for c in word).split()
        if letters and (digits or joined) and any(len(part) > 1 for part in parts):
            out.add(word)
    return out


def key_terms(question: str) -> tuple[str, ...]:
    """The normalised key terms of a question (sorted): what grouping compares — its identifiers
    whole, and its other content words stemmed, without stop words, function words and words
    that only say what kind of text is wanted."""
    names = identifiers(question)
    rest = " ".join(w for w in question.split() if w.strip(_PUNCTUATION).rstrip(".").lower() not in names)
    return tuple(sorted(names | (keywords(rest) - META_WORDS - _NOT_TOPICS)))


def gap_kind(answer: Answer) -> str | None:
    """Why an answer is a gap (``None`` when it is not one). An answer asking back which document
    a question means is none: the sources were not asked."""
    if answer.asks_back:
        return None
    if answer.status == "not_found":
        return "not_found"
    if answer.status == "partial":
        return "low_confidence"
    if answer.confidence is not None and answer.confidence.probability < LOW_CONFIDENCE_BELOW:
        return "low_confidence"
    return None


@dataclass
class GapTopic:
    """Gaps about one topic."""

    terms: list[str]  # the most frequent key terms, most frequent first
    count: int
    kinds: dict[str, int]  # not_found / low_confidence / thumbs_down → how many
    questions: list[str]  # distinct question texts (empty when none were kept), newest first
    document_ids: list[str]  # closest documents, most often involved first
    last_at: float
    gap_ids: list[str] = field(default_factory=list)


def group_gaps(gaps: Sequence[Gap], examples: int = 5, documents: int = 3) -> list[GapTopic]:
    """Topics of ``gaps`` (see the module docstring), largest first, then most recent."""
    parent = list(range(len(gaps)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_term: dict[str, list[int]] = {}
    for i, g in enumerate(gaps):
        for t in g.terms:
            by_term.setdefault(t, []).append(i)
    sets = [set(g.terms) for g in gaps]
    for i, s in enumerate(sets):
        seen: set[int] = set()
        for t in s:
            for j in by_term[t]:
                if j <= i or j in seen:
                    continue
                seen.add(j)
                need = max(1, math.ceil(min(len(s), len(sets[j])) / 2))
                if len(s & sets[j]) >= need:
                    parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(gaps)):
        groups.setdefault(find(i), []).append(i)

    topics = []
    for members in groups.values():
        ms = sorted((gaps[i] for i in members), key=lambda g: (-g.at, g.id))
        term_counts = Counter(t for g in ms for t in set(g.terms))
        doc_counts = Counter(d for g in ms for d in dict.fromkeys(g.document_ids))
        questions = list(dict.fromkeys(g.question for g in ms if g.question))
        topics.append(
            GapTopic(
                terms=[t for t, _ in sorted(term_counts.items(), key=lambda kv: (-kv[1], kv[0]))[:4]],
                count=len(ms),
                kinds=dict(Counter(g.kind for g in ms)),
                questions=questions[:examples],
                document_ids=[d for d, _ in sorted(doc_counts.items(), key=lambda kv: (-kv[1], kv[0]))][
                    :documents
                ],
                last_at=ms[0].at,
                gap_ids=[g.id for g in ms],
            )
        )
    topics.sort(key=lambda t: (-t.count, -t.last_at, t.terms))
    return topics


@dataclass(frozen=True)
class GapDocument:
    id: str
    title: str
    url: str
    type: str


@dataclass
class TopicReport:
    label: str  # the topic's key terms, e.g. "vault · rotat · key"
    terms: list[str]
    count: int
    kinds: dict[str, int]
    questions: list[str]
    documents: list[GapDocument]
    last_asked: str  # ISO 8601, UTC


@dataclass
class VotedDown:
    """An answer someone voted down, with the reason they gave (the feedback's comment). The
    question and the answer's start are shown only where questions are kept (privacy)."""

    at: str  # ISO 8601, UTC
    reason: str  # "" when none was given
    question: str
    answer: str  # its first ANSWER_SHOWN characters
    documents: list[GapDocument]


ANSWER_SHOWN = 300
VOTED_DOWN_SHOWN = 50


@dataclass
class GapReport:
    """What the admins' page, ``GET /admin/gaps`` and ``devkb gaps`` show."""

    total: int  # gaps grouped
    questions_kept: bool  # False: only key terms are recorded (privacy, docs/knowledge-gaps.md)
    recording: str  # the DEVKB_KNOWLEDGE_GAPS mode
    days: float | None
    topics: list[TopicReport]
    voted_down: list[VotedDown] = field(default_factory=list)  # newest first


class KnowledgeGaps:
    """Records gaps in the store and reports them by topic."""

    def __init__(
        self,
        state: Callable[[], SharedState],
        mode: GapMode = "auto",
        keeps_conversations: bool = False,
        retention_days: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._state = state
        self.mode = mode
        self.keep_questions = mode == "questions" or (mode == "auto" and keeps_conversations)
        self.retention_seconds = retention_days * 86400.0
        self.clock = clock
        self._last_expiry = float("-inf")
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def record_answer(self, question: str, answer: Answer) -> Gap | None:
        """Store the answer as a gap when it is one; the gap (or ``None``)."""
        kind = gap_kind(answer)
        if kind is None:
            return None
        probability = answer.confidence.probability if answer.confidence is not None else None
        if kind == "not_found" and probability is not None:
            probability = round(1.0 - probability, 3)  # the confidence was that "not found" is right
        return self._record(kind, question, probability, [c.document_id for c in answer.sources])

    def record_feedback(self, question: str, document_ids: Sequence[str]) -> Gap | None:
        """Store a thumbs-down as a gap."""
        return self._record("thumbs_down", question, None, document_ids)

    def _record(
        self, kind: str, question: str, probability: float | None, document_ids: Sequence[str]
    ) -> Gap | None:
        if not self.enabled:
            return None
        now = self.clock()
        gap = Gap(
            id=str(uuid.uuid4()),
            kind=kind,
            question=" ".join(question.split())[:1000] if self.keep_questions else "",
            terms=key_terms(question),
            probability=probability,
            document_ids=tuple(dict.fromkeys(document_ids))[:5],
            at=now,
        )
        state = self._state()
        self._expire_if_due(state, now)
        state.record_gap(gap)
        return gap

    def _expire_if_due(self, state: SharedState, now: float) -> None:
        with self._lock:
            if now - self._last_expiry < EXPIRY_EVERY_SECONDS:
                return
            self._last_expiry = now
        state.expire_gaps(now - self.retention_seconds)

    def topics(self, days: float | None = None, kinds: Sequence[str] = ()) -> tuple[list[GapTopic], int]:
        """The topics of the gaps of the last ``days`` (all kept when ``None``), optionally of
        some kinds only; and the number of gaps grouped."""
        now = self.clock()
        since = 0.0 if days is None else now - days * 86400.0
        gaps = [
            g for g in self._state().gaps(since=since, limit=GROUPED_AT_MOST) if not kinds or g.kind in kinds
        ]
        return group_gaps(gaps), len(gaps)

    def voted_down(
        self, votes: Sequence[dict[str, object]], store: GraphStore, days: float | None = None
    ) -> list[VotedDown]:
        """The thumbs-down votes of the last ``days`` (feedback records: ``at``, ``rating``,
        ``question``, ``answer``, ``comment``, ``document_ids``), newest first, their documents
        resolved in ``store``; question and answer left empty where questions are not kept."""
        since = "" if days is None else datetime.fromtimestamp(self.clock() - days * 86400.0, UTC).isoformat()
        down = [v for v in votes if v.get("rating") == "down" and str(v.get("at") or "") >= since]
        down = sorted(down, key=lambda v: str(v.get("at") or ""), reverse=True)[:VOTED_DOWN_SHOWN]
        wanted = list(dict.fromkeys(str(d) for v in down for d in _strings(v.get("document_ids"))))
        found = {d.id: d for d in store.get_documents(wanted)} if wanted else {}
        out = []
        for v in down:
            answer = " ".join(str(v.get("answer") or "").split())
            out.append(
                VotedDown(
                    at=str(v.get("at") or ""),
                    reason=" ".join(str(v.get("comment") or "").split()),
                    question=str(v.get("question") or "") if self.keep_questions else "",
                    answer=(answer[:ANSWER_SHOWN] + ("…" if len(answer) > ANSWER_SHOWN else ""))
                    if self.keep_questions
                    else "",
                    documents=[
                        GapDocument(d.id, d.title, d.url, str(d.type))
                        for d in (found.get(i) for i in _strings(v.get("document_ids")))
                        if d is not None
                    ],
                )
            )
        return out

    def report(
        self,
        store: GraphStore,
        days: float | None = None,
        kinds: Sequence[str] = (),
        limit: int = 100,
        votes: Sequence[dict[str, object]] = (),
    ) -> GapReport:
        """The topics with their closest documents resolved in ``store`` (documents the reader may
        not see, or that are gone, are left out); ``votes``: the feedback records, whose
        thumbs-down votes are listed with their reasons."""
        topics, total = self.topics(days, kinds)
        topics = topics[:limit]
        wanted = list(dict.fromkeys(d for t in topics for d in t.document_ids))
        found = {d.id: d for d in store.get_documents(wanted)} if wanted else {}
        return GapReport(
            total=total,
            questions_kept=self.keep_questions,
            recording=self.mode,
            days=days,
            topics=[
                TopicReport(
                    label=_label(t, found),
                    terms=t.terms,
                    count=t.count,
                    kinds=t.kinds,
                    questions=t.questions,
                    documents=[
                        GapDocument(d.id, d.title, d.url, str(d.type))
                        for d in (found.get(i) for i in t.document_ids)
                        if d is not None
                    ],
                    last_asked=datetime.fromtimestamp(t.last_at, UTC).isoformat(timespec="seconds"),
                )
                for t in topics
            ],
            voted_down=self.voted_down(votes, store, days) if not kinds or "thumbs_down" in kinds else [],
        )


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _label(topic: GapTopic, found: dict[str, Document]) -> str:
    """The topic's key terms; for questions with no content word ("why?", "and the other one?"),
    its first question where kept, else the documents its answers came closest to."""
    if topic.terms:
        return " · ".join(topic.terms)
    if topic.questions:
        first = topic.questions[0]
        return f"“{first[:80]}{'…' if len(first) > 80 else ''}”"
    near = [found[d].title for d in topic.document_ids if d in found]
    if near:
        return "near " + ", ".join(near[:2])
    return "(questions without content words)"
