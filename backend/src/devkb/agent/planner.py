"""The deterministic planner used when no LLM is configured or reachable (``llm_provider=none``).

The question is parsed once (:mod:`devkb.agent.question`): anchor identifiers, the wanted
document type, the relation and its direction, time, fields, question type, follow-up or not.
The first kind of the registry (:mod:`devkb.agent.kinds`) that recognises the parse runs its
tools and later composes the answer; ``FilterDocs`` always runs last (a list question's list is
kept whole for the answer):

- resolved in a period → the issues resolved in those months (``GraphQuery``);
- blocked → unresolved issues waiting on unresolved issues (``FetchNeighbors``);
- a relation → the anchor (named, carried over, or searched) and ``FetchNeighbors`` from it;
- a lookup → ``GraphQuery`` on the named identifiers (unknown issue keys are *not found*);
- a follow-up with documents from the previous turn → ``GraphQuery`` on those;
- a period → what was updated then, and a search for the topic;
- otherwise → ``RAGSearch``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import date

from devkb.access.readers import EVERYTHING, current_reader
from devkb.agent.evidence import Scope
from devkb.agent.frame import Frame, extract, route, unapplied
from devkb.agent.frame.llm import FrameFill, ModelFrame, cross_check, parse_model_output
from devkb.agent.frame.resolve import StoreResolver
from devkb.agent.identifiers import Lookup, QuestionLookups
from devkb.agent.kinds import EXECUTORS, KINDS, Context, Outcome, QuestionKind, Step, kind_of, lookup
from devkb.agent.question import ParsedQuestion, is_follow_up, parse_question
from devkb.agent.tools import FilterDocs, Toolbox

FILTER = Step(FilterDocs.name, "drop documents sharing no keyword with the question")

# what callers imported from here before the kinds had modules of their own
PlanOutcome = Outcome
__all__ = ["FILTER", "PlanOutcome", "Planner", "Step"]
PARSES_KEPT = 64  # recent parses a planner keeps (a question is parsed once per ask)


class Planner:
    def __init__(
        self,
        toolbox: Toolbox,
        project_keys: Callable[[], Iterable[str]] | None = None,
        kinds: tuple[QuestionKind, ...] = KINDS,
        frame_model: Callable[[], Callable[[str, str], str] | None] | None = None,
    ) -> None:
        """``frame_model``: when a language model is configured, returns its ``ask_model``
        (agent/frame/llm.py) for the model to fill the frame too; None: the rules alone."""
        self.toolbox = toolbox
        self.frame_model = frame_model
        self._model_frames: OrderedDict[str, ModelFrame | str] = OrderedDict()
        self.last_fill: FrameFill | None = None
        self.project_keys = project_keys or (lambda: ())
        self.kinds = kinds
        self.executors = {k.name: k for k in EXECUTORS}
        self._parsed_recently: OrderedDict[tuple[str, frozenset[str], bool, date], ParsedQuestion] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def parse(self, question: str, carried: Sequence[str] = ()) -> ParsedQuestion:
        """The question parsed (once: the ask service and the kinds ask again for the same one)."""
        key = (question, frozenset(self.project_keys()), bool(carried), date.today())
        with self._lock:
            if key in self._parsed_recently:
                self._parsed_recently.move_to_end(key)
                return self._parsed_recently[key]
        parsed = parse_question(question, key[1], today=key[3], has_context=key[2])
        with self._lock:
            self._parsed_recently[key] = parsed
            while len(self._parsed_recently) > PARSES_KEPT:
                self._parsed_recently.popitem(last=False)
        return parsed

    def frame(self, parsed: ParsedQuestion, scope: Scope | None = None) -> Frame:
        """The question understood (agent/frame): names resolved against the reader's store."""
        store = self.toolbox.graph_query.store
        allows = scope.allows if scope is not None else (lambda d: True)
        me = current_reader(EVERYTHING).name  # whom "me" means
        resolver = StoreResolver(store, self.project_keys(), allows, asker=me)
        rules = extract(parsed, resolver)
        asker = self.frame_model() if self.frame_model is not None else None
        if asker is None:
            return rules
        model = self._model_frame(parsed.text, asker)
        if isinstance(model, str):
            self.last_fill = FrameFill(rules, "rules", error=model)
            return rules
        self.last_fill = cross_check(rules, model, resolver)
        return self.last_fill.frame

    def _model_frame(self, question: str, asker: Callable[[str, str], str]) -> ModelFrame | str:
        """The model's frame of ``question`` (asked once per question), or why it failed."""
        from devkb.agent.frame.llm import INSTRUCTIONS

        with self._lock:
            if question in self._model_frames:
                return self._model_frames[question]
        try:
            found: ModelFrame | str = parse_model_output(asker(INSTRUCTIONS, question))
        except Exception as e:  # the model's failure: the rules frame, and the reason kept
            found = f"{type(e).__name__}: {e}"[:300]
        with self._lock:
            self._model_frames[question] = found
            while len(self._model_frames) > PARSES_KEPT:
                self._model_frames.popitem(last=False)
        return found

    def routed(
        self, parsed: ParsedQuestion, carried: Sequence[str] = (), scope: Scope | None = None
    ) -> tuple[QuestionKind, Frame, str]:
        """The kind that answers: the route table's choice (agent/frame/route.py) over the
        frame, the registry's kind in its last row. Returns the kind, the frame and the route."""
        frame = self.frame(parsed, scope)
        if frame.shape in ("remember", "recall") and frame.shape in self.executors:
            return self.executors[frame.shape], frame, frame.shape  # a statement "it" may be in
        parsed = with_titles(parsed, frame)
        registry = kind_of(parsed, bool(carried), self.kinds, frame)
        if not self.frame_routes(parsed, frame) or registry.asks_back:
            return registry, frame, "registry"
        row = route(frame, registry.honours, frozenset(self.executors))
        if row.executor == "registry":
            return registry, frame, "registry"
        return self.executors[row.executor], frame, row.executor

    @staticmethod
    def frame_routes(parsed: ParsedQuestion, frame: Frame) -> bool:
        """Whether the frame's route table decides (and its conditions are held to): not for a
        follow-up or a reference to an earlier answer, nor for a relation from a document ("which
        PRs fixed the refund bug?") — a person's work ("what did Marcus work on …") is the frame's,
        and "blocker" read as a priority is not the relation "blocks"."""
        if parsed.follow_up or parsed.reference:
            return False
        if parsed.relation is None or frame.people:
            return True
        return parsed.relation.name == "related" and bool(frame.priorities)

    def kind(self, parsed: ParsedQuestion, carried: Sequence[str] = ()) -> QuestionKind:
        return self.routed(parsed, carried)[0]

    def plan(self, question: str | ParsedQuestion, carried: Sequence[str] = ()) -> list[Step]:
        """The tools the rules choose for ``question`` (before seeing any result)."""
        parsed = self._parsed(question, carried)
        kind = self.kind(parsed, carried)
        return [*kind.plan(parsed, bool(carried)), *([FILTER] if kind.filters else [])]

    @staticmethod
    def is_follow_up(question: str) -> bool:
        return is_follow_up(question)

    def run(self, scope: Scope, question: str, carried: Sequence[str] = ()) -> list[Step]:
        """Execute the plan against ``scope``; return the steps actually taken."""
        return self.execute(scope, question, carried).steps

    def execute(self, scope: Scope, question: str | ParsedQuestion, carried: Sequence[str] = ()) -> Outcome:
        """Run the kind's tools, then ``FilterDocs``; ``question`` may come parsed already."""
        parsed = self._parsed(question, carried)
        kind, frame, via = self.routed(parsed, carried, scope)
        parsed = with_titles(parsed, frame)
        out = Outcome(parsed, kind, frame=frame, route=f"{via}: {kind.name}")
        out.meaning, out.further = self.toolbox.meaning, self.toolbox.further
        out.unapplied = unapplied(frame, kind.honours) if self.frame_routes(parsed, frame) else []
        ctx = Context(scope, self.toolbox, parsed, tuple(carried), out)
        kind.run(ctx)
        if not out.kind.filters or (out.not_found and not scope.selection):
            return out  # nothing to filter: the named identifiers do not exist
        self.toolbox.filter_docs.run(scope, parsed.text, pinned={a.id for a in out.anchors})
        ctx.took(FILTER)
        kind.filtered(ctx)
        return out

    def _parsed(self, question: str | ParsedQuestion, carried: Sequence[str]) -> ParsedQuestion:
        return question if isinstance(question, ParsedQuestion) else self.parse(question, carried)

    def filtered_out(self, keys: Sequence[str], scope: Scope) -> dict[str, str]:
        """Of ``keys`` not found, those the question's source filter left out (key → source
        type); see :func:`devkb.agent.kinds.lookup.filtered_out`."""
        return lookup.filtered_out(self.toolbox, keys, scope)


def with_titles(parsed: ParsedQuestion, frame: Frame) -> ParsedQuestion:
    """``parsed`` with the documents the frame resolved by title (the sides of a comparison named
    by their titles, "Compare the Idempotency Keys Design page with docs/idempotency.md") as
    lookups, so the kinds find them as they find identifiers."""
    have = {lk.title_contains for lk in parsed.lookups.lookups if lk.title_contains}
    have |= set(parsed.issue_keys)
    titles = [d for d in frame.documents if d not in have]
    if not titles:
        return parsed
    lookups = parsed.lookups.lookups + tuple(Lookup({}, title_contains=t, label="title") for t in titles)
    return replace(parsed, lookups=QuestionLookups(lookups, parsed.lookups.kinds | {"page"}))
