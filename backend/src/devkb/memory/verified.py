"""Verified answers: a reviewer (an admin) verifies an answer — question, answer, citations — with
an expiry; a new question that means the same gets it first, "verified by … on …". Whether it
"means the same" is a :class:`Meaning`'s decision: the product's is the agent's comparison of the
two questions' frames, words and embeddings (``agent/same_question.py``, given by the container);
without it, :class:`SameWords` (every content word of the verified question, at most two of its
own, and a close embedding). When a cited document changed since the verification (its content
hash) or the expiry passed, the answer is flagged and not served first until verified again.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

import numpy as np

from devkb.memory.lexicon import fold
from devkb.memory.model import Memory, from_document, now_iso
from devkb.memory.service import LIST_LIMIT, TYPES, MemoryError, MemoryService

_WORD = re.compile(r"[a-z0-9][a-z0-9.+#-]*")
STOP = frozenset(
    """a an the of for to in on at by with from and or is are was were be been do does did we our us i my me
    you your it its this that these those what which who whom whose when where why how can could should
    would will shall may might must there here has have had get got any some all about into up out as
    so than then too very just please tell me know show find give need want""".split()
)


def content_stems(text: str) -> set[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        w = w.strip(".-")
        if not w or w in STOP:
            continue
        out.add(fold(w))
    return out


def lexical_overlap(verified_question: str, question: str) -> float:
    """Share of the verified question's content words (stems, a few synonyms folded) that the new
    question holds, times the share of the new question's that the verified one holds: a word only
    one side has ("start" / "end", "payments" / "web") lowers it."""
    a, b = content_stems(verified_question), content_stems(question)
    if not a or not b:
        return 0.0
    both = len(a & b)
    return (both / len(a)) * (both / len(b))


# SameWords: every content word of the verified question in the new one (a word it lacks —
# "start" for "end", "P1" for "P2" — is another question), at most EXTRA_WORDS of its own, and the
# embeddings close (the rule before issue 59's frame comparison: 0.57 of held-out paraphrases)
MIN_SIMILARITY = 0.82
EXTRA_WORDS = 2
REFRESH_SECONDS = 5.0


def lexically_same(verified_question: str, question: str) -> bool:
    a, b = content_stems(verified_question), content_stems(question)
    return bool(a) and a <= b and len(b - a) <= EXTRA_WORDS


class Meaning(Protocol):
    """Whether a new question means a verified one."""

    def near(self, verified: str, question: str) -> bool:
        """Without a model: may it mean the same (is an embedding worth computing)?"""

    def same(self, verified: str, question: str, similarity: float) -> bool:
        """With the cosine of the two questions' embeddings: does it mean the same?"""


class SameWords:
    """:class:`Meaning` by words and the embedding alone (no frame)."""

    def near(self, verified: str, question: str) -> bool:
        return lexically_same(verified, question)

    def same(self, verified: str, question: str, similarity: float) -> bool:
        return similarity >= MIN_SIMILARITY


@dataclass(frozen=True)
class Flags:
    expired: bool
    stale: bool  # a cited document changed (or is gone) since the verification
    changed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.expired or self.stale)


@dataclass(frozen=True)
class Match:
    memory: Memory
    similarity: float
    flags: Flags


