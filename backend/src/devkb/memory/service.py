"""``MemoryService``: remember, list, recall (as of a date), correct (supersede), verify and
forget memories — every read through the reader's store (``ScopedStore``: what the access policy
lets this reader read), every write through the indexing pipeline (split, embed, the reference
rules, one transaction with its edges) on the store indexing writes to.

Supersession (docs/memory.md): a new memory whose scope, owner (private), subject and attribute
match those of current memories supersedes them — each gets ``valid_until`` = the new one's
``valid_from``, status ``superseded`` and ``superseded_by``; nothing is deleted, nothing else about
the subject is touched. Recall as of a moment returns the memories true then; when two memories of
one key are both true (two processes superseding at once), the one valid from later wins, so a
race can never return two versions of one fact. Superseding a verified team memory needs a
reviewer: from anyone else the new memory is *proposed* and supersedes when a reviewer verifies it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from devkb.access.scoped_store import ReaderStore
from devkb.errors import DevkbError
from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.pipeline import IndexingPipeline
from devkb.memory import summary
from devkb.memory.model import (
    MAX_TEXT,
    ORIGINS,
    SCOPES,
    SOURCE,
    Memory,
    Origin,
    Scope,
    export_row,
    from_document,
    gates_for,
    is_memory_id,
    new_id,
    now_iso,
    parse_when,
)
from devkb.memory.proposals import AskJson, candidates
from devkb.memory.subject import strip_lead, topic_of
from devkb.memory.transcripts import TranscriptError, conversation_id, memories_of, parse_sessions
from devkb.store.models import Document, SourceType
from devkb.store.protocol import GraphStore

TYPES = [SourceType.MEMORY]
LIST_LIMIT = 1000
EXPORT_LIMIT = 100_000  # a person's memories, every version
EXPORT_FORMAT = "devkb-memories/1"
RRF_K = 60


class MemoryError(DevkbError):
    """A memory request that cannot be done; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Recalled:
    memory: Memory
    score: float


