"""Figures carried over a range (issue 30): the catalogue figures with no current public source,
or only an old one, that the tornado swings to their range's ends and the Monte Carlo draws
across it (pricing/decision.py), and the two whose range depends on the scenario: the resale value
(its sourced range at the hardware's age, residual_values.csv) and the procurement lead time (the
order-size ramp's thresholds are planner defaults, so an order of any size may wait from the low
to the high end of its GPU's lead_times.csv range)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pricing.timeline import order_range

if TYPE_CHECKING:
    from pricing.inputs import CostInputs

#: figures with no current public source, or one this old, carried over their plausible range
#: (the catalogue row's notes state it, tests/test_cost_lines.py checks they agree): the tornado
#: swings each to its range's ends instead of ±SWING, and the Monte Carlo draws it as it draws
#: lead times, half the draws uniform below the base value and half above, so its median stays
#: the base value
RANGES: dict[str, tuple[float, float]] = {
    "support_pct_of_capex_per_year": (10.0, 20.0),
    "managed_owned_fee_pct_of_capex_per_year": (2.0, 10.0),
    "spot_interruption_overhead_pct": (2.0, 30.0),
    "resale_bulk_haircut_pct": (10.0, 40.0),
    "commitment_resale_haircut_pct": (12.0, 50.0),
    # sourced for 2025 (EIA's US industrial average), but the site's state is not known: the
    # spread of states' industrial averages (EIA), see RANGE_REASONS
    "electricity_usd_per_kwh": (0.066, 0.098),
    # no 2024-26 source found (searched 2026-12): the 2002 dealer prices of used servers and
    # switches
    "host_value_decline_pct_per_year": (37.0, 75.0),
    "fabric_value_decline_pct_per_year": (37.0, 75.0),
}
#: the lead-time multiplier's spread with a quoted or sourced lead time: from 0.75× to 1.5× of
#: the catalogue's (slips run longer than gains; a planner assumption, pricing/decision.py)
LEAD_TIME_RANGE = (0.75, 1.5)
#: where each range comes from, in a reader's words (Assumption.range_source); the resale names
#: the sources residual_values.csv cites (tests/test_ranges.py holds them to the file)
RESALE_SOURCES = (
    "SpotWire's H100 value-by-age curve (2026-06-04), Silicon Data's H100 resale in its third "
    "year (a 2025 news report), the GPU Lease Rate Index guide (2026-01-08) and used H100 SXM "
    "prices (runlocalai, 2026-Q1); hyperscalers' 5-6-year book lives agree"
)
LEAD_TIME_SOURCE = (
    "the order-size thresholds (1,024 and 16,384 GPUs) are planner defaults, so an order of any "
    "size may wait from the low to the high end of its GPU's lead time (lead_times.csv; B200 "
    "4-10 months 'depending on account and deal size', gpuleaseindex.com 2026); slips of "
    "0.75-1.5x are a planner assumption"
)


#: why a RANGES figure with a current source is still carried over a range
RANGE_REASONS = {
    "electricity_usd_per_kwh": (
        "the US average is current (EIA, 2025), but states' industrial averages run from "
        "Texas's to Illinois's (EIA) and the site's state is not known (assumptions.csv)"
    ),
}
#: the reason of every other RANGES figure
NO_CURRENT_SOURCE = (
    "no current public source, or only an old one; a plausible range (assumptions.csv)"
)


def range_source(key: str) -> str:
    """Where `key`'s range comes from (empty for a figure without one)."""
    if key in RANGES:
        return RANGE_REASONS.get(key, NO_CURRENT_SOURCE)
    return {"residual_value_pct": RESALE_SOURCES, "lead_time_multiplier": LEAD_TIME_SOURCE}.get(
        key, ""
    )


def range_of(inp: CostInputs, key: str) -> tuple[float, float] | None:
    """The range `key` is carried over, in its own unit, or None for a figure spread by the
    Monte Carlo's σ alone:

    - a RANGES figure: its range;
    - residual_value_pct: residual_values.csv's low and high curves at the hardware's age when the
      term ends (inp.resale_age_years), interpolated as the default is; None when the buyer set
      the value (then it is drawn as a bounded input, pricing/decision.py);
    - lead_time_multiplier (value x): x·(min(0.75, low/w), max(1.5, high/w)), where w is the weeks
      the order-size ramp reads for this order and low, high its GPU's lead-time range
      (pricing/timeline.py order_range); x·(0.75, 1.5) when the buyer quoted a lead time."""
    if key in RANGES:
        return RANGES[key]
    if key == "residual_value_pct":  # a value the buyer set (a buy-back quote) is theirs
        if inp.figures[key].overridden:
            return None
        return inp.catalogue.residual_value_range_pct(inp.resale_age_years)
    if key == "lead_time_multiplier":
        lo, hi = LEAD_TIME_RANGE
        order = order_range(inp.site)
        if order is not None:
            lo, hi = min(lo, order[0]), max(hi, order[1])
        x = inp.value(key)
        return lo * x, hi * x
    return None


def multiplier_range(inp: CostInputs, key: str) -> tuple[float, float]:
    """`key`'s range (`range_of`) as multipliers of its value, widened to hold 1 (a value the
    buyer set outside it); (1, 1) for a value of 0."""
    x = inp.value(key)
    if x <= 0:
        return 1.0, 1.0
    lo, hi = range_of(inp, key)
    return min(lo / x, 1.0), max(hi / x, 1.0)


def swung_values(inp: CostInputs, key: str, ends: tuple[float, float]) -> dict[str, float]:
    """The input's low and high values on its tornado bar (pricing/decision.py tornado): its
    range's ends where it has one (the multipliers of a value near 0 overflow: 40 % over
    5e-324 %), else the value times the swing's multipliers `ends`."""
    x, r = inp.value(key), range_of(inp, key)
    if r is not None and x > 0:
        return {"low_value": min(r[0], x), "high_value": max(r[1], x)}
    return {"low_value": x * ends[0], "high_value": x * ends[1]}
