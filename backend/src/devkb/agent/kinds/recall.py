"""Recall: questions about one's own earlier conversations and memories — "what did I ask about
webhooks last week?", "what did we conclude about the retry design?", "what do you remember about
the payments freeze?". The asker's stored conversations (only theirs, only in the persistent mode)
and the memories they may read, within the question's period; the answer lists the earlier
questions with their dates and the answers they got, and the memories, citing what those answers
cited. Recognised on the question's words (phrase tables, no pattern)."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent import confidence as trust
from devkb.agent.answer import Confidence, Status, ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.frame.extract import recalls
from devkb.agent.kinds.base import Context, Outcome, QuestionKind, Step
from devkb.agent.question import ParsedQuestion
from devkb.memory.conversations import ABOUT_CONVERSATIONS
from devkb.memory.model import from_document
from devkb.memory.verified import content_stems

NAME = "Recall"
MOST = 5


class Recall(QuestionKind):
    name = "recall"
    needs_no_model = True  # a record of what was asked and answered
    filters = False

    def matches(self, parsed: ParsedQuestion, carried: bool) -> bool:
        return recalls(parsed.words)  # the frame's shape "recall" (agent/frame)

    def plan(self, parsed: ParsedQuestion, carried: bool) -> list[Step]:
        return [Step(NAME, "the asker's earlier conversations and memories")]

    def run(self, ctx: Context) -> None:
        ctx.took(self.plan(ctx.parsed, bool(ctx.carried))[0])
        out = ctx.outcome
        lines: list[str] = []
        docs: list[EvidenceDoc] = []
        recall = ctx.toolbox.conversations
        turns = []
        if recall is not None and ctx.parsed.has(*ABOUT_CONVERSATIONS):
            if not recall.available:
                lines.append(
                    "Conversations are not kept on this server (DEVKB_CHAT_MEMORY=store keeps them)."
                )
            else:
                turns = recall.recall(ctx.parsed.text, ctx.parsed.time_from, ctx.parsed.time_to, MOST)
                if turns:
                    lines.append("You asked:")
                for t in turns:
                    reply = " ".join(t.answer.split())
                    reply = reply if len(reply) <= 200 else reply[:199] + "…"
                    lines.append(
                        f"- on {t.asked_at[:10]}: “{t.question}”"
                        + (f" — answered: “{reply}”" if reply else "")
                    )
                cited = [i for t in turns for i in t.cited]
                if cited:
                    store = ctx.toolbox.graph_query.store
                    docs += [
                        EvidenceDoc(d, (d.title,), 1.0, NAME)
                        for d in store.get_documents(list(dict.fromkeys(cited))[:8])
                        if ctx.scope.allows(d)
                    ]
        memories = ctx.toolbox.memories
        if memories is not None:
            topic = recall.topic(ctx.parsed.text) if recall is not None else set()
            if topic:
                found = memories.search(" ".join(sorted(topic)), limit=3)
                kept = memories.reader_store.get_documents([r.memory.id for r in found])
                mems = [from_document(d) for d in kept]
                # only what is about the topic: "what did I tell you about staging?" listed the
                # payments freeze too (the search's nearest, sharing no word of the topic)
                pairs = [
                    (d, m)
                    for d, m in zip(kept, mems, strict=True)
                    if m is not None and ctx.scope.allows(d) and topic & content_stems(m.text)
                ]
                if pairs:
                    lines.append("From memory:")
                for d, m in pairs:
                    if m is not None:
                        who = (
                            "your memory"
                            if m.scope == "private"
                            else f"team memory, added by {m.owner.split('@')[0]}"
                        )
                        lines.append(f"- “{m.text}” ({who} on {m.recorded_at[:10]})")
                        docs.append(EvidenceDoc(d, (m.text,), 1.0, NAME))
        ctx.scope.record(ToolCall(NAME, {"question": ctx.parsed.text}, len(turns) + len(docs)))
        out.listed = docs
        out.composed = (
            "\n".join(lines)
            if (turns or docs)
            else "\n".join(lines or ["I found nothing you asked or told me about that."])
        )
        out.composed_kind = "found" if (turns or docs) else "missing"

    def compose(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> str:
        return out.composed or ""

    def assess(self, out: Outcome, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
        if out.composed_kind == "missing":
            return "not_found", trust.exact_confidence("nothing recalled", kind="key_missing")
        return "answered", trust.exact_confidence("from your conversations and memories", docs)
