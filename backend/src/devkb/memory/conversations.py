"""Recall of a person's own stored conversations: "what did I ask about webhooks last week?",
"what did we conclude about the retry design?". Conversations are kept in the store only in the
persistent mode (``DEVKB_CHAT_MEMORY=store``, ``conversations/store_memory.py``); each belongs to
the person who held it, and only they recall it (the owner is the reader's e-mail, never a
parameter).

A question's topic is its content words (memory/verified.py's stems) less the words of asking
("what did I ask about"); a turn matches when it holds any of them, ranked by how many it holds,
then newest first; ``since`` / ``until`` bound the turn's time."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from devkb.access.readers import EVERYTHING, current_reader
from devkb.memory.verified import content_stems
from devkb.store.shared_state import SharedState

# words of asking about one's own conversations, not of their topic
ASKING = content_stems(
    "ask asked asking question questions said say talk talked discuss discussed conclude concluded "
    "decide decided earlier before previously last week yesterday today month ago recently conversation "
    "conversations chat chats did we I about regarding"
)
LOCAL_OWNER = "local"  # StoreChatMemory's owner without accounts
# how people ask about their earlier conversations (agent/kinds/recall.py matches on these): such
# a question is never itself recalled as an earlier question about its topic
ABOUT_CONVERSATIONS: tuple[tuple[str, ...], ...] = (
    ("what", "did", "i", "ask"),
    ("what", "have", "i", "asked"),
    ("did", "i", "ask"),
    ("what", "did", "i", "say"),
    ("what", "was", "i", "asking"),
    ("what", "did", "we", "conclude"),
    ("what", "did", "we", "decide"),
    ("what", "did", "we", "discuss"),
    ("what", "did", "we", "say"),
    ("what", "did", "i", "tell", "you"),
    ("when", "did", "i", "ask"),
)
_WORDS = re.compile(r"\w+")


def asks_about_conversations(text: str) -> bool:
    words = tuple(_WORDS.findall(text.lower()))
    return any(
        words[i : i + len(p)] == p for p in ABOUT_CONVERSATIONS for i in range(len(words) - len(p) + 1)
    )


@dataclass(frozen=True)
class RecalledTurn:
    conversation_id: str
    title: str
    asked_at: str
    question: str
    answer: str
    cited: tuple[str, ...]
    score: int


class ConversationRecall:
    def __init__(self, state: Callable[[], SharedState] | None) -> None:
        """``state``: the store's shared state in the persistent mode, else None (conversations
        live in the process only and are not recalled)."""
        self.state = state

    @property
    def available(self) -> bool:
        return self.state is not None

    def topic(self, question: str) -> set[str]:
        return content_stems(question) - ASKING

    def recall(
        self, question: str, since: str | None = None, until: str | None = None, limit: int = 5
    ) -> list[RecalledTurn]:
        """The reader's own earlier questions (with the answer each got) about ``question``'s topic."""
        if self.state is None:
            return []
        reader = current_reader(EVERYTHING)
        if reader.role == "nobody":
            return []
        owner = reader.email or LOCAL_OWNER
        topic = self.topic(question)
        state = self.state()
        found: list[RecalledTurn] = []
        for conv in state.list_conversations(owner, limit=500):
            if conv.owner != owner:
                continue
            messages = state.messages(conv.id)
            for i, m in enumerate(messages):
                if m.role != "user" or (since and m.timestamp < since) or (until and m.timestamp >= until):
                    continue
                if " ".join(m.content.split()) == " ".join(question.split()) or asks_about_conversations(
                    m.content
                ):
                    continue  # the question being asked, or another recall, is not an earlier one
                reply = (
                    messages[i + 1] if i + 1 < len(messages) and messages[i + 1].role == "assistant" else None
                )
                words = content_stems(m.content) | (content_stems(reply.content) if reply else set())
                score = len(topic & words) if topic else 1
                if score:
                    found.append(
                        RecalledTurn(
                            conv.id,
                            conv.title,
                            m.timestamp,
                            m.content,
                            reply.content if reply else "",
                            reply.document_ids if reply else (),
                            score,
                        )
                    )
        found.sort(key=lambda t: (t.score, t.asked_at), reverse=True)
        return found[:limit]
