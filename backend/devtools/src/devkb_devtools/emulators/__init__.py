"""Emulators of the Jira, Confluence and GitHub REST APIs, served from a recorded dataset.

Real HTTP servers on loopback that speak the protocols devkb's loaders use, for integration
tests and the demo mode::

    from devkb_devtools.emulators import Dataset, EmulatorSuite

    with EmulatorSuite(Dataset.load("../shared/data/fluid")) as suite:
        jira = atlassian.Jira(url=suite.jira_url)
        suite.faults.server_error(503, times=2, service="jira")
        suite.dataset.update_issue("FLUID-6000", {"summary": "changed"})

Modules: :mod:`.dataset` (data + mutations), :mod:`.faults` (fault switches, request log),
:mod:`.jira`, :mod:`.confluence`, :mod:`.github` (the apps), :mod:`.server` (HTTP servers).
``python -m devkb_devtools.emulators --dataset DIR --port N`` serves all three on ports N, N+1, N+2.
"""

from devkb_devtools.emulators.confluence import ConfluenceEmulator
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import Fault, FaultSwitches, RequestLog, RequestRecord
from devkb_devtools.emulators.git_repository import GitRepository
from devkb_devtools.emulators.github import GitHubEmulator
from devkb_devtools.emulators.jira import JiraEmulator
from devkb_devtools.emulators.server import EmulatorServer, EmulatorSuite, EmulatorUrls

__all__ = [
    "ConfluenceEmulator",
    "Dataset",
    "EmulatorServer",
    "EmulatorSuite",
    "EmulatorUrls",
    "Fault",
    "FaultSwitches",
    "GitHubEmulator",
    "GitRepository",
    "JiraEmulator",
    "RequestLog",
    "RequestRecord",
]
