"""Permission records (``permissions.json`` of Jira, Confluence and the repository) for the emulators
(layout: ``devkb_devtools.emulators.permissions``), from ``content/permissions.py``."""

from __future__ import annotations

from typing import Any

from ..content import permissions as P
from ..content.common import JIRA_BASE


def security_field() -> dict[str, Any]:
    """``fields.security`` of an issue under the demo's security level."""
    level = P.SECURITY_LEVEL
    return {
        "self": f"{JIRA_BASE}/rest/api/2/securitylevel/{level['id']}",
        "id": level["id"],
        "name": level["name"],
        "description": level["description"],
    }


def jira_permissions() -> dict[str, Any]:
    level = P.SECURITY_LEVEL
    return {
        "users": [
            {"name": a.name, "displayName": a.display, "emailAddress": a.email} for a in P.ACCOUNTS.values()
        ],
        "groups": {g: list(members) for g, members in P.JIRA_GROUPS.items()},
        "projects": {k: {"users": [], "groups": list(groups)} for k, groups in P.JIRA_BROWSE.items()},
        "security_schemes": [
            {
                "id": P.SECURITY_SCHEME[0],
                "name": P.SECURITY_SCHEME[1],
                "levels": [
                    {
                        "id": level["id"],
                        "name": level["name"],
                        "users": list(level["users"]),
                        "groups": list(level["groups"]),
                    }
                ],
            }
        ],
    }


def confluence_permissions() -> dict[str, Any]:
    return {
        "users": [
            {"username": a.name, "displayName": a.display, "email": a.email} for a in P.ACCOUNTS.values()
        ],
        "groups": {g: list(members) for g, members in P.CONFLUENCE_GROUPS.items()},
        "spaces": {k: {"users": [], "groups": list(groups)} for k, groups in P.SPACE_READ.items()},
    }


def repo_permissions() -> dict[str, Any]:
    return {
        "collaborators": [
            {
                "login": P.ACCOUNTS[name].login,
                "name": P.ACCOUNTS[name].display,
                "email": P.ACCOUNTS[name].email,
                "permission": permission,
            }
            for name, permission in P.COLLABORATORS
        ]
    }
