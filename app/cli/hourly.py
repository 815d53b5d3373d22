"""`clusterplan hourly`: the all-in owned cost per GPU-hour against the catalogue's rental
prices."""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from app.cli.common import (
    UsageError,
    compare,
    explain_validation_error,
    load_catalogue,
    number,
    print_json,
    scenario_model,
    whole,
)
from models.errors import InputError
from models.hardware import gpu_ids
from models.options import OPTIONS, Staffing

#: the option `hourly` prices: owned hardware run by the buyer's own staff (the registry's build)
OWNED_STAFFED = next(s.id for s in OPTIONS if s.staffing is Staffing.OWNED)
RENTAL_OPTIONS = [s.id for s in OPTIONS if s.price_key and not s.managed]


def register(sub) -> None:
    h = sub.add_parser(
        "hourly", help="all-in owned cost per GPU-hour against the catalogue's rental prices"
    )
    h.add_argument("--gpu", default="H100-SXM", choices=gpu_ids(), metavar="ID")
    h.add_argument(
        "--gpus", type=whole, default=1024, metavar="N", help="cluster size (default 1024)"
    )
    h.add_argument(
        "--months", type=whole, default=60, metavar="N", help="term in months (default 60)"
    )
    h.add_argument(
        "--utilisation",
        type=number,
        nargs="+",
        default=[100.0, 60.0],
        metavar="PCT",
        help="utilisations to price, percent (default 100 60)",
    )
    h.add_argument(
        "--json",
        action="store_true",
        help="print the owned cost and its lines per utilisation, and every rental price the "
        "catalogue has for the GPU, as JSON",
    )


def run(args: argparse.Namespace) -> int:
    rows = []
    for util in args.utilisation:
        data = {
            "workload": {"model": "llama3-70b", "tokens": 1e12},
            "cluster": {"gpu": args.gpu, "gpus": args.gpus},
            "usage": {"mode": "utilisation", "utilisation_pct": util},
            "term": {"months": args.months},
            # the owned option first (the report reads it), then the options the rental
            # figures price, so an offer the cluster's size rules out is shown as not offered;
            # not bridged (pricing/bridge.py): an owned GPU-hour's own cost, not a blend with rent
            "options": {"compare": [OWNED_STAFFED, *RENTAL_OPTIONS], "bridge": False},
        }
        try:
            scenario = scenario_model.Scenario.model_validate(data)
            comparison = compare(scenario, decision=False)
        except ValidationError as exc:
            field, msg = explain_validation_error(exc)[0]
            raise UsageError(f"clusterplan hourly: {field}: {msg}") from None
        except InputError as exc:
            raise UsageError(f"clusterplan hourly: --{exc.field}: {exc}") from None
        rows.append((util, comparison))
    from app import report_hourly  # only this command needs it (the CLI starts light)

    if args.json:
        rentals = load_catalogue().rentals(args.gpu)  # the catalogue compare() priced with
        data = report_hourly.hourly_data(args.gpu, args.gpus, args.months, rows, rentals)
        print_json("clusterplan hourly", data)
    else:
        print(report_hourly.hourly_report(args.gpu, args.gpus, args.months, rows))
    return 0