class VerifiedAnswers:
    """Verify answers, find the one a question means, flag the stale and the expired."""

    def __init__(
        self,
        service: MemoryService,
        days: float = 90.0,
        clock: Callable[[], str] = now_iso,
        meaning: Meaning | None = None,
    ) -> None:
        self.service = service
        self.meaning: Meaning = meaning or SameWords()
        self.days = days
        self.clock = clock
        self._lock = threading.Lock()
        self._vectors: dict[str, np.ndarray] = {}
        service.changed.append(self._forget)
        self._listed: tuple[float, list[Memory]] = (-float("inf"), [])

    def _forget(self) -> None:
        with self._lock:
            self._listed = (-float("inf"), [])

    def verify(
        self, question: str, answer: str, citations: Sequence[str], days: float | None = None
    ) -> Memory:
        """A reviewer verifies ``answer`` to ``question`` citing ``citations`` (document ids they
        may read); it expires after ``days`` (default the setting). Verifying the same question
        again supersedes the earlier answer."""
        owner, reviewer = self.service.who()
        if not reviewer and not self.service.reviews_somewhere():
            raise MemoryError("verifying an answer needs a reviewer (an admin)", 403)
        question = " ".join((question or "").split())
        if not question:
            raise MemoryError("a verified answer needs its question")
        if days is not None and not 0 < days <= 3650:
            raise MemoryError("expires_in_days must be between 1 and 3650")
        cited = self.service.readable_documents(citations, "citations")
        if not reviewer and not self.service.reviews(cited):
            raise MemoryError(
                "verifying this answer needs a reviewer of every project or space it cites (or an admin)", 403
            )
        hashes = self.service.store.content_hashes([d.id for d in cited])
        now = self.clock()
        until = datetime.fromisoformat(now) + timedelta(days=days if days is not None else self.days)
        return self.service.remember(
            answer,
            scope="team",
            origin="admin",
            subject=" ".join(sorted(content_stems(question))) or question.lower(),
            attribute="answer",
            derived_from=[d.id for d in cited],
            extra={
                "question": question,
                "expires_at": until.isoformat(timespec="seconds"),
                "cited_hashes": tuple(sorted(hashes.items())),
                "status": "verified",
                "verified_by": owner,
                "verified_at": now,
            },
        )

    def flags(self, m: Memory) -> Flags:
        expired = bool(m.expires_at) and self.clock() >= m.expires_at
        stored = dict(m.cited_hashes)
        current = self.service.store.content_hashes(sorted(stored)) if stored else {}
        changed = tuple(sorted(i for i, h in stored.items() if current.get(i) != h))
        return Flags(expired, bool(changed), changed)

    def answers(self, keep: Callable[[Memory], bool] | None = None) -> list[Memory]:
        """The current verified answers this reader may read (of those ``keep`` accepts: checked
        before the reader's permissions, which cost a store read)."""
        now = time.monotonic()
        with self._lock:
            checked, listed = self._listed
        if now - checked >= REFRESH_SECONDS:
            # every process's verified answers, whoever reads (each reader's are checked below)
            found = self.service.store.find_documents({"status": ["verified"]}, types=TYPES, limit=LIST_LIMIT)
            memories = [from_document(d) for d in found]
            listed = [
                m
                for m in memories
                if m is not None and m.question and m.status == "verified" and not m.valid_until
            ]
            with self._lock:
                self._listed = (now, listed)
        if keep is not None:
            listed = [m for m in listed if keep(m)]
        readable = (
            {d.id for d in self.service.reader_store.get_documents([m.id for m in listed])}
            if listed
            else set()
        )
        return [m for m in listed if m.id in readable]

    def match(self, question: str) -> Match | None:
        """The verified answer ``question`` means, if any, with its flags; cheap when none is
        near it (no embedding is computed)."""
        candidates = self.answers(lambda m: self.meaning.near(m.question, question))
        if not candidates:
            return None
        q = self._vector(question)
        best: Match | None = None
        for m in candidates:
            with self._lock:
                v = self._vectors.get(m.id)
            if v is None:
                v = self._vector(m.question)
                with self._lock:
                    self._vectors[m.id] = v
            sim = float(v @ q)
            if self.meaning.same(m.question, question, sim) and (best is None or sim > best.similarity):
                best = Match(m, sim, Flags(False, False))
        if best is None:
            return None
        return Match(best.memory, best.similarity, self.flags(best.memory))

    def review(self, within_days: float = 14.0) -> list[tuple[Memory, Flags]]:
        """For reviewers: verified answers that expire within ``within_days``, expired or stale —
        those the reader reviews (an admin: all; a project's or space's reviewer: those citing it)."""
        soon = (datetime.fromisoformat(self.clock()) + timedelta(days=within_days)).isoformat(
            timespec="seconds"
        )
        out = []
        for m in self.answers():
            if not self.service.reviews_memory(m):
                continue
            f = self.flags(m)
            if not f.ok or (m.expires_at and m.expires_at <= soon):
                out.append((m, f))
        return sorted(out, key=lambda x: x[0].expires_at)

    def _vector(self, text: str) -> np.ndarray:
        v = np.asarray(self.service.embedder.embed([text])[0], dtype=np.float32)
        n = float(np.linalg.norm(v))
        return v / n if n else v
