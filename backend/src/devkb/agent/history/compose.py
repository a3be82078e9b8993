"""Answers to history questions (``answer``), composed from the store's versions: every value in
the text comes from a stored version or document, every document it names is cited ([n] is its
position in ``evidence``), and a version's citation links to that version."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date

from devkb.agent.evidence import EvidenceDoc
from devkb.agent.history.diffing import diff_sections
from devkb.agent.history.intent import ALL_FIELDS, HistoryIntent
from devkb.agent.history.when import Window
from devkb.agent.words import find_phrase, words_of
from devkb.store.models import Document, SourceType, Version
from devkb.store.protocol import GraphStore

MAX_DIGEST_LINES = 25
MAX_TIMELINE = 30
QUOTE_CHARS = 700


@dataclass
class HistoryAnswer:
    text: str
    evidence: list[EvidenceDoc]
    missing: bool = False  # what the question names is not among the reader's documents
    # what the record lacks for this answer ("no changelog is recorded for PAY-7"): the answer says
    # what is recorded instead of what did not happen, and its confidence is capped
    unrecorded: str = ""


class _Cites:
    """Citation numbers in order of first mention; a version gets its own entry."""

    def __init__(self) -> None:
        self.docs: list[EvidenceDoc] = []
        self._index: dict[str, int] = {}

    def cite(self, doc: Document, passage: str = "", version: Version | None = None) -> str:
        key = doc.id if version is None else f"{doc.id}@{version.seq}"
        if key not in self._index:
            shown = doc if version is None else _version_document(doc, version)
            self.docs.append(EvidenceDoc(shown, (passage,) if passage else (), 1.0, "History"))
            self._index[key] = len(self.docs)
        return f"[{self._index[key]}]"


def _no_issue(intent: HistoryIntent) -> HistoryAnswer:
    """The issues the question names are not among the reader's documents (hidden or missing alike)."""
    return HistoryAnswer(f"I found no issue {', '.join(intent.issue_keys)} you can read.", [], missing=True)


def _version_document(doc: Document, v: Version) -> Document:
    sep = "&" if "?" in doc.url else "?"
    return replace(
        doc,
        title=f"{doc.title} (version {v.seq})",
        url=f"{doc.url}{sep}pageVersion={v.seq}" if doc.url else "",
    )


def _day(iso: str) -> str:
    return iso[:10]


def _when(iso: str) -> str:
    return f"{iso[:10]} {iso[11:16]} UTC" if len(iso) >= 16 else iso


def _norm(field: str) -> str:
    return "".join(field.lower().replace("_", " ").split())


# -- issues -------------------------------------------------------------------------------
def _current(doc: Document, field: str) -> list[str]:
    meta = doc.metadata
    key = {
        "status": "status",
        "assignee": "assignee",
        "resolution": "resolution",
        "fixversion": "fix_version",
    }[_norm(field)]
    value = meta.get(key)
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if value else []


def value_at(
    doc: Document, transitions: list[Version], field: str, at: str
) -> tuple[list[str], Version | None]:
    """The field's value(s) at ``at`` (exclusive) and the transition that set it (None: unchanged
    since creation). The changelog is the record: for a single-valued field, the last change before
    ``at``, else what the first change changed from, else (never changed) today's value; fix
    versions (several at once) are today's rolled back through the later changes."""
    mine = sorted(
        (t for t in transitions if _norm(t.field) == _norm(field)), key=lambda t: (t.valid_from, t.seq)
    )
    setter = next((t for t in reversed(mine) if t.valid_from < at), None)
    if _norm(field) != "fixversion":
        if setter is not None:
            return ([setter.to_value] if setter.to_value else []), setter
        if mine:
            return ([mine[0].from_value] if mine[0].from_value else []), None
        return _current(doc, field), None
    values = _current(doc, field)  # an item adds its to_value and removes its from_value
    for t in reversed([t for t in mine if t.valid_from >= at]):
        values = [v for v in values if v != t.to_value] if t.to_value else values
        if t.from_value and t.from_value not in values:
            values.append(t.from_value)
    return values, setter


def _issue_docs(store: GraphStore, keys: tuple[str, ...]) -> list[Document]:
    return store.get_documents([f"jira:{k}" for k in keys])


