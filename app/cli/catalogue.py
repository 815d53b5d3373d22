"""`clusterplan catalogue`: maintain the price catalogue (pricing/data/); its one action,
`import-skypilot`, reads SkyPilot's catalog (pricing/catalogue/skypilot_import.py)."""

from __future__ import annotations

import argparse
import pathlib

from app.cli.common import Parser, UsageError, iso_date, one_line, printable
from models.errors import InputError


def register(sub) -> None:
    cat = sub.add_parser("catalogue", help="maintain the price catalogue (pricing/data/)")
    cat_sub = cat.add_subparsers(
        dest="catalogue_command", metavar="ACTION", parser_class=Parser, required=True
    )
    imp = cat_sub.add_parser(
        "import-skypilot",
        help="rental prices from SkyPilot's catalog (<cloud>/vms.csv) into rental_prices.csv",
        description="Read SkyPilot's published catalog (one vms.csv, or a folder of "
        "<cloud>/vms.csv as in skypilot-org/skypilot-catalog catalogs/v8), take for each GPU the "
        "catalogue carries the price per GPU-hour (Price / AcceleratorCount, and SpotPrice for "
        "spot), its median over instance types per provider and region, and show what would "
        "change in rental_prices.csv. --write merges them in, after checking that the merged "
        "catalogue loads. A price per GPU-hour outside 0.01..1000 USD, a provider or region name "
        "outside letters, digits, spaces and - _ . , ( ), a file over 20 MiB or 200,000 rows, or "
        "a price moving more than 10x refuses the whole import.",
    )
    imp.add_argument("path", metavar="PATH", help="a vms.csv, or a folder of <cloud>/vms.csv")
    imp.add_argument(
        "--write",
        action="store_true",
        help="write the merged rental_prices.csv (default: only report what would change)",
    )
    imp.add_argument(
        "--allow-large-changes",
        action="store_true",
        help="accept a price more than 10x above or below the catalogue's (refused by default, "
        "as a unit slip or a broken file)",
    )
    imp.add_argument(
        "--as-of",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help="the date of the prices (default: today)",
    )
    imp.add_argument(
        "--cloud",
        metavar="NAME",
        help="the cloud of a single vms.csv (default: the name of its folder), e.g. aws",
    )
    imp.add_argument(
        "--data-dir",
        metavar="DIR",
        help="the catalogue folder to compare with and write to (default pricing/data)",
    )


def run(args: argparse.Namespace) -> int:
    # imported here: only this command reads SkyPilot files
    from pricing.catalogue import skypilot_import as sky

    prog = f"clusterplan catalogue {args.catalogue_command}"
    data_dir = pathlib.Path(args.data_dir) if args.data_dir else None
    try:
        parsed = sky.parse(args.path, args.cloud)
        rows = sky.to_rows(parsed, as_of=args.as_of)
        _, current = sky.read_rentals(data_dir)
        changes = sky.diff(rows, current)
        sky.check_changes(changes, parsed, args.allow_large_changes)
        written = sky.write(rows, data_dir) if args.write else None
    except InputError as exc:
        raise UsageError(f"{prog}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{prog}: {exc.strerror or exc.__class__.__name__}") from None
    for line in sky.report_lines(changes, parsed):  # columns kept; the file's text made safe
        print(printable(line))
    tail = (
        f"wrote {written.path}: {written.rows} rows ({written.replaced} replaced, "
        f"{written.added} added; it loads)"
        if written
        else "nothing written (--write merges them in)"
    )
    print(one_line(f"{sky.summary(changes, parsed)}; {tail}"))
    return 0
