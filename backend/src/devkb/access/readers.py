"""Who is reading: the ``Reader`` of the current request, carried in a context variable.

Every read of the store made for a person goes through ``ScopedStore``, which asks
``current_reader()``. The API's authentication middleware sets it per request, the MCP endpoint
per tool call. Nothing else sets it, so the default decides what an unauthenticated read sees:
``EVERYTHING`` on a server without accounts (single-user, as before accounts existed) and
``NOBODY`` once accounts exist (fail closed: a code path that forgot to say who reads sees no
document rather than every document). Indexing and the retrieval snapshot read the unscoped store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Reader:
    """A reader and the principals they hold (``user:<email>``, ``everyone``, and the groups,
    source accounts and source scopes that the permission sync maps to their e-mail)."""

    email: str
    role: str = "member"  # admin | member
    principals: frozenset[str] = frozenset()
    version: int = 0  # of the permission data the principals were computed from
    name: str = ""  # the person's name as their account holds it ("Bob Payments"): whom "me" means

    @property
    def unrestricted(self) -> bool:
        """Admins (and the single user of a server without accounts) read every document."""
        return self.role in ("admin", "system")

    @property
    def unfiltered(self) -> bool:
        """Reads every document without a check: the operator (``system``: the data files' holder,
        the single user of a server without accounts). An admin is unrestricted but still never
        reads another person's private memory (``AccessPolicy.may_read``), so an admin's reads are
        checked."""
        return self.role == "system"

    @property
    def cache_key(self) -> str:
        """Equal for readers who may read exactly the same documents."""
        if self.unfiltered:
            return "*"
        if self.unrestricted:
            return f"*{self.email}"  # every document but other people's private memories
        return f"{self.version}:" + "\x00".join(sorted(self.principals))


EVERYTHING = Reader(email="", role="system")
NOBODY = Reader(email="", role="nobody")

_current: ContextVar[Reader | None] = ContextVar("devkb_reader", default=None)


def current_reader(default: Reader) -> Reader:
    value = _current.get()
    return default if value is None else value


def set_reader(reader: Reader | None) -> object:
    """Set the reader of this context; returns a token for ``reset_reader``."""
    return _current.set(reader)


def reset_reader(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]


@contextmanager
def reading_as(reader: Reader | None) -> Iterator[None]:
    token = _current.set(reader)
    try:
        yield
    finally:
        _current.reset(token)


def bound_to_current_reader(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` that runs as the reader current *now*, on whatever thread calls it later
    (tool calls run on worker threads, which start with an empty context)."""
    reader = _current.get()

    def run(*args: Any, **kwargs: Any) -> T:
        token = _current.set(reader)
        try:
            return function(*args, **kwargs)
        finally:
            _current.reset(token)

    return run