def answer_state(intent: HistoryIntent, store: GraphStore) -> HistoryAnswer:
    cites = _Cites()
    lines = []
    gaps = []
    for doc in _issue_docs(store, intent.issue_keys):
        transitions = store.versions(doc.id, ["transition"])
        created = str(doc.metadata.get("created") or "")
        when = intent.at_label or f"on {intent.at_day}"
        ref = cites.cite(doc, f"{doc.title} — state {when}")
        if created and intent.at <= created:
            lines.append(
                f"{doc.metadata.get('key', doc.id)} did not exist yet {when}: it was created on {_day(created)} {ref}."
            )
            continue
        if not transitions:  # no changelog recorded: today's values say nothing about then
            key = doc.metadata.get("key", doc.id)
            now = "; ".join(f"{field} {', '.join(_current(doc, field)) or 'none'}" for field in intent.fields)
            lines.append(
                f"No changelog is recorded for {key}, so its state {when} is not known from the record; "
                f"today it has {now} {ref}."
            )
            gaps.append(f"no changelog is recorded for {key}")
            continue
        parts = []
        for field in intent.fields:
            values, setter = value_at(doc, transitions, field, intent.at)
            shown = ", ".join(values) if values else ("unresolved" if field == "resolution" else "none")
            since = f" (since {_day(setter.valid_from)}, set by {setter.author})" if setter else ""
            parts.append(f"{field} {shown}{since}")
        lines.append(
            f"{when[0].upper()}{when[1:]}, {doc.metadata.get('key', doc.id)} had "
            + "; ".join(parts)
            + f" {ref}."
        )
    if not lines:
        return _no_issue(intent)
    return HistoryAnswer(" ".join(lines), cites.docs, unrecorded="; ".join(gaps))


_VERB_STATES = {
    "closed": "closed",
    "resolved": "resolved",
    "reopened": "reopened",
    "started": "in progress",
    "done": "done",
    "fixed": "fixed",
}


def answer_first(intent: HistoryIntent, store: GraphStore) -> HistoryAnswer:
    cites = _Cites()
    lines = []
    gaps = []
    said = words_of(intent.text)
    for doc in _issue_docs(store, intent.issue_keys):
        key = doc.metadata.get("key", doc.id)
        transitions = sorted(store.versions(doc.id, ["transition"]), key=lambda t: (t.valid_from, t.seq))
        targets = sorted({t.to_value for t in transitions if t.to_value}, key=len, reverse=True)
        wanted = next((s for s in targets if find_phrase(said, words_of(s)) >= 0), None)
        if wanted is None:
            verb = next((v for w, v in _VERB_STATES.items() if w in said), None)
            if verb == "resolved" or verb == "fixed":
                wanted = next(
                    (t.to_value for t in transitions if _norm(t.field) == "resolution" and t.to_value), None
                )
            elif verb:
                wanted = next((s for s in targets if s.lower() == verb), verb.title())
        ref = cites.cite(doc, doc.title)
        if not transitions:  # no changelog recorded: when it moved is not known, not "never"
            status = ", ".join(_current(doc, "status")) or "unknown"
            there = wanted is not None and wanted.lower() in status.lower()
            lines.append(
                f"No changelog is recorded for {key}, so {'when' if there or not wanted else 'whether and when'} it "
                + (f"moved to {wanted}" if wanted else "changed status")
                + f" is not known; its status is {status} now{_resolved_clause(doc)} {ref}."
            )
            gaps.append(f"no changelog is recorded for {key}")
            continue
        if wanted is None:
            moves = [t for t in transitions if _norm(t.field) == "status"]
            if not moves:
                lines.append(f"{key} has no recorded status change {ref}.")
                continue
            listed = "; ".join(f"{t.to_value} on {_when(t.valid_from)} by {t.author}" for t in moves)
            lines.append(f"{key} moved: {listed} {ref}.")
            continue
        hit = next((t for t in transitions if t.to_value.lower() == wanted.lower()), None)
        if hit is None:
            lines.append(_never_recorded(doc, key, wanted, ref, transitions))
            gaps.append(f"the recorded changelog of {key} has no move to {wanted}")
            continue
        came = f" (from {hit.from_value})" if hit.from_value else ""
        lines.append(
            f"{key} first reached {hit.to_value} ({hit.field}) on {_when(hit.valid_from)}, moved by {hit.author}{came} {ref}."
        )
    if not lines:
        return _no_issue(intent)
    return HistoryAnswer(" ".join(lines), cites.docs, unrecorded="; ".join(gaps))


