"""A memory and how it lives in the graph: a ``Document`` of type ``MEMORY`` (id
``memory:<uuid>``) whose metadata holds what it says, whose it is and when it is true; its text is
its one chunk, indexed and searched like any document. Who may read it is its ``acl`` (the access
machinery every document goes through): private → its owner alone, team → every signed-in person,
derived from documents → whoever may read all of them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from typing import Any, Literal

from devkb.sources import acl
from devkb.sources.base import SourceDocument
from devkb.store.models import Document, Reference, SourceType

PREFIX = "memory:"
SOURCE = "memory"  # the documents' ``source``
KIND = "memory"
TURN_KIND = "conversation-turn"  # a turn of a conversation told to devkb (memory/transcripts.py)
Scope = Literal["private", "team"]
Status = Literal["proposed", "active", "verified", "superseded", "retracted"]
Origin = Literal["conversation", "documents", "admin", "agent", "correction", "summary", "transcript"]
SCOPES: tuple[Scope, ...] = ("private", "team")
STATUSES: tuple[Status, ...] = ("proposed", "active", "verified", "superseded", "retracted")
ORIGINS: tuple[Origin, ...] = ("conversation", "documents", "admin", "agent", "correction")
# a summary of a person's older memories (memory/summary.py) and the turns of a conversation told
# to devkb (memory/transcripts.py) are written by devkb, never asked for as an origin
WRITTEN_BY_DEVKB: tuple[Origin, ...] = ("summary", "transcript")
ABOUT = "memory-about"  # memory → a document it names (given, or found by the reference rules)
DERIVED = "memory-derived-from"  # memory → a document it was derived from
SUPERSEDES = "supersedes"  # newer memory → the memory it replaced
SUMMARISES = "summarises"  # a summary → each memory it folds (memory/summary.py)
NO_ONE = "admins-only"  # a principal no member holds: a source document without permissions
MAX_TEXT = 4000


def new_id() -> str:
    return f"{PREFIX}{uuid.uuid4()}"


def is_memory_id(value: str) -> bool:
    return value.startswith(PREFIX) and len(value) > len(PREFIX)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_when(value: str | None, name: str, end_of_day: bool = False) -> str | None:
    """An ISO-8601 date or date-time → UTC ``YYYY-MM-DDTHH:MM:SS+00:00``; a bare date is its start
    (or its end, ``end_of_day``: "as of 15 January" includes that day). ``ValueError`` naming the
    field otherwise."""
    if value is None or not str(value).strip():
        return None
    raw = str(value).strip()
    try:
        if len(raw) == 10:
            d = date.fromisoformat(raw)
            t = time(23, 59, 59) if end_of_day else time(0, 0, 0)
            return datetime.combine(d, t, tzinfo=UTC).isoformat(timespec="seconds")
        dt = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as e:
        raise ValueError(
            f"{name} must be a date like 2026-12-15 or an ISO-8601 date-time, not {raw!r}"
        ) from e
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Memory:
    id: str
    text: str
    scope: Scope
    owner: str
    status: Status
    recorded_at: str
    valid_from: str
    valid_until: str = ""
    origin: Origin = "conversation"
    subject: str = ""
    attribute: str = ""
    supersedes: str = ""
    superseded_by: str = ""
    about: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    verified_by: str = ""
    verified_at: str = ""
    changed_at: str = ""  # its last change of status (superseded, verified, retracted)
    # a verified answer (memory/verified.py): the question it answers, when its verification
    # expires, and the content hashes of the documents it cites (derived_from) when verified
    question: str = ""
    expires_at: str = ""
    cited_hashes: tuple[tuple[str, str], ...] = ()
    # a summary (memory/summary.py): the memories it folds, each (id, key, valid_from, text)
    folded: tuple[tuple[str, str, str, str], ...] = ()
    # a turn of a conversation told to devkb (memory/transcripts.py): who said it, in which
    # conversation (id and title), the session's title and the turn's place (``<conv>#s1t2``)
    speaker: str = ""
    conversation: str = ""
    conversation_title: str = ""
    session_title: str = ""
    turn: str = ""
    said_day: str = ""  # the day it was said, in the speaker's time zone
    gates: tuple[tuple[str, ...], ...] = field(default=(), compare=False)

    @property
    def key(self) -> str:
        """What a newer memory must share to supersede this one: scope, owner of a private one,
        subject and attribute (empty without a subject and attribute)."""
        if not (self.subject and self.attribute):
            return ""
        who = self.owner.lower() if self.scope == "private" else ""
        return f"{self.scope}:{who}:{self.subject.lower()}|{self.attribute.lower()}"

    def valid_at(self, moment: str) -> bool:
        """True at ``moment`` (ISO UTC): recorded as a fact (not proposed, not retracted) and
        ``valid_from <= moment < valid_until``."""
        if self.status in ("proposed", "retracted"):
            return False
        return self.valid_from <= moment and (not self.valid_until or moment < self.valid_until)

    @property
    def said(self) -> str:
        """A turn as it is quoted: "Speaker on 2010-11-25: words" (empty for any other memory)."""
        return f"{self.speaker} on {self.said_on}: {self.text}" if self.speaker else ""

    @property
    def said_on(self) -> str:
        return self.said_day or self.valid_from[:10]

    @property
    def title(self) -> str:
        line = " ".join((self.said or self.question or self.text).split())
        return line if len(line) <= 80 else line[:79].rstrip() + "…"

    def metadata(self) -> dict[str, Any]:
        return {
            "kind": TURN_KIND if self.speaker else KIND,
            "text": self.text,
            "scope": self.scope,
            "owner": self.owner,
            "status": self.status,
            "recorded_at": self.recorded_at,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "origin": self.origin,
            "subject": self.subject,
            "attribute": self.attribute,
            "supersedes": self.supersedes,
            "superseded_by": self.superseded_by,
            "about": list(self.about),
            "derived_from": list(self.derived_from),
            "verified_by": self.verified_by,
            "verified_at": self.verified_at,
            "changed_at": self.changed_at,
            "question": self.question,
            "expires_at": self.expires_at,
            "cited_hashes": dict(self.cited_hashes),
            "folded": [list(f) for f in self.folded],
            "speaker": self.speaker,
            "conversation": self.conversation,
            "conversation_title": self.conversation_title,
            "session_title": self.session_title,
            "turn": self.turn,
            "said_day": self.said_day,
            "memory_key": self.key,
            "author": self.owner,
            "acl": [list(g) for g in self.gates],
        }

    def source_document(self) -> SourceDocument:
        """The document the indexing pipeline writes: the text is what is split, embedded and
        scanned by the reference rules; the stated edges come with it."""
        refs = [Reference(self.id, d, DERIVED, "", self.id) for d in self.derived_from]
        refs += [Reference(self.id, d, ABOUT, "", self.id) for d in self.about if d not in self.derived_from]
        if self.supersedes:
            refs.append(Reference(self.id, self.supersedes, SUPERSEDES, "", self.id))
        refs += [Reference(self.id, f[0], SUMMARISES, "", self.id) for f in self.folded]
        return SourceDocument(
            id=self.id,
            type=SourceType.MEMORY,
            kind=TURN_KIND if self.speaker else KIND,
            title=self.title,
            url="",
            updated_at=max(self.recorded_at, self.changed_at),
            content=self._content(),
            metadata=self.metadata(),
            references=refs,
        )

    def _content(self) -> str:
        if self.question:
            return f"{self.question}\n\n{self.text}"
        if self.speaker:  # a turn: who said it and when are part of what is searched
            heading = " — ".join(x for x in (self.conversation_title, self.session_title) if x)
            return f"{heading}\n\n{self.said}" if heading else self.said
        return self.text

    def with_(self, **changes: Any) -> Memory:
        return replace(self, **changes)


def export_row(m: Memory) -> dict[str, Any]:
    """A memory as a person's export holds it (every field but its permission gates)."""
    return {
        "id": m.id,
        "text": m.text,
        "scope": m.scope,
        "owner": m.owner,
        "status": m.status,
        "recorded_at": m.recorded_at,
        "valid_from": m.valid_from,
        "valid_until": m.valid_until,
        "origin": m.origin,
        "subject": m.subject,
        "attribute": m.attribute,
        "supersedes": m.supersedes,
        "superseded_by": m.superseded_by,
        "about": list(m.about),
        "derived_from": list(m.derived_from),
        "verified_by": m.verified_by,
        "verified_at": m.verified_at,
        "changed_at": m.changed_at,
        "question": m.question,
        "expires_at": m.expires_at,
        "cited_hashes": dict(m.cited_hashes),
        "folded": [{"id": i, "key": k, "valid_from": v, "text": t} for i, k, v, t in m.folded],
        "speaker": m.speaker,
        "conversation": m.conversation,
        "turn": m.turn,
    }


