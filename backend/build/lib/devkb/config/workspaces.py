"""Built-in workspaces: sources that bring their own servers, found through the ``devkb.workspaces``
entry point group — the extension point through which the development tooling's demo workspace
(emulators on loopback serving a fictional payments team) reaches the product without the product
importing the tooling.

A distribution offers a workspace by naming an object that satisfies :class:`Workspace`::

    [project.entry-points."devkb.workspaces"]
    demo = "devkb_devtools.demo.workspace:DEMO_WORKSPACE"

devkb runs the ``demo`` workspace when no source is configured (no ``DEVKB_SOURCES_FILE``, no
``DEVKB_JIRA_URL``) and, with ``DEVKB_DEMO_USERS=true``, creates its users.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from devkb.config.sources_file import SourceConfig
from devkb.errors import ConfigurationError

ENTRY_POINT_GROUP = "devkb.workspaces"


@dataclass(frozen=True)
class WorkspaceUser:
    """A person of a workspace: a devkb user created for it, shown on its sign-in page."""

    email: str
    name: str
    role: str
    password: str
    sees: str  # what the sources grant them, in words (the sources decide; this only describes)


class RunningWorkspace(Protocol):
    """A started workspace: its sources (pointing at its servers) until :meth:`stop`."""

    @property
    def sources(self) -> list[SourceConfig]: ...

    def stop(self) -> None: ...


@runtime_checkable
class Workspace(Protocol):
    def start(self) -> RunningWorkspace: ...

    def users(self) -> Sequence[WorkspaceUser]: ...


def find_workspace(name: str) -> Workspace | None:
    """The workspace the installed distributions offer under ``name``, or None."""
    for entry in entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            workspace = entry.load()
        except ImportError as e:
            raise ConfigurationError(f"workspace {name!r} ({entry.value}) cannot be loaded: {e}") from e
        if not isinstance(workspace, Workspace):
            raise ConfigurationError(f"workspace {name!r} ({entry.value}) has no start() and users()")
        return workspace
    return None
