"""Section-level differences between two texts of a page (``difflib``): which sections were
added, removed or changed, and a few changed lines to show what changed."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

TOP = "introduction"  # the text before the first heading


@dataclass(frozen=True)
class SectionDiff:
    added: list[str]
    removed: list[str]
    changed: list[str]
    lines_added: int
    lines_removed: int
    sample: list[str]  # a few "- old" / "+ new" lines

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def summary(self) -> str:
        if self.empty:
            return "no change in the text"
        parts = []
        if self.changed:
            parts.append("changed " + ", ".join(f"“{s}”" for s in self.changed[:6]))
        if self.added:
            parts.append("added " + ", ".join(f"“{s}”" for s in self.added[:6]))
        if self.removed:
            parts.append("removed " + ", ".join(f"“{s}”" for s in self.removed[:6]))
        return "; ".join(parts) + f" (+{self.lines_added} −{self.lines_removed} lines)"


def _heading(line: str) -> str:
    """A Markdown heading's text ("## Retries" → "Retries"), or "" for any other line."""
    text = line.lstrip("#")
    level = len(line) - len(text)
    return text.strip() if 1 <= level <= 6 and text[:1].isspace() else ""


def sections(text: str) -> dict[str, str]:
    """Heading → its text (the part before the first heading is "(introduction)")."""
    out: dict[str, list[str]] = {TOP: []}
    current = TOP
    for line in text.splitlines():
        heading = _heading(line)
        if heading:
            current = heading
            while current in out:
                current += " "
            out[current] = []
        else:
            out[current].append(line)
    return {k.strip(): "\n".join(v).strip() for k, v in out.items() if k != TOP or "\n".join(v).strip()}


def diff_sections(old: str, new: str, sample_lines: int = 6) -> SectionDiff:
    a, b = sections(old), sections(new)
    added = [s for s in b if s not in a]
    removed = [s for s in a if s not in b]
    changed = [s for s in a if s in b and a[s] != b[s]]
    plus = minus = 0
    sample: list[str] = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith(("+++", "---", "@@")):
            continue
        if line.startswith("+"):
            plus += 1
        elif line.startswith("-"):
            minus += 1
        else:
            continue
        if len(sample) < sample_lines and line[1:].strip():
            sample.append(line[0] + " " + line[1:].strip()[:160])
    return SectionDiff(added, removed, changed, plus, minus, sample)
