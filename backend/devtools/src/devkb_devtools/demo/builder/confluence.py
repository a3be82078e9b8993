"""Confluence records: the space and its pages in storage format, with ancestors."""

from __future__ import annotations

import re
from typing import Any

from ..content import confluence_pages
from ..content.common import (
    GITHUB_HTML,
    PAGE_IDS,
    PAGE_ORDER,
    PAGE_TITLES,
    PEOPLE,
    SPACE_ID,
    SPACE_KEY,
    SPACE_NAME,
    WIKI_BASE,
    page_path,
    pr_url,
    quote_title,
)
from ..content.permissions import ACCOUNTS


def page_ref(slug: str) -> dict[str, Any]:
    pid = PAGE_IDS[slug]
    return {
        "id": pid,
        "type": "page",
        "status": "current",
        "title": PAGE_TITLES[slug],
        "_links": {"webui": page_path(slug), "self": f"{WIKI_BASE}/rest/api/content/{pid}"},
    }


def space_ref() -> dict[str, Any]:
    return {
        "id": SPACE_ID,
        "key": SPACE_KEY,
        "name": SPACE_NAME,
        "type": "global",
        "status": "current",
        "_links": {"webui": f"/display/{SPACE_KEY}", "self": f"{WIKI_BASE}/rest/api/space/{SPACE_KEY}"},
    }


def render_page_body(body: str, shas: dict[str, str]) -> str:
    def link(m: re.Match[str]) -> str:
        slug, _, text = m.group(1).partition("|")
        return f'<a href="{page_path(slug)}">{text or PAGE_TITLES[slug]}</a>'

    def jira_macro(m: re.Match[str]) -> str:
        return (
            '<ac:structured-macro ac:name="jira" ac:schema-version="1">'
            '<ac:parameter ac:name="server">Acme Jira</ac:parameter>'
            f'<ac:parameter ac:name="key">{m.group(1)}</ac:parameter></ac:structured-macro>'
        )

    body = re.sub(r"\{\{link:([^}]+)\}\}", link, body)
    body = re.sub(r"\{\{jira:([^}]+)\}\}", jira_macro, body)
    body = re.sub(
        r"\{\{pr:(\d+)\}\}", lambda m: f'<a href="{pr_url(int(m.group(1)))}">#{m.group(1)}</a>', body
    )
    body = re.sub(
        r"\{\{commit:(c\d+)\}\}",
        lambda m: f'<a href="{GITHUB_HTML}/commit/{shas[m.group(1)]}">{shas[m.group(1)][:7]}</a>',
        body,
    )
    assert "{{" not in body, body
    return body


def build_page_versions(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The older page versions (``confluence/versions.jsonl``, the emulator's format: the page as
    it was, ``status`` historical), made from the current pages by ``PAGE_VERSIONS``' edits."""
    current = {p["id"]: p for p in pages}
    out = []
    for slug, number, when, by, message, edits in confluence_pages.PAGE_VERSIONS:
        page = current[PAGE_IDS[slug]]
        assert number < page["version"]["number"], (slug, number)
        body = page["body"]["storage"]["value"]
        for now, then in edits:
            assert now in body, (slug, number, now[:60])
            body = body.replace(now, then)
        out.append(
            {
                "id": page["id"],
                "type": "page",
                "status": "historical",
                "title": page["title"],
                "version": {
                    "by": {"type": "known", "username": by, "displayName": PEOPLE[by].display},
                    "when": f"{when}.000Z",
                    "number": number,
                    "message": message,
                    "minorEdit": False,
                },
                "body": {"storage": {"value": body, "representation": "storage"}},
            }
        )
    return sorted(out, key=lambda v: (int(v["id"]), v["version"]["number"]))


def build_confluence(shas: dict[str, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    specs = {p.slug: p for p in confluence_pages.PAGES}
    space = {
        **space_ref(),
        "description": {
            "plain": {
                "value": "Design notes, runbooks and processes of the Payments Platform team (demo data).",
                "representation": "plain",
            }
        },
        "homepage": page_ref("home"),
    }
    pages = []
    for slug in PAGE_ORDER:
        p = specs[slug]
        chain: list[str] = []
        parent = p.parent
        while parent:
            chain.insert(0, parent)
            parent = specs[parent].parent
        pid = PAGE_IDS[slug]
        pages.append(
            {
                "id": pid,
                "type": "page",
                "status": "current",
                "title": PAGE_TITLES[slug],
                "space": space_ref(),
                "version": {
                    "by": {"type": "known", "username": p.by, "displayName": PEOPLE[p.by].display},
                    "when": f"{p.when}.000Z",
                    "number": p.version,
                    "minorEdit": False,
                },
                "ancestors": [page_ref(a) for a in chain],
                "body": {"storage": {"value": render_page_body(p.body, shas), "representation": "storage"}},
                "_links": {
                    "webui": page_path(slug),
                    "tinyui": f"/x/{pid}",
                    "self": f"{WIKI_BASE}/rest/api/content/{pid}",
                    "base": WIKI_BASE,
                    "context": "",
                },
                **comments_of(slug, pid),
                **restrictions_of(slug),
            }
        )
    for bid, title, by, when, body in confluence_pages.BLOG_POSTS:
        day = when[:10].replace("-", "/")
        pages.append(
            {
                "id": bid,
                "type": "blogpost",
                "status": "current",
                "title": title,
                "space": space_ref(),
                "version": {
                    "by": {"type": "known", "username": by, "displayName": PEOPLE[by].display},
                    "when": f"{when}.000Z",
                    "number": 1,
                    "minorEdit": False,
                },
                "ancestors": [],
                "body": {"storage": {"value": body, "representation": "storage"}},
                "_links": {
                    "webui": f"/display/{SPACE_KEY}/{day}/{quote_title(title)}",
                    "tinyui": f"/x/{bid}",
                    "self": f"{WIKI_BASE}/rest/api/content/{bid}",
                    "base": WIKI_BASE,
                    "context": "",
                },
            }
        )
    return space, pages


def restrictions_of(slug: str) -> dict[str, Any]:
    """A page's read restrictions, bookkeeping the emulator serves as ``restrictions.read`` (v1)."""
    found = confluence_pages.READ_RESTRICTIONS.get(slug)
    if not found:
        return {}
    users, groups = found
    return {
        "_restrictions": {
            "users": [
                {
                    "type": "known",
                    "username": u,
                    "displayName": PEOPLE[u].display if u in PEOPLE else ACCOUNTS[u].display,
                }
                for u in users
            ],
            "groups": [{"type": "group", "name": g} for g in groups],
        }
    }


def comments_of(slug: str, pid: str) -> dict[str, Any]:
    """A page's comments, kept as bookkeeping the emulator serves as ``children.comment`` (v1) and
    ``footer-comments`` (v2)."""
    rows = [c for c in confluence_pages.PAGE_COMMENTS if c[0] == slug]
    if not rows:
        return {}
    return {
        "_comments": [
            {
                "id": str(int(pid) * 100 + pos),
                "type": "comment",
                "status": "current",
                "title": f"Re: {PAGE_TITLES[slug]}",
                "version": {
                    "by": {"type": "known", "username": by, "displayName": PEOPLE[by].display},
                    "when": f"{when}.000Z",
                    "number": 1,
                },
                "body": {"storage": {"value": body, "representation": "storage"}},
            }
            for pos, (_slug, by, when, body) in enumerate(rows, 1)
        ]
    }
