"""``AskService``: a question (optional source filter, optional conversation) → an answer with
citations, through the LLM agent when one is available and the rule planner otherwise.

    ask ─┬─ LLM chosen ── rewrite follow-up → Agent(tools) → grounded text → renumber citations
         │                   (any LLM failure → the rule path below, with a note)
         └─ none ──────── carry over last turn's documents → Planner(tools) → extractive answer

Progress is reported through ``on_event(kind, payload)``: ``status`` ({"stage": "retrieving"
| "generating"}), ``tool_call`` ({tool, arguments, result_count}) and ``token`` ({"text"}).
Tokens are provisional in LLM mode (the agent may think aloud between tool calls); the
returned ``Answer`` is authoritative.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from devkb.agent.agent_runner import AgentRunner
from devkb.agent.answer import Answer, Citation, Confidence, HistoryTurn, Status, ToolCall, Understood
from devkb.agent.confidence import exact_confidence, not_found_text, token_signal, with_tokens
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.extractive import NO_ANSWER, compose_answer, said_by_memory, snippet
from devkb.agent.kinds.base import assess_topic, missing_reason
from devkb.agent.kinds.lookup import filtered_out, missing_keys, reads_all
from devkb.agent.patterns import CITATION, ISSUE_KEY, PULL, SENTENCE_END, SHA_PREFIX
from devkb.agent.planner import Planner
from devkb.agent.providers import LlmChoice, LlmProvider
from devkb.agent.question import expand_ellipsis
from devkb.agent.tools import GraphQuery
from devkb.errors import DevkbError
from devkb.memory.said import SaidTurns
from devkb.memory.verified import VerifiedAnswers
from devkb.store.models import SourceType

log = logging.getLogger(__name__)

EventSink = Callable[[str, dict[str, Any]], None]


class AskService:
    def __init__(
        self,
        planner: Planner,
        runner: AgentRunner | None = None,
        llm: LlmProvider | None = None,
        max_sources: int = 8,
        answer_slots: int | None = None,
        verified: VerifiedAnswers | None = None,
        said: SaidTurns | None = None,
    ) -> None:
        """``answer_slots``: questions answered without an LLM at once (default one per core)."""
        self.planner = planner
        self.runner = runner
        self.llm = llm
        self.max_sources = max_sources
        self.verified = verified  # answers a reviewer verified (memory/verified.py): served first
        self.said = said  # turns of conversations told to devkb (memory/said.py): then these
        # The rules path is CPU work under the GIL: more threads in it than cores only trade the
        # GIL back and forth (docs/deployment.md, "One machine"); the others wait here, in arrival
        # order, without holding it.
        self.answer_slots = answer_slots or os.cpu_count() or 1
        self._slots = threading.BoundedSemaphore(self.answer_slots)

    def answers_extractively(self, probe: bool = True) -> bool:
        """Whether a question asked now is answered without an LLM (none configured or reachable).
        ``probe=False``: from the last choice, never waiting on a probe of the model's server (the
        event loop asks); before the first probe, only a configured ``none`` counts as extractive."""
        if self.llm is None or self.runner is None:
            return True
        choice = self.llm.current() if probe else self.llm.last_choice()
        if choice is None:
            return self.llm.settings.llm_provider == "none"
        return choice.generator is None

    def ask(
        self,
        question: str,
        sources: Sequence[SourceType] | None = None,
        history: Sequence[HistoryTurn] = (),
        on_event: EventSink | None = None,
    ) -> Answer:
        events = _Events(on_event)
        events.status("retrieving")
        served = self._verified(question, sources) or self._said(question, sources)
        if served is not None:
            return served
        choice = self.llm.current() if self.llm is not None else None
        note = None
        if choice is None or choice.generator is None or self.runner is None:
            pass  # no model to answer with: the rules path below
        elif self._needs_no_model(question, history):
            with self._slots:
                return self._ask_rules(question, sources, history, events)
        else:
            try:
                return self._ask_llm(choice, question, sources, history, events)
            except DevkbError:
                raise
            except Exception as e:  # any LLM failure: answer without it, and say so
                log.warning(
                    "LLM %s failed (%s: %s); answering extractively", choice.provider, type(e).__name__, e
                )
                note = f"the LLM ({choice.provider}) failed: {type(e).__name__}; extractive answer"
                events.status("retrieving")
        with self._slots:
            answer = self._ask_rules(question, sources, history, events)
        answer.note = note or (choice.detail if choice is not None and not choice.ok else None)
        return answer

    def _verified(self, question: str, sources: Sequence[SourceType] | None) -> Answer | None:
        """The verified answer this question means (one the asker may read, neither stale nor
        expired), marked "Verified by … on …", with its citations; else None."""
        if self.verified is None or (sources and SourceType.MEMORY not in sources):
            return None
        found = self.verified.match(question)
        if found is None or not found.flags.ok:
            return None
        m = found.memory
        cited = self.verified.service.reader_store.get_documents(list(m.derived_from))
        by = m.verified_by.split("@")[0] or m.verified_by
        text = f"{m.text}\n\nVerified by {by} on {m.verified_at[:10]} (until {m.expires_at[:10]})."
        return Answer(
            answer=text,
            sources=[
                Citation(m.id, m.question, "", "MEMORY", round(found.similarity, 4), m.text[:300]),
                *(Citation(d.id, d.title, d.url, str(d.type), 1.0, "") for d in cited),
            ],
            mode="verified",
            question=question,
            status="answered",
        )

    def _said(self, question: str, sources: Sequence[SourceType] | None) -> Answer | None:
        """An answer quoted from the turns of conversations told to devkb that the asker may read
        (who said it, when, the words), or "not found" when a person it names said nothing on the
        topic (memory/said.py); None when no turn bears on the question."""
        if self.said is None or (sources and SourceType.MEMORY not in sources):
            return None
        found = self.said.answer(question)
        if found is None:
            return None
        cited = [
            Citation(m.id, m.title, "", "MEMORY", round(found.coverage, 4), m.said[:300]) for m in found.turns
        ]
        return Answer(
            answer=found.text,
            sources=cited,
            mode="extractive",  # quoted from the turns, no model
            question=question,
            status="answered" if found.found else "not_found",
        )

    def _needs_no_model(self, question: str, history: Sequence[HistoryTurn]) -> bool:
        """Composed from records (history), or a reference with nothing earlier to refer to."""
        carried = last_documents(history)  # what a follow-up can refer to, as the rules path sees it
        return self.planner.kind(self.planner.parse(question, carried), carried).needs_no_model

    # -- the two paths ----------------------------------------------------------------------
    def _ask_rules(
        self,
        question: str,
        sources: Sequence[SourceType] | None,
        history: Sequence[HistoryTurn],
        events: _Events,
    ) -> Answer:
        scope = Scope.for_sources(sources, on_tool_call=events.tool_call)
        previous = next((t.content for t in reversed(history) if t.role == "user"), "")
        carried = last_documents(history)
        parsed = self.planner.parse(question, carried)
        expanded = expand_ellipsis(parsed, previous, self.planner.project_keys())
        if expanded != question:
            question = expanded
            parsed = self.planner.parse(question, carried)
        outcome = self.planner.execute(scope, parsed, carried=carried)
        docs = outcome.read_further(outcome.sources(scope.selection, self.max_sources))
        events.status("generating")
        status, confidence = outcome.assess(docs)
        if status == "not_found" and not outcome.not_found and outcome.composed is None:
            text = not_found_text(docs)  # the topic: never a passage dressed up as an answer
        else:
            text = outcome.compose(docs)
        if outcome.kind.name not in ("remember", "recall"):  # those say whose memory it is already
            text = said_by_memory(text, docs)
        for piece in SENTENCE_END.split(text):
            events.token(piece + " ")
        citations = self._citations(docs, question)
        answer = Answer(
            text, citations, scope.calls, "extractive", question, "none", status=status, confidence=confidence
        )
        answer.filtered_out = sorted(set(outcome.filtered_out.values()))
        answer.asks_back = outcome.kind.asks_back
        if outcome.frame is not None:
            answer.understood = Understood(
                outcome.frame.shape,
                outcome.route,
                outcome.frame.describe(work=outcome.kind.reads_work),
                list(outcome.unapplied),
                outcome.frame.unresolved(),
            )
        return answer

    def _ask_llm(
        self,
        choice: LlmChoice,
        question: str,
        sources: Sequence[SourceType] | None,
        history: Sequence[HistoryTurn],
        events: _Events,
    ) -> Answer:
        assert self.runner is not None
        generator, provider = choice.generator, choice.provider
        standalone = self.runner.rewrite(generator, history, question) if history else question
        scope = Scope.for_sources(sources, on_tool_call=events.tool_call)
        unknown = self._only_unknown_identifiers(sources, standalone)
        if unknown is not None:
            text, filtered, reason = unknown
            events.status("generating")
            events.token(text)
            note = "the named identifiers match no document here; answered without the LLM"
            sure = exact_confidence(reason, kind="key_missing")
            answer = Answer(
                text, [], scope.calls, "extractive", standalone, provider, note, "not_found", sure
            )
            answer.filtered_out = sorted(set(filtered.values()))
            return answer
        generated = self.runner.answer(generator, scope, standalone, events.token, choice.logprobs)
        text, docs = self._renumber(scope, generated.text or NO_ANSWER)
        status, confidence = _assess_llm(scope, self._topic(standalone, scope), docs)
        if status == "not_found":
            text = not_found_text(docs)  # the evidence does not hold the question: not the model's text
        evidence, signal = confidence.probability, None
        if status != "not_found" and generated.text:  # the model's words are shown: its surety counts
            signal = token_signal(generated.tokens) if generated.tokens is not None else None
            if generated.tokens is None or signal is not None:
                confidence = with_tokens(confidence, signal)
        citations = self._citations(docs, standalone)
        answer = Answer(text, citations, scope.calls, "llm", standalone, provider, None, status, confidence)
        answer.evidence_probability = evidence
        answer.token_probability = round(signal.probability, 4) if signal is not None else None
        return answer

    def _topic(self, question: str, scope: Scope) -> str:
        """What the sources are judged on: the question, less its period when it names one
        ("Why were customers charged twice in April?" → "customers charged twice") — a date is a
        condition, not a word the sources must spell."""
        frame = self.planner.frame(self.planner.parse(question), scope)
        return frame.topic if frame.period is not None and frame.topic else question

    def _only_unknown_identifiers(
        self, sources: Sequence[SourceType] | None, question: str
    ) -> tuple[str, dict[str, str], str] | None:
        """ "X was not found …" when the question names only issue keys and none exists — so no
        model can answer from another document's data; else None. Looks up in a scope of its own:
        the agent's scope and tool log stay as the model leaves them."""
        parsed = self.planner.parse(question)
        if not parsed.issue_keys or not parsed.lookups.kinds <= {"issue"}:
            return None
        scope = Scope.for_sources(sources)
        toolbox = self.planner.toolbox
        found = toolbox.graph_query.run(scope, lookups=parsed.lookups.lookups)
        if found:
            return None
        missing = missing_keys(toolbox, parsed, found, scope)
        filtered = filtered_out(toolbox, list(missing), scope)
        text = compose_answer(parsed, [], missing, filtered_out=filtered, reads_all=reads_all())
        return text, filtered, missing_reason(list(missing), filtered, reads_all())

    # -- citations --------------------------------------------------------------------------
    def _renumber(self, scope: Scope, text: str) -> tuple[str, list[EvidenceDoc]]:
        """Cited documents first (in citation order), then the rest of the selection; the
        answer's [n] rewritten to positions in that list, unknown numbers removed."""
        by_number = scope.by_number()
        cited: list[str] = []
        for m in CITATION.finditer(text):
            for n in m.group(1).split(","):
                doc_id = by_number.get(int(n))
                if doc_id is not None and doc_id not in cited:
                    cited.append(doc_id)
        order = cited + [d.id for d in scope.selection if d.id not in cited]
        order = order[: max(self.max_sources, len(cited))]
        docs = [d for d in (scope.known(i) for i in order) if d is not None]
        position = {d.id: i + 1 for i, d in enumerate(docs)}

        def swap(m: re.Match[str]) -> str:
            new = [position.get(by_number.get(int(n), ""), 0) for n in m.group(1).split(",")]
            return "".join(f"[{n}]" for n in dict.fromkeys(new) if n)

        return CITATION.sub(swap, text).strip(), docs

    @staticmethod
    def _citations(docs: Sequence[EvidenceDoc], question: str) -> list[Citation]:
        return [
            Citation(
                document_id=d.document.id,
                title=d.document.title,
                url=d.document.url,
                type=d.document.type.value,
                score=round(float(d.score), 6),
                snippet=snippet(d.passages[0], question) if d.passages else "",
            )
            for d in docs
        ]


