"""`clusterplan decode`: the scenario JSON (and any Serve / Fine-tune inputs) inside a share
link."""

from __future__ import annotations

import argparse
import sys

from app.cli.common import UsageError, one_line, print_json, share_link


def register(sub) -> None:
    d = sub.add_parser(
        "decode",
        help="print the scenario JSON (and any Serve / Fine-tune inputs) inside a share link",
    )
    d.add_argument("url", metavar="URL", help="a share link, or just its s= token")


def run(args: argparse.Namespace) -> int:
    """The scenario JSON, with the Serve / Fine-tune sections the link carries (as in the link, with
    their `version`); a section that fails its checks is left out, named on stderr, status 1."""
    try:
        link = share_link.decode_link(share_link.token_from_url(args.url))
    except share_link.LinkError as exc:
        raise UsageError(f"clusterplan decode: {exc}") from None
    sections = {k: share_link.section_data(k, v) for k, v in link.sections.items()}
    print_json("clusterplan decode", {**link.scenario, **sections})
    for problem in link.problems.values():
        print(one_line(f"clusterplan decode: {problem}"), file=sys.stderr)
    return 1 if link.problems else 0
