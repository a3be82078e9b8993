"""A Jira issue (JSON of REST API v2 on Data Center, v3 on Cloud) → a ``SourceDocument``.

The text is what a reader of the issue sees: key and summary, the main fields, description,
environment, links and comments, each under a heading so chunks can cite their section.

Links: Jira shows a reader only the links to issues that reader may browse, and every reader of
an issue reads the same stored text. So the ``## Links`` section names a linked issue (key and
summary) only when everyone who may read this issue may read that one too: the same project, and
no security level other than this issue's own (``secured``: the security level of each issue the
loader found carrying one). Every link stays an edge (``jira-issuelink``), which the graph, the
neighbours and the answers show each reader only between documents they may read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from devkb.sources.acl import scope
from devkb.sources.base import SourceDocument
from devkb.sources.jira.adf import adf_to_text, is_adf
from devkb.store.models import Reference, SourceType, Version


def jira_doc_id(key: str) -> str:
    return f"jira:{key}"


# Jira's own timestamp shape ("2012-01-05T14:22:48.000+0000"): ``fromisoformat`` reads it as the
# first strptime format below does, ~60x faster (a sync parses four timestamps per issue).
_JIRA_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}")


def parse_jira_time(value: str | None) -> datetime | None:
    if not value:
        return None
    if _JIRA_TIME.fullmatch(value):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass  # out-of-range fields: let the formats below decide, as they always did
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z"):
        try:
            return datetime.strptime(value, fmt)
        except ValueError:
            continue
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def to_utc_iso(value: str | None) -> str:
    t = parse_jira_time(value)
    return "" if t is None else t.astimezone(UTC).isoformat(timespec="seconds")


def _name(obj: Any, attr: str = "name") -> str | None:
    return obj.get(attr) if isinstance(obj, dict) else None


def _person(obj: Any) -> str | None:
    return _name(obj, "displayName") or _name(obj, "name")


_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")


def rich_text(value: Any) -> str:
    """A description, environment or comment body as text: Cloud's ADF (REST API v3) through
    :func:`adf_to_text`, Data Center's wiki text as it is; line ends and runs of blank lines
    tidied the same way for both, so either deployment indexes the same text."""
    text = adf_to_text(value) if is_adf(value) else ("" if value is None else str(value))
    text = _TRAILING_SPACE.sub("\n", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()


HISTORY_FIELDS = {
    "status",
    "assignee",
    "resolution",
    "fix version",
    "fixversions",
    "sprint",
    "parent",
    "epic link",
}
_SPRINT_NAME = re.compile(r"name=([^,\]]+)")


def _field_named(issue: dict[str, Any], name: str) -> Any:
    """The value of the (custom) field called ``name`` in the search's ``names`` map."""
    names = issue.get("names")
    if not isinstance(names, dict):
        return None
    fields = issue.get("fields") or {}
    for field_id, label in names.items():
        if str(label).lower() == name and field_id in fields:
            return fields[field_id]
    return None


def structure(issue: dict[str, Any]) -> dict[str, Any]:
    """Jira Software structure: the parent of a sub-task, the epic (Cloud: a ``parent`` that is an
    Epic; Data Center: the "Epic Link" field) and sprint names (objects, or Data Center's old
    ``…Sprint@…[…,name=…,…]`` strings)."""
    f = issue.get("fields") or {}
    out: dict[str, Any] = {}
    parent = f.get("parent")
    if isinstance(parent, dict) and parent.get("key"):
        parent_type = ((parent.get("fields") or {}).get("issuetype") or {}).get("name", "")
        out["epic" if str(parent_type).lower() == "epic" else "parent"] = str(parent["key"])
    epic = _field_named(issue, "epic link")
    if isinstance(epic, str) and epic and "epic" not in out:
        out["epic"] = epic
    sprints: list[str] = []
    for s in _field_named(issue, "sprint") or []:
        if isinstance(s, dict) and s.get("name"):
            sprints.append(str(s["name"]))
        elif isinstance(s, str) and _SPRINT_NAME.search(s):
            sprints.append(_SPRINT_NAME.search(s).group(1))  # type: ignore[union-attr]
    if sprints:
        out["sprint"] = list(dict.fromkeys(sprints))
    return out


def history(issue: dict[str, Any]) -> list[dict[str, str]]:
    """Status, assignee, resolution, fix-version (and sprint/parent) transitions from
    ``expand=changelog``, oldest first: ``{at, by, field, from, to}``."""
    changelog = issue.get("changelog")
    if not isinstance(changelog, dict):
        return []
    rows: list[dict[str, str]] = []
    for h in changelog.get("histories") or []:
        if not isinstance(h, dict):
            continue
        by = _person(h.get("author")) or "unknown"
        at = to_utc_iso(h.get("created"))
        for item in h.get("items") or []:
            if not isinstance(item, dict) or str(item.get("field", "")).lower() not in HISTORY_FIELDS:
                continue
            rows.append(
                {
                    "at": at,
                    "by": by,
                    "field": str(item.get("field")),
                    "from": str(item.get("fromString") or ""),
                    "to": str(item.get("toString") or ""),
                }
            )
    return sorted(rows, key=lambda r: r["at"])


