"""Committed rates above on-demand: a rented, managed or committed option whose catalogue rate per
GPU-hour is higher than the on-demand figure for the same number of GPUs. A finance partner asks
about that first. The world can be like that: the figures are medians of different providers' rows
(the catalogue's 1-year cloud commitments are GCP's, its on-demand figure for a block of GPUs is AWS
EC2 Capacity Blocks). So the comparison says it and changes nothing; a quoted
rate entered on the Assumptions page compares like with like.

Each option is checked on its own inputs (a portfolio's capacity plan prices each option at its own
size: pricing/delivery.py option_inputs); options that share a figure (rent and managed both
read `rent_usd_per_gpu_hour`) are one line.
"""

from __future__ import annotations

import math

from models.numbers import usd_rate
from models.options import Billing, spec
from pricing.delivery import delivery_of
from pricing.inputs import CostInputs
from pricing.results import PriceInversion

#: the ways of billing that commit to capacity, and so should not cost more an hour than on demand
COMMITTED_BILLING = (Billing.RENT, Billing.MANAGED_RENT, Billing.COMMITTED)
ON_DEMAND_KEY = "cloud_on_demand_usd_per_gpu_hour"


def price_inversions(inp: CostInputs, options: list[str]) -> list[PriceInversion]:
    """One PriceInversion per committed figure above the on-demand figure at its option's size."""
    found: dict[tuple[str, int], PriceInversion] = {}
    for option in options:
        s = spec(option)
        if s.billing not in COMMITTED_BILLING or s.price_key is None:
            continue
        own = delivery_of(inp).option_inputs(inp, option)
        rate, on_demand = own.figures[s.price_key], own.figures.get(ON_DEMAND_KEY)
        if on_demand is None or not (math.isfinite(rate.value) and math.isfinite(on_demand.value)):
            continue
        if rate.value <= on_demand.value:
            continue
        key = (s.price_key, own.gpus)
        if key in found:
            found[key] = found[key].model_copy(update={"labels": [*found[key].labels, s.label]})
            continue
        found[key] = PriceInversion(
            key=s.price_key,
            labels=[s.label],
            gpus=own.gpus,
            usd_per_gpu_hour=rate.value,
            source=rate.source,
            on_demand_usd_per_gpu_hour=on_demand.value,
            on_demand_source=on_demand.source,
        )
    return list(found.values())


def inversion_line(p: PriceInversion) -> str:
    """'Cloud 1-yr commit: $7.83 a GPU-hour against $5.97 on demand for 24 GPUs (...; ...)'."""
    return (
        f"{', '.join(p.labels)}: {usd_rate(p.usd_per_gpu_hour)} a GPU-hour against "
        f"{usd_rate(p.on_demand_usd_per_gpu_hour)} on demand for {p.gpus:,} GPUs "
        f"({p.source}; on demand: {p.on_demand_source})"
    )


#: the sentence before the lines, in the CLI, the Compare page and the PDF
INVERSIONS_HEADING = (
    "Committed rates above the on-demand rate for the same GPUs (the figures are medians of "
    "different providers' rows; enter a quoted rate on the Assumptions page to compare like with "
    "like)"
)
