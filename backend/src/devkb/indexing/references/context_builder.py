"""Builds the ``LinkContext`` for a sync run from the configured loaders and the store."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from devkb.indexing.references.context import LinkContext
from devkb.sources.base import LinkHinting, SourceLoader
from devkb.sources.url_keys import host_of
from devkb.store.models import SourceType, SyncState
from devkb.store.protocol import GraphStore


class LinkContextBuilder:
    def __init__(self, store: GraphStore, loaders: Iterable[SourceLoader]) -> None:
        self.store = store
        self.loaders = list(loaders)
        self._ctx = LinkContext()
        self._lock = threading.Lock()

    def current(self) -> LinkContext:
        return self._ctx

    def refresh(self, _loader: SourceLoader | None = None) -> LinkContext:
        """Ask every loader for its hints (project keys, repos, URLs), remember them in the
        store's sync state (so they survive a source being unreachable), and add what the store
        knows (Confluence titles and URLs)."""
        with self._lock:
            ctx = LinkContext()
            for loader in self.loaders:
                hints: dict[str, Any] = {}
                if isinstance(loader, LinkHinting):
                    try:
                        hints = loader.link_hints()
                    except Exception:  # fall back to the last known hints
                        state = self.store.get_sync_state(loader.name)
                        hints = (state.extra.get("link_hints") if state else None) or {}
                    else:
                        self._remember(loader.name, hints)
                self._merge(ctx, hints)
            for state in self.store.list_sync_states():
                self._merge(ctx, state.extra.get("link_hints") or {})
            for page in self.store.find_documents(types=[SourceType.CONFLUENCE], limit=1_000_000):
                ctx.confluence_titles.setdefault(page.title.lower(), page.id)
                for path in page.metadata.get("url_paths", []) or []:
                    ctx.confluence_urls.setdefault(path, page.id)
            self._add_repository_state(ctx)
            self._ctx = ctx
            return ctx

    def _remember(self, source: str, hints: dict[str, Any]) -> None:
        """Keep ``source``'s hints in its sync state, only when they changed, and read the state
        just before writing it: the sync of that source may be running beside this one and
        checkpointing its cursor into the same state (reading it before asking the source for its
        hints, an HTTP call, would write an older cursor back)."""
        state = self.store.get_sync_state(source)
        if (state is None and not hints) or (state is not None and state.extra.get("link_hints") == hints):
            return
        state = state or SyncState(source=source)
        state.extra = {**state.extra, "link_hints": hints}
        self.store.save_sync_state(state)

    @staticmethod
    def _merge(ctx: LinkContext, hints: dict[str, Any]) -> None:
        ctx.project_keys.update(hints.get("project_keys", []))
        ctx.jira_urls.update(hints.get("jira_urls", []))
        ctx.github_repos.update(hints.get("github_repos", []))
        for site in hints.get("doc_sites", []):
            t = tuple(site)
            if t not in ctx.doc_sites:
                ctx.doc_sites.append(t)
        for repo, paths in (hints.get("repo_files") or {}).items():
            ctx.repo_files.setdefault(repo, set()).update(paths)
        ctx.confluence_hosts.update(host_of(u) for u in hints.get("confluence_urls", []) if host_of(u))
        ctx.github_hosts.update(host_of(u) for u in hints.get("github_urls", []) if host_of(u))

    def _add_repository_state(self, ctx: LinkContext) -> None:
        """Files present in each repository and the renames its commits recorded (from the store)."""
        if not ctx.github_repos:
            return
        for doc_id in self.store.document_ids(type=SourceType.GITHUB):
            repo, kind, rest = (doc_id.split(":", 3)[1:] + ["", ""])[:3]
            if kind == "file":
                ctx.repo_files.setdefault(repo, set()).add(rest)
        for commit in self.store.find_documents(
            types=[SourceType.GITHUB], filters={"kind": "commit"}, limit=10_000_000
        ):
            repo = str(commit.metadata.get("repository") or "")
            for pair in commit.metadata.get("renames") or []:
                if repo and len(pair) == 2:
                    ctx.repo_renames.setdefault(repo, {}).setdefault(pair[0], set()).add(pair[1])
