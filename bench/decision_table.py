"""Which option wins, by cluster size, steady utilisation and term, with and without an in-house
operations team: the README's decision table, computed from the bundled catalogue.

`.venv/bin/python bench/decision_table.py [--gpu H100-SXM] [--markdown]`

Each cell is one comparison (the engine's `compare`, no decision support) of a steady workload on
that many GPUs: the cheapest option by NPV. "With an ops team" compares build (staffed by the
buyer), rent, managed, cloud on-demand and the cloud 3-year commitment; "without" drops build (the
buyer cannot run hardware) and offers managed on owned hardware instead.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from models.options import label  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from pricing.catalogue.loader import load_catalogue  # noqa: E402
from pricing.engine import compare  # noqa: E402

SIZES = (64, 256, 1024)
UTILISATION = (10, 30, 50, 70, 90)
TERMS = (36, 60)
WITH_TEAM = ["build", "rent", "managed", "cloud:on_demand", "cloud:committed_3y"]
WITHOUT_TEAM = ["managed:owned", "rent", "managed", "cloud:on_demand", "cloud:committed_3y"]
SHORT = {
    "build": "build",
    "managed:owned": "managed (owned)",
    "rent": "rent",
    "managed": "managed",
    "cloud:on_demand": "cloud",
    "cloud:committed_3y": "cloud 3-yr",
}


def winner(gpu: str, gpus: int, util: float, months: int, options: list[str]) -> tuple[str, float]:
    """(cheapest option, its margin over the runner-up as a share of the runner-up's NPV)."""
    sc = Scenario.model_validate(
        {
            "workload": {"model": "llama3-8b", "tokens": 1e11},
            "cluster": {"gpu": gpu, "gpus": gpus},
            "usage": {"mode": "utilisation", "utilisation_pct": util},
            "term": {"months": months},
            "options": {"compare": options},
        }
    )
    c = compare(sc, load_catalogue(), decision=False)
    ranked = sorted((o for o in c.options if o.completes_workload), key=lambda o: o.npv_usd)
    best, nxt = ranked[0], ranked[1]
    return best.option, 1 - best.npv_usd / nxt.npv_usd


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="H100-SXM")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args(argv)
    for team, options in (("with an ops team", WITH_TEAM), ("without", WITHOUT_TEAM)):
        for months in TERMS:
            print(f"\n{args.gpu}, {months} months, {team} (cheapest by NPV, margin over the next):")
            head = ["GPUs"] + [f"{u} % use" for u in UTILISATION]
            if args.markdown:
                print("| " + " | ".join(head) + " |")
                print("|" + "---|" * len(head))
            else:
                print("  ".join(f"{h:>18}" for h in head))
            for gpus in SIZES:
                cells = []
                for util in UTILISATION:
                    best, margin = winner(args.gpu, gpus, util, months, options)
                    cells.append(f"{SHORT.get(best, label(best))} ({margin:.0%})")
                if args.markdown:
                    print("| " + " | ".join([f"{gpus:,}", *cells]) + " |")
                else:
                    print("  ".join(f"{c:>18}" for c in [f"{gpus:,}", *cells]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
