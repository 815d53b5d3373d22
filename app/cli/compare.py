"""`clusterplan compare`: each option's cost and time for one scenario file, or 2-3 files side by
side (app/side_by_side.py)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING

from app.cli.common import (
    UsageError,
    compare,
    exports,
    printable,
    refused_input,
    report_text,
    scenario_files,
)
from models.errors import InputError

if TYPE_CHECKING:
    from pricing.results import Comparison

#: most scenario files `compare` takes (models/scenario_set.py MAX_SCENARIOS; named here so that
#: building the parser reads no scenario code)
MAX_COMPARE_FILES = 3


def register(sub) -> None:
    c = sub.add_parser(
        "compare",
        help="cost and time of each option for a scenario file; 2 or 3 files side by side",
    )
    c.add_argument(
        "scenario",
        metavar="SCENARIO.json",
        nargs="+",
        help="scenario file ('-' for standard input); two or three compare them side by side",
    )
    fmt = c.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help="print the whole comparison as JSON (several files: a list, in their order)",
    )
    fmt.add_argument("--csv", action="store_true", help="print one CSV row per option")


def run(args: argparse.Namespace) -> int:
    files = args.scenario
    if len(files) > 1:
        return run_side_by_side(args, files)
    args.scenario = files[0]
    comparison = compare_file(args.scenario)
    if args.json:
        print(exports.comparison_json(comparison))
    elif args.csv:
        sys.stdout.write(report_text.comparison_csv(comparison))
    else:
        print(report_text.comparison_report(comparison))
    return 0


def compare_file(path: str) -> Comparison:
    """The comparison of one scenario file; a file or input the engine refuses is a one-line
    usage error naming the file (and the field)."""
    try:
        return compare(scenario_files.read_scenario(path))
    except scenario_files.ScenarioInputError as exc:
        raise UsageError(f"clusterplan compare: {exc}") from None
    except InputError as exc:
        raise refused_input("clusterplan compare", path, exc) from None


def run_side_by_side(args: argparse.Namespace, files: list[str]) -> int:
    """`compare A.json B.json [C.json]`: each file compared as one file is, then side by side
    (app/side_by_side.py); with --json, the list of the comparisons in the files' order."""
    prog = "clusterplan compare"
    if len(files) > MAX_COMPARE_FILES:
        raise UsageError(
            f"{prog}: {len(files)} scenario files given; it compares one file, or 2 to "
            f"{MAX_COMPARE_FILES} side by side"
        )
    if args.csv:
        raise UsageError(f"{prog}: --csv takes one scenario file; use --json for several")
    if files.count("-") > 1:
        raise UsageError(f"{prog}: standard input ('-') can be read only once")
    sbs_core = importlib.import_module("pricing.side_by_side")
    sbs_app = importlib.import_module("app.side_by_side")
    comparisons = [compare_file(path) for path in files]
    if args.json:
        print(sbs_app.comparisons_json(comparisons))
        return 0
    names = sbs_app.file_names(files)
    result = sbs_core.side_by_side(list(zip(names, comparisons, strict=True)))
    for line in sbs_app.report(result).splitlines():
        print(printable(line))
    return 0