class MemoryService:
    def __init__(
        self,
        pipeline: IndexingPipeline,
        store: GraphStore,
        reader_store: ReaderStore,
        embedder: TextEmbedder,
        changed: Sequence[Callable[[], None]] = (),
        clock: Callable[[], str] = now_iso,
        reviewers: Mapping[str, Sequence[str]] | None = None,
        granted: Callable[[], Mapping[str, Sequence[str]]] | None = None,
    ) -> None:
        """``store``: the store indexing writes to (deletes go there too); ``reader_store``: every
        read, as the current reader; ``changed``: called after every write (caches to drop);
        ``reviewers``: ``project:KEY`` / ``space:KEY`` → the people who review team facts and
        verified answers about it (``DEVKB_MEMORY_REVIEWERS``; admins review everything);
        ``granted``: read at every check, the reviewers admins named in the web app or by
        ``PUT /admin/reviewers/{scope}`` (added to the setting's)."""
        self.pipeline = pipeline
        self.store = store
        self.reader_store = reader_store
        self.embedder = embedder
        self.changed = list(changed)
        self.clock = clock
        self.configured = _reviewer_map(reviewers or {})
        self.granted = granted
        self._lock = threading.Lock()  # one write at a time in this process (supersession reads)

    @property
    def reviewers(self) -> dict[str, frozenset[str]]:
        """Who reviews each project or space: the setting's people and those admins granted."""
        granted = _reviewer_map(self.granted()) if self.granted is not None else {}
        if not granted:
            return self.configured
        return {
            k: self.configured.get(k, frozenset()) | granted.get(k, frozenset())
            for k in {*self.configured, *granted}
        }

    # -- who -----------------------------------------------------------------------------------
    def who(self) -> tuple[str, bool]:
        """The current reader's e-mail (``operator`` without accounts) and whether they review."""
        policy = self.reader_store.policy
        reader = policy.reader()
        if reader.role == "nobody":
            raise MemoryError("sign in first: memories belong to people", 401)
        return (reader.email or "operator").lower(), policy.may_administer(reader)

    def reviews(self, documents: Sequence[Document]) -> bool:
        """Whether the current reader reviews team facts about ``documents``: an admin always; a
        person named in ``reviewers`` for the project or space of each of them (at least one; a
        document in no project or space has admins alone as reviewers)."""
        owner, admin = self.who()
        if admin:
            return True
        reviewers = self.reviewers
        if not documents or not reviewers:
            return False
        return all(owner in reviewers.get(scope, ()) for scope in map(_scope_of, documents))

    def reviews_memory(self, m: Memory) -> bool:
        """Whether the current reader reviews the team memory ``m`` (by the documents it is about
        or derived from)."""
        ids = list(dict.fromkeys((*m.derived_from, *m.about)))
        return self.reviews(self.reader_store.get_documents(ids) if ids else [])

    def reviews_somewhere(self) -> bool:
        """Whether the current reader reviews anything (an admin, or named for some project or space)."""
        owner, admin = self.who()
        return admin or any(owner in people for people in self.reviewers.values())

    # -- reads ---------------------------------------------------------------------------------
    def get(self, memory_id: str) -> Memory:
        """The memory, if this reader may read it (404 otherwise: another person's private memory
        does not exist for them)."""
        if not is_memory_id(memory_id):
            raise MemoryError(f"{memory_id!r} is not a memory id (memory:<uuid>)", 404)
        docs = self.reader_store.get_documents([memory_id])
        found = from_document(docs[0]) if docs else None
        if found is None:
            raise MemoryError(f"no memory {memory_id!r}", 404)
        return found

    def list_memories(
        self,
        scope: Scope | None = None,
        status: str | None = None,
        as_of: str | None = None,
        owner: str | None = None,
        limit: int = 100,
        unscoped: bool = False,
    ) -> list[Memory]:
        """The memories this reader may read, newest first: own private ones and team ones (and
        those derived from documents they may read all of); ``as_of``: only those true then."""
        moment = parse_when(as_of, "as_of", end_of_day=True)
        out: list[Memory] = []
        store = self.store if unscoped else self.reader_store  # unscoped: a cache checks each reader
        for d in store.find_documents(types=TYPES, limit=LIST_LIMIT):
            m = from_document(d)
            if m is None or (scope and m.scope != scope) or (status and m.status != status):
                continue
            if owner and m.owner != owner.lower():
                continue
            if moment is not None and not m.valid_at(moment):
                continue
            out.append(m)
        out.sort(key=lambda m: (m.recorded_at, m.id), reverse=True)
        if moment is not None:
            out = _newest_per_key(out)
        return out[:limit]

    def history(self, memory_id: str) -> list[Memory]:
        """The versions of a memory this reader may read, oldest first (following ``supersedes``
        and ``superseded_by``)."""
        first = self.get(memory_id)
        seen = {first.id}
        older: list[Memory] = []
        newer: list[Memory] = []
        for step, out in (("supersedes", older), ("superseded_by", newer)):
            m = first
            while getattr(m, step) and getattr(m, step) not in seen:
                docs = self.reader_store.get_documents([getattr(m, step)])
                nxt = from_document(docs[0]) if docs else None
                if nxt is None:
                    break
                seen.add(nxt.id)
                out.append(nxt)
                m = nxt
        return [*reversed(older), first, *newer]

    def search(self, query: str, as_of: str | None = None, limit: int = 10) -> list[Recalled]:
        """Memories this reader may read that answer ``query`` (full text and vectors fused by
        reciprocal rank), true ``as_of`` (default: now) — one per subject and attribute."""
        query = " ".join(query.split())
        if not query:
            raise MemoryError("give something to look for (q)")
        if len(query) > MAX_TEXT:
            raise MemoryError(f"the query is over {MAX_TEXT} characters")
        moment = parse_when(as_of, "as_of", end_of_day=True) or self.clock()
        depth = max(50, limit * 10)
        vector = self.embedder.embed([query])[0]
        ranked: dict[str, float] = {}
        memories: dict[str, Memory] = {}
        for hits in (
            self.reader_store.keyword_search(query, depth, types=TYPES),
            self.reader_store.vector_search(vector, depth, types=TYPES),
        ):
            seen: set[str] = set()
            for h in hits:
                if h.document.id in seen:
                    continue
                seen.add(h.document.id)
                m = from_document(h.document)
                if m is None:
                    continue
                memories[m.id] = m
                ranked[m.id] = ranked.get(m.id, 0.0) + 1.0 / (RRF_K + len(seen))
        valid = [memories[i] for i in ranked if memories[i].valid_at(moment)]
        valid.sort(key=lambda m: ranked[m.id], reverse=True)
        return [Recalled(m, ranked[m.id]) for m in _newest_per_key(valid)[:limit]]

    def export(self) -> dict[str, Any]:
        """The current reader's own memories — private and team ones they wrote, every version
        (superseded, retracted and proposed ones too), oldest first, with validity, origin, the
        documents they are about or derived from and what they superseded — as JSON-ready data.
        Read through the reader's store, so it holds nothing they may not read now."""
        owner, _ = self.who()
        rows = []
        for d in self.reader_store.find_documents({"author": owner}, types=TYPES, limit=EXPORT_LIMIT):
            m = from_document(d)
            if m is not None and m.owner == owner:
                rows.append(m)
        rows.sort(key=lambda m: (m.recorded_at, m.id))
        return {
            "format": EXPORT_FORMAT,
            "owner": owner,
            "exported_at": self.clock(),
            "count": len(rows),
            "memories": [export_row(m) for m in rows],
        }

    # -- writes --------------------------------------------------------------------------------
    def remember(
        self,
        text: str,
        scope: Scope = "private",
        origin: Origin | None = None,
        subject: str | None = None,
        attribute: str | None = None,
        valid_from: str | None = None,
        about: Sequence[str] = (),
        derived_from: Sequence[str] = (),
        extra: dict[str, Any] | None = None,
    ) -> Memory:
        """Store a memory (and supersede what it replaces). Team memories from someone who is not a
        reviewer are *proposed* until one verifies them."""
        owner, reviewer = self.who()
        text = _clean_text(text)
        if scope not in SCOPES:
            raise MemoryError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        if origin is not None and origin not in ORIGINS:
            raise MemoryError(f"origin must be one of {', '.join(ORIGINS)}, not {origin!r}")
        if (subject is None) != (attribute is None) or (
            subject is not None and not (subject.strip() and (attribute or "").strip())
        ):
            raise MemoryError("give both subject and attribute, or neither (they are derived from the text)")
        sources = self.readable_documents(derived_from, "derived_from")
        named = self.readable_documents(about, "about")
        if scope == "team" and not reviewer:  # a reviewer for the project or space it is about
            reviewer = self.reviews([*sources, *named])
        topic = topic_of(text)
        now = self.clock()
        memory = Memory(
            id=new_id(),
            text=text,
            scope=scope,
            owner=owner,
            status="active" if scope == "private" or reviewer else "proposed",
            recorded_at=now,
            valid_from=parse_when(valid_from, "valid_from") or now,
            origin=origin
            or ("documents" if derived_from else "admin" if scope == "team" and reviewer else "conversation"),
            subject=" ".join((subject or topic.subject).lower().split()),
            attribute=" ".join((attribute or topic.attribute).lower().split()),
            about=tuple(dict.fromkeys(about)),
            derived_from=tuple(dict.fromkeys(derived_from)),
            gates=gates_for(scope, owner, sources),
        )
        if extra:  # a verified answer (memory/verified.py), by a reviewer
            memory = memory.with_(**extra)
        with self._lock:
            if memory.status == "proposed":
                self._write([memory])
                return memory
            current = self._current(memory.key) if memory.key else []
            if any(c.status == "verified" and c.scope == "team" for c in current) and not reviewer:
                memory = memory.with_(status="proposed")
                self._write([memory])
                return memory
            written = self._supersede(current, memory)
            self._drop_from_summary(written)
            return written

    def remember_conversation(
        self,
        sessions: Any,
        title: str = "",
        scope: Scope = "private",
        conversation: str | None = None,
    ) -> dict[str, Any]:
        """Store a conversation told to devkb (``memory/transcripts.py``): one memory per turn,
        the caller's, valid from when it was said. The same conversation again writes nothing
        new. A team conversation needs a reviewer (an admin): there is no one to verify a
        thousand proposed turns."""
        owner, reviewer = self.who()
        if scope not in SCOPES:
            raise MemoryError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
        if scope == "team" and not reviewer:
            raise MemoryError("a team conversation is stored by an admin; store it as private", 403)
        try:
            parsed = parse_sessions(sessions)
            name = " ".join((title or "").split())
            if len(name) > 300:
                raise TranscriptError("title is over 300 characters")
            conv = " ".join((conversation or "").split()) or conversation_id(owner, name, parsed)
            if len(conv) > 100 or not all(c.isalnum() or c in "-_.:" for c in conv):
                raise TranscriptError("conversation must be up to 100 letters, digits, '-', '_', '.' or ':'")
        except TranscriptError as e:
            raise MemoryError(str(e)) from e
        turns = memories_of(parsed, conv, name, scope, owner, self.clock())
        with self._lock:
            have = {d.id for d in self.store.get_documents([m.id for m in turns])}
            new = [m for m in turns if m.id not in have]
            for at in range(0, len(new), 64):
                self.pipeline.run([m.source_document() for m in new[at : at + 64]], SOURCE)
        if new:
            self._notify()
        return {
            "conversation": conv,
            "title": name,
            "scope": scope,
            "sessions": len(parsed),
            "turns": len(turns),
            "written": len(new),
            "unchanged": len(turns) - len(new),
            "first": turns[0].turn if turns else "",
            "ids": [m.id for m in turns[:2000]],
        }

    def propose_from_conversation(
        self, person_lines: Sequence[str], ask: AskJson, conversation: str = "", title: str = ""
    ) -> dict[str, Any]:
        """Facts a language model finds in what this person said in one conversation, in one pass
        (``memory/proposals.py``): each grounded fact a *proposed private memory* of theirs, to
        accept (verify) or drop; the rejected ones and the model's failure beside them."""
        self.who()
        found = candidates(person_lines, ask)
        proposed = [
            self.remember(
                fact,
                scope="private",
                origin="conversation",
                extra={"status": "proposed", "conversation": conversation, "conversation_title": title},
            )
            for fact in found.facts
        ]
        return {
            "proposed": proposed,
            "rejected": [{"text": t, "reason": why} for t, why in found.rejected],
            "error": found.error,
        }

    def propose_correction(self, text: str, cited: Sequence[str] = ()) -> Memory:
        """A thumbs-down with "the right answer is …": a *proposed* team memory (origin
        ``correction``) about the cited documents this person may read, for reviewers to verify —
        proposed even from a reviewer, so that a second person looks at it. Recalled by no one
        until verified (then it supersedes what it corrects, like any proposed memory)."""
        self.who()
        readable = [
            d.id for d in self.reader_store.get_documents(list(dict.fromkeys(i for i in cited if i))[:50])
        ]
        return self.remember(
            text, scope="team", origin="correction", about=readable, extra={"status": "proposed"}
        )

    def correct(
        self,
        memory_id: str,
        text: str | None = None,
        valid_from: str | None = None,
        subject: str | None = None,
        attribute: str | None = None,
    ) -> Memory:
        """A new version of a memory that supersedes it (the old one stays in its history)."""
        owner, reviewer = self.who()
        old = self.get(memory_id)
        if old.scope == "team" and not reviewer:
            reviewer = self.reviews_memory(old)
        self._may_change(old, owner, reviewer)
        if old.status in ("superseded", "retracted"):
            raise MemoryError(f"{memory_id} is {old.status}: correct its current version", 409)
        new_text = _clean_text(text) if text is not None else old.text
        new = old.with_(
            id=new_id(),
            text=new_text,
            owner=old.owner,
            status="active" if old.scope == "private" or reviewer else "proposed",
            recorded_at=self.clock(),
            valid_from=parse_when(valid_from, "valid_from") or self.clock(),
            valid_until="",
            subject=" ".join((subject or old.subject).lower().split()),
            attribute=" ".join((attribute or old.attribute).lower().split()),
            supersedes="",
            superseded_by="",
            verified_by="",
            verified_at="",
            changed_at="",
        )
        if old.status == "verified" and old.scope == "team" and not reviewer:
            new = new.with_(status="proposed")
        with self._lock:
            if new.status == "proposed":
                self._write([new.with_(supersedes=old.id)])
                return new.with_(supersedes=old.id)
            current = {c.id: c for c in (self._current(new.key) if new.key else [])}
            current.setdefault(old.id, old)
            written = self._supersede(list(current.values()), new)
            self._drop_from_summary(written)
            return written

    def verify(self, memory_id: str) -> Memory:
        """A reviewer verifies a memory (a proposed one becomes current and supersedes what it
        replaces); the owner may verify their own private memory."""
        owner, reviewer = self.who()
        m = self.get(memory_id)
        if m.scope == "team" and not reviewer:
            reviewer = self.reviews_memory(m)
        if not (reviewer or (m.scope == "private" and m.owner == owner)):
            raise MemoryError(
                "verifying a team memory needs a reviewer (an admin, or one for its project or space)", 403
            )
        if m.status in ("superseded", "retracted"):
            raise MemoryError(f"{memory_id} is {m.status}: verify its current version", 409)
        now = self.clock()
        verified = m.with_(status="verified", verified_by=owner, verified_at=now, changed_at=now)
        with self._lock:
            if m.status == "proposed":
                current = {c.id: c for c in (self._current(m.key) if m.key else []) if c.id != m.id}
                if m.supersedes:
                    prior = self.reader_store.get_documents([m.supersedes])
                    old = from_document(prior[0]) if prior else None
                    if old is not None and old.status not in ("superseded", "retracted"):
                        current.setdefault(old.id, old)
                return self._supersede(list(current.values()), verified.with_(supersedes=""))
            self._write([verified])
            return verified

    def retract(self, memory_id: str) -> Memory:
        """Mark a memory as never having been true (kept, recalled by no one)."""
        owner, reviewer = self.who()
        m = self.get(memory_id)
        self._may_change(m, owner, reviewer)
        gone = m.with_(status="retracted", changed_at=self.clock())
        with self._lock:
            self._write([gone])
        return gone

    def forget(self, memory_id: str) -> list[str]:
        """Delete a memory and every version in its history from the store, its indexes and the
        caches; the owner may, and a reviewer for team memories. Returns the ids deleted."""
        owner, reviewer = self.who()
        m = self.get(memory_id)
        if not (m.owner == owner or (reviewer and m.scope == "team")):
            raise MemoryError("only its owner forgets a memory (and an admin a team memory)", 403)
        ids = [v.id for v in self.history(memory_id)]
        with self._lock:
            self.store.delete_documents(ids)
            self._flush()
        self._notify()
        return ids

    def purge_private(self, days: float, now: str | None = None) -> list[str]:
        """Retention (``DEVKB_MEMORY_PRIVATE_RETENTION_DAYS``, run by the scheduler): delete the
        private memories superseded or retracted more than ``days`` ago (as of ``now``, default the
        clock) from the store and every index, then refresh the caches. Current private memories
        and every team memory stay. Returns the ids deleted."""
        if days <= 0:
            raise MemoryError("retention days must be more than 0")
        moment = datetime.fromisoformat(parse_when(now, "now") or self.clock())
        cutoff = (moment - timedelta(days=days)).isoformat(timespec="seconds")
        with self._lock:
            ids = []
            found = self.store.find_documents(
                {"status": ["superseded", "retracted"]}, types=TYPES, limit=EXPORT_LIMIT
            )
            for d in found:
                m = from_document(d)
                if m is None or m.scope != "private" or m.status not in ("superseded", "retracted"):
                    continue
                ended = m.changed_at or m.valid_until or m.recorded_at
                if ended and ended < cutoff:
                    ids.append(m.id)
            if ids:
                self.store.delete_documents(ids)
                self._flush()
        if ids:
            self._notify()
        return ids

    def summarise_private(self, days: float, now: str | None = None) -> list[Memory]:
        """Fold each person's private memories said in conversations (or by an agent) and recorded
        more than ``days`` ago (as of ``now``, default the clock) into their summary
        (``memory/summary.py``): a new version of it holding the earlier one's lines and these,
        superseding it; the folded memories are superseded by it (kept, recalled as of before).
        A person with a single old memory and no summary yet keeps it as it is. Returns the
        summaries written."""
        if days <= 0:
            raise MemoryError("summary days must be more than 0")
        moment = parse_when(now, "now") or self.clock()
        cutoff = (datetime.fromisoformat(moment) - timedelta(days=days)).isoformat(timespec="seconds")
        written: list[Memory] = []
        with self._lock:
            old: dict[str, list[Memory]] = {}
            for d in self.store.find_documents(
                {"status": ["active", "verified"]}, types=TYPES, limit=EXPORT_LIMIT
            ):
                m = from_document(d)
                if m is not None and summary.foldable(m, m.owner, cutoff):
                    old.setdefault(m.owner, []).append(m)
            for owner, folded in sorted(old.items()):
                current = self._current(summary.key_of(owner))
                previous = max(current, key=lambda c: (c.valid_from, c.recorded_at)) if current else None
                if previous is None and len(folded) < 2:
                    continue
                lines = summary.merged(previous.folded if previous else (), summary.lines_of(folded))
                about = [a for m in ([previous] if previous else []) + folded for a in m.about]
                new = Memory(
                    id=new_id(),
                    text=summary.text_of(lines),
                    scope="private",
                    owner=owner,
                    status="active",
                    recorded_at=moment,
                    valid_from=moment,
                    origin="summary",
                    subject=summary.SUBJECT,
                    attribute=summary.ATTRIBUTE,
                    about=tuple(dict.fromkeys(about)),
                    folded=tuple(lines),
                    gates=gates_for("private", owner, []),
                )
                new = self._supersede(current, new)
                self._write(
                    [
                        m.with_(
                            status="superseded", valid_until=moment, superseded_by=new.id, changed_at=moment
                        )
                        for m in folded
                    ]
                )
                written.append(new)
        return written

    # -- inside --------------------------------------------------------------------------------
    def _drop_from_summary(self, new: Memory) -> None:
        """A newer private fact supersedes one its owner's summary folded: the summary gets a
        version without that line (nothing else in it changes)."""
        if new.scope != "private" or not new.key or new.origin == "summary" or new.status == "proposed":
            return
        for s in self._current(summary.key_of(new.owner)):
            lines = summary.without(s.folded, new.key)
            if len(lines) == len(s.folded):
                continue
            if not lines:  # it folded only that fact: it ends, as the fact did
                self._write(
                    [
                        s.with_(
                            status="superseded",
                            valid_until=new.valid_from,
                            superseded_by=new.id,
                            changed_at=new.recorded_at,
                        )
                    ]
                )
                continue
            version = s.with_(
                id=new_id(),
                text=summary.text_of(lines),
                folded=tuple(lines),
                recorded_at=new.recorded_at,
                valid_from=new.valid_from,
                valid_until="",
                supersedes="",
                superseded_by="",
                changed_at="",
            )
            self._supersede([s], version)

    def _may_change(self, m: Memory, owner: str, reviewer: bool) -> None:
        if m.scope == "private" and m.owner != owner:
            raise MemoryError(f"no memory {m.id!r}", 404)
        if m.scope == "team" and not (reviewer or m.owner == owner):
            raise MemoryError("only its author or a reviewer (an admin) changes a team memory", 403)

    def readable_documents(self, ids: Sequence[str], name: str) -> list[Document]:
        ids = list(dict.fromkeys(i for i in ids if i))
        if len(ids) > 50:
            raise MemoryError(f"{name}: at most 50 documents")
        if not ids:
            return []
        found = self.reader_store.get_documents(ids)
        missing = sorted(set(ids) - {d.id for d in found})
        if missing:
            raise MemoryError(f"{name}: no document {', '.join(map(repr, missing))} that you may read", 404)
        return found

    def _current(self, key: str) -> list[Memory]:
        """The memories of ``key`` not yet superseded or retracted (from the store itself: a
        newer fact replaces an older one the writer may not happen to read, e.g. derived)."""
        out = []
        for d in self.store.find_documents({"memory_key": key}, types=TYPES, limit=LIST_LIMIT):
            m = from_document(d)
            if m is not None and m.key == key and m.status in ("active", "verified"):
                out.append(m)
        return out

    def _supersede(self, current: list[Memory], new: Memory) -> Memory:
        olds = [c for c in current if c.id != new.id]
        if olds:
            latest = max(olds, key=lambda c: (c.valid_from, c.recorded_at))
            new = new.with_(supersedes=latest.id)
        ended = [
            o.with_(
                status="superseded",
                valid_until=new.valid_from,
                superseded_by=new.id,
                changed_at=new.recorded_at,
            )
            for o in olds
        ]
        self._write([new, *ended])
        return new

    def _write(self, memories: Sequence[Memory]) -> None:
        self.pipeline.run([m.source_document() for m in memories], SOURCE)
        self._notify()

    def _flush(self) -> None:
        flush = getattr(self.store, "flush", None)
        if callable(flush):
            flush()

    def _notify(self) -> None:
        for fn in self.changed:
            fn()


