"""The deterministic planner used when no LLM is configured or reachable (``llm_provider=none``).

The question is first parsed (:mod:`devkb.agent.question`): anchor identifiers, the wanted
document type, the relation and its direction, time, fields, question type, follow-up or not.
The tools follow from that structure:

1. An anchor (issue key in any case for a known project, SHA, pull request, path, quoted title,
   repository, project, space) → ``GraphQuery``. Named issue keys that match nothing are
   *not found* (with close matches, if any) and nothing else is looked up for them.
   Otherwise, a follow-up — the question refers back ("it", "those", "and …", "what about …"),
   not merely short — with documents from the previous turn → ``GraphQuery`` on those.
2. A relation → ``FetchNeighbors`` from the anchor, keeping only the neighbours in the asked
   direction and of the asked link type and document type ("what depends on X" = issues whose
   "depends on" link points at X); the anchor itself is never its own neighbour. With no anchor
   yet, ``RAGSearch`` first.
3. No step yet, or the lookup found nothing and nothing was named → ``RAGSearch``.
4. Always last → ``FilterDocs`` (a relation's list is kept whole for the answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.question import ParsedQuestion, Relation, is_follow_up, parse_question
from devkb.agent.tools import Toolbox
from devkb.agent.tools.content import load_content
from devkb.agent.tools.fetch_neighbors import FetchNeighbors
from devkb.agent.tools.filter_docs import FilterDocs
from devkb.agent.tools.graph_query import GraphQuery
from devkb.agent.tools.rag_search import RAGSearch
from devkb.store.models import Document, Neighbor, SourceType


@dataclass(frozen=True)
class Step:
    tool: str
    reason: str


@dataclass
class PlanOutcome:
    """What the rules found, beyond the selection: the parse, identifiers that matched nothing
    (with close matches), and for a relation question the anchors and the complete list."""

    parsed: ParsedQuestion
    steps: list[Step] = field(default_factory=list)
    not_found: dict[str, tuple[str, ...]] = field(default_factory=dict)
    anchors: list[EvidenceDoc] = field(default_factory=list)
    listed: list[EvidenceDoc] | None = None  # None: not a relation question with an anchor
    list_kind: str = "relation"  # relation | blocked | resolved: what ``listed`` is a list of
    dated: list[EvidenceDoc] | None = None  # documents updated in the question's period


class Planner:
    def __init__(self, toolbox: Toolbox, project_keys: Callable[[], Iterable[str]] | None = None) -> None:
        self.toolbox = toolbox
        self.project_keys = project_keys or (lambda: ())

    def parse(self, question: str, carried: Sequence[str] = ()) -> ParsedQuestion:
        return parse_question(question, self.project_keys(), has_context=bool(carried))

    def plan(self, question: str, carried: Sequence[str] = ()) -> list[Step]:
        """The tools the rules choose for ``question`` (before seeing any result)."""
        return self._plan(self.parse(question, carried), carried)

    def _plan(self, parsed: ParsedQuestion, carried: Sequence[str]) -> list[Step]:
        steps: list[Step] = []
        if parsed.anchored:
            steps.append(Step(GraphQuery.name, "identifiers: " + ", ".join(sorted(parsed.lookups.kinds))))
        elif carried and parsed.follow_up:
            steps.append(Step(GraphQuery.name, "carry over the previous turn's documents"))
        if _asks_resolved_in_period(parsed):
            # "what FLUID issues were resolved in May 2010": the project is a scope, not an anchor
            steps = [Step(GraphQuery.name, f"resolved: {parsed.time_from} to {parsed.time_to}")]
        elif _asks_what_is_blocked(parsed) and not steps:
            steps.append(
                Step(FetchNeighbors.name, "blocked: unresolved issues that depend on unresolved issues")
            )
        elif parsed.relation is not None:
            if not steps:
                steps.append(Step(RAGSearch.name, "find documents to expand"))
            steps.append(Step(FetchNeighbors.name, f"relation: {describe(parsed.relation)}"))
        if _period(parsed) and not steps:
            steps.append(
                Step(GraphQuery.name, f"period: {parsed.time_from or '…'} to {parsed.time_to or '…'}")
            )
            steps.append(Step(RAGSearch.name, "the topic, within the period"))
        if not steps:
            steps.append(Step(RAGSearch.name, "no identifier: search"))
        steps.append(Step(FilterDocs.name, "drop documents sharing no keyword with the question"))
        return steps

    @staticmethod
    def is_follow_up(question: str) -> bool:
        return is_follow_up(question)

    def run(self, scope: Scope, question: str, carried: Sequence[str] = ()) -> list[Step]:
        """Execute the plan against ``scope``; return the steps actually taken."""
        return self.execute(scope, question, carried).steps

    def execute(self, scope: Scope, question: str, carried: Sequence[str] = ()) -> PlanOutcome:
        parsed = self.parse(question, carried)
        out = PlanOutcome(parsed)
        taken = out.steps
        tb = self.toolbox
        anchors: list[EvidenceDoc] = []
        for step in self._plan(parsed, carried):
            if step.tool == GraphQuery.name and step.reason.startswith("resolved"):
                out.listed = self._resolved_in_period(scope, parsed)
                out.list_kind = "resolved"
                taken.append(step)
            elif step.tool == GraphQuery.name and step.reason.startswith("period"):
                fields: dict[str, Any] = {"updated_from": parsed.time_from, "updated_to": parsed.time_to}
                if parsed.wanted in ("pull", "commit", "issue", "page", "file"):
                    fields["kind"] = parsed.wanted
                out.dated = tb.graph_query.run(scope, fields=fields, limit=25, label="period")
                taken.append(step)
            elif step.tool == GraphQuery.name:
                if step.reason.startswith("carry"):
                    found = tb.graph_query.run(scope, document_ids=list(carried)[:5], label="carry-over")
                else:
                    found = tb.graph_query.run(scope, question)
                    out.not_found = self.missing_keys(parsed, found, scope)
                anchors = list(found)
                taken.append(step)
                named_only_keys = parsed.lookups.kinds <= {"issue"}
                if not found and not (out.not_found and named_only_keys):
                    tb.rag_search.run(scope, question)
                    taken.append(Step(RAGSearch.name, "the lookup found nothing"))
            elif step.tool == RAGSearch.name:
                tb.rag_search.run(scope, question)
                taken.append(step)
            elif step.tool == FetchNeighbors.name and step.reason.startswith("blocked"):
                out.listed = self._blocked(scope)
                out.list_kind = "blocked"
                taken.append(step)
            elif step.tool == FetchNeighbors.name:
                relation = parsed.relation
                assert relation is not None
                seeds = [a.id for a in anchors] or None
                accept = neighbour_filter(relation, parsed.wanted, {a.id for a in anchors})
                got = tb.fetch_neighbors.run(
                    scope, document_ids=seeds, limit=40, accept=accept, relation=describe(relation)
                )
                if anchors:
                    seed_ids = {a.id for a in anchors}
                    out.listed = [d for d in got if d.id not in seed_ids and d.relation]
                taken.append(step)
            elif step.tool == FilterDocs.name:
                if out.not_found and not scope.selection:
                    continue  # nothing to filter: the named identifiers do not exist
                tb.filter_docs.run(scope, question)
                taken.append(step)
                if out.dated is not None:
                    _keep_period(scope, parsed, out.dated)
        out.anchors = anchors
        return out

    def _blocked(self, scope: Scope, candidates: int = 100) -> list[EvidenceDoc]:
        """Unresolved issues (the newest ``candidates``) with a "depends on" / "is blocked by" link
        to an unresolved issue, or a status that says blocked — each with what blocks it."""
        store = self.toolbox.fetch_neighbors.store
        if not scope.allows_type(SourceType.JIRA):
            return []
        issues = [
            d
            for d in store.find_documents({"kind": ["issue"]}, types=[SourceType.JIRA], limit=candidates * 3)
            if not _resolved(d.metadata)
        ][:candidates]
        blocked: dict[str, tuple[Document, list[str]]] = {}
        for issue in issues:
            blockers: list[str] = []
            for n in store.neighbors([issue.id], "both", kinds=["jira-issuelink"], limit=50):
                phrase = _link_phrase(n.evidence)
                waits = (n.direction == "out" and phrase in ("depends on", "is blocked by")) or (
                    n.direction == "in" and phrase == "blocks"
                )
                if waits and not _resolved(n.document.metadata):
                    blockers.append(str(n.document.metadata.get("key") or n.document.id))
            if blockers or "block" in str(issue.metadata.get("status", "")).lower():
                blocked[issue.id] = (issue, list(dict.fromkeys(blockers)))
        found: list[EvidenceDoc] = []
        for rank, (issue, blockers) in enumerate(blocked.values()):
            why = (
                f"depends on {', '.join(blockers)} (unresolved)"
                if blockers
                else f"status {issue.metadata['status']}"
            )
            text = load_content(store, issue.id, 1500) or issue.title
            found.append(EvidenceDoc(issue, (text,), 0.5 / (1 + rank), FetchNeighbors.name, why))
        accepted = scope.add(found)
        scope.record(
            ToolCall(
                FetchNeighbors.name,
                {
                    "relation": "depends (out)",
                    "seeds": f"{len(issues)} newest unresolved issues",
                    "direction": "both",
                },
                len(accepted),
            )
        )
        return accepted

    def _resolved_in_period(
        self, scope: Scope, parsed: ParsedQuestion, limit: int = 200
    ) -> list[EvidenceDoc]:
        """Issues (of the named projects, if any) whose resolution date falls in the question's
        months, oldest key first — the whole list, so the answer can say how many."""
        months = _months(parsed.time_from, parsed.time_to)
        if not months or not scope.allows_type(SourceType.JIRA):
            return []
        filters: dict[str, Any] = {"resolved_month": months}
        projects = [p for lk in parsed.lookups.lookups for p in lk.filters.get("project", ())]
        if projects:
            filters["project"] = projects
        store = self.toolbox.graph_query.store
        docs = [
            d
            for d in store.find_documents(filters, types=[SourceType.JIRA], limit=limit)
            if scope.allows(d) and _within(str(d.metadata.get("resolved") or ""), parsed)
        ]
        docs.sort(key=lambda d: _key_order(str(d.metadata.get("key") or d.id)))
        found = [
            EvidenceDoc(d, (load_content(store, d.id, 1500) or d.title,), 1.0 / (1 + rank), GraphQuery.name)
            for rank, d in enumerate(docs)
        ]
        accepted = scope.add(found)
        scope.record(
            ToolCall(GraphQuery.name, {"lookups": [filters], "reason": "resolved in period"}, len(accepted))
        )
        return accepted

    def missing_keys(
        self, parsed: ParsedQuestion, found: Sequence[EvidenceDoc], scope: Scope
    ) -> dict[str, tuple[str, ...]]:
        """The issue keys the question names that ``found`` does not hold, with close matches."""
        have = {str(d.document.metadata.get("key") or "").upper() for d in found}
        missing = [k for k in parsed.issue_keys if k.upper() not in have]
        return {k: self._close_matches(k, scope) for k in missing}

    def filtered_out(self, keys: Sequence[str], scope: Scope) -> dict[str, str]:
        """Of ``keys`` (issue keys the question names and the scope did not find), those whose
        document the reader may read but the question's source filter leaves out: key → its
        source type (``JIRA``). Read through the reader's store, so a document the reader may
        not read is never reported here (it reads as not found)."""
        if scope.allowed is None or not keys:
            return {}
        out: dict[str, str] = {}
        for key in keys:
            docs = self.toolbox.graph_query.store.find_documents({"key": [key]}, types=None, limit=1)
            for d in docs:
                if not scope.allows(d):
                    out[key] = d.type.value
        return out

    def _close_matches(self, key: str, scope: Scope, limit: int = 3) -> tuple[str, ...]:
        """Existing keys one edit away from ``key`` (a digit dropped, changed or swapped)."""
        project, _, number = key.partition("-")
        variants: set[str] = set()
        for i in range(len(number)):
            variants.add(number[:i] + number[i + 1 :])
            for d in "0123456789":
                variants.add(number[:i] + d + number[i + 1 :])
            if i + 1 < len(number):
                variants.add(number[:i] + number[i + 1] + number[i] + number[i + 2 :])
        keys = sorted(f"{project}-{v}" for v in variants if v and not v.startswith("0") and v != number)
        docs = self.toolbox.graph_query.store.find_documents(
            {"key": keys}, types=scope.allowed_types, limit=limit
        )
        return tuple(str(d.metadata.get("key") or d.id) for d in docs if scope.allows(d))


def _asks_what_is_blocked(parsed: ParsedQuestion) -> bool:
    """ "What is blocked?", "which issues are blocked", "anything blocked right now": no anchor and
    no conversation to refer to — the question is about the whole tracker."""
    return (
        not parsed.anchored
        and not parsed.follow_up
        and re.search(r"\bblocked\b|\bwaiting\s+on\s+(?:something|other|another)", parsed.text, re.IGNORECASE)
        is not None
    )


_RESOLVED_WORDS = re.compile(
    r"\b(?:resolved?|close[ds]?|fixed|finish\w*|done|complete[ds]?|shipped|solved)\b", re.IGNORECASE
)


def _asks_resolved_in_period(parsed: ParsedQuestion) -> bool:
    """ "Which FLOE tickets got resolved in July 2014?": a period, a word for resolving, no issue
    named and no relation — a list of issues by resolution date."""
    return (
        bool(parsed.time_from and parsed.time_to)
        and not parsed.issue_keys
        and parsed.relation is None
        and parsed.wanted in (None, "issue")
        and _RESOLVED_WORDS.search(parsed.text) is not None
    )


def _months(start: str | None, end: str | None, most: int = 36) -> list[str]:
    """ "2010-05-01", "2010-06-30T23:59:59" → ["2010-05", "2010-06"] (at most ``most``)."""
    if not start or not end:
        return []
    year, month = int(start[:4]), int(start[5:7])
    last = (int(end[:4]), int(end[5:7]))
    out: list[str] = []
    while (year, month) <= last and len(out) < most:
        out.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def _within(when: str, parsed: ParsedQuestion) -> bool:
    when = when[:19]
    return (
        bool(when)
        and (not parsed.time_from or when >= parsed.time_from)
        and (not parsed.time_to or when <= parsed.time_to)
    )


def _key_order(key: str) -> tuple[str, int]:
    project, _, number = key.partition("-")
    return project, int(number) if number.isdigit() else 0


def _period(parsed: ParsedQuestion) -> bool:
    """A time range with nothing named to apply it to (an anchor's lookups carry their own)."""
    return bool(parsed.time_from or parsed.time_to) and not parsed.anchored


def _in_period(doc: EvidenceDoc, parsed: ParsedQuestion) -> bool:
    when = doc.document.updated_at[:19]
    if not when:
        return False
    return (not parsed.time_from or when >= parsed.time_from) and (
        not parsed.time_to or when <= parsed.time_to
    )


def _keep_period(scope: Scope, parsed: ParsedQuestion, dated: Sequence[EvidenceDoc]) -> None:
    """Only documents of the period: search results outside it are dropped; when the question's
    words matched none of the period's documents, the period's documents are the answer."""
    kept = [d for d in scope.selection if _in_period(d, parsed)]
    scope.replace_selection(kept or list(dated))


def _resolved(metadata: dict[str, Any]) -> bool:
    return bool(metadata.get("resolution")) or str(metadata.get("status", "")).lower() in (
        "done",
        "closed",
        "resolved",
    )


def describe(relation: Relation) -> str:
    return f"{relation.name} ({relation.direction})"


_KEY_IN = re.compile(r"[A-Za-z][A-Za-z0-9]*-\d+")


def neighbour_filter(relation: Relation, wanted: str | None, anchors: set[str]) -> Callable[[Neighbor], bool]:
    """Which neighbours answer the relation: never an anchor itself; for issue links the link
    phrase and its direction; for "worked on" / "mentions" the wanted document type."""

    def accept(n: Neighbor) -> bool:
        doc = n.document
        if doc.id in anchors or doc.id == n.via:
            return False
        kind = _kind(doc.id, doc.metadata)
        if wanted in ("commit", "pull", "file") and kind != wanted:
            return False
        if wanted == "page" and kind not in ("page", "file"):  # "documentation page" may be a file
            return False
        if wanted == "issue" and kind not in ("issue", "gh-issue"):
            return False
        if relation.name in ("worked_on",) and wanted is None:
            return _kind(doc.id, doc.metadata) in ("commit", "pull")
        if relation.name == "subtask" and n.kind in ("jira-subtask", "jira-epic"):
            return True  # Jira Software structure: sub-task ↔ parent, issue ↔ epic
        if relation.name in ("depends", "duplicates", "supersedes", "subtask"):
            if n.kind != "jira-issuelink":
                return False
            phrase = _link_phrase(n.evidence)
            if relation.name == "depends" and relation.direction in ("out", "in"):
                # the stored edge reads "subject phrase object". "out" = the anchor depends on the
                # neighbour: "anchor depends on n" (edge out) or "n blocks anchor" (edge in).
                forward = phrase in ("depends on", "is blocked by")
                inverse = phrase in ("is depended on by", "blocks")
                seen_out = n.direction == "out"
                if relation.direction == "out":
                    return (seen_out and forward) or (not seen_out and inverse)
                return (not seen_out and forward) or (seen_out and inverse)
            if relation.phrases:
                return phrase in relation.phrases
            return relation.name in phrase
        if relation.name == "related" and wanted in (None, "issue"):
            return doc.id.startswith("jira:")
        return True

    return accept


def _link_phrase(evidence: str) -> str:
    """ "FLUID-1 depends on FLUID-2" → "depends on"."""
    keys = list(_KEY_IN.finditer(evidence))
    if len(keys) >= 2:
        return evidence[keys[0].end() : keys[-1].start()].strip().lower()
    return evidence.strip().lower()


def _kind(doc_id: str, metadata: dict[str, object]) -> str:
    kind = str(metadata.get("kind") or "")
    if kind:
        return kind
    if doc_id.startswith("confluence:"):
        return "page"
    if doc_id.startswith("jira:"):
        return "issue"
    return ""
