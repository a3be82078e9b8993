"""Understanding a question once: the typed frame (``model``), its extractor (``extract``), names
resolved against the store (``resolve``), the route table (``route``) and the language model's
way to fill the same frame (``llm``). docs/agent.md, "The question frame"."""

from devkb.agent.frame.extract import NoResolver, Resolver, extract
from devkb.agent.frame.model import SLOTS, Frame, Period, Person, Scope
from devkb.agent.frame.route import ROUTES, Route, route, set_question, slot_keys, unapplied

__all__ = [
    "ROUTES",
    "SLOTS",
    "Frame",
    "NoResolver",
    "Period",
    "Person",
    "Resolver",
    "Route",
    "Scope",
    "extract",
    "route",
    "set_question",
    "slot_keys",
    "unapplied",
]
