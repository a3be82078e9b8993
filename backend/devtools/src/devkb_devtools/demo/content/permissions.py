"""Who may read what in the demo: four devkb users and the permissions the sources grant them.

The people in ``common.PEOPLE`` are the fictional team that wrote the records; the accounts here
are the ones that sign in to devkb (by e-mail) and hold permissions in Jira, Confluence and GitHub.

- Jira: PAY is browsable by the group ``payments`` (Bob, Dave, Alice), WEB by ``jira-users`` (all
  four). Issues under the security level "Incident responders" (``SECURE_ISSUES``) are readable by
  user Dave and the group ``security`` (Alice) only.
- Confluence: the PAY space is readable by the group ``payments`` (Bob, Dave, Alice). The existing
  restricted pages name groups ``payments-team`` and ``payments-security`` (Dave, Alice) and team
  members without a devkb account; "Fraud rule thresholds (restricted)" is restricted to Dave, and
  its child inherits that.
- GitHub: acme/payments-service is private; its collaborators are Bob, Dave and Alice.

So Carol sees only the WEB issues; Bob sees PAY, WEB, the wiki and the code except the security
level's issues and the restricted pages; Dave sees everything; Alice is the devkb admin.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Account:
    email: str
    display: str
    name: str  # Jira / Confluence user name
    login: str  # GitHub login
    role: str


ACCOUNTS: dict[str, Account] = {
    a.name: a
    for a in [
        Account("alice@acme.example", "Alice Admin", "alice.admin", "aadmin", "devkb admin"),
        Account("bob@acme.example", "Bob Payments", "bob.payments", "bpayments", "payments engineer"),
        Account("carol@acme.example", "Carol Web", "carol.web", "cweb", "web checkout engineer"),
        Account("dave@acme.example", "Dave Security", "dave.security", "dsecurity", "security engineer"),
    ]
}
ALICE, BOB, CAROL, DAVE = "alice.admin", "bob.payments", "carol.web", "dave.security"

JIRA_GROUPS: dict[str, tuple[str, ...]] = {
    "payments": (BOB, DAVE, ALICE),
    "jira-users": (ALICE, BOB, CAROL, DAVE),
    "security": (ALICE,),
}
JIRA_BROWSE: dict[str, tuple[str, ...]] = {"PAY": ("payments",), "WEB": ("jira-users",)}  # project → groups
SECURITY_SCHEME = ("10000", "Payments incident security")  # (id, name)
SECURITY_LEVEL = {
    "id": "10100",
    "name": "Incident responders",
    "description": "Card data incidents: the incident responders only",
    "users": (DAVE,),
    "groups": ("security",),
}
SECURE_ISSUES = ("PAY-18", "PAY-19", "PAY-90")  # issues under SECURITY_LEVEL

CONFLUENCE_GROUPS: dict[str, tuple[str, ...]] = {
    "payments": (BOB, DAVE, ALICE),
    "payments-team": (DAVE, ALICE),
    "payments-security": (DAVE, ALICE),
}
SPACE_READ: dict[str, tuple[str, ...]] = {"PAY": ("payments",)}  # space → groups with read

REPO_PRIVATE = True
COLLABORATORS: tuple[tuple[str, str], ...] = ((BOB, "write"), (DAVE, "write"), (ALICE, "admin"))
