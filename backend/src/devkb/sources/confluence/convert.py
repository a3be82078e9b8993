"""A Confluence page (REST JSON with ``body.storage,version,ancestors,space``) → a ``SourceDocument``.

The text is the page as a reader sees it (``storage_format``), headed by its title and
breadcrumb. Metadata carries space, ancestors, labels, version and author, and ``url_paths``:
every URL key (``devkb.sources.url_keys``) under which the page can be linked — its ``webui``
and ``tinyui`` paths, ``viewpage.action?pageId=``, plus configured aliases (e.g. the public site
a space is published to). Reference rules resolve URLs in other documents through them.

Explicit references owned by the page: ``confluence-parent`` (parent → this page) and
``confluence-link`` (this page → every page it links to), resolved by a ``PageResolver``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote_plus, urlsplit

from devkb.sources.acl import account, group, scope
from devkb.sources.base import SourceDocument
from devkb.sources.confluence.storage_format import PageLink, storage_to_text
from devkb.sources.timestamps import to_utc_iso
from devkb.sources.url_keys import path_key, url_key
from devkb.store.models import Reference, SourceType

PageResolver = Callable[[PageLink, str], str | None]  # (link, space of the linking page) → page id


def page_doc_id(page_id: str | int) -> str:
    return f"confluence:page:{page_id}"


def page_url_paths(page: dict[str, Any], aliases: Iterable[str] = ()) -> list[str]:
    """URL keys of a page: its own server paths plus alias keys (already normalised)."""
    links = page.get("_links") or {}
    keys = [
        path_key(urlsplit(links[k]).path, urlsplit(links[k]).query)
        for k in ("webui", "tinyui")
        if links.get(k)
    ]
    keys.append(path_key("/pages/viewpage.action", f"pageId={page['id']}"))
    space_key, title = (page.get("space") or {}).get("key"), page.get("title")
    if space_key and title:  # the classic display path, which Cloud sites still resolve
        keys.append(path_key(f"/display/{space_key}/{quote_plus(title)}"))
    keys.extend(aliases)
    return list(dict.fromkeys(keys))


def _labels(page: dict[str, Any]) -> list[str]:
    labels = ((page.get("metadata") or {}).get("labels") or {}).get("results") or []
    return [str(x.get("name")) for x in labels if x.get("name")]


def read_restriction(restrictions: Any) -> dict[str, list[str]] | None:
    """``{"users": [...], "groups": [...]}`` from Confluence's ``read`` restriction object (v1
    ``restrictions.read`` or ``/restriction/byOperation/read``); None when nobody is named."""
    if not isinstance(restrictions, dict):
        return None
    inner = restrictions.get("restrictions") or {}
    users = [
        str(u.get("displayName") or u.get("username") or u.get("accountId"))
        for u in ((inner.get("user") or {}).get("results") or [])
        if isinstance(u, dict) and (u.get("displayName") or u.get("username") or u.get("accountId"))
    ]
    groups = [
        str(g.get("name"))
        for g in ((inner.get("group") or {}).get("results") or [])
        if isinstance(g, dict) and g.get("name")
    ]
    return {"users": users, "groups": groups} if users or groups else None


def restriction_gate(restrictions: Any, source: str) -> list[str] | None:
    """The gate (:mod:`devkb.sources.acl`) of a ``read`` restriction object: an ``account`` principal
    per user (Cloud ``accountId``, Data Center ``username`` or ``userKey``) and a ``group`` principal
    per group; None when it names nobody."""
    if not isinstance(restrictions, dict):
        return None
    inner = restrictions.get("restrictions") or {}
    gate = [
        account(source, str(u.get("accountId") or u.get("username") or u.get("userKey")))
        for u in ((inner.get("user") or {}).get("results") or [])
        if isinstance(u, dict) and (u.get("accountId") or u.get("username") or u.get("userKey"))
    ]
    gate += [
        group(source, str(g["name"]))
        for g in ((inner.get("group") or {}).get("results") or [])
        if isinstance(g, dict) and g.get("name")
    ]
    return gate or None


def page_to_document(
    page: dict[str, Any],
    base_url: str,
    resolve: PageResolver | None = None,
    aliases: Iterable[str] = (),
    inherited: Iterable[tuple[str, dict[str, list[str]]]] = (),
    source: str | None = None,
    inherited_gates: Iterable[list[str]] = (),
) -> SourceDocument:
    """``inherited``: (ancestor id, its read restriction) for the ancestors that have one — Confluence
    applies every ancestor's view restriction to the page as well as its own. ``source`` (the
    configured source name): the document carries its gates (``acl``): the space, its own read
    restriction and ``inherited_gates`` (those of the restricted ancestors, see
    :func:`restriction_gate`)."""
    page_id = str(page["id"])
    doc_id = page_doc_id(page_id)
    title = (page.get("title") or "").strip()
    space = page.get("space") or {}
    space_key = space.get("key") or ""
    version = page.get("version") or {}
    ancestors = [a for a in page.get("ancestors") or [] if a.get("id")]
    body = ((page.get("body") or {}).get("storage") or {}).get("value") or ""
    converted = storage_to_text(body)
    author = (version.get("by") or {}).get("displayName") or (version.get("by") or {}).get("username")
    webui = (page.get("_links") or {}).get("webui") or f"/pages/viewpage.action?pageId={page_id}"

    meta: dict[str, Any] = {
        "space": space_key,
        "space_name": space.get("name"),
        "page_id": page_id,
        "ancestors": [a.get("title") for a in ancestors if a.get("title")],
        "parent_id": str(ancestors[-1]["id"]) if ancestors else None,
        "label": _labels(page),
        "version": version.get("number"),
        "author": author,
        "url_paths": page_url_paths(page, aliases),
    }
    meta = {k: v for k, v in meta.items() if v not in (None, "", [])}
    # who may read it, as the source says: every set applies (own and inherited); a reader must be
    # named in each (user or group). Stored for permission enforcement; nothing is filtered here.
    own = read_restriction((page.get("restrictions") or {}).get("read"))
    applying = [{"page_id": page_id, **own}] if own else []
    applying += [{"page_id": str(pid), **r} for pid, r in inherited]
    if applying:
        meta["read_restrictions"] = applying
    if source is not None:
        gates = [[scope(source, "space", space_key)]]
        own_gate = restriction_gate((page.get("restrictions") or {}).get("read"), source)
        gates += [own_gate] if own_gate else []
        gates += [list(g) for g in inherited_gates if g and list(g) not in gates]
        meta["acl"] = gates

    references: list[Reference] = []
    if ancestors:
        parent = ancestors[-1]
        references.append(
            Reference(
                page_doc_id(parent["id"]), doc_id, "confluence-parent", parent.get("title") or "", doc_id
            )
        )
    hrefs = []
    for link in converted.links:
        if link.href:
            hrefs.append(link.href)
        target = resolve(link, space_key) if resolve else None
        if target and target != page_id:
            evidence = link.href or f"ri:page {link.title or link.content_id}"
            references.append(Reference(doc_id, page_doc_id(target), "confluence-link", evidence, doc_id))

    breadcrumb = " > ".join([*(a.get("title") or "" for a in ancestors), title])
    head = f"{title}\nSpace: {space.get('name') or space_key} · Path: {breadcrumb}"
    kind = "blogpost" if page.get("type") == "blogpost" else "page"
    if kind == "blogpost":
        meta["kind"] = "blogpost"
    text = f"{head}\n\n{converted.text}".strip()
    reference_text = {"body": converted.text, "links": "\n".join(hrefs)}
    comments = [
        c
        for c in ((page.get("children") or {}).get("comment") or {}).get("results") or []
        if isinstance(c, dict)
    ]
    lines = []
    marks = []  # when and by whom each comment was made ("What changed")
    for i, c in enumerate(comments):
        said = storage_to_text(((c.get("body") or {}).get("storage") or {}).get("value") or "").text.strip()
        if not said:
            continue
        by = (c.get("version") or {}).get("by") or {}
        who = by.get("displayName") or by.get("username") or "unknown"
        when = str((c.get("version") or {}).get("when") or "")
        lines.append(f"### {who} ({when[:10]})\n{said}")
        reference_text[f"comment-{i + 1}"] = said
        if when:
            marks.append({"at": to_utc_iso(when), "by": who})
    if lines:
        text += "\n\n## Comments\n" + "\n\n".join(lines)
        meta["comment_count"] = len(lines)
    if marks:
        meta["comments"] = marks
    return SourceDocument(
        id=doc_id,
        type=SourceType.CONFLUENCE,
        kind=kind,
        title=title,
        url=base_url.rstrip("/") + webui,
        updated_at=to_utc_iso(version.get("when")),
        content=text,
        metadata=meta,
        references=references,
        reference_text=reference_text,
    )


__all__ = ["PageResolver", "page_doc_id", "page_to_document", "page_url_paths", "to_utc_iso", "url_key"]
