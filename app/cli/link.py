"""`clusterplan link`: the share link (URL) that opens a scenario file in the portal."""

from __future__ import annotations

import argparse

from app import settings
from app.cli.common import UsageError, scenario_files, share_link


def register(sub) -> None:
    k = sub.add_parser(
        "link", help="print a share link (URL) that opens a scenario file in the portal"
    )
    k.add_argument(
        "scenario", metavar="SCENARIO.json", help="scenario file ('-' for standard input)"
    )
    k.add_argument(
        "--base-url",
        metavar="URL",
        help=f"the portal's address (default: ${settings.ENV_BASE_URL}, else base_url in "
        f".streamlit/secrets.toml, else {settings.LOCAL_BASE_URL})",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.base_url is None:
            base_url = settings.base_url()
        else:
            base_url = settings.check_base_url(args.base_url, "--base-url")
    except settings.BaseUrlError as exc:
        raise UsageError(f"clusterplan link: {exc}") from None
    try:
        data = scenario_files.read_scenario_data(args.scenario)
        print(share_link.link_url(data, base_url))
    except (scenario_files.ScenarioInputError, share_link.LinkError) as exc:
        raise UsageError(f"clusterplan link: {exc}") from None
    return 0