def _clean_text(text: str) -> str:
    clean = strip_lead(" ".join((text or "").split())) if text else ""
    if not clean:
        raise MemoryError("a memory needs text")
    if len(clean) > MAX_TEXT:
        raise MemoryError(f"a memory is at most {MAX_TEXT} characters, not {len(clean)}")
    return clean


def _scope_name(raw: str) -> str:
    """``project:pay`` → ``project:PAY`` (keys compared in upper case)."""
    kind, _, key = raw.strip().partition(":")
    return f"{kind.strip().lower()}:{key.strip().upper()}"


def _reviewer_map(reviewers: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
    return {
        _scope_name(k): frozenset(p.strip().lower() for p in v if p.strip()) for k, v in reviewers.items()
    }


def _scope_of(d: Document) -> str:
    """The project (Jira) or space (Confluence) a document belongs to, as ``reviewers`` names it."""
    project, space = d.metadata.get("project"), d.metadata.get("space")
    if isinstance(project, str) and project:
        return f"project:{project.upper()}"
    if isinstance(space, str) and space:
        return f"space:{space.upper()}"
    return ""


def _newest_per_key(memories: list[Memory]) -> list[Memory]:
    """One memory per subject and attribute — the one valid from the latest — keeping order."""
    best: dict[str, Memory] = {}
    for m in memories:
        if m.key and (
            m.key not in best
            or (m.valid_from, m.recorded_at) > (best[m.key].valid_from, best[m.key].recorded_at)
        ):
            best[m.key] = m
    return [m for m in memories if not m.key or best[m.key].id == m.id]
