"""Expected cross-reference edges, derived from the built records with the rules of the fluid
README (section ``eval/``) plus ``confluence-link`` and ``confluence-parent``."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_plus

from ..content.common import GH, GITHUB_REPO, SPACE_KEY, WIKI_BASE
from .gitobjects import Files

KEY_RE = re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b")


def jira_text(issue: dict[str, Any]) -> str:
    f = issue["fields"]
    parts = [f["summary"], f["description"], f["environment"]] + [c["body"] for c in f["comment"]["comments"]]
    return "\n".join(p for p in parts if p)


def known_keys(text: str, keys: set[str]) -> list[str]:
    out: list[str] = []
    for k in KEY_RE.findall(text or ""):
        if k in keys and k not in out:
            out.append(k)
    return out


def compute_edges(issues, link_rows, commits, pulls, files: Files, pages) -> list[dict[str, Any]]:
    keys = {i["key"] for i in issues}
    commit_shas = [c["sha"] for c in commits]
    pr_numbers = {p["number"] for p in pulls}
    title_to_page = {p["title"]: p["id"] for p in pages}
    edges: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()

    def add(src: str, dst: str, kind: str, **extra: Any) -> None:
        if (src, dst, kind) not in seen:
            seen.add((src, dst, kind))
            edges.append({"from": src, "to": dst, "kind": kind, **extra})

    for outward, inward, type_name, phrase, link_id in link_rows:
        add(
            f"jira:{outward}",
            f"jira:{inward}",
            "jira-issuelink",
            link_type=type_name,
            phrase=phrase,
            link_id=link_id,
        )
    for issue in issues:  # Jira Software structure: sub-task → parent, issue → epic
        f = issue["fields"]
        if isinstance(f.get("parent"), dict):
            add(f"jira:{issue['key']}", f"jira:{f['parent']['key']}", "jira-subtask")
        if f.get("customfield_10008"):
            add(f"jira:{issue['key']}", f"jira:{f['customfield_10008']}", "jira-epic")
    for c in commits:
        for k in known_keys(c["commit"]["message"], keys):
            add(f"jira:{k}", f"{GH}:commit:{c['sha']}", "jira-key-in-commit-message")
    for p in pulls:
        found: dict[str, list[str]] = {}
        for field, text in (("title", p["title"]), ("head.ref", p["head"]["ref"]), ("body", p["body"])):
            for k in known_keys(text or "", keys):
                found.setdefault(k, []).append(field)
        for k, fields in found.items():
            add(f"jira:{k}", f"{GH}:pull:{p['number']}", "jira-key-in-pull-request", fields=fields)
    repo = re.escape(f"github.com/{GITHUB_REPO}")
    for issue in issues:
        src, text = f"jira:{issue['key']}", jira_text(issue)
        for m in re.finditer(repo + r"/pull/(\d+)", text):
            if int(m.group(1)) in pr_numbers:
                add(src, f"{GH}:pull:{m.group(1)}", "jira-mentions-pull-request-url")
        for m in re.finditer(repo + r"/commit/([0-9a-f]{7,40})\b", text):
            hits = [s for s in commit_shas if s.startswith(m.group(1))]
            if len(hits) == 1:
                add(src, f"{GH}:commit:{hits[0]}", "jira-mentions-commit-url")
        for m in re.finditer(repo + r"/blob/[^/\s]+/([^\s)>\]\"'#?]+)", text):
            if m.group(1) in files:
                add(src, f"{GH}:file:{m.group(1)}", "jira-mentions-doc-url")
        for m in re.finditer(re.escape(WIKI_BASE) + r"/display/" + SPACE_KEY + r"/([^\s)>\]\"'#?]+)", text):
            pid = title_to_page.get(unquote_plus(m.group(1)))
            if pid:
                add(
                    src,
                    f"confluence:page:{pid}",
                    "jira-mentions-confluence-url",
                    match="site-path",
                    url=m.group(0),
                )
        for title, pid in title_to_page.items():
            if len(title.split()) < 3:
                continue
            for m in re.finditer(r"(?i)\b" + re.escape(title) + r"\b", text):
                if m.group(0)[0].isupper():
                    add(src, f"confluence:page:{pid}", "jira-mentions-confluence-title", title=title)
                    break
    for path in sorted(files):
        for k in known_keys(files[path].decode(), keys):
            add(f"{GH}:file:{path}", f"jira:{k}", "jira-key-in-doc")
    for page in pages:
        src = f"confluence:page:{page['id']}"
        body = page["body"]["storage"]["value"]
        for k in known_keys(body, keys):
            add(src, f"jira:{k}", "jira-key-in-confluence-page")
        for m in re.finditer(r'href="/display/' + SPACE_KEY + r'/([^"#?]+)"', body):
            pid = title_to_page.get(unquote_plus(m.group(1)))
            if pid and pid != page["id"]:
                add(src, f"confluence:page:{pid}", "confluence-link")
        if page["ancestors"]:
            add(f"confluence:page:{page['ancestors'][-1]['id']}", src, "confluence-parent")
    return edges
