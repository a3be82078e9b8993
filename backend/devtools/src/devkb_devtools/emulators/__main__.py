"""``python -m devkb_devtools.emulators --dataset DIR --port N``: serve Jira, Confluence and GitHub.

Jira listens on N, Confluence on N+1, GitHub on N+2 (``--port 0``: free ports). The dataset
defaults to the packaged demo workspace (``devkb_devtools/demo/data``). Stops on Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from pathlib import Path

from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.server import JIRA_DEPLOYMENTS, EmulatorSuite

DEMO_DATASET = Path(__file__).resolve().parents[1] / "demo" / "data"


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, start the suite, print the URLs and wait for a stop signal."""
    parser = argparse.ArgumentParser(
        prog="python -m devkb_devtools.emulators", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--dataset", type=Path, default=DEMO_DATASET, help="dataset directory (default: demo data)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8580, help="Jira port; Confluence +1, GitHub +2 (0: free ports)"
    )
    parser.add_argument(
        "--jira-deployment",
        choices=JIRA_DEPLOYMENTS,
        default="datacenter",
        help="datacenter: REST API v2 with offset search; cloud: v3, search/jql with page tokens, "
        "ADF bodies, 410 on the removed /search (default: datacenter)",
    )
    parser.add_argument(
        "--jira-time-zone",
        default="UTC",
        help="the bot user's time zone, in which JQL dates are read (default UTC)",
    )
    parser.add_argument(
        "--confluence-deployment",
        choices=("datacenter", "cloud"),
        default="datacenter",
        help="datacenter: REST API v1 at the root; cloud: under /wiki, REST API v2 for spaces, pages and "
        "labels (default: datacenter)",
    )
    parser.add_argument(
        "--github-enterprise",
        action="store_true",
        help="serve GitHub as GitHub Enterprise Server: the REST API under /api/v3",
    )
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(asctime)s %(message)s"
    )

    dataset = Dataset.load(args.dataset)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with EmulatorSuite(
        dataset,
        host=args.host,
        base_port=args.port or None,
        jira_deployment=args.jira_deployment,
        jira_time_zone=args.jira_time_zone,
        github_enterprise=args.github_enterprise,
        confluence_deployment=args.confluence_deployment,
    ) as suite:
        print(f"jira       {suite.jira_url}", flush=True)
        print(f"confluence {suite.confluence_url}", flush=True)
        print(f"github     {suite.github_url}", flush=True)
        try:
            stop.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
