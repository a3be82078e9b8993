"""Jira records: projects and issues shaped like ``GET /rest/api/2/issue/{key}``."""

from __future__ import annotations

import re
from typing import Any

from ..content import jira_issues
from ..content.common import GITHUB_HTML, JIRA_BASE, PEOPLE, blob_url, page_url, pr_url
from ..content.permissions import SECURE_ISSUES
from .permissions import security_field

JIRA_EXPAND = "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations"
MIME_TYPES = {"png": "image/png", "csv": "text/csv", "txt": "text/plain", "json": "application/json"}
LINK_TYPES = {  # name -> (id, outward, inward), as in the fluid corpus
    "Duplicate": ("10000", "duplicates", "is duplicated by"),
    "Related to": ("10001", "relates to", "relates to"),
    "Dependence": ("10002", "depends on", "is depended on by"),
    "Supersedes": ("10003", "supersedes", "is superseded by"),
}


def jira_date(s: str) -> str:
    return f"{s}:00.000+0000"


def user(name: str | None) -> dict[str, Any] | None:
    return None if name is None else {"name": name, "displayName": PEOPLE[name].display, "active": True}


def substitute(text: str | None, shas: dict[str, str]) -> str | None:
    if text is None:
        return None

    def repl(m: re.Match[str]) -> str:
        kind, arg = m.group(1), m.group(2)
        if kind == "commit":
            return f"{GITHUB_HTML}/commit/{shas[arg]}"
        if kind == "pr":
            return pr_url(int(arg))
        if kind == "page":
            return page_url(arg)
        if kind == "blob":
            return blob_url(arg)
        raise KeyError(kind)

    return re.sub(r"\{\{(commit|pr|page|blob):([^}]+)\}\}", repl, text)


EPIC_LINK_FIELD = "customfield_10008"  # Jira Software's "Epic Link" on Data Center
SPRINT_FIELD = "customfield_10020"  # Jira Software's "Sprint"


def issue_type(spec: Any) -> dict[str, Any]:
    if spec.key in jira_issues.SUBTASK_OF:
        return {"name": "Sub-task", "subtask": True}
    return {"name": spec.type, "subtask": False}


def sprints_of(key: str) -> list[dict[str, Any]]:
    return [
        {"id": sid, "name": name, "state": state, "boardId": board}
        for name, (sid, state, board, keys) in sorted(jira_issues.SPRINTS.items(), key=lambda kv: kv[1][0])
        if key in keys
    ]


def changelog_of(key: str, iid: str) -> dict[str, Any] | None:
    histories = []
    for pos, (issue, author, when, items) in enumerate(h for h in jira_issues.HISTORY if h[0] == key):
        del issue
        rows = []
        for field_name, old, new in items:
            is_user = field_name == "assignee"
            rows.append(
                {
                    "field": field_name,
                    "fieldtype": "jira",
                    "from": old,
                    "fromString": PEOPLE[old].display if is_user and old else old,
                    "to": new,
                    "toString": PEOPLE[new].display if is_user and new else new,
                }
            )
        histories.append(
            {
                "id": str(int(iid) * 10 + pos),
                "author": user(author),
                "created": jira_date(when),
                "items": rows,
            }
        )
    if not histories:
        return None
    return {"startAt": 0, "maxResults": len(histories), "total": len(histories), "histories": histories}


def key_order(key: str) -> tuple[str, int]:
    project, number = key.rsplit("-", 1)
    return project, int(number)


