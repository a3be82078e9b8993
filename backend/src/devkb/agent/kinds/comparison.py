"""Comparison: "compare A and B", "what is the difference between A and B", "A vs B" where the
question names two documents (issue keys, pull requests, commits, paths, quoted titles) → both by
``GraphQuery``; the answer states what they share and where they differ — their fields (status,
type, priority, resolution, assignee, author, …) and their words (the terms both texts use, and
the ones only one side uses) — each point cited to its side."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent.answer import Confidence, Status
from devkb.agent.confidence import capped, exact_confidence
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import description, identifier, not_found_lines
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.kinds.lookup import Lookup, look_up
from devkb.agent.question import ParsedQuestion
from devkb.agent.tools.filter_docs import keywords

FIELDS = (
    "issue_type",
    "status",
    "resolution",
    "priority",
    "assignee",
    "reporter",
    "author",
    "component",
    "fix_version",
    "kind",
    "space",
    "repository",
)
_LOOKUP = Lookup()


class Comparison(QuestionKind):
    name = "comparison"

    def recognises(self, frame: Frame, parsed: ParsedQuestion, carried: bool) -> bool:
        # two documents named and "compare" / "difference between" / "vs" (the form "compare")
        named = sum(len(v) for lk in parsed.lookups.lookups for k, v in lk.filters.items() if k != "project")
        named += sum(1 for lk in parsed.lookups.lookups if lk.title_contains)
        return named >= 2 and frame.takes("compare")

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return _LOOKUP.plan(parsed, carried)

    def run(self, ctx: Context) -> None:
        look_up(ctx, self.plan(ctx.parsed, bool(ctx.carried))[0])

    def sources(self, out: Outcome, selection: Sequence[EvidenceDoc], most: int) -> list[EvidenceDoc]:
        if out.not_found and not out.anchors:
            return []
        return (out.anchors[:2] + [d for d in selection if d not in out.anchors[:2]])[:most]

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        missing = not_found_lines(dict.fromkeys(out.not_found, ()), out.filtered_out, out.reads_all)
        if len(out.anchors) < 2:
            found = "Only one of the two was found" if out.anchors else "Neither was found"
            return " ".join([*missing, f"{found}, so there is nothing to compare."])
        return " ".join([*missing, compare(docs[0], docs[1])])

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        if len(out.anchors) >= 2:
            return "answered", exact_confidence(
                f"both found by identifier: {identifier(docs[0])}, {identifier(docs[1])}", docs[:2]
            )
        status, confidence = super().assess(out, docs)
        return capped(status, confidence, "a side of the comparison was not found")


def compare(a: EvidenceDoc, b: EvidenceDoc) -> str:
    """Similarities and differences of ``a`` [1] and ``b`` [2], each point cited to its side."""
    na, nb = identifier(a), identifier(b)
    same, differ = [], []
    for field in FIELDS:
        va, vb = a.document.metadata.get(field), b.document.metadata.get(field)
        if va in (None, "", []) and vb in (None, "", []):
            continue
        label = field.replace("_", " ")
        if va == vb:
            same.append(f"{label} {_shown(va)} [1][2]")
        else:
            differ.append(f"{label}: {na} {_shown(va) or 'none'} [1], {nb} {_shown(vb) or 'none'} [2]")
    wa, wb = _words(a), _words(b)
    shared = sorted(wa & wb, key=len, reverse=True)[:6]
    only_a = sorted(wa - wb, key=len, reverse=True)[:5]
    only_b = sorted(wb - wa, key=len, reverse=True)[:5]
    lines = [f"Comparing {na} [1] and {nb} [2]."]
    what_a, what_b = description(a, 1, 1), description(b, 2, 1)
    if what_a:
        lines.append(f"{na}: {what_a}")
    if what_b:
        lines.append(f"{nb}: {what_b}")
    if same or shared:
        parts = same + ([f"both mention {', '.join(shared)} [1][2]"] if shared else [])
        lines.append("Alike: " + "; ".join(parts) + ".")
    if differ:
        lines.append("Different: " + "; ".join(differ) + ".")
    if only_a:
        lines.append(f"Only {na} mentions {', '.join(only_a)} [1].")
    if only_b:
        lines.append(f"Only {nb} mentions {', '.join(only_b)} [2].")
    return " ".join(lines)


def _shown(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _words(doc: EvidenceDoc) -> set[str]:
    return {
        w
        for w in keywords(f"{doc.document.title} {' '.join(doc.passages[:1])}")
        if len(w) > 3 and not w.isdigit()
    }
