"""GitHub REST v3 payloads (files, pull requests, commits, issues) → ``SourceDocument``s.

Ids: ``github:<owner>/<repo>:file:<path>`` / ``:pull:<n>`` / ``:commit:<sha>`` / ``:issue:<n>``.
Commit documents stay small (there is one per commit): subject, message, and at most
``MAX_FILES_LISTED`` changed files. ``reference_text`` holds exactly the fields the reference
rules read: a file's text, a commit's message, a pull request's title, branch and body.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from devkb.sources.base import SourceDocument
from devkb.sources.timestamps import to_utc_iso
from devkb.store.models import SourceType, Version

MAX_FILES_LISTED = 30
MAX_MESSAGE_CHARS = 6000
_LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".jsx": "javascript",
    ".java": "java",
    ".go": "go",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cs": "csharp",
    ".php": "php",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".html": "html",
    ".css": "css",
    ".sh": "shell",
}


def doc_id(repo: str, kind: str, key: str | int) -> str:
    return f"github:{repo}:{kind}:{key}"


def language_of(path: str) -> str | None:
    return _LANGUAGES.get(PurePosixPath(path).suffix.lower())


def _login(user: Any) -> str | None:
    return user.get("login") if isinstance(user, dict) else None


def file_to_document(
    repo: str, path: str, text: str, blob_sha: str, html_base: str, branch: str, updated_at: str = ""
) -> SourceDocument:
    meta: dict[str, Any] = {
        "repository": repo,
        "path": path,
        "sha": blob_sha,
        "size": len(text.encode("utf-8")),
        "language": language_of(path),
    }
    return SourceDocument(
        id=doc_id(repo, "file", path),
        type=SourceType.GITHUB,
        kind="file",
        title=path,
        url=f"{html_base.rstrip('/')}/{repo}/blob/{branch}/{path}",
        updated_at=updated_at,
        content=text,
        metadata={k: v for k, v in meta.items() if v is not None},
        reference_text={"content": text},
    )


def pull_to_document(
    repo: str,
    pull: dict[str, Any],
    review_comments: list[dict[str, Any]] | None = None,
    conversation: list[dict[str, Any]] | None = None,
    reviews: list[dict[str, Any]] | None = None,
) -> SourceDocument:
    """A pull request with its whole discussion: the conversation (issue comments), the reviews'
    verdicts and summaries, and the inline review comments."""
    number = int(pull["number"])
    title = (pull.get("title") or "").strip()
    body = (pull.get("body") or "").strip()
    head = pull.get("head") or {}
    base = pull.get("base") or {}
    head_ref = head.get("ref") or ""
    merged_at = pull.get("merged_at")
    state = "merged" if merged_at else pull.get("state") or ""
    meta: dict[str, Any] = {
        "repository": repo,
        "number": number,
        "state": state,
        "author": _login(pull.get("user")),
        "head": head_ref or None,
        "base": base.get("ref"),
        "head_sha": head.get("sha"),
        "merge_commit_sha": pull.get("merge_commit_sha") if merged_at else None,
        "created": to_utc_iso(pull.get("created_at")),
        "merged": to_utc_iso(merged_at) or None,
    }
    meta = {k: v for k, v in meta.items() if v not in (None, "")}
    facts = [
        ("State", state),
        ("Author", meta.get("author")),
        ("Branch", f"{head_ref or '?'} → {base.get('ref') or '?'}" if head_ref or base.get("ref") else None),
        ("Merged", (meta.get("merged") or "")[:10]),
        ("Merge commit", (meta.get("merge_commit_sha") or "")[:12]),
    ]
    parts = [f"PR #{number}: {title}\n" + " · ".join(f"{k}: {v}" for k, v in facts if v)]
    if body:
        parts.append("## Description\n" + body)
    comments = [c for c in review_comments or [] if (c.get("body") or "").strip()]
    if comments:
        lines = []
        for c in comments:
            where = c.get("path") or ""
            lines.append(
                f"### {_login(c.get('user')) or 'unknown'}"
                + (f" on {where}" if where else "")
                + f"\n{c['body'].strip()}"
            )
        parts.append("## Review comments\n" + "\n\n".join(lines))
    talk = [c for c in conversation or [] if (c.get("body") or "").strip()]
    if talk:
        parts.append(
            "## Conversation\n"
            + "\n\n".join(
                f"### {_login(c.get('user')) or 'unknown'} ({(c.get('created_at') or '')[:10]})\n{c['body'].strip()}"
                for c in talk
            )
        )
    verdicts = [r for r in reviews or [] if r.get("state") or (r.get("body") or "").strip()]
    if verdicts:
        lines = []
        for r in verdicts:
            state = str(r.get("state") or "").replace("_", " ").lower()
            head_line = (
                f"### {_login(r.get('user')) or 'unknown'}: {state} ({(r.get('submitted_at') or '')[:10]})"
            )
            lines.append(head_line + (f"\n{r['body'].strip()}" if (r.get("body") or "").strip() else ""))
        parts.append("## Reviews\n" + "\n\n".join(lines))
        approved = sorted(
            {_login(r.get("user")) or "" for r in verdicts if r.get("state") == "APPROVED"} - {""}
        )
        if approved:
            meta["approved_by"] = approved
    if marks := comment_marks([*talk, *comments]):
        meta["comments"] = marks
    people = [meta.get("author")] + [_login(c.get("user")) for c in [*comments, *talk, *verdicts]]
    named = [p for p in dict.fromkeys(people) if p]
    if named:
        meta["people"] = named
    ref_text = {"title": title, "head_ref": head_ref, "body": body}
    for i, c in enumerate(talk):
        ref_text[f"comment-{i + 1}"] = c["body"].strip()
    for i, r in enumerate(r for r in verdicts if (r.get("body") or "").strip()):
        ref_text[f"review-{i + 1}"] = r["body"].strip()
    return SourceDocument(
        id=doc_id(repo, "pull", number),
        type=SourceType.GITHUB,
        kind="pull",
        title=f"PR #{number}: {title}",
        url=pull.get("html_url") or "",
        updated_at=to_utc_iso(pull.get("updated_at")),
        content="\n\n".join(parts),
        metadata=meta,
        reference_text=ref_text,
    )


def cut_patch(patch: str, max_bytes: int) -> str:
    """``patch`` cut at a line end to at most ``max_bytes`` UTF-8 bytes (whole when it fits)."""
    raw = patch.encode()
    if len(raw) <= max_bytes:
        return patch
    head = raw[:max_bytes].decode(errors="ignore")
    return head[: head.rfind("\n") + 1] if "\n" in head else ""


def diff_versions(doc_id: str, commit: dict[str, Any], max_diff_bytes: int) -> list[Version]:
    """One ``diff`` version per changed file of a commit (``files[].patch``, cut to
    ``max_diff_bytes``), docs/history.md."""
    info = commit.get("commit") or {}
    message = (info.get("message") or "").strip()
    author = (info.get("author") or {}).get("name") or _login(commit.get("author")) or ""
    date = to_utc_iso((info.get("committer") or {}).get("date") or (info.get("author") or {}).get("date"))
    return [
        Version(
            document_id=doc_id,
            kind="diff",
            seq=i + 1,
            valid_from=date,
            author=author,
            message=message.splitlines()[0] if message else "",
            body=cut_patch(str(f.get("patch") or ""), max_diff_bytes),
            field=str(f.get("filename") or ""),
            from_value=str(f.get("previous_filename") or ""),
            to_value=str(f.get("status") or "modified"),
            ref=str(commit.get("sha") or ""),
        )
        for i, f in enumerate(commit.get("files") or [])
        if f.get("filename")
    ]


def commit_to_document(
    repo: str, commit: dict[str, Any], max_diff_bytes: int | None = None
) -> SourceDocument:
    """``max_diff_bytes``: keep each file's diff as a version, cut to that size (None: none kept)."""
    sha = commit["sha"]
    info = commit.get("commit") or {}
    message = (info.get("message") or "").strip()
    subject = message.splitlines()[0] if message else ""
    author = (info.get("author") or {}).get("name") or _login(commit.get("author"))
    date = to_utc_iso((info.get("committer") or {}).get("date") or (info.get("author") or {}).get("date"))
    files = commit.get("files") or []
    renames = [[f["previous_filename"], f["filename"]] for f in files if f.get("previous_filename")]
    meta: dict[str, Any] = {
        "repository": repo,
        "sha": sha,
        "author": author,
        "date": date,
        "parents": [p.get("sha") for p in commit.get("parents") or [] if p.get("sha")],
        "files_changed": len(files),
        "renames": renames,
    }
    meta = {k: v for k, v in meta.items() if v not in (None, "", [])}
    head = f"{sha[:7]} {subject}\nCommit {sha} · Author: {author or '?'} · Date: {date[:10]}"
    parts = [head]
    rest = message[len(subject) :].strip()
    if rest:
        parts.append(rest[:MAX_MESSAGE_CHARS])
    if files:
        lines = []
        for f in files[:MAX_FILES_LISTED]:
            moved = f" (from {f['previous_filename']})" if f.get("previous_filename") else ""
            lines.append(f"- {f.get('status', 'changed')} {f.get('filename')}{moved}")
        if len(files) > MAX_FILES_LISTED:
            lines.append(f"- … and {len(files) - MAX_FILES_LISTED} more")
        parts.append(f"## Changed files ({len(files)})\n" + "\n".join(lines))
    return SourceDocument(
        id=doc_id(repo, "commit", sha),
        type=SourceType.GITHUB,
        kind="commit",
        title=f"{sha[:7]} {subject[:120]}",
        url=commit.get("html_url") or "",
        updated_at=date,
        content="\n\n".join(parts),
        metadata=meta,
        reference_text={"message": message},
        versions=[]
        if max_diff_bytes is None
        else diff_versions(doc_id(repo, "commit", sha), commit, max_diff_bytes),
    )


