"""People, hosts and small helpers shared by the demo content modules."""

from __future__ import annotations

import re
from dataclasses import dataclass

JIRA_BASE = "https://jira.example.com"
WIKI_BASE = "https://wiki.example.com"
GITHUB_REPO = "acme/payments-service"
GITHUB_HTML = f"https://github.com/{GITHUB_REPO}"
GITHUB_API = f"https://api.github.com/repos/{GITHUB_REPO}"
GH = f"github:{GITHUB_REPO}"  # prefix of GitHub node ids, e.g. github:acme/payments-service:pull:3
REPO_DIR = "github/payments-service"  # under data/
EMAIL = "user@example.invalid"


@dataclass(frozen=True)
class Person:
    display: str
    name: str  # Jira / Confluence user name, derived from the display name as in the fluid corpus
    login: str  # GitHub login
    role: str


PEOPLE: dict[str, Person] = {
    p.name: p
    for p in [
        Person("Priya Raman", "priya.raman", "praman", "Engineering manager, payments tech lead"),
        Person("Marcus Chen", "marcus.chen", "mchen", "Backend engineer: ledger, idempotency, webhooks"),
        Person("Daniel Okafor", "daniel.okafor", "dokafor", "Backend engineer: Meridian PSP client, retries"),
        Person("Sofia Alvarez", "sofia.alvarez", "salvarez", "Site reliability engineer, on-call lead"),
        Person("Aisha Khan", "aisha.khan", "akhan", "Security and PCI compliance engineer"),
        Person("Hannah Weber", "hannah.weber", "hweber", "Frontend engineer, web checkout"),
        Person("Tomás Silva", "tomas.silva", "tsilva", "QA engineer, web checkout"),
        Person("Liam O'Brien", "liam.o.brien", "lobrien", "Product manager, payments"),
        Person("Grace Lee", "grace.lee", "glee", "Customer support lead"),
    ]
}

# Titles and ids of the Confluence pages, shared by all modules so that mentions stay consistent.
PAGE_TITLES: dict[str, str] = {
    "home": "Payments Engineering Home",
    "arch": "Payments Architecture Overview",
    "idem": "Idempotency Keys Design",
    "retry": "PSP Retry Policy",
    "webhooks": "Webhook Delivery Design",
    "versioning": "Public API Versioning",
    "ledger": "Payments Ledger Design",
    "meridian": "Meridian PSP Integration Notes",
    "ops": "Operations",
    "runbook": "Payment Outage Runbook",
    "oncall": "Payments On-Call Handbook",
    "postmortem": "Postmortem 2026-04-14 Double Charges",
    "release": "Payments Release Process",
    "pci": "PCI Compliance Notes",
    "onboarding": "Engineer Onboarding Guide",
    "fraud": "Fraud rule thresholds (restricted)",
    "fraud-log": "Fraud rule tuning log",
}
PAGE_ORDER = list(PAGE_TITLES)
PAGE_IDS: dict[str, str] = {slug: str(2000001 + i) for i, slug in enumerate(PAGE_ORDER)}
SPACE_KEY = "PAY"
SPACE_ID = 131073
SPACE_NAME = "Payments Engineering"


def quote_title(title: str) -> str:
    """Confluence's ``/display/<space>/<Title+With+Pluses>`` encoding of a page title."""
    from urllib.parse import quote_plus

    return quote_plus(title)


def page_path(slug: str) -> str:
    return f"/display/{SPACE_KEY}/{quote_title(PAGE_TITLES[slug])}"


def page_url(slug: str) -> str:
    return WIKI_BASE + page_path(slug)


def pr_url(number: int) -> str:
    return f"{GITHUB_HTML}/pull/{number}"


def blob_url(path: str, ref: str = "main") -> str:
    return f"{GITHUB_HTML}/blob/{ref}/{path}"


_LINE_FLAG = re.compile(r"[ \t]+#@(!?)([a-z0-9_]+)$")
_BLOCK = re.compile(r"^[ \t]*#@(if|else|endif)(?:[ \t]+(!?)([a-z0-9_]+))?[ \t]*$")


def render(template: str, flags: set[str] | frozenset[str] = frozenset()) -> str:
    """Select one version of a file from a template that holds several.

    ``#@if flag`` / ``#@if !flag`` / ``#@else`` / ``#@endif`` on a line of their own keep or drop a
    block; a line ending in ``  #@flag`` (or ``  #@!flag``) is kept only when the flag is set (unset).
    The markers themselves never reach the output.
    """
    out: list[str] = []
    stack: list[bool] = []
    for line in template.splitlines(keepends=True):
        body = line.rstrip("\n")
        m = _BLOCK.match(body)
        if m:
            kind, neg, name = m.groups()
            if kind == "if":
                stack.append((name in flags) != bool(neg))
            elif kind == "else":
                stack[-1] = not stack[-1]
            else:
                stack.pop()
            continue
        if not all(stack):
            continue
        m = _LINE_FLAG.search(body)
        if m:
            neg, name = m.groups()
            if (name in flags) == bool(neg):
                continue
            line = body[: m.start()] + ("\n" if line.endswith("\n") else "")
        out.append(line)
    if stack:
        raise ValueError("unbalanced #@if in template")
    return "".join(out)