def is_current(doc: Document, moment: str | None = None) -> bool:
    """Whether ``doc`` may stand as evidence now: any document but a memory that is superseded,
    retracted, proposed or not yet (or no longer) valid — recalled only by ``as_of``."""
    if doc.type is not SourceType.MEMORY:
        return True
    m = doc.metadata
    if m.get("status") not in ("active", "verified"):
        return False
    moment = moment or now_iso()
    until = str(m.get("valid_until") or "")
    return str(m.get("valid_from") or "") <= moment and (not until or moment < until)


def gates_for(scope: Scope, owner: str, sources: Sequence[Document]) -> tuple[tuple[str, ...], ...]:
    """The memory's ``acl``: its owner alone (private), every signed-in person (team), and for one
    derived from documents, every gate of each of them as well (readers of all of them)."""
    gates: list[tuple[str, ...]] = [(acl.user(owner),) if scope == "private" else (acl.EVERYONE,)]
    for d in sources:
        own = acl.gates_of(d.metadata)
        if own is None:  # a document without permissions is the admins': so is what it says
            gates.append((NO_ONE,))
            continue
        gates += [tuple(g) for g in own]
    return tuple(dict.fromkeys(gates))


def from_document(doc: Document) -> Memory | None:
    """The memory a stored document holds (None for any other document)."""
    if doc.type is not SourceType.MEMORY:
        return None
    m = doc.metadata
    scope = m.get("scope")
    status = m.get("status")
    origin = m.get("origin")
    return Memory(
        id=doc.id,
        text=str(m.get("text", "")),
        scope=scope if scope in SCOPES else "private",
        owner=str(m.get("owner", "")),
        status=status if status in STATUSES else "active",
        recorded_at=str(m.get("recorded_at", "")),
        valid_from=str(m.get("valid_from", "")),
        valid_until=str(m.get("valid_until", "") or ""),
        origin=origin if origin in ORIGINS or origin in WRITTEN_BY_DEVKB else "conversation",
        subject=str(m.get("subject", "")),
        attribute=str(m.get("attribute", "")),
        supersedes=str(m.get("supersedes", "") or ""),
        superseded_by=str(m.get("superseded_by", "") or ""),
        about=tuple(str(x) for x in m.get("about") or ()),
        derived_from=tuple(str(x) for x in m.get("derived_from") or ()),
        verified_by=str(m.get("verified_by", "") or ""),
        verified_at=str(m.get("verified_at", "") or ""),
        changed_at=str(m.get("changed_at", "") or ""),
        question=str(m.get("question", "") or ""),
        expires_at=str(m.get("expires_at", "") or ""),
        cited_hashes=tuple(sorted((str(k), str(v)) for k, v in (m.get("cited_hashes") or {}).items())),
        folded=tuple(
            (str(f[0]), str(f[1]), str(f[2]), str(f[3]))
            for f in m.get("folded") or ()
            if isinstance(f, (list, tuple)) and len(f) == 4
        ),
        speaker=str(m.get("speaker", "") or ""),
        conversation=str(m.get("conversation", "") or ""),
        conversation_title=str(m.get("conversation_title", "") or ""),
        session_title=str(m.get("session_title", "") or ""),
        turn=str(m.get("turn", "") or ""),
        said_day=str(m.get("said_day", "") or ""),
        gates=tuple(tuple(g) for g in (acl.gates_of(m) or [])),
    )
