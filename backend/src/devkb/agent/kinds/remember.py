"""Remember: "Remember that the payments freeze starts on 15 December" stores a memory
(memory/, docs/memory.md) instead of searching for it — private to the person who said it, or for
the team when they say so ("… for the team"): current at once from an admin, proposed (for an
admin to verify) from anyone else. The answer says what was stored and what it superseded; it
cites the memory. Recognised on the question's words (phrase tables, no pattern)."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.frame.extract import remembers
from devkb.agent.frame.phrases import FOR_THE_TEAM
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.question import ParsedQuestion
from devkb.memory.model import Memory
from devkb.memory.service import MemoryError

NAME = "Remember"


def _strip_team(text: str) -> str:
    out = text
    for phrase in ("for the whole team", "for the team", "for everyone"):
        i = out.lower().find(phrase)
        if i >= 0:
            out = (out[:i] + out[i + len(phrase) :]).strip(" ,:;-")
    return " ".join(out.split())


class Remember(QuestionKind):
    name = "remember"
    needs_no_model = True  # storing a fact is not a question for a model
    filters = False

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return remembers(parsed.words, parsed.text)  # the frame's shape "remember" (agent/frame)

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [Step(NAME, "a fact to remember")]

    def run(self, ctx: Context) -> None:
        ctx.took(self.plan(ctx.parsed, bool(ctx.carried))[0])
        memories = ctx.toolbox.memories
        out = ctx.outcome
        if memories is None:
            out.composed = "This server keeps no memories."
            out.listed = []
            return
        team = ctx.parsed.has(*FOR_THE_TEAM)
        text = _strip_team(ctx.parsed.text) if team else ctx.parsed.text
        try:
            m = memories.remember(text, scope="team" if team else "private", origin="conversation")
        except MemoryError as e:
            out.composed = f"Not remembered: {e}."
            out.listed = []
            return
        ctx.scope.record(ToolCall(NAME, {"text": m.text, "scope": m.scope}, 1))
        stored = memories.reader_store.get_documents([m.id])
        out.listed = [EvidenceDoc(d, (m.text,), 1.0, NAME) for d in stored]
        out.composed = remembered_text(m)

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        return out.composed or ""

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        if not docs:
            return "not_found", trust.exact_confidence("nothing was stored", kind="key_missing")
        return "answered", trust.exact_confidence("stored as a memory", docs)


def remembered_text(m: Memory) -> str:
    where = {
        ("private", "active"): "I'll remember that (private to you)",
        ("team", "active"): "I'll remember that for the team",
        (
            "team",
            "proposed",
        ): "Proposed as a team memory: an admin verifies it before the team's answers use it",
    }.get((m.scope, m.status), f"Remembered ({m.scope}, {m.status})")
    lines = [f"{where}: “{m.text}” [1]."]
    if m.supersedes:
        lines.append("It replaces what I had remembered about the same thing (kept in its history).")
    return " ".join(lines)
