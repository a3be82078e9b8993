"""The deterministic planner used when no LLM is configured or reachable (``llm_provider=none``).

Rules, in order:

1. The question names an identifier (issue key, SHA, pull request number, path, quoted title,
   repository, project, space) → ``GraphQuery``.
   Otherwise, a follow-up (a pronoun such as "it"/"this", a relationship word, or five words or
   fewer) with documents from the previous turn → ``GraphQuery`` on those documents (carry-over).
2. A relationship word (related, linked, depends, duplicates, fixed by, touched, references,
   mentions, ...) → ``FetchNeighbors`` on what was found; with nothing found yet, ``RAGSearch``
   first.
3. No step yet, or the lookup found nothing → ``RAGSearch``.
4. Always last → ``FilterDocs``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from devkb.agent.evidence import Scope
from devkb.agent.identifiers import read_lookups
from devkb.agent.tools import Toolbox
from devkb.agent.tools.fetch_neighbors import FetchNeighbors
from devkb.agent.tools.filter_docs import FilterDocs
from devkb.agent.tools.graph_query import GraphQuery
from devkb.agent.tools.rag_search import RAGSearch

RELATIONSHIP = re.compile(
    r"\b(relat(?:ed|es|e|ion|ionship)s?|linked|links?|linking|depends?|dependen\w*|depended|block(?:s|ed|ing)?|"
    r"duplicat\w*|supersed\w*|fixed|fixes|fix(?!\s*versions?)\b|touch(?:ed|es|ing)?|referenc\w*|mention\w*|"
    r"cit(?:es|ed|ing)|implement(?:ed|s|ing)|connected|associated|what\s+else)\b",
    re.IGNORECASE,
)
ANAPHOR = re.compile(
    r"\b(it|its|it's|this|that|these|those|they|them|their|same|above|previous|former|latter)\b",
    re.IGNORECASE,
)
FOLLOW_UP_WORDS = 5


@dataclass(frozen=True)
class Step:
    tool: str
    reason: str


class Planner:
    def __init__(self, toolbox: Toolbox, project_keys: Callable[[], Iterable[str]] | None = None) -> None:
        self.toolbox = toolbox
        self.project_keys = project_keys or (lambda: ())

    def plan(self, question: str, carried: Sequence[str] = ()) -> list[Step]:
        """The tools the rules choose for ``question`` (before seeing any result)."""
        steps: list[Step] = []
        lookups = read_lookups(question, self.project_keys())
        relational = bool(RELATIONSHIP.search(question))
        if lookups.anchored:
            steps.append(Step(GraphQuery.name, "identifiers: " + ", ".join(sorted(lookups.kinds))))
        elif carried and self.is_follow_up(question):
            steps.append(Step(GraphQuery.name, "carry over the previous turn's documents"))
        if relational:
            if not steps:
                steps.append(Step(RAGSearch.name, "find documents to expand"))
            steps.append(Step(FetchNeighbors.name, "relationship question"))
        if not steps:
            steps.append(Step(RAGSearch.name, "no identifier: search"))
        steps.append(Step(FilterDocs.name, "drop documents sharing no keyword with the question"))
        return steps

    @staticmethod
    def is_follow_up(question: str) -> bool:
        return bool(
            ANAPHOR.search(question)
            or RELATIONSHIP.search(question)
            or len(question.split()) <= FOLLOW_UP_WORDS
        )

    def run(self, scope: Scope, question: str, carried: Sequence[str] = ()) -> list[Step]:
        """Execute the plan against ``scope``; return the steps actually taken."""
        taken: list[Step] = []
        tb = self.toolbox
        for step in self.plan(question, carried):
            if step.tool == GraphQuery.name:
                if step.reason.startswith("carry"):
                    found = tb.graph_query.run(scope, document_ids=list(carried)[:5], label="carry-over")
                else:
                    found = tb.graph_query.run(scope, question)
                taken.append(step)
                if not found:
                    tb.rag_search.run(scope, question)
                    taken.append(Step(RAGSearch.name, "the lookup found nothing"))
            elif step.tool == RAGSearch.name:
                tb.rag_search.run(scope, question)
                taken.append(step)
            elif step.tool == FetchNeighbors.name:
                tb.fetch_neighbors.run(scope)
                taken.append(step)
            elif step.tool == FilterDocs.name:
                tb.filter_docs.run(scope, question)
                taken.append(step)
        return taken
