"""A Jira issue (JSON of REST API v2 on Data Center, v3 on Cloud) → a ``SourceDocument``.

The text is what a reader of the issue sees: key and summary, the main fields, description,
environment, links and comments, each under a heading so chunks can cite their section.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from devkb.sources.base import SourceDocument
from devkb.sources.jira.adf import adf_to_text, is_adf
from devkb.store.models import Reference, SourceType


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


def issue_to_document(issue: dict[str, Any], browse_base: str) -> SourceDocument:
    key = issue["key"]
    f = issue.get("fields") or {}
    doc_id = jira_doc_id(key)
    summary = (f.get("summary") or "").strip()
    project = f.get("project") or {}
    comments = ((f.get("comment") or {}).get("comments")) or []
    components = [c.get("name") for c in f.get("components") or [] if c.get("name")]
    fix_versions = [v.get("name") for v in f.get("fixVersions") or [] if v.get("name")]
    versions = [v.get("name") for v in f.get("versions") or [] if v.get("name")]
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
        "affects_version": versions,
        "label": labels,
        "created": to_utc_iso(f.get("created")),
        "resolved": to_utc_iso(f.get("resolutiondate")),
        # the month it was resolved in (UTC), a find field: "what was resolved in May 2010"
        "resolved_month": to_utc_iso(f.get("resolutiondate"))[:7],
        "comment_count": len(comments),
    }
    meta = {k: v for k, v in meta.items() if v not in (None, "", [])}

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
        else:
            continue
        other_summary = ((other.get("fields") or {}).get("summary")) or ""
        link_lines.append(f"- {phrase} {other['key']}" + (f": {other_summary}" if other_summary else ""))
    if link_lines:
        parts.append("## Links\n" + "\n".join(link_lines))

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
    )