def _assess_llm(scope: Scope, question: str, docs: Sequence[EvidenceDoc]) -> tuple[Status, Confidence]:
    """The model's answer judged by its evidence, never by the model: exact when a lookup by
    identifier found documents, else from how much of the question the sources hold."""
    found = [c for c in scope.calls if c.tool == GraphQuery.name and c.result_count > 0]
    if found and docs:
        return "answered", exact_confidence("found by identifier", docs)
    return assess_topic(question, docs)


def last_documents(history: Sequence[HistoryTurn]) -> list[str]:
    """The documents of the previous answer (for follow-ups without an LLM); the ones the previous
    question named come first — "it" refers to what was asked about, not to what was listed."""
    docs: list[str] = []
    for i in range(len(history) - 1, -1, -1):
        turn = history[i]
        if turn.role != "assistant":
            continue
        docs = list(turn.document_ids)
        asked = next((t.content for t in reversed(history[:i]) if t.role == "user"), "")
        named = [d for d in docs if _names(asked, d)]
        return named or docs
    return docs


def _names(question: str, document_id: str) -> bool:
    """Whether ``question`` names the document: its key, number or SHA prefix."""
    tail = document_id.rsplit(":", 1)[-1]
    if document_id.startswith("jira:"):
        return any(f"{p}-{n}".upper() == tail.upper() for p, n in ISSUE_KEY.findall(question))
    if ":pull:" in document_id or ":gh-issue:" in document_id:
        return any(tail in (a, b) for a, b in PULL.findall(question))
    if ":commit:" in document_id:
        return any(len(w) >= 7 and tail.startswith(w.lower()) for w in SHA_PREFIX.findall(question))
    return False


class _Events:
    """Forwards progress to an optional sink; says "generating" once, before the first token."""

    def __init__(self, sink: EventSink | None) -> None:
        self.sink = sink
        self._generating = False
        self._lock = threading.Lock()

    def _emit(self, kind: str, payload: dict[str, Any]) -> None:
        if self.sink is not None:
            self.sink(kind, payload)

    def status(self, stage: str) -> None:
        with self._lock:
            if stage == "generating":
                if self._generating:
                    return
                self._generating = True
            elif stage == "retrieving":
                self._generating = False
        self._emit("status", {"stage": stage})

    def tool_call(self, call: ToolCall) -> None:
        if self._generating:  # the model wrote, then went back to its tools
            self.status("retrieving")
        if self.sink is not None:  # asdict copies the call's results: only for someone listening
            self.sink("tool_call", asdict(call))

    def token(self, text: str) -> None:
        if not text:
            return
        self.status("generating")
        self._emit("token", {"text": text})
