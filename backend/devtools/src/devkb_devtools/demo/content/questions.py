"""Demo questions with the documents a good answer cites (``gold``)."""

from __future__ import annotations

from typing import Any

from .common import GH, PAGE_IDS


def questions(shas: dict[str, str]) -> list[dict[str, Any]]:
    def page(slug: str) -> str:
        return f"confluence:page:{PAGE_IDS[slug]}"

    def commit(cid: str) -> str:
        return f"{GH}:commit:{shas[cid]}"

    def pull(n: int) -> str:
        return f"{GH}:pull:{n}"

    def file(path: str) -> str:
        return f"{GH}:file:{path}"

    return [
        {
            "question": "What is PAY-12 about, who implemented it and in which pull request?",
            "category": "identifier",
            "expected_tools": ["get_document", "neighbors"],
            "gold": ["jira:PAY-12", pull(3)],
        },
        {
            "question": "Which commits and pull requests implemented the retry on 503 (PAY-7)?",
            "category": "relationship",
            "expected_tools": ["get_document", "neighbors"],
            "gold": ["jira:PAY-7", pull(1), commit("c05"), commit("c06"), commit("c07")],
        },
        {
            "question": "Which issues were closed as duplicates of the double-charge incident PAY-13, and what is related to it?",
            "category": "relationship",
            "expected_tools": ["neighbors"],
            "gold": ["jira:PAY-13", "jira:PAY-22", "jira:PAY-8", "jira:PAY-14", "jira:WEB-3"],
        },
        {
            "question": "How does payments-service decide whether a failed call to Meridian may be retried?",
            "category": "conceptual",
            "expected_tools": ["search"],
            "gold": [page("retry"), file("src/payments/retry.py"), file("docs/retry-policy.md")],
        },
        {
            "question": "How long are idempotency keys kept, and why was that changed?",
            "category": "conceptual",
            "expected_tools": ["search", "neighbors"],
            "gold": [page("idem"), "jira:PAY-15", file("src/payments/idempotency.py"), commit("c22")],
        },
        {
            "question": "What caused customers to be charged twice on 2026-04-14, and what was changed to prevent it?",
            "category": "cross-source",
            "expected_tools": ["search", "neighbors", "get_document"],
            "gold": ["jira:PAY-13", "jira:PAY-8", page("postmortem"), pull(4), commit("c12"), "jira:PAY-12"],
        },
        {
            "question": "What happened to the circuit breaker for the Meridian client?",
            "category": "cross-source",
            "expected_tools": ["search", "neighbors"],
            "gold": ["jira:PAY-23", "jira:PAY-28", pull(8)],
        },
        {
            "question": "Meridian is returning 503s and payments are failing. What should the on-call engineer do?",
            "category": "conceptual",
            "expected_tools": ["search"],
            "gold": [page("runbook"), page("oncall"), page("retry")],
        },
        {
            "question": "Which Web Checkout issues depend on changes in the payments API?",
            "category": "cross-source",
            "expected_tools": ["find_documents", "neighbors"],
            "gold": ["jira:WEB-2", "jira:WEB-7", "jira:PAY-12", "jira:PAY-20"],
        },
        {
            "question": "How are Meridian webhook signatures verified, and which bug did non-ASCII merchant names cause?",
            "category": "cross-source",
            "expected_tools": ["search", "neighbors"],
            "gold": [
                page("webhooks"),
                file("src/payments/webhooks.py"),
                "jira:PAY-11",
                "jira:PAY-10",
                commit("c10"),
            ],
        },
    ]