def _resolved_clause(doc: Document) -> str:
    resolved = str(doc.metadata.get("resolved") or "")
    resolution = str(doc.metadata.get("resolution") or "")
    return (
        f" and was resolved{f' ({resolution})' if resolution else ''} on {_when(resolved)}"
        if resolved
        else ""
    )


def _never_recorded(doc: Document, key: str, wanted: str, ref: str, transitions: list[Version]) -> str:
    """No recorded change reached ``wanted``: say what is recorded, not that it never happened (a
    changelog may be cut short) — the changes the record holds, and today's state; an issue that
    is in that state now (set at creation, or by a change not recorded) is said to be, with its
    resolution date when it is resolved, the record closest to "when"."""
    now = _current(doc, "status")
    span = f"{len(transitions)} recorded change{'s' * (len(transitions) != 1)}, {_day(transitions[0].valid_from)} to {_day(transitions[-1].valid_from)}"
    if wanted.lower() not in {v.lower() for v in now}:
        return (
            f"No move of {key} to {wanted} is recorded (its changelog has {span}); "
            f"its status is {', '.join(now) or 'unknown'} now {ref}."
        )
    return f"{key} is {now[0]} now{_resolved_clause(doc)}; its recorded changelog ({span}) has no move to {wanted} {ref}."


# -- pages ---------------------------------------------------------------------------------
def _pages(store: GraphStore, intent: HistoryIntent, limit: int = 3) -> list[Document]:
    found: dict[str, Document] = {}
    for title in intent.titles:
        docs = store.find_documents(types=[SourceType.CONFLUENCE], title_contains=title, limit=20)
        exact = [d for d in docs if d.title.lower() == title.lower()]
        for d in exact or docs[:1]:
            found.setdefault(d.id, d)
    if not found:
        said = words_of(intent.text)
        pages = store.find_documents(types=[SourceType.CONFLUENCE], limit=100_000)
        named = [d for d in pages if len(d.title) > 3 and find_phrase(said, words_of(d.title)) >= 0]
        named.sort(key=lambda d: len(d.title), reverse=True)
        for d in named:
            if not any(d.title.lower() in f.title.lower() for f in found.values()):
                found[d.id] = d
    return list(found.values())[:limit]


def _body(v: Version) -> str:
    return v.body.strip()


def answer_page_at(intent: HistoryIntent, store: GraphStore) -> HistoryAnswer:
    cites = _Cites()
    pages = _pages(store, intent, limit=1)
    if not pages:
        return HistoryAnswer("I found no page with that title you can read.", [], missing=True)
    doc = pages[0]
    versions = sorted(store.versions(doc.id, ["page"]), key=lambda v: v.seq)
    if not versions:
        return HistoryAnswer(
            f"No version of “{doc.title}” is recorded {cites.cite(doc)}.",
            cites.docs,
            unrecorded=f"no version of “{doc.title}” is recorded",
        )
    current = versions[-1]
    oldest = versions[0]
    gap = ""
    if intent.version is not None:
        old = next((v for v in versions if v.seq == intent.version), None)
        if old is None:
            have = _seqs(versions)
            if intent.version > max(current.seq, int(doc.metadata.get("version") or 0)):
                return HistoryAnswer(
                    f"“{doc.title}” has no version {intent.version}: its current version is {current.seq} {cites.cite(doc)}.",
                    cites.docs,
                )
            return HistoryAnswer(
                f"Version {intent.version} of “{doc.title}” is not recorded: the stored versions are {have} "
                f"{cites.cite(doc)}.",
                cites.docs,
                unrecorded=f"version {intent.version} of “{doc.title}” is not recorded",
            )
    else:
        before = [v for v in versions if v.valid_from < intent.at]
        when = intent.at_label or f"on {intent.at_day}"
        if not before and oldest.seq == 1:  # its first version is recorded: then it did not exist
            return HistoryAnswer(
                f"“{doc.title}” did not exist yet {when}: its first version is from {_day(oldest.valid_from)} "
                f"{cites.cite(doc, version=oldest)}.",
                cites.docs,
            )
        if not before:  # the versions before the oldest stored one were never captured
            return HistoryAnswer(
                f"What “{doc.title}” said {when} is not recorded: the oldest stored version is "
                f"{oldest.seq}, saved {_day(oldest.valid_from)} by {oldest.author} "
                f"{cites.cite(doc, version=oldest)}; versions {_range(1, oldest.seq - 1)} were not captured.",
                cites.docs,
                unrecorded=f"versions {_range(1, oldest.seq - 1)} of “{doc.title}” are not recorded",
            )
        old = max(before, key=lambda v: (v.valid_from, v.seq))
        after = [v for v in versions if v.seq > old.seq]
        following = min(after, key=lambda v: v.seq).seq if after else None
        if following is not None and following > old.seq + 1:
            gap = f"versions {_range(old.seq + 1, following - 1)} of “{doc.title}” are not recorded"
    body = _body(old)
    quote = body[:QUOTE_CHARS] + ("…" if len(body) > QUOTE_CHARS else "")
    said = f" (“{old.message}”)" if old.message else ""
    when = f" {intent.at_label or f'on {intent.at_day}'}" if intent.version is None else ""
    ref_old = cites.cite(doc, quote, version=old)
    text = (
        f"“{doc.title}”{when} was at version {old.seq}, saved {_day(old.valid_from)} by {old.author}{said} {ref_old}. "
        f"It said:\n\n> {quote.replace(chr(10), chr(10) + '> ')}\n\n"
    )
    if gap:
        text += f"It is the last stored version before then, but {gap}: one of them may have been in force. "
    if old.seq == current.seq:
        text += f"That is still the current version {cites.cite(doc)}."
    else:
        diff = diff_sections(body, _body(current))
        text += (
            f"Compared with today's version {current.seq} ({_day(current.valid_from)}, by {current.author}) "
            f"{cites.cite(doc, version=current)}: {diff.summary()}."
        )
        if diff.sample:
            text += "\n\n" + "\n".join(f"    {line}" for line in diff.sample)
    return HistoryAnswer(text, cites.docs, unrecorded=gap)


