"""Which compared options cannot be offered, and why, before any cost (pricing/inputs.py
`build_inputs` reads it): no price, not offered at the size, needing a demand over time, beyond the
buyer's site, or ruled out by the buyer's constraints."""

from __future__ import annotations

import math

from models.constraints import excluded
from models.options import OPTIONS
from models.scenario import Scenario
from pricing.site_power import not_offered as site_not_offered
from pricing.timeline import Site


def unavailable_options(
    scenario: Scenario,
    gpu_id: str,
    figures: dict,
    no_price: dict[str, str],
    by_size: dict[str, str],
    site: Site,
) -> dict[str, str]:
    """option id -> why it cannot be compared (`figures`: pricing/inputs.py's Figure by key): no price (an override gives one), not offered at
    this size (`by_size`), in a version 1 scenario needing a demand shape, or ruled out by the
    buyer's constraints (models/constraints.py; that reason first)."""
    unavailable: dict[str, str] = {}
    for option in OPTIONS:  # an option without a price cannot be compared (an override gives one)
        if option.price_key and not math.isfinite(figures[option.price_key].value):
            unavailable[option.id] = no_price.get(
                option.id, f"no {option.label} offer for {gpu_id} in the catalogue"
            )
    unavailable.update(by_size)
    if not scenario.is_portfolio:  # planned on a demand over time (pricing/planning/)
        for option in OPTIONS:
            if option.needs_demand:
                unavailable[option.id] = (
                    "needs a demand shape: a version 2 scenario's workloads give the demand "
                    "month by month that sizes its base and its burst; a version 1 scenario "
                    "has one workload on a fixed GPU count"
                )
    for option in OPTIONS:  # an owned cluster beyond the site, where no upgrade is allowed
        if why := site_not_offered(option.id, site):
            unavailable[option.id] = why
    unavailable.update(excluded(scenario.constraints))  # the buyer's rule before any price
    return unavailable
