"""`clusterplan`: the planner's engine from a shell, for people and scripts.

Bad input exits with status 2 and one line on stderr that names the option and what would work;
whatever the input held, that line is printable and bounded (`common.one_line`).

Each sub-command is a module of this package, listed in COMMANDS: its `register(subparsers)` adds
the sub-command's parser, its `run(args)` runs it and returns the exit status. What they share (the
parser class, argument types, printing, the engine imported on first use) is in common.py. Building
the parser imports every module here, so none of them imports the engine, pandas or plotly at the
top (tests/test_cli_start.py).
"""

from __future__ import annotations

import sys

from app.cli import (
    catalogue,
    compare,
    decode,
    example,
    finetune,
    hourly,
    link,
    report,
    schema,
    serve,
    train,
    validate,
)
from app.cli.common import Parser, UsageError, one_line

#: sub-command -> its module, in the order `clusterplan --help` lists them
COMMANDS = {
    "train": train,
    "example": example,
    "schema": schema,
    "compare": compare,
    "report": report,
    "hourly": hourly,
    "catalogue": catalogue,
    "link": link,
    "decode": decode,
    "validate": validate,
    "serve": serve,
    "finetune": finetune,
}


def build_parser() -> Parser:
    parser = Parser(prog="clusterplan", description="GPU Cluster Planner command line.")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for module in COMMANDS.values():
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return COMMANDS[args.command].run(args)
    except UsageError as exc:
        print(one_line(exc), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
