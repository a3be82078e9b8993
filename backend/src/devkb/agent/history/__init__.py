"""History questions (docs/history.md), self-contained: ``recognise(parsed, today)`` says whether
a parsed question asks about history and which kind; ``answer(intent, store, today)`` composes
the cited answer from the stored versions. The ask service calls both before its planner."""

from devkb.agent.history.compose import HistoryAnswer, answer
from devkb.agent.history.intent import HistoryIntent, recognise
from devkb.agent.history.when import today_local

__all__ = ["HistoryAnswer", "HistoryIntent", "answer", "recognise", "today_local"]
