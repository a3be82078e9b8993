"""Extractive answers: the sentences of the retrieved chunks that best match the question, each
with the citation number of its document. Used when no LLM is reachable."""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from devkb.agent.answer import Citation
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.focus import (
    ASKING_WORDS,
    FIELD_VERB_ROOTS,
    Focus,
    code_like,
    comment_author,
    explains,
    opening,
    owner_line,
    question_focus,
    sentence_words,
    strength,
    under_heading,
)
from devkb.agent.meaning import SentenceMeaning
from devkb.agent.patterns import EMPHASIS
from devkb.agent.question import ParsedQuestion, has_phrase
from devkb.agent.tools.filter_docs import document_keywords, keywords
from devkb.agent.words import KEYWORD, NAME, STOPWORDS, search, word_pattern
from devkb.agent.words import words as words_in
from devkb.store.models import SourceType

_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = word_pattern(KEYWORD)  # the one tokeniser (words.py): "FLUID-5327" one word
NO_ANSWER = "The knowledge base does not contain an answer to this question."


# a word as written → its term ("" for a stopword or a single character); bounded, like FilterDocs's
_TERM_OF: dict[str, str] = {}
_TERM_MEMO_SIZE = 500_000


def _term_of(word: str) -> str:
    lw = word.lower()
    term = lw if len(word) > 1 and lw not in STOPWORDS else ""
    if len(_TERM_OF) >= _TERM_MEMO_SIZE:
        _TERM_OF.clear()
    _TERM_OF[word] = term
    return term


def terms(text: str) -> set[str]:
    # distinct words first: texts repeat words, and this runs for every sentence of every passage
    memo = _TERM_OF
    out = {t if (t := memo.get(w)) is not None else _term_of(w) for w in set(_WORD.findall(text))}
    out.discard("")
    return out


# a passage's sentence → its terms: answers score the passages of the documents a question found
# sentence by sentence, and the same documents come back question after question. Sentences of
# stored documents only — never a question —, the 20,000 most recently used.
@functools.lru_cache(maxsize=20_000)
def sentence_terms(sentence: str) -> frozenset[str]:
    """:func:`terms` of a sentence of a stored document, remembered."""
    return frozenset(terms(sentence))


_METADATA_LINE = re.compile(
    r"^(?:[A-Z][\w ]{1,20}: [^·]{0,80} · ){2,}|^#{1,6}\s|^[A-Z][A-Z0-9]+-\d+: .{0,200}$|"
    r"^Space: [^·\n]{0,120} · Path: "  # a Confluence page's header line (sources/confluence/convert.py)
)
# what a tracker's bulk edits say (word patterns of words.py, read over a sentence's words)
_BOILERPLATE = (
    "closing all? issues that were resolved",
    "bulk clos*",
    "bulk-clos*",
    "this issue has|was been? automatically",
    "automatically closed|transitioned",
    "mass clos*",
    "mass-clos*",
    "cleaning up old|stale issues",
)
_CAUSE = frozenset("because caused cause causes triggered resulted".split())
_CAUSE_PHRASES = (("root", "cause"), ("due", "to"), ("as", "a", "result"), ("led", "to"), ("the", "reason"))
_MONTHS = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
# a date: 2026-04-14, "December 15", "15 December", "in 2026"
_DATED = re.compile(
    r"\b(?:19|20)\d\d-\d\d(?:-\d\d)?\b|\b" + _MONTHS + r"\s+\d{1,2}\b|\b\d{1,2}\s+" + _MONTHS + r"\b"
    r"|\b(?:on|in|since)\s+(?:19|20)\d\d\b"
)
_CHANGE = frozenset(
    "change changed added removed renamed replaced upgraded migrated deprecated moved switched".split()
)


def boilerplate(sentence: str) -> bool:
    """A tracker's bulk edit ("Closing issues that were resolved for 1.0 and earlier releases.")."""
    ws = words_in(sentence, KEYWORD)
    return any(search(p, ws) for p in _BOILERPLATE)


def _states_cause(ws: tuple[str, ...]) -> bool:
    return bool(_CAUSE.intersection(ws)) or has_phrase(ws, _CAUSE_PHRASES)


def clean(text: str) -> str:
    """HTML entities decoded, wiki markup of headers and bullets trimmed."""
    return html.unescape(text)


@functools.lru_cache(maxsize=4096)
def passage_sentences(text: str) -> tuple[tuple[int, str, frozenset[str], bool, bool, bool], ...]:
    """The sentences of a passage an answer may quote: (position, sentence, its terms, states a
    cause, is dated, states a change) — metadata lines, headers, table rows, boilerplate and
    sentences under 25 or over 600 characters left out. Passages are chunks of stored documents,
    and the same documents come back question after question: the 4,096 most recently used are
    remembered, so a question only scores the sentences."""
    out = []
    for j, raw in enumerate(_SENT.split(clean(text))):
        stripped = raw.strip()
        if _METADATA_LINE.search(stripped) or stripped.startswith("|"):
            continue  # metadata lines, headers and table rows are not sentences
        sentence = raw.strip(" #*-\t")
        if len(sentence) < 25 or len(sentence) > 600 or boilerplate(sentence):
            continue
        dated = _DATED.search(sentence) is not None
        ws = words_in(sentence, NAME)  # "root-cause" is "root", "cause", as a regex's word boundary reads it
        cause = _states_cause(ws)
        change = bool(_CHANGE.intersection(ws))
        out.append((j, sentence, sentence_terms(sentence), cause, dated, change))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def headings(text: str) -> tuple[str, ...]:
    """For each piece of a passage as :func:`passage_sentences` numbers them, the heading it
    stands under ("" before the first), remembered per passage."""
    out, current = [], ""
    for raw in _SENT.split(clean(text)):
        stripped = raw.strip()
        if stripped.startswith("#"):
            current = stripped.strip("# ").rstrip(":")
        out.append(current)
    return tuple(out)


