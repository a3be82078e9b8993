"""Consistency checks over the built files: JSON, XML, shas, link targets, dates, e-mails, size."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import unquote_plus

from ..content.common import EMAIL, GH, REPO_DIR, SPACE_KEY
from ..content.permissions import ACCOUNTS
from .gitobjects import blob_sha, build_trees

MAX_DATA_BYTES = 330_000  # 320 KB before the older page versions (confluence/versions.jsonl)


def validate(out: dict[str, bytes]) -> list[str]:
    errors: list[str] = []

    def rows(path: str) -> list[dict[str, Any]]:
        result = []
        for n, line in enumerate(out[path].decode().splitlines(), 1):
            try:
                result.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{path}:{n}: {e}")
        return result

    issues = rows("data/jira/issues.jsonl")
    pages = rows("data/confluence/pages.jsonl")
    commits = rows(f"data/{REPO_DIR}/commits.jsonl")
    pulls = rows(f"data/{REPO_DIR}/pulls.jsonl")
    edges = rows("data/expected_edges.jsonl")
    questions = rows("data/questions.jsonl")
    tree = json.loads(out[f"data/{REPO_DIR}/tree.json"])
    for p in ("data/jira/projects.json", "data/confluence/space.json", f"data/{REPO_DIR}/repo.json"):
        json.loads(out[p])

    keys = {i["key"] for i in issues}
    page_ids = {p["id"] for p in pages}
    commit_shas = {c["sha"] for c in commits}
    tree_files = {e["path"]: e for e in tree["tree"] if e["type"] == "blob"}

    # Jira
    for i in issues:
        for link in i["fields"]["issuelinks"]:
            other = link.get("outwardIssue") or link.get("inwardIssue")
            if other["key"] not in keys:
                errors.append(f"{i['key']}: link to unknown {other['key']}")
    # Confluence: XML, ancestors, internal links
    ns = 'xmlns:ac="http://atlassian.com/content" xmlns:ri="http://atlassian.com/resource/identifier"'
    titles = {p["title"] for p in pages}
    for page in pages:
        body = page["body"]["storage"]["value"]
        try:
            ET.fromstring(f"<root {ns}>{body}</root>")
        except ET.ParseError as e:
            errors.append(f"page {page['id']}: XML {e}")
        for a in page["ancestors"]:
            if a["id"] not in page_ids:
                errors.append(f"page {page['id']}: unknown ancestor {a['id']}")
        for m in re.finditer(r'href="/display/' + SPACE_KEY + r'/([^"]+)"', body):
            if unquote_plus(m.group(1)) not in titles:
                errors.append(f"page {page['id']}: dangling link {m.group(1)}")
    # GitHub: shas of shipped files, tree, commit graph, pulls
    for path, entry in tree_files.items():
        content = out.get(f"data/{REPO_DIR}/tree/{path}")
        if content is None:
            errors.append(f"tree.json lists {path} but tree/ lacks it")
        elif blob_sha(content) != entry["sha"] or len(content) != entry["size"]:
            errors.append(f"{path}: sha/size mismatch")
    shipped = {p[len(f"data/{REPO_DIR}/tree/") :] for p in out if p.startswith(f"data/{REPO_DIR}/tree/")}
    if shipped != set(tree_files):
        errors.append("tree/ and tree.json differ")
    if build_trees({p: out[f"data/{REPO_DIR}/tree/{p}"] for p in shipped})[""] != tree["sha"]:
        errors.append("tree.json sha is not the tree of the shipped files")
    latest: dict[str, dict[str, Any]] = {}
    for c in reversed(commits):  # oldest first
        for parent in c["parents"]:
            if parent["sha"] not in commit_shas:
                errors.append(f"commit {c['sha']}: unknown parent")
        for f in c["files"]:
            latest[f["filename"]] = f
            if f.get("previous_filename"):
                latest.pop(f["previous_filename"], None)
    head_sha = json.loads(out["data/manifest.json"])["sources"]["github"]["commit"]
    head = next((c for c in commits if c["sha"] == head_sha), commits[0])
    if head["sha"] != head_sha or head["commit"]["tree"]["sha"] != tree["sha"]:
        errors.append("manifest.json HEAD is not a commit whose tree is tree.json")
    on_main = set()
    todo = [head["sha"]]
    by_sha = {c["sha"]: c for c in commits}
    while todo:
        s = todo.pop()
        if s not in on_main:
            on_main.add(s)
            todo.extend(p["sha"] for p in by_sha[s]["parents"])
    last_on_main: dict[str, dict[str, Any]] = {}
    for c in reversed(commits):
        if c["sha"] in on_main:
            for f in c["files"]:
                last_on_main[f["filename"]] = f
    for path, entry in tree_files.items():
        f = last_on_main.get(path)
        if f is None or f["sha"] != entry["sha"]:
            errors.append(f"{path}: last commit on main does not carry the shipped blob sha")
    for pr in pulls:
        if pr["head"]["sha"] not in commit_shas or pr["base"]["sha"] not in commit_shas:
            errors.append(f"PR #{pr['number']}: unknown head/base")
        if pr["merge_commit_sha"] and pr["merge_commit_sha"] not in commit_shas:
            errors.append(f"PR #{pr['number']}: unknown merge commit")
    # edges and questions point at existing nodes
    nodes = (
        {f"jira:{k}" for k in keys}
        | {f"confluence:page:{p}" for p in page_ids}
        | {f"{GH}:commit:{s}" for s in commit_shas}
        | {f"{GH}:pull:{p['number']}" for p in pulls}
        | {f"{GH}:file:{p}" for p in tree_files}
    )
    for edge in edges:
        for end in (edge["from"], edge["to"]):
            if end not in nodes:
                errors.append(f"edge endpoint missing: {end}")
    for q in questions:
        for g in q["gold"]:
            if g not in nodes:
                errors.append(f"question gold missing: {g}")
    # dates, e-mail addresses, size
    all_text = b"".join(out.values()).decode()
    for m in re.finditer(r"\b(20\d\d)-(\d\d)-\d\dT", all_text):
        if m.group(1) != "2026" or not "01" <= m.group(2) <= "10":
            errors.append(f"date outside 2026-01..2026-10: {m.group(0)}")
            break
    for m in re.finditer(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]+\b", all_text):
        accounts = {a.email for a in ACCOUNTS.values()}
        if m.group(0) != EMAIL and m.group(0) not in accounts and not m.group(0).startswith("git@github.com"):
            errors.append(f"e-mail address other than {EMAIL} and the accounts': {m.group(0)}")
    total = sum(len(v) for k, v in out.items() if k.startswith("data/"))
    if total > MAX_DATA_BYTES:
        errors.append(f"data/ is {total} bytes (> 330 KB)")
    return errors
