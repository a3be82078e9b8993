"""``StoreChatMemory``: the persistent mode (``DEVKB_CHAT_MEMORY=store``) of ``SessionMemory``.

A session is a conversation in the graph store (``store/shared_state.py``), so every replica
behind a load balancer knows every session id, and a conversation survives restarts until its
owner deletes it or it has not been used for ``retention_days``. The agent reads the last
``history_limit`` messages, as in the in-memory mode; the store keeps up to ``max_messages``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

from devkb.access.readers import EVERYTHING, current_reader
from devkb.conversations.memory import StoredMessage
from devkb.store.shared_state import SharedState

EXPIRY_EVERY_SECONDS = 3600.0  # how often retention runs (on the next write after that long)


class StoreChatMemory:
    def __init__(
        self,
        state: SharedState,
        history_limit: int = 50,
        max_messages: int = 1000,
        retention_days: float = 30.0,
        owner: str = "local",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.state = state
        self.history_limit = history_limit
        self.max_messages = max(max_messages, history_limit)
        self.retention_seconds = retention_days * 86400.0
        self.default_owner = owner
        self.clock = clock
        self._last_expiry = float("-inf")
        self._expiry_lock = threading.Lock()

    @property
    def owner(self) -> str:
        """Whose conversations these are: the signed-in reader, else the single local user."""
        reader = current_reader(EVERYTHING)
        return reader.email or self.default_owner

    def create(self) -> str:
        sid = str(uuid.uuid4())
        now = self.clock()
        self.expire_if_due(now)
        self.state.create_conversation(sid, self.owner, "", now)
        return sid

    def touch(self, sid: str) -> bool:
        found = self.state.conversation(sid)
        if found is None or found.owner != self.owner:  # another person's conversation is not yours
            return False
        return self.state.touch_conversation(sid, self.clock())

    def append(self, sid: str, message: StoredMessage) -> None:
        self.state.append_message(sid, message, self.clock(), keep_last=self.max_messages)

    def history(self, sid: str) -> list[StoredMessage]:
        return self.state.messages(sid, last=self.history_limit)

    def clear(self, sid: str) -> int:
        return self.state.clear_conversation(sid, self.clock())

    def __len__(self) -> int:
        return self.state.conversation_count()

    def expire_if_due(self, now: float) -> int:
        """Apply the retention policy at most once per ``EXPIRY_EVERY_SECONDS``."""
        with self._expiry_lock:
            if now - self._last_expiry < EXPIRY_EVERY_SECONDS:
                return 0
            self._last_expiry = now
        return self.state.expire_conversations(now - self.retention_seconds)
