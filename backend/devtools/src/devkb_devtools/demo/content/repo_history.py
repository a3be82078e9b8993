"""History of acme/payments-service: commits (with the file versions they write) and pull requests.

A commit's ``changes`` maps a path to the flags it adds to that file's template (an empty set adds
the file in its base version), ``None`` deletes it, and ``renames`` maps new path -> old path.
Merge commits take, for every file, the union of both parents' flags (features only accumulate).
Pull requests #1-#4 were merged with merge commits; #5-#7 with "rebase and merge", so their single
commit sits on main and is both the head and the merge commit of the pull request (committer GitHub).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CommitSpec:
    id: str
    date: str  # UTC, GitHub format
    author: str  # Person.name
    message: str
    parents: tuple[str, ...]
    changes: dict[str, frozenset[str] | None] = field(default_factory=dict)
    renames: dict[str, str] = field(default_factory=dict)
    committer: str | None = None  # None: same as author; "GitHub" for merges and rebase-merges on github.com
    commit_date: str | None = None  # None: same as ``date``; later for rebase-merged pull requests


def f(*flags: str) -> frozenset[str]:
    return frozenset(flags)


NEW = f()

COMMITS: list[CommitSpec] = [
    CommitSpec(
        "c01",
        "2026-01-12T09:30:00Z",
        "priya.raman",
        "Initial commit: payments-service skeleton",
        (),
        {"README.md": NEW, "pyproject.toml": NEW, "src/payments/__init__.py": NEW},
    ),
    CommitSpec(
        "c02",
        "2026-01-14T16:05:00Z",
        "priya.raman",
        "PAY-4: add architecture overview",
        ("c01",),
        {"docs/architecture.md": NEW},
    ),
    CommitSpec(
        "c03",
        "2026-01-21T14:05:00Z",
        "marcus.chen",
        "PAY-5: double-entry ledger for captures and refunds\n\n"
        "Every capture and refund is posted as a balanced entry; amounts are integer minor units.",
        ("c02",),
        {"src/payments/ledger.py": NEW, "tests/test_ledger.py": NEW},
    ),
    CommitSpec(
        "c04",
        "2026-02-02T11:20:00Z",
        "daniel.okafor",
        "Add Meridian PSP client with a simple retry loop",
        ("c03",),
        {"src/payments/psp_client.py": NEW, "src/payments/legacy_retry.py": NEW, "docs/retries.md": NEW},
    ),
    CommitSpec(
        "c05",
        "2026-02-16T10:10:00Z",
        "daniel.okafor",
        "PAY-7: retry Meridian calls on 503 with exponential backoff",
        ("c04",),
        {"src/payments/retry.py": NEW, "tests/test_retry.py": NEW, "src/payments/psp_client.py": f("retry")},
    ),
    CommitSpec(
        "c06",
        "2026-02-17T16:45:00Z",
        "daniel.okafor",
        "PAY-7: honour Retry-After and retry 429 as well\n\n"
        "Meridian sends Retry-After with 429 and with 503 during its maintenance windows.",
        ("c05",),
        {
            "src/payments/retry.py": f("after"),
            "tests/test_retry.py": f("after"),
            "src/payments/psp_client.py": f("after"),
            "docs/retries.md": f("after"),
        },
    ),
    CommitSpec(
        "c07",
        "2026-02-18T09:12:00Z",
        "priya.raman",
        "Merge pull request #1 from acme/PAY-7-retry-503\n\nPAY-7: Retry Meridian calls on 503 with exponential backoff",
        ("c04", "c06"),
        committer="GitHub",
    ),
    CommitSpec(
        "c08",
        "2026-03-04T13:00:00Z",
        "marcus.chen",
        "PAY-11: verify Meridian webhook signatures (HMAC-SHA256)",
        ("c07",),
        {"src/payments/webhooks.py": NEW, "tests/test_webhooks.py": NEW},
    ),
    CommitSpec(
        "c09",
        "2026-03-10T10:30:00Z",
        "priya.raman",
        "Merge pull request #2 from acme/PAY-11-webhook-signatures\n\nPAY-11: Verify Meridian webhook signatures",
        ("c07", "c08"),
        committer="GitHub",
    ),
    CommitSpec(
        "c10",
        "2026-03-24T15:40:00Z",
        "marcus.chen",
        "PAY-10: compute the webhook signature over the raw request body\n\n"
        'Re-serialising the parsed JSON escaped non-ASCII characters ("Zürich" became "Z\\u00fcrich"),\n'
        "so the HMAC never matched for merchants with accented names.",
        ("c09",),
        {"src/payments/webhooks.py": f("raw"), "tests/test_webhooks.py": f("raw")},
    ),
    CommitSpec(
        "c11",
        "2026-03-30T11:00:00Z",
        "marcus.chen",
        "PAY-12: add idempotency key store",
        ("c10",),
        {"src/payments/idempotency.py": NEW, "tests/test_idempotency.py": NEW, "docs/idempotency.md": NEW},
    ),
    CommitSpec(
        "c12",
        "2026-04-15T08:20:00Z",
        "daniel.okafor",
        "PAY-8: never retry a POST without an Idempotency-Key\n\n"
        "Hotfix for the double charges of 2026-04-14 (PAY-13). A read timeout on POST /charges does not\n"
        "mean that Meridian did not create the charge, so repeating the request is only safe when\n"
        "Meridian can deduplicate it by its idempotency key.",
        ("c10",),
        {
            "src/payments/retry.py": f("idem"),
            "src/payments/psp_client.py": f("idem"),
            "tests/test_retry.py": f("idem"),
            "docs/retries.md": f("idem"),
        },
    ),
    CommitSpec(
        "c13",
        "2026-04-15T09:05:00Z",
        "sofia.alvarez",
        "Merge pull request #4 from acme/PAY-8-no-retry-on-post-timeout\n\n"
        "PAY-8: Never retry a POST without an Idempotency-Key",
        ("c10", "c12"),
        committer="GitHub",
    ),
    CommitSpec(
        "c14",
        "2026-05-04T10:15:00Z",
        "marcus.chen",
        "PAY-12: reject key reuse with a different body; forward the key to Meridian",
        ("c11",),
        {
            "src/payments/idempotency.py": f("conflict"),
            "tests/test_idempotency.py": f("conflict"),
            "src/payments/psp_client.py": f("idemkey"),
        },
    ),
    CommitSpec(
        "c15",
        "2026-05-06T14:30:00Z",
        "priya.raman",
        "Merge pull request #3 from acme/PAY-12-idempotency\n\nPAY-12: Idempotency key store for POST /v1/payments",
        ("c13", "c14"),
        committer="GitHub",
    ),
    CommitSpec(
        "c16",
        "2026-05-19T11:00:00Z",
        "daniel.okafor",
        "PAY-25: draw retry jitter from a per-policy RNG",
        ("c15",),
        {"src/payments/retry.py": f("rng"), "tests/test_retry.py": f("rng"), "docs/retries.md": f("rng")},
        committer="GitHub",
        commit_date="2026-05-20T09:40:00Z",
    ),
    CommitSpec(
        "c17",
        "2026-06-02T10:00:00Z",
        "sofia.alvarez",
        "PAY-9: move docs/retries.md to docs/retry-policy.md; the wiki page is authoritative",
        ("c16",),
        {"README.md": f("retrydoc"), "docs/retry-policy.md": f("policy")},
        renames={"docs/retry-policy.md": "docs/retries.md"},
    ),
    CommitSpec(
        "c18",
        "2026-06-03T15:10:00Z",
        "daniel.okafor",
        "Remove legacy_retry; payments.retry replaced it in PAY-7",
        ("c17",),
        {"src/payments/legacy_retry.py": None},
    ),
    CommitSpec(
        "c19",
        "2026-06-10T12:00:00Z",
        "priya.raman",
        "Release 2026.6.0 (PAY-24)",
        ("c18",),
        {"CHANGELOG.md": NEW, "src/payments/__init__.py": f("v2026_6"), "README.md": f("idem", "webhooks")},
    ),
    CommitSpec(
        "c20",
        "2026-07-06T10:00:00Z",
        "marcus.chen",
        "PAY-17: ignore webhook events older than the last applied one",
        ("c19",),
        {
            "src/payments/webhooks.py": f("order"),
            "tests/test_webhooks.py": f("order"),
            "docs/webhooks.md": NEW,
        },
        committer="GitHub",
        commit_date="2026-07-08T16:20:00Z",
    ),
    CommitSpec(
        "c21",
        "2026-08-11T13:30:00Z",
        "aisha.khan",
        "PAY-18: mask card numbers before PSP requests are logged",
        ("c20",),
        {
            "src/payments/redaction.py": NEW,
            "tests/test_redaction.py": NEW,
            "src/payments/psp_client.py": f("mask"),
            "README.md": f("redaction"),
        },
        committer="GitHub",
        commit_date="2026-08-12T10:00:00Z",
    ),
    CommitSpec(
        "c22",
        "2026-08-25T09:15:00Z",
        "marcus.chen",
        "PAY-15: keep idempotency keys for 72 hours\n\n"
        "Merchants and Meridian retry for up to 48 hours; with a 24 hour TTL a late retry created a\n"
        "second payment.",
        ("c21",),
        {
            "src/payments/idempotency.py": f("ttl72"),
            "docs/idempotency.md": f("ttl72"),
            "tests/test_idempotency.py": f("ttl72"),
        },
    ),
    CommitSpec(
        "c23",
        "2026-09-01T10:00:00Z",
        "daniel.okafor",
        "PAY-23: add a circuit breaker around the Meridian client",
        ("c22",),
        {"src/payments/circuit_breaker.py": NEW},
    ),
    CommitSpec(
        "c24",
        "2026-09-22T10:00:00Z",
        "marcus.chen",
        "PAY-6: reconcile partial refunds against the sum of all refunds",
        ("c22",),
        {"src/payments/ledger.py": f("partial"), "tests/test_ledger.py": f("partial")},
    ),
    CommitSpec(
        "c25",
        "2026-10-01T09:30:00Z",
        "marcus.chen",
        "PAY-20: integer minor units for API v2 amounts",
        ("c24",),
        {"src/payments/money.py": NEW},
    ),
    CommitSpec(
        "c26",
        "2026-10-05T14:00:00Z",
        "priya.raman",
        "PAY-21: document Deprecation and Sunset headers for /v1",
        ("c24",),
        {"docs/architecture.md": f("deprecation"), "CHANGELOG.md": f("unreleased")},
    ),
]

MAIN_HEAD = "c26"


@dataclass(frozen=True)
class PullSpec:
    number: int
    title: str
    body: str
    user: str  # Person.name
    branch: str
    head: str  # commit id
    base: str  # commit id of main when the branch was cut
    created_at: str
    updated_at: str
    closed_at: str | None
    merge_commit: str | None  # commit id; None when not merged
    commits: int


PULLS: list[PullSpec] = [
    PullSpec(
        1,
        "PAY-7: Retry Meridian calls on 503 with exponential backoff",
        "Adds `payments.retry` (exponential backoff with full jitter) and uses it in the Meridian client.\n\n"
        "- retries connection errors and 429/502/503/504\n"
        "- honours `Retry-After`, capped at 5 s\n"
        "- replaces the fixed 1 s loop in `legacy_retry.py`, which also retried 4xx\n\n"
        "Policy discussion: https://wiki.example.com/display/PAY/PSP+Retry+Policy\n\nCloses PAY-7.",
        "daniel.okafor",
        "PAY-7-retry-503",
        "c06",
        "c04",
        "2026-02-16T10:10:00Z",
        "2026-02-18T09:12:00Z",
        "2026-02-18T09:12:00Z",
        "c07",
        2,
    ),
    PullSpec(
        2,
        "PAY-11: Verify Meridian webhook signatures",
        "Rejects webhooks whose `Meridian-Signature` does not match or whose timestamp is more than five "
        "minutes off. Secret comes from `MERIDIAN_WEBHOOK_SECRET`.\n\nCloses PAY-11.",
        "marcus.chen",
        "PAY-11-webhook-signatures",
        "c08",
        "c07",
        "2026-03-04T13:00:00Z",
        "2026-03-10T10:30:00Z",
        "2026-03-10T10:30:00Z",
        "c09",
        1,
    ),
    PullSpec(
        3,
        "PAY-12: Idempotency key store for POST /v1/payments",
        "Implements the design on https://wiki.example.com/display/PAY/Idempotency+Keys+Design\n\n"
        "- `(merchant_id, key)` reserved before we call Meridian, response stored after\n"
        "- repeat with the same body returns the stored response; different body returns 409\n"
        "- the key is forwarded to Meridian as `Idempotency-Key`, so our own retries are safe too\n\n"
        "After the incident of 2026-04-14 (PAY-13) this became the permanent fix; PAY-8 was the hotfix.\n\n"
        "Closes PAY-12.",
        "marcus.chen",
        "PAY-12-idempotency",
        "c14",
        "c10",
        "2026-03-30T11:00:00Z",
        "2026-05-06T14:30:00Z",
        "2026-05-06T14:30:00Z",
        "c15",
        2,
    ),
    PullSpec(
        4,
        "PAY-8: Never retry a POST without an Idempotency-Key",
        "Hotfix for PAY-13 (customers charged twice during the Meridian latency spike).\n\n"
        "`call_with_retry` now takes the method and headers; a POST without an `Idempotency-Key` gets "
        "exactly one attempt. GETs are retried as before.\n\n"
        "Runbook step for rolling this out: https://wiki.example.com/display/PAY/Payment+Outage+Runbook",
        "daniel.okafor",
        "PAY-8-no-retry-on-post-timeout",
        "c12",
        "c10",
        "2026-04-15T08:20:00Z",
        "2026-04-15T09:05:00Z",
        "2026-04-15T09:05:00Z",
        "c13",
        1,
    ),
    PullSpec(
        5,
        "PAY-25: Per-policy RNG for retry jitter",
        "Every worker seeded the module RNG with the deploy timestamp, so they all drew the same jitter "
        "and retried in lockstep when Meridian came back. Each `RetryPolicy` now owns a `random.Random`.",
        "daniel.okafor",
        "PAY-25-retry-jitter",
        "c16",
        "c15",
        "2026-05-19T11:00:00Z",
        "2026-05-20T09:40:00Z",
        "2026-05-20T09:40:00Z",
        "c16",
        1,
    ),
    PullSpec(
        6,
        "PAY-17: Ignore out-of-order Meridian webhooks",
        "Events carry a per-payment `sequence`; stale events are acknowledged and dropped. Fixes refunded "
        "payments flipping back to captured.\n\nAlso adds docs/webhooks.md.",
        "marcus.chen",
        "PAY-17-webhook-ordering",
        "c20",
        "c19",
        "2026-07-06T10:00:00Z",
        "2026-07-08T16:20:00Z",
        "2026-07-08T16:20:00Z",
        "c20",
        1,
    ),
    PullSpec(
        7,
        "PAY-18: Mask card numbers in PSP client logs",
        "Adds `payments.redaction` (Luhn-checked PAN masking, key-based redaction) and applies it to the "
        "debug log of every Meridian request. See PCI DSS notes on the wiki and PAY-3.",
        "aisha.khan",
        "PAY-18-mask-pan",
        "c21",
        "c20",
        "2026-08-11T13:30:00Z",
        "2026-08-12T10:00:00Z",
        "2026-08-12T10:00:00Z",
        "c21",
        1,
    ),
    PullSpec(
        8,
        "PAY-23: Circuit breaker around the Meridian client",
        "Opens after 5 consecutive failures, half-opens after 30 s.\n\n"
        "Closing: we will use the shared resilience library instead (PAY-28).",
        "daniel.okafor",
        "PAY-23-circuit-breaker",
        "c23",
        "c22",
        "2026-09-01T10:00:00Z",
        "2026-09-10T15:00:00Z",
        "2026-09-10T15:00:00Z",
        None,
        1,
    ),
    PullSpec(
        9,
        "PAY-20: API v2 amounts as integer minor units",
        "First part of API v2: `payments.money` converts between decimal amounts and minor units using "
        "ISO 4217 exponents (JPY has none, KWD three).\n\n"
        "Checkout migration is tracked in WEB-7. Versioning rules: "
        "https://wiki.example.com/display/PAY/Public+API+Versioning",
        "marcus.chen",
        "PAY-20-api-v2-amounts",
        "c25",
        "c24",
        "2026-10-01T09:30:00Z",
        "2026-10-06T11:00:00Z",
        None,
        None,
        1,
    ),
]


# Discussion on pull requests, as GitHub keeps it in three places: the conversation (issue comments),
# reviews (approve / request changes / comment, each with a summary) and inline review comments.
PULL_DISCUSSION: dict[int, dict[str, list[tuple[str, ...]]]] = {
    3: {
        "comments": [
            (
                "priya.raman",
                "2026-04-16T10:05:00Z",
                "After the 2026-04-14 incident this is the top priority; see PAY-13.",
            ),
            ("marcus.chen", "2026-05-05T17:40:00Z", "Rebased on main; the TTL question moved to PAY-15."),
        ],
        "reviews": [
            (
                "daniel.okafor",
                "2026-04-20T15:00:00Z",
                "CHANGES_REQUESTED",
                "A retry after the key expired creates a second charge: the TTL must outlive Meridian's retry window.",
            ),
            (
                "priya.raman",
                "2026-05-06T11:20:00Z",
                "APPROVED",
                "Approved: the 409 semantics match the design page.",
            ),
        ],
        "review_comments": [
            (
                "daniel.okafor",
                "2026-04-20T14:52:00Z",
                "src/payments/idempotency.py",
                "Use a 48-hour TTL here, not 24: Meridian retries for up to 36 hours.",
            ),
        ],
    },
    4: {
        "comments": [
            (
                "sofia.alvarez",
                "2026-04-15T08:40:00Z",
                "Hotfix for the double charges of PAY-13; please review fast.",
            )
        ],
        "reviews": [
            (
                "marcus.chen",
                "2026-04-15T08:58:00Z",
                "APPROVED",
                "LGTM — no POST is retried without an Idempotency-Key now.",
            )
        ],
        "review_comments": [],
    },
}

# GitHub issues of the repository (issues are indexed by default), with their comments
GH_ISSUES: list[dict[str, object]] = [
    {
        "number": 10,
        "title": "Sandbox returns 500 when the Idempotency-Key header is empty",
        "user": "hannah.weber",
        "state": "open",
        "created_at": "2026-06-02T09:00:00Z",
        "updated_at": "2026-06-03T11:30:00Z",
        "body": "Sending `Idempotency-Key:` with an empty value answers 500 instead of 400. Found while testing WEB-2.",
        "comments": [
            (
                "marcus.chen",
                "2026-06-03T11:30:00Z",
                "Confirmed; the validation in PAY-12's key store rejects only missing headers.",
            )
        ],
    },
    {
        "number": 11,
        "title": "Document the retry budget settings",
        "user": "sofia.alvarez",
        "state": "closed",
        "created_at": "2026-09-12T10:30:00Z",
        "updated_at": "2026-09-14T16:00:00Z",
        "body": "The retry policy v2 (PAY-29) adds per-merchant budgets; docs/retries.md should explain them.",
        "comments": [],
    },
]
