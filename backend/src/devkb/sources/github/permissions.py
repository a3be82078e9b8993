"""GitHub's permission sync, beside its loader: who holds the principals its documents' gates
name (``PermissionSource`` in ``sources/base.py``), read through the source's client (client.py)."""

from __future__ import annotations

import functools
import logging
from typing import Any

from devkb.sources.acl import scope
from devkb.sources.github.client import GitHubClient
from devkb.sources.permissions import PermissionPairs

log = logging.getLogger(__name__)


class GitHubPermissions:
    """The permission half of a GitHub source, on its :class:`GitHubClient` (settings and retries)."""

    def __init__(self, client: GitHubClient) -> None:
        self.github = client

    def fetch_permissions(self) -> list[tuple[str, str]]:
        """Who may read each repository: everyone (``"*"``) when it is not private, else its
        collaborators (``GET /repos/{o}/{r}/collaborators?affiliation=all``, paged by ``Link``),
        each with the e-mail ``people`` maps the login to or its public one (``GET /users/{login}``)."""
        out = PermissionPairs(self.github.name, self.github.config.people)
        for name in self.github.config.repos:
            principal = [scope(self.github.name, "repo", name)]
            repo = self.github.repo(name)
            raw = self.github.raw(repo, "private")
            if not raw.get("private"):
                out.add(principal, "*")
                continue
            collaborators = self.github.call(
                f"{name} collaborators",
                functools.partial(
                    self.github.raws, functools.partial(repo.get_collaborators, affiliation="all"), "login"
                ),
            )
            for person in collaborators:
                login = str(person["login"])
                email = out.email([login]) if login in out.people else None
                if email is None:
                    user = self.github.call(f"GitHub user {login}", functools.partial(self._user_raw, login))
                    email = out.email([login], user.get("email"))
                out.add(principal, email)
        return out.result()

    def _user_raw(self, login: str) -> dict[str, Any]:
        return self.github.raw(self.github.gh.get_user(login), "login")