def compose_extractive(
    question: str, passages: Sequence[tuple[int, str]], max_sentences: int = 4, qtype: str = "fact"
) -> str:
    """``passages``: (citation number, text), best first → an answer of cited sentences.

    Sentences are scored by the question's words and by what its type asks for (why → a cause,
    when → a date, what changed → a dated change); metadata lines, headers and boilerplate are
    never chosen."""
    q = terms(question)
    scored: list[tuple[float, int, int, str, bool, int]] = []
    for order, (n, text) in enumerate(passages):
        for j, s, words, cause, dated, change in passage_sentences(text):
            overlap = len(q & words)
            bonus = 0.0
            if qtype == "why" and cause:
                bonus = 3.0
            elif qtype == "when" and dated:
                bonus = 1.5
            elif qtype == "changed" and change:
                bonus = 1.0 + (0.5 if dated else 0.0)
            if overlap == 0 and bonus == 0:
                continue
            held = (qtype == "why" and cause) or (qtype == "when" and dated)
            scored.append((overlap + bonus - 0.15 * order - 0.01 * j, n, order, s, held, overlap))
    if not scored:
        if passages:
            n, text = passages[0]
            body = [
                s.strip()
                for s in _SENT.split(clean(text))
                if len(s.strip()) >= 25 and not _METADATA_LINE.search(s.strip()) and not boilerplate(s)
            ]
            first = body[0] if body else clean(text)[:300]
            return f"{first} [{n}]"
        return NO_ANSWER
    ranked = sorted(scored, key=lambda t: -t[0])
    if ranked[0][4] and ranked[0][5]:
        # the best sentence holds what the type asks (a cause, a date — a memory "the payments
        # freeze starts on 15 December") about the question's words: another is cited only if it
        # holds it too, about as many of them (half the best's at least) — neither a sentence
        # that shares the words without a date nor a date of something else is an answer
        least = max(1, (ranked[0][5] + 1) // 2)
        ranked = [t for t in ranked if t[4] and t[5] >= least]
    best = ranked[:max_sentences]
    if qtype == "why":  # the causes first, best first
        best.sort(key=lambda t: (not t[4], -t[0]))
    else:
        best.sort(key=lambda t: (t[2], t[1]))
    out, seen = [], set()
    for _, n, _, s, _, _ in best:
        if s in seen:
            continue
        seen.add(s)
        out.append(f"{s} [{n}]")
    return " ".join(out)


@functools.lru_cache(maxsize=4096)
def _snippet_candidates(text: str) -> tuple[str, tuple[tuple[str, frozenset[str]], ...]]:
    """A passage's body (its first line, the title, left out) and its sentences over 20
    characters with their terms — remembered per passage, as :func:`passage_sentences`."""
    body = text.split("\n", 1)[1] if "\n" in text else text
    return body, tuple((s.strip(), sentence_terms(s)) for s in _SENT.split(body) if len(s.strip()) > 20)


def snippet(text: str, question: str, width: int = 240) -> str:
    q = terms(question)
    body, sentences = _snippet_candidates(text)
    best, best_score = body[:width], -1
    for s, words in sentences:
        sc = len(q & words)
        if sc > best_score:
            best, best_score = s, sc
    return best[:width] + ("…" if len(best) > width else "")


def citations_text(citations: Sequence[Citation]) -> str:
    return "\n".join(f"[{i + 1}] {c.title} — {c.url}" for i, c in enumerate(citations))


def _without_title(text: str, title: str) -> str:
    first, sep, rest = text.partition("\n")
    return rest if sep and title and first.strip().startswith(title.strip()) else text


_FIELD_NAMES = {
    "status": "status",
    "resolution": "resolution",
    "assignee": "assignee",
    "reporter": "reporter",
    "priority": "priority",
    "fix_version": "fix version",
    "component": "component",
    "issue_type": "type",
    "created": "created",
    "author": "author",
}


def _sections(text: str) -> list[tuple[str, int, int]]:
    """A text's "## Heading" lines (a word first, words and spaces after, a line of its own):
    (heading, where its line starts, where the text under it starts)."""
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        name = line[3:].rstrip("\n")
        if line.startswith("## ") and line.endswith("\n") and _plain_heading(name):
            out.append((name, at, at + len(line)))
        at += len(line)
    return out


def _plain_heading(name: str) -> bool:
    return all(c.isalnum() or c in "_ " for c in name) and (name[:1].isalnum() or name[:1] == "_")


def identifier(doc: EvidenceDoc) -> str:
    """How an answer names a document: an issue's key, a repository file's path (its ``sha`` is the
    blob's, which no one quotes), a commit's short sha, another file's path, else the title."""
    meta = doc.document.metadata
    if meta.get("key"):
        return str(meta["key"])
    if meta.get("sha") and meta.get("path"):
        return str(meta["path"])
    return str(str(meta.get("sha", ""))[:7] or meta.get("path") or doc.document.title)


def citation(doc: EvidenceDoc, numbers: dict[str, int]) -> str:
    """ " [3]" — the citation of ``doc`` by its number among an answer's sources ("" when it is not
    one of them)."""
    return f" [{numbers[doc.id]}]" if doc.id in numbers else ""


def _shown(value: Any) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def field_facts(parsed: ParsedQuestion, number: int, doc: EvidenceDoc) -> str | None:
    """ "FLUID-5327: status Closed; assignee Justin Obara [1]." for the fields a question asks."""
    meta = doc.document.metadata
    wanted = list(parsed.fields)
    if parsed.qtype == "who" and not any(f in ("assignee", "reporter", "author") for f in wanted):
        wanted += ["assignee", "reporter", "author"]
    parts = []
    for key in dict.fromkeys(wanted):
        if key == "took":
            took = _took(meta)
            if took:
                parts.append(took)
            continue
        value = meta.get(key)
        if key == "status" and value is None and meta.get("state"):  # a GitHub issue or pull request
            key, value = "state", meta["state"]
        if value in (None, "", []):
            if key == "assignee" and doc.document.id.startswith("jira:"):
                parts.append("unassigned")
            elif key == "reporter" and key in parsed.fields and doc.document.id.startswith("jira:"):
                parts.append("no reporter recorded")
            continue
        if key == "status" and meta.get("resolution") and "resolution" not in wanted:
            parts.append(f"status {value} (resolution {meta['resolution']})")
            continue
        if key in ("created", "updated", "resolved") and isinstance(value, str):
            value = value[:16].replace("T", " ")  # "2026-04-15 10:00", not the stored ISO stamp
        parts.append(f"{_FIELD_NAMES.get(key, key)} {_shown(value)}")
    if parsed.qtype == "who":
        people = _commenters(doc)
        if people:
            parts.append("commented: " + ", ".join(people))
        changed = [h["by"] for h in meta.get("history") or [] if isinstance(h, dict) and h.get("by")]
        changed = [p for p in dict.fromkeys(changed) if p != "unknown"]
        if changed:
            parts.append("changed it: " + ", ".join(changed[:6]))
    if parsed.qtype == "when" and not (set(parsed.words) & _CREATED_WORDS and "status" not in wanted):
        # "when was WEB-3 created?" asks for the day it was created, not when it was resolved
        moved = transitions(parsed, meta)
        if not moved and meta.get("resolved"):  # no changelog: the resolution date Jira keeps
            moved = f"resolved on {str(meta['resolved'])[:16].replace('T', ' ')}"
        if moved:
            parts.insert(0, moved)
    return f"{identifier(doc)}: {'; '.join(parts)} [{number}]." if parts else None


_CREATED_WORDS = frozenset({"created", "filed", "opened", "reported", "raised", "logged", "submitted"})


def _took(meta: dict[str, Any]) -> str | None:
    """ "took 41 days (created 2024-12-05, resolved 2025-01-15)", "open for 230 days so far
    (created …)": an issue's created → resolved, a pull request's opened → merged."""
    created = str(meta.get("created") or "")
    done_key = "merged" if meta.get("kind") == "pull" else "resolved"
    done = str(meta.get(done_key) or "")
    try:
        start = datetime.fromisoformat(created)
        end = datetime.fromisoformat(done) if done else datetime.now(UTC)
    except ValueError:
        return None
    days = max(0.0, (end - start).total_seconds() / 86400)
    span = f"{days * 24:.0f} hours" if days < 1 else f"{round(days):,} day{'s' * (round(days) != 1)}"
    if done:
        return f"took {span} (created {created[:10]}, {done_key} {done[:10]})"
    return f"open for {span} so far (created {created[:10]})"


def transitions(parsed: ParsedQuestion, meta: dict[str, Any]) -> str | None:
    """ "moved to Closed on 2026-05-07 09:00 by Priya Raman" from the changelog (Jira's
    ``history``): the transition to the status the question names, else every status change."""
    changes = [h for h in meta.get("history") or [] if isinstance(h, dict) and h.get("field") == "status"]
    if not changes:
        return None
    said = words_in(parsed.text, NAME)
    named = [h for h in changes if h.get("to") and has_phrase(said, (words_in(str(h["to"]), NAME),))]
    chosen = named or changes
    return "; ".join(
        f"moved to {h['to']} on {str(h.get('at', ''))[:16].replace('T', ' ')} by {h.get('by', 'unknown')}"
        for h in chosen
    )


def _commenters(doc: EvidenceDoc) -> list[str]:
    names = [
        name
        for p in doc.passages
        for line in p.splitlines()
        if line.startswith("### ") and (name := comment_author(line[4:]))
    ]
    return [n for n in dict.fromkeys(names) if n != "unknown"][:6]


def description(doc: EvidenceDoc, number: int, max_sentences: int = 3) -> str | None:
    """The opening of a document's own text (an issue's description, a page's first paragraph)."""
    text = clean(doc.passages[0]) if doc.passages else ""
    sections = {name.lower(): end for name, _, end in _sections(text)}
    start = sections.get("description")
    if start is None:
        body = _without_title(text, doc.document.title)
    else:
        body = text[start:]
    nxt = _sections(body)
    body = body[: nxt[0][1]] if nxt else body
    sentences = [
        s.strip(" #*-\t")
        for s in _SENT.split(body)
        if len(s.strip()) >= 20 and not _METADATA_LINE.search(s.strip()) and not boilerplate(s)
    ]
    if not sentences:
        return None
    return " ".join(sentences[:max_sentences]) + f" [{number}]"


def outline(doc: EvidenceDoc, number: int, sections: int = 4) -> str | None:
    """A page's opening, then each of its first ``sections`` headings with the first sentence under
    it ("Day 1: Get access: …") — an extractive summary of the passage found; None when that makes
    fewer than two parts (the caller quotes the opening instead). Code blocks and table rows are
    not sentences."""
    text = clean(doc.passages[0]) if doc.passages else ""
    body = _without_title(text, doc.document.title)
    heads = _sections(body)
    ends = [h[1] for h in heads[1:]] + ([len(body)] if heads else [])
    parts: list[tuple[str | None, str]] = [(None, body[: heads[0][1]] if heads else body)]
    parts += [(name.strip(), body[end:e]) for (name, _, end), e in zip(heads, ends, strict=True)]
    out = []
    for heading, part in parts[: sections + 1]:
        part = " ".join(part.split("```")[::2])  # code blocks are not sentences
        part = "\n".join(line for line in part.splitlines() if not line.lstrip().startswith("|"))
        said = ""
        for sentence in _SENT.split(part):
            sentence = sentence.strip(" #*-\t")
            if len(sentence) < 3 or _METADATA_LINE.search(sentence) or boilerplate(sentence):
                continue
            # list items carry no full stop: "Reading list: Architecture Overview; Keys Design"
            said = (
                f"{said}; {sentence}"
                if said and not said.endswith((".", "!", "?", ":"))
                else f"{said} {sentence}"
            )
            said = said.strip()
            if len(said) >= 40:  # "Welcome!" alone says nothing: the next sentence too
                break
        if said:
            said = said if said.endswith((".", "!", "?", ":")) else said + "."
            out.append(f"{heading}: {said}" if heading else said)
    return " ".join(out) + f" [{number}]" if len(out) >= 2 else None  # one part: not an outline


LIST_SHOWN = 25  # items a list answer names before "and N more"
# "summarize the onboarding page", "an overview of …": the named page's own text, not the best
# sentences of every source found
_SUMMARY = "summary|summaries|summarise|summarize|summarised|summarized|summarises|summarizes|overview|outline|recap|gist|tldr"


def _page_named(
    parsed: ParsedQuestion, docs: Sequence[EvidenceDoc], named: Sequence[EvidenceDoc], number: int = 1
) -> str:
    """ "The page “Accessible Modal Dialogs” [1]: " when a question about a topic is answered from a
    page (or documentation file) — the answer names what it draws on, not only quotes it.
    ``number``: the source quoted (the first by default)."""
    if parsed.wanted not in (None, "page", "file") or parsed.qtype in ("who", "list") or named or not docs:
        return ""
    top = docs[number - 1]
    kind = "page" if top.id.startswith("confluence:") else top.document.metadata.get("kind")
    if kind not in ("page", "file"):
        return ""
    return f"The {kind} “{top.document.title}” [{number}]: "


SOURCE_LABELS = {
    "JIRA": "Jira",
    "CONFLUENCE": "Confluence",
    "GITHUB": "GitHub",
    "FILES": "Files",
    "WEB": "Web",
    "UPLOAD": "Uploads",
    "MEMORY": "Memories",
}


def not_found_lines(
    not_found: Mapping[str, Sequence[str]], filtered_out: Mapping[str, str], reads_all: bool
) -> list[str]:
    """What to say about each identifier the question names and the search did not find, as far
    as the reader may know: left out by the question's source filter (the reader may read it),
    else not found — "in the knowledge base" for a reader of everything, "among the documents
    you can read" for anyone else, so a document the reader may not read is never confirmed."""
    lines = []
    for key, close in not_found.items():
        source = filtered_out.get(key)
        if source is not None:
            label = SOURCE_LABELS.get(source, source.title())
            lines.append(f"{key} is in {label}, which this search leaves out: turn {label} on to include it.")
            continue
        where = "in the knowledge base" if reads_all else "among the documents you can read"
        hint = f" Close matches: {', '.join(close)}." if close else ""
        lines.append(f"{key} was not found {where}.{hint}")
    return lines


def preamble(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None = None,
    anchors: Sequence[EvidenceDoc] = (),
    filtered_out: Mapping[str, str] | None = None,
    reads_all: bool = True,
) -> list[str]:
    """What every answer starts with: the identifiers not found (with close matches; see
    :func:`not_found_lines`), then the fields asked about for the named documents among ``docs``."""
    lines = not_found_lines(not_found or {}, filtered_out or {}, reads_all)
    numbers = {d.id: i for i, d in enumerate(docs, 1)}
    for doc in (a for a in anchors if a.id in numbers):
        if parsed.fields or parsed.qtype == "who":
            fact = field_facts(parsed, numbers[doc.id], doc)
            if fact:
                lines.append(fact)
    return lines


def titles_of(docs: Sequence[EvidenceDoc]) -> dict[int, str]:
    """Each document's title by its citation number (what its opening sentences are about)."""
    return {i: d.document.title for i, d in enumerate(docs, 1)}


def people_of(doc: EvidenceDoc) -> frozenset[str]:
    """The people a document names in its fields and comments (for "who does X" answers)."""
    meta = doc.document.metadata
    names = [str(meta.get(k) or "") for k in ("assignee", "reporter", "author")]
    return frozenset(n for n in [*names, *_commenters(doc)] if len(n) > 2)


def focus_passages(docs: Sequence[EvidenceDoc]) -> list[tuple[int, str]]:
    """Every passage of ``docs`` with its citation number, the document's title left out and
    soft-wrapped lines joined (:func:`unwrap`)."""
    return [
        (i, unwrap(_without_title(p, d.document.title))) for i, d in enumerate(docs, 1) for p in d.passages
    ]


_BLOCK_STARTS = ("#", "-", "*", "|", ">", "```", "+")


@functools.lru_cache(maxsize=4096)
def unwrap(text: str) -> str:
    """A passage with its soft line breaks joined: manuals converted from HTML keep the source's
    wrapped lines ("… is setgid to _ssh in order to\nprevent ptrace attacks."), which would cut
    their sentences in two. A line is joined to the one before when that one does not end a
    sentence and neither starts a heading, a list item, a table row or a code fence; emphasis
    markers and escaped underscores are dropped."""
    out: list[str] = []
    lines = EMPHASIS.sub(r"\1", text.replace("**", "").replace("\\_", "_")).splitlines()
    # a chunk can start inside a code block its document opened in the chunk before: an odd
    # number of fences means the first one closes a block, not opens one
    fenced = sum(1 for line in lines if line.strip().startswith("```")) % 2 == 1
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
        prev = out[-1].strip() if out else ""
        joins = (
            not fenced
            and stripped
            and prev
            and not prev.endswith((".", "!", "?", ":"))
            and not stripped.startswith(_BLOCK_STARTS)
            and not prev.startswith(_BLOCK_STARTS[:1] + _BLOCK_STARTS[3:])
            and not stripped[:1].isdigit()
        )
        if joins:
            out[-1] = f"{out[-1].rstrip()} {stripped}"
        else:
            out.append(line)
    return "\n".join(out)


# how much a source's rank costs a sentence that holds the focus: the best source first
ORDER_WEIGHT = 1.0
RESTATES = 2.0  # what restating the question (most of its words) costs a sentence
COVERAGE_WEIGHT = 4.0  # the share of the question's weighted terms a sentence holds, 0..1, times this
HELD_WEIGHT = 1.5  # how holding the focus (agent/focus.py's strength, 0..2.5) counts
# a sentence that holds at least this share of the question's weighted terms, and words of its own,
# holds a condition or a step without a cue ("Always answer 2xx for stale events, or Meridian
# retries them …")
IMPLICIT_COVERAGE = 0.5
# a condition's cue and consequence (agent/focus.py's strength without the count of the condition's
# terms it shares, which the weighted coverage measures better: two common ones are not a match)
CONDITION_HELD = 1.5


@functools.lru_cache(maxsize=4096)
def table_rows(text: str) -> tuple[tuple[int, str, str, str], ...]:
    """A passage's Markdown table rows as sentences, each cell after its column's header ("Token:
    tok_timeout_30s; Result: succeeds after 30 seconds (use it to test PAY-8).") with the heading
    it stands under, its line's number and its cells alone (a column named "When" is no condition):
    a table often holds the answer (who to ask about what, what each error does) and
    :func:`passage_sentences` leaves rows out."""
    out: list[tuple[int, str, str, str]] = []
    header: list[str] | None = None
    heading = ""
    for j, line in enumerate(clean(text).splitlines()):
        stripped = line.strip()
        if stripped.startswith("#"):
            heading = stripped.strip("# ").rstrip(":")
        if not stripped.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if all(not c.strip("-: ") for c in cells):  # the separator row
            continue
        if header is None:
            header = cells
            continue
        parts = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
        if parts:
            out.append((j, heading, "; ".join(parts).rstrip(".") + ".", "; ".join(c for c in cells if c)))
    return tuple(out)


CONTEXT_WEIGHT = 0.5  # how the question's terms in the sentence before (or the title) count (half)
# a document whose title holds at least this share of the question's weighted terms is what the
# question is about: its opening (an issue's description) holds a reason or a consequence uncued
TITLE_COVERAGE = 0.5
OPENING_FOCI = frozenset({"reason", "condition"})
OPENING_HELD = 0.5  # how such an opening holds the focus (as a condition or step held by coverage)
# the first words of a sentence that points back at the one before for what it is about
ANAPHORS = frozenset({("this",), ("that",), ("it",), ("they",), ("these",), ("those",), ("such",)})


# the sections that list other documents by their titles ("- relates to WEB-6: Order total shows
# …", sources/jira/convert.py): a title there restates a question, it does not answer it
LINK_HEADINGS = frozenset({"links", "issue links", "linked issues"})


def _term_weights(q: set[str], sentences: Sequence[frozenset[str]]) -> dict[str, float]:
    """Each question term's weight among the candidate sentences: its inverse document frequency
    there (log(1 + N / df)). A term every sentence of the sources shares ("meridian", "payment")
    tells less about which one answers than one a few hold ("2xx", "stale"); a term none holds
    weighs as one held by half a sentence, so a sentence lacking it covers less of the question."""
    n = len(sentences) or 1
    return {t: math.log(1.0 + n / (sum(1 for words in sentences if t in words) or 0.5)) for t in q}


@dataclass(frozen=True)
class Scored:
    """A candidate sentence that holds the focus: its score, citation number, position, text and
    the share of the question's weighted terms it holds (with the sentence before's, for "this …")."""

    score: float
    n: int
    j: int
    s: str
    coverage: float
    similarity: float = 0.0  # cosine(question, sentence) when meaning was scored (agent/meaning.py)
    cued: bool = True  # holds the focus by its words (else a candidate by its words alone: ``uncued``)


# how the meaning counts: cosine(question, sentence) by the product's embedder, 0..1, times this —
# for at most MEANING_CANDIDATES sentences (one batch of short embeddings): those within
# MEANING_WEIGHT of the best by words, the only ones the meaning can make the best
MEANING_WEIGHT = 2.0
MEANING_CANDIDATES = 30


def scored_sentences(
    question: str,
    passages: Sequence[tuple[int, str]],
    focus: Focus,
    people: Mapping[int, frozenset[str]] | None = None,
    meaning: SentenceMeaning | None = None,
    titles: Mapping[int, str] | None = None,
    uncued: bool = False,
) -> list[Scored]:
    """Every sentence of ``passages`` that holds the focus and shares a word with the question,
    scored as :func:`focused_sentences` describes; with ``meaning``, the best by words (at most
    :data:`MEANING_CANDIDATES`, within :data:`MEANING_WEIGHT` of the best: no other can overtake
    it) also by their closeness in meaning to the question. One candidate alone is not embedded.
    ``uncued``: also the sentences that hold no cue of the focus but :data:`UNCUED_COVERAGE` of the
    question's weighted terms (what an answer may quote; the gates that ask whether a source
    holds the focus leave them out)."""
    scored = _lexical_scores(question, passages, focus, people, titles, uncued)
    if meaning is None or len(scored) < 2:
        return scored
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
    reach = scored[order[0]].score - MEANING_WEIGHT
    best = [i for i in order if scored[i].score >= reach][:MEANING_CANDIDATES]
    if len(best) < 2:
        return scored
    cosines = meaning.similarities(question, [scored[i].s for i in best])
    for i, cos in zip(best, cosines, strict=True):
        c = scored[i]
        scored[i] = Scored(c.score + MEANING_WEIGHT * max(cos, 0.0), c.n, c.j, c.s, c.coverage, cos, c.cued)
    return scored


# a sentence of the sources that holds no cue of the focus but this share of the question's
# weighted terms, and words of its own, is a candidate too ("Merchants poll GET /v1/payments/{id}."
# for "why are we building webhooks?"): the reason, person or step worded without a cue. It ranks
# by its words alone (no focus held) and never above a sentence of its document that holds the focus
UNCUED_COVERAGE = 0.25


def _lexical_scores(
    question: str,
    passages: Sequence[tuple[int, str]],
    focus: Focus,
    people: Mapping[int, frozenset[str]] | None = None,
    titles: Mapping[int, str] | None = None,
    uncued: bool = False,
) -> list[Scored]:

    q = keywords(question) - ASKING_WORDS
    first = passages[0][0] if passages else 1
    # citation number, position, sentence, heading, its passage shares a question word, its words,
    # the text its cues are read from (a table row's cells without their headers)
    candidates: list[tuple[int, int, str, str, bool, frozenset[str], str]] = []
    person_lines: list[tuple[float, int, int, str]] = []
    for order, (n, text) in enumerate(passages):
        heads = headings(text)
        about = bool(q & document_keywords(text))
        for j, s, *_ in passage_sentences(text):
            if heads[j].lower() not in LINK_HEADINGS:
                candidates.append((n, j, s, heads[j], about, document_keywords(s), s))
        for j, heading, s, cells in table_rows(text):
            cues = s if focus.name == "person" else cells  # "Ask about: …" names the asked verb
            candidates.append((n, j, s, heading, about, document_keywords(s), cues))
        if focus.name == "person":  # "Owner: Priya Raman" — short, but it names who
            for j, line in enumerate(clean(text).splitlines()):
                line = line.strip(" #*-\t")
                if owner_line(line) and not _METADATA_LINE.search(line):
                    person_lines.append((1.5 - 0.5 * order - 0.01 * j, n, -1, line.rstrip(".") + "."))
    weights = _term_weights(q, [c[5] for c in candidates])
    before: dict[tuple[int, int], frozenset[str]] = {}
    for a, b in zip(candidates, candidates[1:], strict=False):
        if a[0] == b[0] and a[1] < b[1]:
            before[(b[0], b[1])] = a[5]
    total = sum(weights.values()) or 1.0
    # the documents the question is about: their titles hold most of its weighted terms ("why does
    # finance need a double-entry ledger?" → "Double-entry ledger for captures and refunds")
    titled = {
        n: terms_
        for n, title in (titles or {}).items()
        if len(q & (terms_ := document_keywords(title))) >= 2
        and sum(weights.get(t, 0.0) for t in q & terms_) / total >= TITLE_COVERAGE
    }
    # a reason is worded with a cue ("because", "so that"); a sentence sharing the question's words
    # without one is the topic, not the reason ("The refund limit is 500 EUR."); a person is named
    implicit = focus.name in ("condition", "step")
    scored: list[Scored] = [Scored(*t, coverage=0.0) for t in person_lines]
    openings: list[tuple[int, int, str, float]] = []  # uncued openings of the documents asked about
    plain: list[tuple[int, int, str, float, float]] = []  # uncued sentences (``uncued``)
    for n, j, s, heading, about, words, cues in candidates:
        author = comment_author(heading) if focus.name == "person" else ""
        if author:  # a comment's sentence is said by its author: "Reviewed the patch. — Jonathan Hung"
            s = cues = f"{s} — {author}"
        held = strength(focus, cues, (people or {}).get(n, frozenset()), heading)
        if focus.name == "condition":  # the condition's terms count through coverage, by weight
            held = min(held, CONDITION_HELD)
        shared = q & words
        coverage = sum(weights[t] for t in shared) / total
        # a sentence opening with "this" or "it" is about what the one before it names ("majordom: … This
        # had a statically allocated user … for purely historical reasons."): its terms count half
        prev = before.get((n, j), frozenset()) if sentence_words(s)[1][:1] in ANAPHORS else frozenset()
        coverage += CONTEXT_WEIGHT * sum(weights[t] for t in (q & prev) - shared) / total
        if focus.name == "reason" and not held and explains(s, q):
            held = 1.0
        if not held and implicit and coverage >= IMPLICIT_COVERAGE and len(shared) >= 2 and words - q:
            held = 0.5
        # the opening of a document the question is about says why it exists or what goes wrong
        # ("Finance needs a ledger they can audit: …" under PAY-5's description): when no sentence
        # of that document holds the focus by its words, its opening holds a reason or a
        # condition's consequence without a cue, the title's terms counting as its context
        title = titled.get(n, frozenset())
        # (one holding most of the question's terms itself restates the title: what, not why)
        says_more = bool(shared) and len(shared) < 0.6 * len(q) and bool(words - q - title)
        if not held and title and focus.name in OPENING_FOCI and opening(heading) and says_more:
            context = CONTEXT_WEIGHT * sum(weights[t] for t in (q & title) - shared - prev) / total
            openings.append((n, j, s, coverage + context))
        # (a lead-in ending with ":" says nothing by itself; a line of code is no answer)
        elif (
            not held
            and uncued
            and shared
            and coverage >= UNCUED_COVERAGE
            and bool(words - q)
            and not code_like(s)
            and not s.rstrip().endswith(":")
        ):
            restates = (
                RESTATES if len(q) >= 3 and len(shared) >= 0.6 * len(q) and len(words - q) <= 2 else 0.0
            )
            plain.append((n, j, s, coverage, restates))
        # the sentence shares the question's words, or stands under a heading that holds the
        # focus ("## Root cause") in a passage that does
        if held and (shared or (about and under_heading(focus, heading))):
            # a sentence holding most of the question's words and little else restates it (an
            # issue's title); one that adds words of its own may answer it
            restates = (
                RESTATES if len(q) >= 3 and len(shared) >= 0.6 * len(q) and len(words - q) <= 2 else 0.0
            )
            score = (
                COVERAGE_WEIGHT * coverage
                + HELD_WEIGHT * held
                - restates
                - ORDER_WEIGHT * (n - first)
                - 0.01 * j
            )
            scored.append(Scored(score, n, j, s, coverage))
    held_in = {c.n for c in scored}
    for n, j, s, coverage in openings:
        if n not in held_in:
            score = (
                COVERAGE_WEIGHT * coverage
                + HELD_WEIGHT * OPENING_HELD
                - ORDER_WEIGHT * (n - first)
                - 0.01 * j
            )
            scored.append(Scored(score, n, j, s, coverage))
    # the uncued sentences: not of a document whose opening answers (the title says what it is
    # about), and below the best sentence of their document that holds the focus by its words
    best_held: dict[int, float] = {}
    for c in scored:
        best_held[c.n] = max(best_held.get(c.n, c.score), c.score)
    opened = {n for n, *_ in openings}
    for n, j, s, coverage, restates in plain:
        if n in opened:
            continue
        score = COVERAGE_WEIGHT * coverage - restates - ORDER_WEIGHT * (n - first) - 0.01 * j
        if n in held_in:
            score = min(score, best_held[n] - 0.01)
        scored.append(Scored(score, n, j, s, coverage, cued=False))
    return scored


def focused_sentences(
    question: str,
    passages: Sequence[tuple[int, str]],
    focus: Focus,
    people: Mapping[int, frozenset[str]] | None = None,
    most: int = 2,
    meaning: SentenceMeaning | None = None,
    titles: Mapping[int, str] | None = None,
    uncued: bool = False,
) -> list[tuple[int, str]]:
    """The sentences that answer what the question asks (``focus``: the reason, the condition's
    consequence, the person, the step), as (citation number, sentence): from the best source
    that holds the focus — one sentence, and a second of the same source only when it holds it
    nearly as well — never several sources' sentences that only share the question's words.
    Empty when no sentence holds the focus and shares a word with the question.

    A sentence's score combines how well it holds the focus (:func:`devkb.agent.focus.strength`),
    the share of the question's terms it holds weighted by how rare each is among the candidate
    sentences (:func:`_term_weights`), the rank of its source and its position there; a sentence
    that restates the question (an issue's title) pays for it. For a condition or a step, a
    sentence holding most of the question's weighted terms holds the focus by itself. With
    ``uncued``, a sentence holding no cue but :data:`UNCUED_COVERAGE` of those terms is a candidate
    by its words alone, below any sentence of its document that holds the focus: a reason, a
    person or a step is often written without a cue (an issue's comment that says what was wrong)."""
    found = scored_sentences(question, passages, focus, people, meaning, titles, uncued)
    scored = [(c.score, c.n, c.j, c.s) for c in found]
    if not scored:
        return []
    top = max(scored, key=lambda t: t[0])
    # a second sentence of the same source when it holds the focus and the words nearly as well:
    # the meaning chose the best, it does not push out the one that completes it
    words = {c.s: c.score - MEANING_WEIGHT * max(c.similarity, 0.0) for c in found}
    # (a sentence that holds the focus is not completed by one that does not)
    uncued_ = {c.s for c in found if not c.cued}
    companions = (t for t in scored if t[1] == top[1] and t[3] != top[3])
    if top[3] not in uncued_:
        companions = (t for t in companions if t[3] not in uncued_)
    same = sorted(companions, key=lambda t: -t[0])
    chosen = [top] + [t for t in same[: most - 1] if words[t[3]] >= words[top[3]] - 2.0]
    if top[3].rstrip().endswith(":"):  # "… disable retries of charge creation:" — and what follows
        text = next(text for n, text in passages if n == top[1] and top[3] in clean(text))
        after = [s for j, s, *_ in passage_sentences(text) if j > top[2]][:1]
        chosen = [top] + [(top[0], top[1], top[2] + 1, s) for s in after]
    elif focus.name == "step":  # steps in the order the source gives them; else the best first
        chosen.sort(key=lambda t: t[2])
    return [(n, s) for _, n, _, s in chosen]


def mentions_without(focus: Focus, question: str, docs: Sequence[EvidenceDoc]) -> str:
    """ "The sources mention idempotency and key (PAY-12 [1], …) but do not say why." — what an
    answer says when no source holds what the question asks."""
    q = keywords(question)
    # each keyword shown as the question wrote it ("charged", not the stem "charg")
    written: dict[str, str] = {}
    for w in question.split():
        for k in keywords(w):
            written.setdefault(k, w.strip(".,;:!?\"'()[]“”‘’").lower() or k)
    held: list[str] = []
    cites: list[str] = []
    for i, d in enumerate(docs[:3], 1):
        text = f"{d.document.title} {' '.join(d.passages)}"
        words = keywords(text)
        if q & words:
            cites.append(f"{identifier(d)} [{i}]")
            held += [w for w in sorted(q & words) if w not in held]
    if not cites:
        return f"The sources do not say {focus.asks}."
    shown = [written.get(k, k) for k in held[:4]]
    said = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else shown[0]
    return f"The sources mention {said} ({'; '.join(cites)}) but do not say {focus.asks}."


@dataclass
class _Plan:
    lines: list[str]
    quotes: bool  # the answer quotes sentences (the topic path), not only fields or descriptions
    summary: str | None
    lead_in: str


def _plan(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None,
    anchors: Sequence[EvidenceDoc],
    max_sentences: int,
    lead: str | None,
    filtered_out: Mapping[str, str] | None,
    reads_all: bool,
) -> _Plan:
    lines = preamble(parsed, docs, not_found, anchors, filtered_out, reads_all)
    if not docs:
        return _Plan(lines, False, None, "")
    numbers = {d.id: i for i, d in enumerate(docs, 1)}
    named = [a for a in anchors if a.id in numbers]
    if lead is not None:
        lines.append(lead)
    # the fields of a named document answer a fact, a "who" and a "when" ("when was WEB-3 created?"
    # quoted a step of its description after the date)
    answered = bool(lines) and parsed.qtype in ("fact", "who", "when") and lead is None
    if named and not lines and parsed.qtype in ("about", "fact"):
        for doc in named[:2]:
            text = description(doc, numbers[doc.id])
            if text:
                lines.append(f"{identifier(doc)}: {text}")
        answered = bool(lines)
    if answered:
        return _Plan(lines, False, None, "")
    related = [(i, d) for i, d in enumerate(docs, 1) if d.relation]
    if related and parsed.relation is not None:
        lines.append(
            "Connected documents: " + "; ".join(f"{d.document.title} [{i}]" for i, d in related[:8]) + "."
        )
    lead_in = _page_named(parsed, docs, named)
    summary = None
    if lead_in and search(
        _SUMMARY, words_in(parsed.text, NAME)
    ):  # the page's own text, not every source's best
        summary = outline(docs[0], 1) or description(docs[0], 1, max_sentences + 1)
    titled = None if named or lines else page_asked_about(parsed, docs)
    if summary is None and titled is not None:
        # "what's our retry policy for PSP calls?": the page of that title says what it is — not
        # the sentences elsewhere that name it ("Written down on the wiki (PSP Retry Policy) …")
        summary = outline(docs[titled - 1], titled) or description(
            docs[titled - 1], titled, max_sentences + 1
        )
        if summary is not None:
            lead_in = _page_named(parsed, docs, named, titled)
    return _Plan(lines, summary is None, summary, lead_in)


def page_asked_about(parsed: ParsedQuestion, docs: Sequence[EvidenceDoc], within: int = 3) -> int | None:
    """The citation number of a page or documentation file, among the first ``within`` sources,
    that a "what is …" question names by its title and asks nothing more of: at least two of the
    title's words said, at most one left out, at most one other word ("what's our retry policy for
    PSP calls?" → “PSP Retry Policy”; "what's our API versioning policy?" → “Public API
    Versioning”). None for a question with a focus (why, what happens when, who, the steps)."""
    if parsed.qtype not in ("fact", "about") or question_focus(parsed) is not None:
        return None
    asked = {w.lower() for w in words_in(parsed.text, NAME) if len(w) > 1} - STOPWORDS - _ASKING
    for i, d in enumerate(docs[:within], 1):
        kind = "page" if d.id.startswith("confluence:") else d.document.metadata.get("kind")
        if kind not in ("page", "file"):
            continue
        title = {w.lower() for w in words_in(d.document.title, NAME)} - STOPWORDS
        said = title & asked
        if len(said) >= 2 and len(title - asked) <= 1 and len(asked - title) <= 1:
            return i
    return None


# the words of asking what something is or says: not what it is about
_ASKING = frozenset({"our", "say", "says", "said", "tell", "explain", "describe", "current", "latest"})


def quotes_sentences(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None = None,
    anchors: Sequence[EvidenceDoc] = (),
    filtered_out: Mapping[str, str] | None = None,
    reads_all: bool = True,
) -> bool:
    """Whether :func:`compose_answer` answers by quoting sentences of ``docs`` (not fields, a
    description or a list)."""
    return bool(docs) and _plan(parsed, docs, not_found, anchors, 3, None, filtered_out, reads_all).quotes


def unmet_focus(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None = None,
    anchors: Sequence[EvidenceDoc] = (),
    lead: str | None = None,
    filtered_out: Mapping[str, str] | None = None,
    reads_all: bool = True,
) -> Focus | None:
    """The focus :func:`compose_answer` looks for in ``docs`` and finds in none of them (its
    answer then says so): ``None`` when the question has none, a source holds it, or the answer
    is not quoted sentences (fields, a description, a list)."""
    focus = question_focus(parsed)
    if focus is None or not docs:
        return None
    plan = _plan(parsed, docs, not_found, anchors, 3, lead, filtered_out, reads_all)
    if not plan.quotes:
        return None
    people = {i: people_of(d) for i, d in enumerate(docs, 1)}
    # whether any sentence holds it: the words decide, the meaning only orders them
    found = focused_sentences(parsed.text, focus_passages(docs), focus, people, titles=titles_of(docs))
    return None if found else focus


# the share of the question's weighted terms (:func:`_term_weights`) a sentence that holds the
# focus must hold for the evidence gate to let it answer, though the sources lack some of the
# question's words ("arrives", "sent again"): a term no candidate holds weighs most, so a question
# about something the sources never mention stays below it
FOCUS_GATE = 0.25


def reads_further(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None = None,
    anchors: Sequence[EvidenceDoc] = (),
    filtered_out: Mapping[str, str] | None = None,
    reads_all: bool = True,
) -> bool:
    """Whether the answer should read the found documents further (agent/further.py): it quotes
    sentences for what the question asks (its focus), and no sentence of ``docs`` holds it
    together with :data:`FOCUS_GATE` of the question's weighted terms."""
    focus = question_focus(parsed)
    if focus is None or not quotes_sentences(parsed, docs, not_found, anchors, filtered_out, reads_all):
        return False
    people = {i: people_of(d) for i, d in enumerate(docs, 1)}
    found = scored_sentences(parsed.text, focus_passages(docs), focus, people, titles=titles_of(docs))
    return not any(c.coverage >= FOCUS_GATE for c in found)


def _doc_text_words(doc: EvidenceDoc) -> frozenset[str]:
    return document_keywords(f"{doc.document.title} {' '.join(doc.passages)}")


def holds_focus(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None = None,
    anchors: Sequence[EvidenceDoc] = (),
    filtered_out: Mapping[str, str] | None = None,
    reads_all: bool = True,
) -> tuple[Focus, Scored] | None:
    """The question's focus and the sentence of ``docs`` that holds it together with at least
    :data:`FOCUS_GATE` of the question's weighted terms — when :func:`compose_answer` would quote
    sentences; ``None`` otherwise."""
    focus = question_focus(parsed)
    if focus is None or not docs:
        return None
    if not _plan(parsed, docs, not_found, anchors, 3, None, filtered_out, reads_all).quotes:
        return None
    # a name the question is about ("BigQuery", "Kafka", "WEB-77"), written capitalised or with a
    # digit past its first word, that no source holds: the sources are about something else
    held = frozenset().union(*(_doc_text_words(d) for d in docs))
    named = [
        w
        for w in words_in(parsed.text, KEYWORD, lower=False)[1:]
        if w[:1].isupper() or any(c.isdigit() for c in w)
    ]
    if any(keywords(w) - held for w in named):
        return None
    people = {i: people_of(d) for i, d in enumerate(docs, 1)}
    # by coverage: no meaning
    found = scored_sentences(parsed.text, focus_passages(docs), focus, people, titles=titles_of(docs))
    best = max(found, key=lambda c: c.coverage, default=None)
    return (focus, best) if best is not None and best.coverage >= FOCUS_GATE else None


def _doer(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    anchors: Sequence[EvidenceDoc],
    focus: Focus,
    meaning: SentenceMeaning | None = None,
) -> list[str]:
    """For "who reviewed / found / signed off …" about a named document — a verb no field answers
    — the sentence of that document that names who did it, after its fields."""
    if not focus.verb or focus.verb in FIELD_VERB_ROOTS or focus.verb[:4] in FIELD_VERB_ROOTS:
        return []
    numbers = {d.id: i for i, d in enumerate(docs, 1)}
    named = [a for a in anchors if a.id in numbers]
    passages = [(numbers[a.id], text) for a in named for _, text in focus_passages([a])]
    people = {numbers[a.id]: people_of(a) for a in named}
    titles = {numbers[a.id]: a.document.title for a in named}
    found = focused_sentences(parsed.text, passages, focus, people, meaning=meaning, titles=titles)
    return [" ".join(f"{s} [{n}]" for n, s in found)] if found else []


def compose_answer(
    parsed: ParsedQuestion,
    docs: Sequence[EvidenceDoc],
    not_found: Mapping[str, Sequence[str]] | None = None,
    anchors: Sequence[EvidenceDoc] = (),
    max_sentences: int = 3,
    lead: str | None = None,
    filtered_out: Mapping[str, str] | None = None,
    reads_all: bool = True,
    meaning: SentenceMeaning | None = None,
) -> str:
    """The extractive answer for a parsed question over ``docs`` (the sources, cited by position):
    identifiers not found (``filtered_out``: those the question's source filter left out;
    ``reads_all``: whether the reader reads every document); the fields asked about for the named
    documents; what a named document is about; otherwise the sentences that answer what the
    question asks — its focus (``agent/focus.py``: the reason, the condition's consequence, the
    person, the step) from the best source that holds it, or "the sources mention … but do not
    say why" when none does — or, with no focus, the sentences that answer the question's type.
    ``lead``: a line a kind puts before the quoted sentences (a period's list)."""
    plan = _plan(parsed, docs, not_found, anchors, max_sentences, lead, filtered_out, reads_all)
    lines = plan.lines
    if not docs:
        return " ".join(lines) if lines else NO_ANSWER
    focus = question_focus(parsed)
    if not plan.quotes and plan.summary is None and focus is not None and focus.name == "person":
        lines += _doer(parsed, docs, anchors, focus, meaning)
    if plan.summary is not None:
        lines.append(plan.lead_in + plan.summary)
    elif plan.quotes:
        focus = question_focus(parsed)
        if focus is not None:
            people = {i: people_of(d) for i, d in enumerate(docs, 1)}
            found = focused_sentences(
                parsed.text,
                focus_passages(docs),
                focus,
                people,
                meaning=meaning,
                titles=titles_of(docs),
                uncued=True,
            )
            if found:
                numbers = {d.id: i for i, d in enumerate(docs, 1)}
                lead_in = _page_named(parsed, docs, [a for a in anchors if a.id in numbers], found[0][0])
                lines.append(lead_in + " ".join(f"{s} [{n}]" for n, s in found))
            else:
                lines.append(mentions_without(focus, parsed.text, docs))
            return " ".join(lines)
        passages = [
            (i, _without_title(p, d.document.title)) for i, d in enumerate(docs, 1) for p in d.passages[:2]
        ]
        body = compose_extractive(parsed.text, passages, max_sentences=max_sentences, qtype=parsed.qtype)
        if body != NO_ANSWER:
            lines.append(plan.lead_in + body)
    return " ".join(lines) if lines else NO_ANSWER


def said_by_memory(text: str, docs: Sequence[EvidenceDoc]) -> str:
    """``text`` with each memory it quotes named as memory before its first citation ("the payments
    freeze starts on 18 December (your memory, 2026-12-07) [1]", "(team memory, added by alice on
    2026-12-02)"): what people told devkb is never passed off as a source's words. A list of
    memories that says whose they are (remember, recall) is not passed here."""
    for n, doc in enumerate(docs, 1):
        if doc.document.type != SourceType.MEMORY:
            continue
        mark = f" [{n}]"
        at = text.find(mark)
        if at < 0:
            continue
        meta = doc.document.metadata
        day = str(meta.get("recorded_at", ""))[:10]
        owner = str(meta.get("owner", "")).split("@")[0]
        who = "your memory" if meta.get("scope") == "private" else f"team memory, added by {owner}"
        label = f" ({who}{' on ' + day if day else ''})"
        text = text[:at] + label + text[at:]
    return text
