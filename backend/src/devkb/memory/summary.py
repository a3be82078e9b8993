"""A person's older private memories folded into one summary memory (docs/memory.md, "Summaries").

Deterministic, no language model: the summary's text lists each folded memory with the day it
became true, oldest first, under one heading; its metadata keeps every folded memory as it was
(``folded``: id, subject-and-attribute key, valid from, text) and the documents they were about, so
provenance survives the retention that later deletes the folded versions. Each person has one
current summary (subject ``summary``, attribute ``conversations``): a new run folds the current
summary's lines and the memories that became old since into a new version that supersedes it, so
recall as of any moment returns what was true then. When a newer fact supersedes a folded one
(same subject and attribute), the summary gets a version without that line (``without``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from devkb.memory.model import Memory

SUBJECT = "summary"
ATTRIBUTE = "conversations"
FOLDS: tuple[str, ...] = ("conversation", "agent")  # what a person said; derived memories stay apart
MAX_SUMMARY_TEXT = 20_000  # longer: the oldest lines stay in ``folded``, the text says how many

Line = tuple[str, str, str, str]  # (id, key, valid_from, text)


def foldable(m: Memory, owner: str, cutoff: str) -> bool:
    """A current private memory of ``owner`` said in a conversation or by an agent, recorded before
    ``cutoff``, derived from no document (those carry the documents' permissions), not a summary."""
    return (
        m.scope == "private"
        and m.owner == owner
        and m.status in ("active", "verified")
        and m.origin in FOLDS
        and not m.derived_from
        and not m.valid_until
        and bool(m.recorded_at)
        and m.recorded_at < cutoff
    )


def lines_of(memories: Iterable[Memory]) -> list[Line]:
    return [(m.id, m.key, m.valid_from, m.text) for m in memories]


def merged(previous: Sequence[Line], new: Sequence[Line]) -> list[Line]:
    """The lines of both, one per memory id, oldest first (by valid from, then id)."""
    out = {line[0]: line for line in previous}
    out.update({line[0]: line for line in new})
    return sorted(out.values(), key=lambda line: (line[2], line[0]))


def text_of(lines: Sequence[Line]) -> str:
    """The summary's text: a heading with the count and the span, then one line per memory."""
    if not lines:
        return ""
    first, last = lines[0][2][:10], lines[-1][2][:10]
    span = first if first == last else f"{first} to {last}"
    head = f"Summary of {len(lines)} earlier notes from conversations ({span}):"
    body = [f"- {line[2][:10]}: {' '.join(line[3].split())}" for line in lines]
    kept: list[str] = []
    size = len(head)
    for row in reversed(body):  # the newest lines first, until the text is full
        if size + len(row) + 1 > MAX_SUMMARY_TEXT - 80:
            break
        kept.append(row)
        size += len(row) + 1
    left = len(body) - len(kept)
    more = [f"- … and {left} older notes (in this summary's record)"] if left else []
    return "\n".join([head, *more, *reversed(kept)])


def without(lines: Sequence[Line], key: str) -> list[Line]:
    """The lines but those of ``key`` (a newer fact superseded them)."""
    return [line for line in lines if not key or line[1] != key]


def key_of(owner: str) -> str:
    """The key of ``owner``'s summary (as ``Memory.key`` computes it for a private memory)."""
    return f"private:{owner.lower()}:{SUBJECT}|{ATTRIBUTE}"
