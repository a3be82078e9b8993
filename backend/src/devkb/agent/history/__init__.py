"""History questions (docs/history.md), self-contained: ``recognise(parsed, today)`` says whether
a parsed question asks about history and which kind; ``answer(intent, store, today)`` composes
the cited answer from the stored versions. The question kind ``History`` (agent/kinds/history.py)
calls both; it is first in the registry the planner walks."""

from devkb.agent.history.compose import HistoryAnswer, answer
from devkb.agent.history.intent import HistoryIntent, recognise
from devkb.agent.history.when import today_local

__all__ = ["HistoryAnswer", "HistoryIntent", "answer", "recognise", "today_local"]
