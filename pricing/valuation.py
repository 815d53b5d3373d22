"""Valuing cash flows: the engine's vectorized arithmetic, shared by the comparison and the
decision support (which evaluates it over thousands of parameter sets at once).

Each parameter set is one row of `P` (figure key -> array (n, 1)). NPV discounts month m's flow
(end of month, m = 0..M-1) by (1 + r)^-(m+1)/12 at the yearly rate r; nominal is the plain sum.
An option that does not complete the workload, or whose NPV is not finite, is never ranked: its
NPV in the table is inf.
"""

from __future__ import annotations

import numpy as np

from models.options import OptionSpec
from pricing import cashflows as cf
from pricing.delivery import delivery_of
from pricing.inputs import CostInputs, base_params  # noqa: F401  (base_params: the API)
from pricing.tax import after_tax_flows


def evaluate(inp: CostInputs, P: dict[str, np.ndarray], options: list[str]) -> dict[str, tuple]:
    """{option: (flows, context)} for every parameter set in P (arrays of shape (n, 1)): each
    option on its own inputs and figures, in the Context its delivery gives it
    (pricing/delivery.py: a single run's timeline, or a portfolio option's capacity plan)."""
    delivery = delivery_of(inp)
    out = {}
    for option in options:
        own, Po = delivery.option_inputs(inp, option), delivery.option_params(inp, P, option)
        ctx = delivery.context(inp, Po, option)
        out[option] = (cf.option_flows(option, own, Po, ctx), ctx)
    return out


def discount_factors(P: dict[str, np.ndarray], months: int) -> np.ndarray:
    """(1 + r)^-(m+1)/12 per parameter set and month, (n, M); computed once when every set has
    the same rate (cashflows.py `per_distinct_row`)."""

    def factors(rate_pct: np.ndarray) -> np.ndarray:
        r = rate_pct / 100
        return (1 + r) ** (-(np.arange(months)[None, :] + 1) / 12)

    return cf.per_distinct_row(factors, P["discount_rate_pct_per_year"])


def monthly_total(flows: cf.Flows) -> np.ndarray:
    """Σ of the lines, month by month: `sum(flows.values())`, added line by line in their order
    into one array (the same numbers, without a new array per line)."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in flows.values()))
    total = np.zeros(shape)
    for value in flows.values():
        total += value
    return total


def npv(flows: cf.Flows, P: dict[str, np.ndarray], months: int) -> np.ndarray:
    """NPV per parameter set, shape (n,): `totals`' second figure."""
    return (monthly_total(flows) * discount_factors(P, months)).sum(axis=1)


def totals(flows: cf.Flows, P: dict[str, np.ndarray], months: int) -> tuple[np.ndarray, np.ndarray]:
    """(nominal, NPV) per parameter set, shape (n,)."""
    monthly = monthly_total(flows)
    return monthly.sum(axis=1), (monthly * discount_factors(P, months)).sum(axis=1)


def after_tax_totals(
    inp: CostInputs,
    flows: cf.Flows,
    ctx: cf.Context,
    P: dict[str, np.ndarray],
    option: OptionSpec | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(nominal, NPV) after tax per parameter set (pricing/tax.py), shape (n,); an option of
    parts (expansion phases, refreshes, a hybrid's base) depreciates each part's hardware from
    its own acceptance to its own sale, and a facility of the buyer's own (built with the
    `option`'s hardware, or a part's) over a building's life."""
    assets = [
        (
            cf.BILLING_FLOWS[s.billing](s, i, p, c),
            c.ready_month,
            c.sold_month,
            facility_cost(s, i, p, c),
        )
        for s, i, p, c in ctx.parts
    ]
    monthly = after_tax_flows(
        flows,
        ctx.ready_month,
        inp.months,
        P["tax_rate_pct"],
        P["depreciation_years"],
        assets or None,
        depreciation=inp.scenario.term.depreciation,
        facility_basis=facility_cost(option, inp, P, ctx) if option is not None else 0.0,
    )
    return monthly.sum(axis=1), (monthly * discount_factors(P, inp.months)).sum(axis=1)


def facility_cost(
    spec: OptionSpec, inp: CostInputs, P: dict[str, np.ndarray], ctx: cf.Context
) -> np.ndarray | float:
    """The construction cost of the facility an owned cluster builds with its hardware
    (options.facility = "owned"; a refresh moves into it), part of its `hardware` flows
    (pricing/cashflows.py `_owned`); 0 for any other."""
    if not spec.owned or inp.scenario.options.facility != "owned" or ctx.refresh:
        return 0.0
    return inp.it_power_kw * P["facility_capex_usd_per_kw"]


def npv_table(inp: CostInputs, P: dict[str, np.ndarray], options: list[str]) -> np.ndarray:
    """NPV per parameter set and option, shape (n, len(options)); an option that does not complete
    the workload, or whose NPV is not finite in that parameter set, is inf (never ranked)."""
    return npv_columns(inp, evaluate(inp, P, options), P, options)


def npv_columns(
    inp: CostInputs, results: dict[str, tuple], P: dict[str, np.ndarray], options: list[str]
) -> np.ndarray:
    """`npv_table` from `evaluate(inp, P, ...)`'s results (the engine's base case, already
    evaluated). The NPV the ranking reads: an option's value of time (`inp.time_value_usd`,
    pricing/time_value.py) is added to it; a result's own `npv_usd` never includes it."""
    cols = []
    for option in options:
        flows, ctx = results[option]
        value = npv(flows, P, inp.months)
        if option in inp.time_value_usd:  # the ranking's NPV (pricing/time_value.py)
            value = value + inp.time_value_usd[option]
        ok = completes(inp, ctx, P).ravel() & np.isfinite(value)
        cols.append(np.where(ok, value, np.inf))
    return np.stack(cols, axis=1)


def completes(inp: CostInputs, ctx: cf.Context, P: dict[str, np.ndarray]) -> np.ndarray:
    if ctx.completes is not None:  # a portfolio: its capacity plan says (pricing/planning/)
        return ctx.completes
    if inp.scenario.usage.mode == "runs":
        return ctx.runs_done >= P["runs"] * (1 - 1e-9)
    return ctx.busy.sum(axis=1, keepdims=True) > 0


def breakeven_month(cum_a: np.ndarray, cum_b: np.ndarray) -> int | None:
    """1-based month from which cum_a ≤ cum_b holds to the end of the term; None if never."""
    ok = cum_a <= cum_b + 1e-6
    if not ok[-1]:
        return None
    bad = np.nonzero(~ok)[0]
    return int(bad[-1] + 2) if bad.size else 1