def _seqs(versions: list[Version]) -> str:
    """1–3, 5, 11: the stored version numbers, runs folded."""
    runs: list[list[int]] = []
    for n in sorted(v.seq for v in versions):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(_range(r[0], r[-1]) for r in runs)


def _range(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


# -- digests -------------------------------------------------------------------------------
def _in_scope(doc: Document, intent: HistoryIntent, anchors: set[str]) -> bool:
    meta = doc.metadata
    if anchors and doc.id in anchors:
        return True
    keys = {k.upper() for k in intent.scope_keys}
    if keys and (
        str(meta.get("project") or "").upper() in keys or str(meta.get("space") or "").upper() in keys
    ):
        return True
    repos = {r.lower() for r in intent.repositories}
    if repos and str(meta.get("repository") or "").lower() in repos:
        return True
    return not (anchors or keys or repos)


def _anchors(store: GraphStore, intent: HistoryIntent) -> set[str]:
    ids = {d.id for d in _issue_docs(store, intent.issue_keys)}
    if intent.titles or not (intent.issue_keys or intent.scope_keys or intent.repositories):
        ids |= {d.id for d in _pages(store, intent)}
    return ids


def _scoped_changes(
    store: GraphStore, intent: HistoryIntent, window: Window, anchors: set[str]
) -> tuple[list[Version], dict[str, Document]]:
    ids = sorted(anchors) if anchors and not (intent.scope_keys or intent.repositories) else None
    changes = store.changes_between(
        window.start, window.end, types=list(intent.types) or None, document_ids=ids, limit=20_000
    )
    docs = {d.id: d for d in store.get_documents(sorted({v.document_id for v in changes}))}
    kept = [v for v in changes if v.document_id in docs and _in_scope(docs[v.document_id], intent, anchors)]
    return kept, docs


def _scope_label(intent: HistoryIntent, docs: list[Document]) -> str:
    names = list(dict.fromkeys([*intent.scope_keys, *intent.repositories, *(d.title for d in docs)]))
    return ", ".join(names) if names else "the knowledge base"


def answer_digest(intent: HistoryIntent, store: GraphStore, today: date) -> HistoryAnswer:
    from devkb.agent.history.when import window_in

    window = intent.window or window_in("past 30 days", today)
    assert window is not None
    anchors = _anchors(store, intent)
    if intent.issue_keys and not (anchors or intent.titles or intent.scope_keys or intent.repositories):
        # the issues it names are not among the reader's documents: say so, as the other history
        # answers do, rather than answering for the whole knowledge base
        return _no_issue(intent)
    named = store.get_documents(sorted(anchors))
    label = _scope_label(intent, named)
    changes, docs = _scoped_changes(store, intent, window, anchors)
    cites = _Cites()
    if not changes:
        # "Nothing changed" only where the record backs it: history is kept for the scope (an
        # earlier change is recorded) and none of its documents was updated in the window
        # without a version recording it; else what is recorded, and what is not
        before = Window("", window.start, "")
        earlier, edocs = _scoped_changes(store, intent, before, anchors)
        touched = _updated_unrecorded(store, intent, window, anchors)
        if earlier and not touched:
            text = f"Nothing changed in {label} {window.label}."
        else:
            text = f"No change in {label} is recorded {window.label}."
        if earlier:
            last = earlier[0]
            text += (
                f" The latest recorded change before that was on {_day(last.valid_from)}: "
                f"{_describe(last, edocs[last.document_id], cites, store)}."
            )
        if touched:
            names = ", ".join(f"{d.title} {cites.cite(d)}" for d in touched[:3])
            more = f" and {len(touched) - 3} more" if len(touched) > 3 else ""
            text += (
                f" Yet {len(touched)} of its documents {'were' if len(touched) != 1 else 'was'} updated then "
                f"({names}{more}): what changed in them is not recorded as versions."
            )
            what = f"{len(touched)} updated document{'s' * (len(touched) != 1)} without a recorded change"
            return HistoryAnswer(text, cites.docs, unrecorded=what)
        if not earlier:
            return HistoryAnswer(text, cites.docs, unrecorded=f"no change in {label} is recorded at all")
        return HistoryAnswer(text, cites.docs)
    # group: one entry per transition moment of an issue, per page version, per commit
    entries: dict[tuple[str, str, str], list[Version]] = defaultdict(list)
    for v in changes:
        part = v.ref if v.kind == "diff" else (str(v.seq) if v.kind == "page" else v.valid_from)
        entries[(v.valid_from, v.document_id, part)].append(v)
    ordered = sorted(entries.items(), key=lambda kv: kv[0], reverse=True)
    issues = {v.document_id for v in changes if v.kind == "transition"}
    pages = {v.document_id for v in changes if v.kind == "page"}
    commits = {v.ref for v in changes if v.kind == "diff"}
    files = {v.field for v in changes if v.kind == "diff"}
    counts = []
    if issues:
        n = sum(1 for v in changes if v.kind == "transition")
        counts.append(
            f"{n} issue field change{'s' * (n != 1)} on {len(issues)} issue{'s' * (len(issues) != 1)}"
        )
    if pages:
        n = sum(1 for v in changes if v.kind == "page")
        counts.append(f"{n} page edit{'s' * (n != 1)} on {len(pages)} page{'s' * (len(pages) != 1)}")
    if commits:
        counts.append(
            f"{len(commits)} commit{'s' * (len(commits) != 1)} touching {len(files)} file{'s' * (len(files) != 1)}"
        )
    lines = [f"What changed in {label} {window.label}: " + ", ".join(counts) + ". Newest first:"]
    for (_at, doc_id, _part), group in ordered[:MAX_DIGEST_LINES]:
        lines.append(f"- {_day(group[0].valid_from)} " + _describe_group(group, docs[doc_id], cites, store))
    if len(ordered) > MAX_DIGEST_LINES:
        lines.append(f"- … and {len(ordered) - MAX_DIGEST_LINES} more changes")
    return HistoryAnswer("\n".join(lines), cites.docs)


def _updated_unrecorded(
    store: GraphStore, intent: HistoryIntent, window: Window, anchors: set[str]
) -> list[Document]:
    """Documents in the digest's scope whose own date says they changed in the window, though no
    version records it (a source read without history, an issue edited without a changelog row)."""
    types = list(intent.types) or [SourceType.JIRA, SourceType.CONFLUENCE, SourceType.GITHUB]
    found = store.find_documents(
        types=types, updated_from=window.start or None, updated_to=window.end or None, limit=200
    )
    return [
        d
        for d in found
        if _in_scope(d, intent, anchors)
        and d.updated_at
        and window.start <= d.updated_at < (window.end or "9")
    ]


def _previous_page(store: GraphStore, v: Version) -> Version | None:
    older = [o for o in store.versions(v.document_id, ["page"]) if o.seq < v.seq]
    return max(older, key=lambda o: o.seq) if older else None


def _describe(v: Version, doc: Document, cites: _Cites, store: GraphStore) -> str:
    return _describe_group([v], doc, cites, store)


def _describe_group(group: list[Version], doc: Document, cites: _Cites, store: GraphStore) -> str:
    v = group[0]
    if v.kind == "transition":
        moves = "; ".join(f"{t.field} {t.from_value or 'none'} → {t.to_value or 'none'}" for t in group)
        return f"{doc.title}: {moves} (by {v.author}) {cites.cite(doc, moves)}"
    if v.kind == "page":
        prev = _previous_page(store, v)
        if prev is not None:
            what = diff_sections(prev.body, v.body).summary()
        else:
            what = "created" if v.seq == 1 else "the oldest version stored"
        said = f" “{v.message}”" if v.message else ""
        return f"page “{doc.title}” version {v.seq} by {v.author}{said}: {what} {cites.cite(doc, what, version=v)}"
    files = ", ".join(f"{d.field} ({d.to_value}, {_diff_size(d.body)})" for d in group[:6])
    more = f" and {len(group) - 6} more" if len(group) > 6 else ""
    return f"commit {v.ref[:7]} “{v.message}” by {v.author}: {files}{more} {cites.cite(doc, v.message)}"


def _diff_size(patch: str) -> str:
    plus = sum(1 for line in patch.splitlines() if line.startswith("+"))
    minus = sum(1 for line in patch.splitlines() if line.startswith("-"))
    return f"+{plus} −{minus}"


# -- timelines -----------------------------------------------------------------------------
def answer_timeline(intent: HistoryIntent, store: GraphStore) -> HistoryAnswer:
    cites = _Cites()
    anchors = _anchors(store, intent)
    docs = store.get_documents(sorted(anchors))
    if not docs and intent.topic:
        hits = store.keyword_search(intent.topic, top_k=20)
        docs = list({h.document.id: h.document for h in hits}.values())[:5]
    if not docs:
        return HistoryAnswer("I found nothing to build a timeline from.", [])
    events: list[tuple[str, Version, Document]] = []
    for doc in docs:
        for v in store.versions(doc.id):
            events.append((v.valid_from, v, doc))
    if not events:
        return HistoryAnswer(
            "No history is recorded for " + ", ".join(f"{d.title} {cites.cite(d)}" for d in docs) + ".",
            cites.docs,
            unrecorded="no history is recorded for the documents asked about",
        )
    gaps = []
    for doc in docs:
        pages = [v.seq for _, v, d in events if d.id == doc.id and v.kind == "page"]
        if pages and min(pages) > 1:
            gaps.append(f"versions {_range(1, min(pages) - 1)} of “{doc.title}” are not recorded")
    events.sort(key=lambda e: (e[0], e[1].seq))
    seen: set[tuple[str, str, str]] = set()
    lines = []
    for when, v, doc in events:
        key = (when, doc.id, v.ref if v.kind == "diff" else str(v.seq))
        if key in seen:
            continue
        seen.add(key)
        if v.kind == "page":
            said = f" “{v.message}”" if v.message else ""
            lines.append(
                f"- {_day(when)} “{doc.title}” version {v.seq} by {v.author}{said} {cites.cite(doc, version=v)}"
            )
        elif v.kind == "transition":
            lines.append(
                f"- {_day(when)} {doc.title}: {v.field} {v.from_value or 'none'} → {v.to_value or 'none'} by {v.author} {cites.cite(doc)}"
            )
        else:
            lines.append(f"- {_day(when)} commit {v.ref[:7]} “{v.message}” by {v.author} {cites.cite(doc)}")
    first, last = events[0][0], events[-1][0]
    head = f"{len(lines)} dated changes from {_day(first)} to {_day(last)}"
    if len(lines) > MAX_TIMELINE:
        lines = (
            lines[: MAX_TIMELINE // 2]
            + [f"- … {len(lines) - MAX_TIMELINE} more …"]
            + lines[-MAX_TIMELINE // 2 :]
        )
    note = f" ({'; '.join(gaps)})" if gaps else ""
    return HistoryAnswer(
        head + f" recorded{note}, oldest first:\n" + "\n".join(lines), cites.docs, unrecorded="; ".join(gaps)
    )


def answer(intent: HistoryIntent, store: GraphStore, today: date) -> HistoryAnswer:
    """Compose the answer to ``intent`` from ``store`` (the reader's store: only what they may read)."""
    if intent.kind == "state":
        return answer_state(intent, store)
    if intent.kind == "first":
        return answer_first(intent, store)
    if intent.kind == "page_at":
        return answer_page_at(intent, store)
    if intent.kind == "timeline":
        return answer_timeline(intent, store)
    return answer_digest(intent, store, today)


__all__ = ["ALL_FIELDS", "HistoryAnswer", "answer", "value_at"]
