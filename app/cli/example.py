"""`clusterplan example`: a sample scenario, or a sample portfolio, as JSON."""

from __future__ import annotations

import argparse

from app.cli.common import scenario_files

#: the sample portfolios `clusterplan example --portfolio` prints (app/scenario_files.py PORTFOLIOS;
#: named here so that building the parser reads no scenario code)
PORTFOLIO_NAMES = ("enterprise", "university", "lab")


def register(sub) -> None:
    e = sub.add_parser("example", help="print a sample scenario (JSON) comparing all four options")
    e.add_argument(
        "--portfolio",
        choices=sorted(PORTFOLIO_NAMES),
        help="print a sample portfolio (scenario version 2) instead",
    )


def run(args: argparse.Namespace) -> int:
    print(scenario_files.example_json(args.portfolio))
    return 0
