"""The demo workspace's people: devkb users with the passwords shown on the demo's sign-in page
(``DEVKB_DEMO_USERS=true``; ``make run`` sets it). What each may read comes from the demo sources'
permissions (the emulators serve them; ``devkb.access.permission_sync`` mirrors them) — the
``sees`` line only describes it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DemoUser:
    email: str
    name: str
    role: str
    password: str
    sees: str


DEMO_USERS = (
    DemoUser("alice@acme.example", "Alice Admin", "admin", "alice-demo-2026", "everything (admin)"),
    DemoUser(
        "bob@acme.example",
        "Bob Payments",
        "member",
        "bob-demo-2026",
        "Jira PAY and WEB, the wiki and the code — not the security-restricted issues and pages",
    ),
    DemoUser("carol@acme.example", "Carol Web", "member", "carol-demo-2026", "Jira WEB only"),
    DemoUser(
        "dave@acme.example",
        "Dave Security",
        "member",
        "dave-demo-2026",
        "everything the sources grant, including the restricted incident and fraud pages",
    ),
)
