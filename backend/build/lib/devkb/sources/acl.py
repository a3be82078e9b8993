"""Which principals may read a document, as its source says.

A document carries ``metadata["acl"]``: a list of *gates*, each a list of principals. A reader
may read the document when every gate names at least one principal the reader holds — the
source's own rule: a Jira issue needs Browse on its project *and* membership of its security
level; a Confluence page needs the space *and* every (own or inherited) view restriction; a
GitHub document needs access to its repository.

Principals are strings:

- ``everyone``: every signed-in member;
- ``user:<email>``: one devkb user;
- ``scope:<source>:<kind>:<key>``: whoever the source grants that scope (a Jira project or
  security level, a Confluence space, a GitHub repository) — the permission sync maps it to
  e-mails;
- ``group:<source>:<name>`` and ``account:<source>:<id>``: a source's group or account, mapped
  to e-mails by the permission sync.

A document without ``acl`` (indexed by a source that has no permission model, or before one
existed) is readable by admins only: unknown permissions fail closed. An admin can share any
document with every member (``AccountStore.set_shared``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

EVERYONE = "everyone"

Gates = list[list[str]]


def scope(source: str, kind: str, key: str) -> str:
    return f"scope:{source}:{kind}:{key}"


def group(source: str, name: str) -> str:
    return f"group:{source}:{name}"


def account(source: str, account_id: str) -> str:
    return f"account:{source}:{account_id}"


def user(email: str) -> str:
    return f"user:{email.strip().lower()}"


def gates_of(metadata: dict[str, Any] | None) -> Gates | None:
    """The document's gates, or None when it has none recorded."""
    raw = (metadata or {}).get("acl")
    if not isinstance(raw, list):
        return None
    gates: Gates = []
    for gate in raw:
        if isinstance(gate, list | tuple):
            gates.append([str(p) for p in gate])
        elif isinstance(gate, str):
            gates.append([gate])
    return gates


def satisfies(principals: frozenset[str] | set[str], gates: Sequence[Sequence[str]] | None) -> bool:
    """Whether ``principals`` pass every gate (no gates recorded: no)."""
    if gates is None:
        return False
    return all(any(p in principals for p in gate) for gate in gates)


def gate_principals(gates: Iterable[Sequence[str]]) -> set[str]:
    return {p for gate in gates for p in gate}