def issue_gates(issue: dict[str, Any], source: str) -> list[list[str]]:
    """Who may read the issue (:mod:`devkb.sources.acl`): Browse on its project and, when it has
    one, membership of its security level."""
    f = issue.get("fields") or {}
    project = (f.get("project") or {}).get("key") or str(issue["key"]).rpartition("-")[0]
    gates = [[scope(source, "project", str(project))]]
    security = f.get("security")
    if isinstance(security, dict) and security.get("id"):
        gates.append([scope(source, "security", str(security["id"]))])
    return gates


# the recipe of an issue's text: a stored issue read with another recipe is read again
# (``sources/base.VersionedText``); change it whenever the text (or the metadata) of an
# unchanged issue changes — nothing is re-embedded whose chunk text did not change
TEXT_VERSION = "3: when and by whom each comment was made (metadata.comments, for What changed)"


def link_shown(key: str, level: str | None, other: str, secured: Mapping[str, str]) -> bool:
    """Whether the link from ``key`` (security level ``level``) to ``other`` may be written into
    ``key``'s text: every reader of ``key`` may browse ``other`` (same project, and ``other``
    carries no security level or ``key``'s own)."""
    if key.rpartition("-")[0] != other.rpartition("-")[0]:
        return False
    return secured.get(other) in (None, level)