def comment_marks(comments: list[dict[str, Any]]) -> list[dict[str, str]]:
    """When and by whom each comment was made, oldest first ("What changed" lists them)."""
    marks = [
        {"at": to_utc_iso(c.get("created_at")), "by": _login(c.get("user")) or "unknown"}
        for c in comments
        if c.get("created_at")
    ]
    return sorted(marks, key=lambda m: m["at"])


def issue_to_document(
    repo: str, issue: dict[str, Any], comments: list[dict[str, Any]] | None = None
) -> SourceDocument:
    number = int(issue["number"])
    title = (issue.get("title") or "").strip()
    body = (issue.get("body") or "").strip()
    labels = [str(lb["name"]) for lb in issue.get("labels") or [] if isinstance(lb, dict) and lb.get("name")]
    meta: dict[str, Any] = {
        "repository": repo,
        "number": number,
        "state": issue.get("state"),
        "author": _login(issue.get("user")),
        "label": labels,
        "created": to_utc_iso(issue.get("created_at")),
    }
    meta = {k: v for k, v in meta.items() if v not in (None, "", [])}
    parts = [
        f"#{number}: {title}\n"
        + " · ".join(
            f"{k}: {v}"
            for k, v in (
                ("State", meta.get("state")),
                ("Author", meta.get("author")),
                ("Labels", ", ".join(labels)),
            )
            if v
        )
    ]
    if body:
        parts.append("## Description\n" + body)
    ref_text = {"title": title, "body": body}
    texts = [c for c in comments or [] if (c.get("body") or "").strip()]
    if texts:
        parts.append(
            "## Comments\n"
            + "\n\n".join(
                f"### {_login(c.get('user')) or 'unknown'} ({(c.get('created_at') or '')[:10]})\n{c['body'].strip()}"
                for c in texts
            )
        )
        ref_text.update({f"comment-{i + 1}": c["body"] for i, c in enumerate(texts)})
        meta["comments"] = comment_marks(texts)
    return SourceDocument(
        id=doc_id(repo, "issue", number),
        type=SourceType.GITHUB,
        kind="gh-issue",
        title=f"#{number}: {title}",
        url=issue.get("html_url") or "",
        updated_at=to_utc_iso(issue.get("updated_at")),
        content="\n\n".join(parts),
        metadata=meta,
        reference_text=ref_text,
    )
