"""GitHub's permission sync, beside its loader: who holds the principals its documents' gates
name (``PermissionSource`` in ``sources/base.py``), read through the loader's client."""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Any

from devkb.sources.acl import scope
from devkb.sources.permissions import PermissionPairs

if TYPE_CHECKING:
    from devkb.sources.github.loader import GitHubLoader

log = logging.getLogger(__name__)


class GitHubPermissions:
    """The permission half of a :class:`GitHubLoader` (its client, settings and retries)."""

    def __init__(self, loader: GitHubLoader) -> None:
        self.loader = loader

    def fetch_permissions(self) -> list[tuple[str, str]]:
        """Who may read each repository: everyone (``"*"``) when it is not private, else its
        collaborators (``GET /repos/{o}/{r}/collaborators?affiliation=all``, paged by ``Link``),
        each with the e-mail ``people`` maps the login to or its public one (``GET /users/{login}``)."""
        out = PermissionPairs(self.loader.name, self.loader.config.people)
        for name in self.loader.config.repos:
            principal = [scope(self.loader.name, "repo", name)]
            repo = self.loader._repo(name)
            raw = self.loader._raw(repo, "private")
            if not raw.get("private"):
                out.add(principal, "*")
                continue
            collaborators = self.loader._call(
                f"{name} collaborators",
                functools.partial(
                    self.loader._raws, functools.partial(repo.get_collaborators, affiliation="all"), "login"
                ),
            )
            for person in collaborators:
                login = str(person["login"])
                email = out.email([login]) if login in out.people else None
                if email is None:
                    user = self.loader._call(f"GitHub user {login}", functools.partial(self._user_raw, login))
                    email = out.email([login], user.get("email"))
                out.add(principal, email)
        return out.result()

    def _user_raw(self, login: str) -> dict[str, Any]:
        return self.loader._raw(self.loader.gh.get_user(login), "login")
