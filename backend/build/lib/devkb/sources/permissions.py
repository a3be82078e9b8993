"""What the loaders' permission sync (``PermissionSource.fetch_permissions``) shares: mapping a
source's accounts to e-mails and collecting ``(principal, email)`` pairs.

A source names an account by its id (Atlassian Cloud ``accountId``, Jira/Confluence Data Center
user name or key, GitHub login) and may show its e-mail (often it does not: Atlassian Cloud
hides it by the user's privacy setting, Confluence Data Center never shows it, GitHub shows only a
public one). The source's ``people`` mapping (sources file) supplies or overrides e-mails by any
of the account's ids. Accounts without an e-mail are skipped and counted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

log = logging.getLogger(__name__)


class PermissionPairs:
    """``(principal, email)`` pairs of one sync, with the accounts that had no e-mail."""

    def __init__(self, source: str, people: dict[str, str] | None = None) -> None:
        self.source = source
        self.people = {str(k): str(v) for k, v in (people or {}).items()}
        self.pairs: set[tuple[str, str]] = set()
        self.unmapped: set[str] = set()

    def email(self, ids: Iterable[str | None], found: str | None = None) -> str | None:
        """The account's e-mail: the ``people`` mapping by any of its ids first, then the source's."""
        names = [str(i) for i in ids if i]
        for name in names:
            if name in self.people and self.people[name].strip():
                return self.people[name].strip().lower()
        if found and str(found).strip():
            return str(found).strip().lower()
        if names:
            self.unmapped.add(names[0])
        return None

    def add(self, principals: Iterable[str], email: str | None) -> None:
        if email:
            self.pairs.update((p, email) for p in principals)

    def result(self) -> list[tuple[str, str]]:
        if self.unmapped:
            log.warning(
                "%s: %d accounts have no e-mail (none in the source, none in people:) and were skipped: %s",
                self.source,
                len(self.unmapped),
                ", ".join(sorted(self.unmapped)[:10]),
            )
        return sorted(self.pairs)