def issue_to_document(
    issue: dict[str, Any],
    browse_base: str,
    source: str = "jira",
    secured: Mapping[str, str] | None = None,
    levels_known: bool = True,
) -> SourceDocument:
    """``source``: the configured source name its gates (``metadata["acl"]``) name — the loader
    passes its own; ``jira``, the usual name, when a caller converts an issue on its own.
    ``secured``: issue key → security level id of the issues that carry one (the loader reads
    them before the issues); None when the caller knows of none. ``levels_known=False``: the
    loader could not read them, so no linked issue is named (closed, not open)."""
    key = issue["key"]
    f = issue.get("fields") or {}
    doc_id = jira_doc_id(key)
    shape = structure(issue)
    changes = history(issue)
    attachments = [
        str(a.get("filename")) for a in f.get("attachment") or [] if isinstance(a, dict) and a.get("filename")
    ]
    summary = (f.get("summary") or "").strip()
    project = f.get("project") or {}
    comments = ((f.get("comment") or {}).get("comments")) or []
    components = [c.get("name") for c in f.get("components") or [] if c.get("name")]
    fix_versions = [v.get("name") for v in f.get("fixVersions") or [] if v.get("name")]
    versions = [v.get("name") for v in f.get("versions") or [] if v.get("name")]
    # what the tracker says of each fix version (Jira's Version: ``released``, ``releaseDate``),
    # where it says it: the releases question then answers from it, not from the issues
    releases = [
        {
            "name": v["name"],
            **{
                k: v[src]
                for k, src in (("released", "released"), ("date", "releaseDate"))
                if v.get(src) is not None
            },
        }
        for v in f.get("fixVersions") or []
        if isinstance(v, dict) and v.get("name") and (v.get("released") is not None or v.get("releaseDate"))
    ]
    labels = [str(x) for x in f.get("labels") or []]
    meta: dict[str, Any] = {
        "key": key,
        "project": project.get("key"),
        "project_name": project.get("name"),
        "issue_type": _name(f.get("issuetype")),
        "status": _name(f.get("status")),
        "priority": _name(f.get("priority")),
        "resolution": _name(f.get("resolution")),
        "assignee": _person(f.get("assignee")),
        "reporter": _person(f.get("reporter")),
        "component": components,
        "fix_version": fix_versions,
        "fix_version_release": releases,
        "affects_version": versions,
        "label": labels,
        "created": to_utc_iso(f.get("created")),
        "resolved": to_utc_iso(f.get("resolutiondate")),
        # the month it was resolved in (UTC), a find field: "what was resolved in May 2010"
        "resolved_month": to_utc_iso(f.get("resolutiondate"))[:7],
        "comment_count": len(comments),
        # when and by whom each comment was made: what changed, as "What changed" lists it
        "comments": [
            {"at": to_utc_iso(c.get("created")), "by": _person(c.get("author")) or "unknown"}
            for c in comments
            if c.get("created")
        ],
        **shape,
        "attachment": attachments,
        "history": changes,
    }
    meta = {k: v for k, v in meta.items() if v not in (None, "", [])}
    security = f.get("security")
    if isinstance(security, dict) and security.get("name"):
        meta["security_level"] = str(security["name"])
    meta["acl"] = issue_gates(issue, source)
    level = str(security["id"]) if isinstance(security, dict) and security.get("id") else None

    head = [f"{key}: {summary}"]
    facts = [
        ("Type", meta.get("issue_type")),
        ("Status", meta.get("status")),
        ("Priority", meta.get("priority")),
        ("Resolution", meta.get("resolution")),
        ("Project", project.get("name")),
        ("Components", ", ".join(components)),
        ("Fix versions", ", ".join(fix_versions)),
        ("Affects versions", ", ".join(versions)),
        ("Labels", ", ".join(labels)),
        ("Assignee", meta.get("assignee")),
        ("Reporter", meta.get("reporter")),
        ("Parent", shape.get("parent")),
        ("Epic", shape.get("epic")),
        ("Sprint", ", ".join(shape.get("sprint", []))),
    ]
    head.append(" · ".join(f"{k}: {v}" for k, v in facts if v))
    parts = ["\n".join(head)]
    description = rich_text(f.get("description"))
    if description:
        parts.append("## Description\n" + description)
    environment = rich_text(f.get("environment"))
    if environment:
        parts.append("## Environment\n" + environment)

    references: list[Reference] = []
    link_lines = []
    for link in f.get("issuelinks") or []:
        ltype = link.get("type") or {}
        if "outwardIssue" in link:
            other = link["outwardIssue"]
            phrase = ltype.get("outward") or ltype.get("name") or "relates to"
            references.append(
                Reference(
                    doc_id,
                    jira_doc_id(other["key"]),
                    "jira-issuelink",
                    f"{key} {phrase} {other['key']}",
                    doc_id,
                )
            )
        elif "inwardIssue" in link:
            other = link["inwardIssue"]
            phrase = ltype.get("inward") or ltype.get("name") or "relates to"
            # the same edge as the other issue's outward side gives (same evidence, so the store
            # keeps one edge with two owners): a link seen only from this side is not lost
            outward = ltype.get("outward") or ltype.get("name") or "relates to"
            references.append(
                Reference(
                    jira_doc_id(other["key"]),
                    doc_id,
                    "jira-issuelink",
                    f"{other['key']} {outward} {key}",
                    doc_id,
                )
            )
        else:
            continue
        if not levels_known or not link_shown(key, level, other["key"], secured or {}):
            continue
        other_summary = ((other.get("fields") or {}).get("summary")) or ""
        link_lines.append(f"- {phrase} {other['key']}" + (f": {other_summary}" if other_summary else ""))
    if shape.get("parent"):
        parent_id = jira_doc_id(shape["parent"])
        references.append(
            Reference(doc_id, parent_id, "jira-subtask", f"{key} is a sub-task of {shape['parent']}", doc_id)
        )
    if shape.get("epic"):
        epic_id = jira_doc_id(shape["epic"])
        references.append(
            Reference(doc_id, epic_id, "jira-epic", f"{key} is in epic {shape['epic']}", doc_id)
        )
    if link_lines:
        parts.append("## Links\n" + "\n".join(link_lines))
    if attachments:
        parts.append("## Attachments\n" + "\n".join(f"- {name}" for name in attachments))

    ref_text = {"summary": summary, "description": description, "environment": environment}
    if comments:
        lines = []
        for i, c in enumerate(comments):
            body = rich_text(c.get("body"))
            who = _person(c.get("author")) or "unknown"
            when = (c.get("created") or "")[:10]
            lines.append(f"### {who} ({when})\n{body}")
            ref_text[f"comment-{i + 1}"] = body
        parts.append("## Comments\n" + "\n\n".join(lines))
    if changes:
        lines = []
        for c in changes:
            change = f"{c['from'] or 'none'} → {c['to'] or 'none'}"
            lines.append(f"- {c['at'][:16].replace('T', ' ')} {c['by']}: {c['field']} {change}")
        parts.append("## History\n" + "\n".join(lines))
    people = [meta.get("assignee"), meta.get("reporter")]
    people += [_person(c.get("author")) for c in comments] + [c["by"] for c in changes]
    named = [p for p in dict.fromkeys(people) if p and p != "unknown"]
    if named:
        meta["people"] = named

    return SourceDocument(
        id=doc_id,
        type=SourceType.JIRA,
        kind="issue",
        title=f"{key}: {summary}",
        url=f"{browse_base.rstrip('/')}/browse/{key}",
        updated_at=to_utc_iso(f.get("updated")),
        content="\n\n".join(parts),
        metadata=meta,
        references=references,
        reference_text=ref_text,
        versions=transition_versions(doc_id, changes),
    )


def transition_versions(doc_id: str, changes: list[dict[str, str]]) -> list[Version]:
    """The changelog rows (oldest first) as ``transition`` versions, each in force until its
    field's next change (docs/history.md)."""
    out: list[Version] = []
    for i, row in enumerate(changes):
        field = row["field"].lower()
        until = next((later["at"] for later in changes[i + 1 :] if later["field"].lower() == field), "")
        out.append(
            Version(
                document_id=doc_id,
                kind="transition",
                seq=i + 1,
                valid_from=row["at"],
                valid_until=until,
                author=row["by"],
                field=row["field"],
                from_value=row["from"],
                to_value=row["to"],
            )
        )
    return out
