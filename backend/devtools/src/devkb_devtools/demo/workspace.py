"""The built-in demo workspace: the emulators serve ``demo/data`` on loopback and devkb reads it
through the same loaders it uses for real Jira, Confluence and GitHub. It reaches the product
through the ``devkb.workspaces`` entry point (``DEMO_WORKSPACE``, declared in
``backend/devtools/pyproject.toml``; ``devkb/config/workspaces.py``), never by an import."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from devkb.config.sources_file import SourceConfig
from devkb.config.workspaces import WorkspaceUser
from devkb.sources.registry import available_types
from devkb_devtools.demo.content.permissions import ACCOUNTS
from devkb_devtools.demo.people import DEMO_USERS
from devkb_devtools.emulators import Dataset, EmulatorSuite, EmulatorUrls

DEMO_DATA = Path(__file__).parent / "data"
JIRA_PUBLIC_URL = "https://jira.example.com"
WIKI_PUBLIC_URL = "https://wiki.example.com"


def demo_sources(suite: EmulatorUrls) -> list[SourceConfig]:
    sources = [
        SourceConfig(
            name="wiki",
            type="confluence",
            url=suite.confluence_url,
            browse_url=WIKI_PUBLIC_URL,
            spaces=["PAY"],
            schedule="30m",
            # Confluence Data Center's REST API shows no e-mails: the permission sync maps user names
            people={a.name: a.email for a in ACCOUNTS.values()},
        ),
        SourceConfig(
            name="code", type="github", url=suite.github_url, repos=["acme/payments-service"], schedule="30m"
        ),
        SourceConfig(
            name="jira",
            type="jira",
            url=suite.jira_url,
            browse_url=JIRA_PUBLIC_URL,
            projects=["PAY", "WEB"],
            schedule="30m",
        ),
    ]
    usable = available_types()
    return [s for s in sources if s.type in usable]


def start_demo(data_dir: Path = DEMO_DATA) -> tuple[EmulatorSuite, list[SourceConfig]]:
    suite = EmulatorSuite(Dataset.load(data_dir)).start()
    return suite, demo_sources(suite)


@dataclass
class RunningDemo:
    suite: EmulatorSuite
    sources: list[SourceConfig]

    def stop(self) -> None:
        self.suite.stop()


class DemoWorkspace:
    """The demo as a ``devkb.workspaces`` entry: started when no source is configured."""

    def start(self) -> RunningDemo:
        suite, sources = start_demo()
        return RunningDemo(suite, sources)

    def users(self) -> Sequence[WorkspaceUser]:
        return [WorkspaceUser(u.email, u.name, u.role, u.password, u.sees) for u in DEMO_USERS]


DEMO_WORKSPACE = DemoWorkspace()
