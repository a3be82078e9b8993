"""``AccessPolicy``: who the current reader is and whether they may read a document.

The policy is the single place that decides; ``ScopedStore`` and the retrieval snapshot ask it.
A reader may read a document when they are unrestricted (an admin, or the single user of a
server without accounts), when an admin shared it with every member, or when their principals
pass every gate of the document's ``acl`` (``sources/acl.py``). One exception to the first: a
private memory (``memory/``) is its owner's alone, an admin's reads included.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from devkb.access.accounts import AccountStore, User
from devkb.access.readers import EVERYTHING, NOBODY, Reader, current_reader
from devkb.sources import acl
from devkb.store.models import Document, SourceType


class AccessPolicy:
    def __init__(
        self, accounts: Callable[[], AccountStore] | None = None, cache_seconds: float = 2.0
    ) -> None:
        self._accounts = accounts
        self.cache_seconds = cache_seconds
        self._lock = threading.Lock()
        self._version: tuple[float, int] = (-1.0, 0)
        self._shared: tuple[int, frozenset[str]] = (-1, frozenset())
        self._principals: dict[tuple[str, int], frozenset[str]] = {}

    @property
    def accounts(self) -> AccountStore | None:
        return self._accounts() if self._accounts is not None else None

    @property
    def enabled(self) -> bool:
        """Accounts exist: anonymous requests are refused and reads are scoped."""
        store = self.accounts
        return store is not None and store.user_count() > 0

    def default_reader(self) -> Reader:
        return NOBODY if self.enabled else EVERYTHING

    def reader(self) -> Reader:
        """The reader of the current request (or the default when none was set)."""
        return current_reader(self.default_reader())

    def version(self) -> int:
        store = self.accounts
        if store is None:
            return 0
        now = time.monotonic()
        with self._lock:
            checked, value = self._version
            if now - checked < self.cache_seconds:
                return value
        value = store.version()
        with self._lock:
            self._version = (now, value)
        return value

    def forget(self) -> None:
        """Drop cached permission data (after a permission sync or a share)."""
        with self._lock:
            self._version = (-1.0, 0)
            self._principals.clear()

    def reader_for(self, user: User) -> Reader:
        version = self.version()
        key = (user.email, version)
        with self._lock:
            principals = self._principals.get(key)
        if principals is None:
            store = self.accounts
            mapped = store.memberships(user.email) if store is not None else set()
            principals = frozenset({acl.user(user.email), acl.EVERYONE, *mapped})
            with self._lock:
                if len(self._principals) > 10_000:
                    self._principals.clear()
                self._principals[key] = principals
        return Reader(
            email=user.email, role=user.role, name=user.name, principals=principals, version=version
        )

    # -- beyond reading: administration and operational visibility ---------------------------
    def may_administer(self, reader: Reader | None) -> bool:
        """Whether ``reader`` (the request's, None when nobody signed in) may manage users, shared
        documents, syncs and the permission sync: an admin, the operator's key, the single user
        of a server without accounts. How a request proves it (cookie, token, key, loopback) is
        the API's and MCP's business; who may is decided here."""
        if reader is None:
            return not self.enabled
        return reader.role in ("admin", "system")

    def sees_operations(self, reader: Reader | None) -> bool:
        """Whether ``reader`` sees what describes every document — counts, sync runs and their
        errors, source configuration — rather than only the documents they may read: the people
        who may administer."""
        return self.may_administer(reader)

    def shared_ids(self) -> frozenset[str]:
        store = self.accounts
        if store is None:
            return frozenset()
        version = self.version()
        with self._lock:
            if self._shared[0] == version:
                return self._shared[1]
        ids = frozenset(store.shared_ids())
        with self._lock:
            self._shared = (version, ids)
        return ids

    # -- decisions ------------------------------------------------------------------------
    def may_read(self, reader: Reader, document: Document) -> bool:
        if reader.unfiltered:
            return True
        if private_to_another(reader, document):
            return False
        if reader.unrestricted:
            return True
        if reader.role == "nobody":
            return False
        if document.id in self.shared_ids():
            return True
        return acl.satisfies(reader.principals, acl.gates_of(document.metadata))

    def readable(self, reader: Reader, documents: Sequence[Document]) -> list[Document]:
        if reader.unfiltered:
            return list(documents)
        return [d for d in documents if self.may_read(reader, d)]


def private_to_another(reader: Reader, document: Document) -> bool:
    """A private memory (``memory/``) of someone other than ``reader``: no one else reads it, not
    even an admin (its gate names its owner alone; this holds where an admin skips the gates)."""
    if document.type is not SourceType.MEMORY:
        return False
    meta = document.metadata
    return meta.get("scope") != "team" and str(meta.get("owner", "")).lower() != reader.email.lower()
