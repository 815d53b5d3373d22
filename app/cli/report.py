"""`clusterplan report`: a scenario file's comparison as a PDF (app/report_pdf/)."""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import sys
from typing import TYPE_CHECKING

from app import settings
from app.cli.common import UsageError, compare, one_line, refused_input, scenario_files, share_link
from models.errors import InputError

if TYPE_CHECKING:
    from models.scenario import Scenario


def register(sub) -> None:
    r = sub.add_parser(
        "report",
        help="write a PDF report of a scenario file's comparison",
        description="Write the comparison of a scenario file as a PDF: recommendation, charts (they "
        "need Chromium; without it the tables hold every number), totals, every assumption "
        "with its source and date, and a share link that reopens the scenario.",
    )
    r.add_argument(
        "scenario", metavar="SCENARIO.json", help="scenario file ('-' for standard input)"
    )
    r.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.pdf",
        help="where to write the PDF ('-': standard output)",
    )
    r.add_argument(
        "--link",
        metavar="URL",
        help="the portal's address for the share link (default: $"
        f"{settings.ENV_BASE_URL}, else base_url in .streamlit/secrets.toml, else "
        f"{settings.LOCAL_BASE_URL}); a whole share link (with s=) must open this same "
        "scenario, and is printed as it is",
    )
    r.add_argument(
        "--title", metavar="TEXT", help="the cover's title (default: model on GPU count × GPU)"
    )


def report_link(scenario: Scenario, url: str | None) -> str:
    """The share link printed in a report: the scenario's own link at `url` (a portal address,
    by default the configured one), or `url` itself when it is already a share link, which must
    open this same scenario. Either address is checked (settings.check_base_url): BaseUrlError
    naming `--link` or the setting."""
    if url is None:
        return share_link.link_url(scenario, settings.base_url())
    url = settings.check_base_url(url, "--link")
    if re.search(r"[?&]s=", url):
        linked = share_link.decode(share_link.token_from_url(url))
        if linked.model_dump(mode="json") != scenario.model_dump(mode="json"):
            raise share_link.LinkError(
                "the share link opens a different scenario from the report's; give the portal's "
                "address without s=, or this scenario's own link (clusterplan link SCENARIO.json)"
            )
        return url
    return share_link.link_url(scenario, url)


def check_output(path: str) -> None:
    """Refuses an -o/--output that the PDF could not be written to, before any work on the PDF."""
    if path == "-":
        return
    target = pathlib.Path(path)
    folder = target.parent
    try:
        if target.is_dir():
            problem = "it is a directory"
        elif target.exists():  # overwritten in place (a file, /dev/stdout): the file's permission
            if os.access(target, os.W_OK):
                return
            problem = "permission denied"
        elif not folder.is_dir():
            problem = f"{'not a directory' if folder.exists() else 'no such directory'}: {folder}"
        elif not os.access(folder, os.W_OK | os.X_OK):
            problem = "permission denied"
        else:
            return
    except OSError as exc:
        problem = exc.strerror or exc.__class__.__name__
    raise UsageError(f"clusterplan report: -o/--output: cannot write {path}: {problem}")


def run(args: argparse.Namespace) -> int:
    from app import report_pdf  # fpdf2 and the browser only for this command

    check_output(args.output)
    try:
        scenario = scenario_files.read_scenario(args.scenario)
        link = report_link(scenario, args.link)
        comparison = compare(scenario)
        report = report_pdf.build_report(comparison, link=link, title=args.title)
    except scenario_files.ScenarioInputError as exc:
        raise UsageError(f"clusterplan report: {exc}") from None
    except share_link.LinkError as exc:
        raise UsageError(f"clusterplan report: --link: {exc}") from None
    except settings.BaseUrlError as exc:  # it names --link or the setting
        raise UsageError(f"clusterplan report: {exc}") from None
    except InputError as exc:
        raise refused_input("clusterplan report", args.scenario, exc) from None
    except report_pdf.ReportError as exc:
        raise UsageError(f"clusterplan report: {exc}") from None
    try:
        if args.output == "-":
            sys.stdout.buffer.write(report.data)
            sys.stdout.flush()
        else:
            with open(args.output, "wb") as f:
                f.write(report.data)
    except OSError as exc:
        raise UsageError(
            f"clusterplan report: cannot write {args.output}: "
            f"{exc.strerror or exc.__class__.__name__}"
        ) from None
    if not report.charts:
        print(f"clusterplan report: {report.charts_note}", file=sys.stderr)
    where = "standard output" if args.output == "-" else args.output
    print(
        one_line(f"{where}: {report.pages} pages"),
        file=sys.stderr if args.output == "-" else sys.stdout,
    )
    return 0