def build_jira(
    shas: dict[str, str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[Any, ...]]]:
    project_keys = sorted(k for k, _ in jira_issues.PROJECTS)
    names = dict(jira_issues.PROJECTS)
    projects = [
        {
            "expand": "description,lead,url,projectKeys",
            "self": f"{JIRA_BASE}/rest/api/2/project/{10000 + i}",
            "id": str(10000 + i),
            "key": k,
            "name": names[k],
            "projectTypeKey": "software",
        }
        for i, k in enumerate(project_keys)
    ]
    proj = {p["key"]: p for p in projects}
    specs = {s.key: s for s in jira_issues.ISSUES}

    def issue_id(key: str) -> str:
        project, number = key_order(key)
        return str((project_keys.index(project) + 1) * 100000 + number)

    def stub(key: str) -> dict[str, Any]:
        s = specs[key]
        return {
            "id": issue_id(key),
            "key": key,
            "self": f"{JIRA_BASE}/rest/api/2/issue/{issue_id(key)}",
            "fields": {
                "summary": s.summary,
                "status": {"name": s.status},
                "priority": {"name": s.priority} if s.priority else None,
                "issuetype": issue_type(s),
            },
        }

    links = sorted(jira_issues.LINKS, key=lambda t: (key_order(t[0]), key_order(t[1]), t[2]))
    per_issue: dict[str, list[dict[str, Any]]] = {}
    link_rows = []
    for i, (outward, inward, type_name) in enumerate(links):
        type_id, out_phrase, in_phrase = LINK_TYPES[type_name]
        link_id = str(10000 + i)
        ltype = {
            "id": type_id,
            "name": type_name,
            "inward": in_phrase,
            "outward": out_phrase,
            "self": f"{JIRA_BASE}/rest/api/2/issueLinkType/{type_id}",
        }
        base = {"id": link_id, "self": f"{JIRA_BASE}/rest/api/2/issueLink/{link_id}", "type": ltype}
        per_issue.setdefault(outward, []).append({**base, "outwardIssue": stub(inward)})
        per_issue.setdefault(inward, []).append({**base, "inwardIssue": stub(outward)})
        link_rows.append((outward, inward, type_name, out_phrase, link_id))

    issues = []
    for s in sorted(jira_issues.ISSUES, key=lambda s: key_order(s.key)):
        iid = issue_id(s.key)
        project = proj[key_order(s.key)[0]]
        comments = []
        for pos, (author, created, body) in enumerate(s.comments, 1):
            cid = str(int(iid) * 1000 + pos)
            comments.append(
                {
                    "self": f"{JIRA_BASE}/rest/api/2/issue/{iid}/comment/{cid}",
                    "id": cid,
                    "author": user(author),
                    "body": substitute(body, shas),
                    "updateAuthor": user(author),
                    "created": jira_date(created),
                    "updated": jira_date(created),
                }
            )
        attachments = []
        for pos, filename in enumerate(s.attachments, 1):
            aid = str(int(iid) * 100 + pos)
            attachments.append(
                {
                    "self": f"{JIRA_BASE}/rest/api/2/attachment/{aid}",
                    "id": aid,
                    "filename": filename,
                    "mimeType": MIME_TYPES.get(filename.rsplit(".", 1)[-1], "application/octet-stream"),
                    "content": f"{JIRA_BASE}/secure/attachment/{aid}/{filename}",
                }
            )
        structure: dict[str, Any] = {}
        if s.key in jira_issues.SUBTASK_OF:
            structure["parent"] = stub(jira_issues.SUBTASK_OF[s.key])
        children = sorted((k for k, p in jira_issues.SUBTASK_OF.items() if p == s.key), key=key_order)
        if children:
            structure["subtasks"] = [stub(k) for k in children]
        if s.key in jira_issues.EPIC_OF:
            structure[EPIC_LINK_FIELD] = jira_issues.EPIC_OF[s.key]
        if sprints_of(s.key):
            structure[SPRINT_FIELD] = sprints_of(s.key)
        if s.key in SECURE_ISSUES:
            structure["security"] = security_field()
        history = changelog_of(s.key, iid)
        issues.append(
            {
                **({"changelog": history} if history else {}),
                "expand": JIRA_EXPAND,
                "id": iid,
                "self": f"{JIRA_BASE}/rest/api/2/issue/{iid}",
                "key": s.key,
                "fields": {
                    "summary": s.summary,
                    "description": substitute(s.description, shas),
                    "environment": s.environment,
                    "issuetype": issue_type(s),
                    "status": {"name": s.status},
                    "priority": {"name": s.priority} if s.priority else None,
                    "resolution": {"name": s.resolution} if s.resolution else None,
                    "project": {
                        "id": project["id"],
                        "key": project["key"],
                        "name": project["name"],
                        "self": project["self"],
                    },
                    "created": jira_date(s.created),
                    "updated": jira_date(s.updated),
                    "resolutiondate": jira_date(s.updated) if s.resolution else None,
                    "assignee": user(s.assignee),
                    "reporter": user(s.reporter),
                    "labels": list(s.labels),
                    "components": [{"name": c} for c in s.components],
                    "fixVersions": [{"name": v} for v in s.fix_versions],
                    "versions": [{"name": v} for v in s.versions],
                    "issuelinks": sorted(
                        per_issue.get(s.key, []), key=lambda link: (link["type"]["name"], int(link["id"]))
                    ),
                    "attachment": attachments,
                    **structure,
                    "comment": {
                        "comments": comments,
                        "maxResults": len(comments),
                        "total": len(comments),
                        "startAt": 0,
                    },
                },
            }
        )
    return projects, issues, link_rows
