"""Decision support: the recommendation, a tornado of the gap between the two cheapest options,
a Monte Carlo of the NPVs, and flip points. Each is one vectorized call of the engine over many
parameter sets (rows), not a loop over scenarios.

Monte Carlo spreads (planner assumptions, stated so they can be challenged): prices and rates
lognormal with σ = 0.15 (2026 list prices moved 20–50 % within months, docs/reference/tco.md section 4), the
failure rate lognormal with σ = 0.5 (OPT-era clusters ran ~4× Llama 3's rate, docs/reference/training.md 2.2),
lead times uniform from 0.75× to 1.5×, utilisation or run count normal with σ = 0.15 (relative).
"""

from __future__ import annotations

import numpy as np

from models.options import OPTIONS, Billing, ids_where, label
from pricing.inputs import CostInputs
from pricing.results import (
    FlipPoint,
    OptionResult,
    OptionUncertainty,
    Recommendation,
    Tornado,
    TornadoBar,
    Uncertainty,
)
from pricing.valuation import base_params, npv_table

#: inputs varied by the tornado, the Monte Carlo and the flip-point search: key -> label
KEY_INPUTS = {
    "server_usd_per_gpu": "GPU server price",
    "rent_usd_per_gpu_hour": "Dedicated rental price",
    "managed_premium_pct": "Managed-service premium",
    "cloud_on_demand_usd_per_gpu_hour": "Cloud on-demand price",
    "cloud_spot_usd_per_gpu_hour": "Cloud spot price",
    "cloud_committed_1y_usd_per_gpu_hour": "Cloud 1-year commit price",
    "cloud_committed_3y_usd_per_gpu_hour": "Cloud 3-year commit price",
    "electricity_usd_per_kwh": "Electricity price",
    "pue": "PUE",
    "colocation_usd_per_kw_month": "Colocation price",
    "ops_salary_usd_per_year": "Operations salary",
    "support_pct_of_capex_per_year": "Support and maintenance",
    "residual_value_pct": "Residual value at term end",
    "discount_rate_pct_per_year": "Discount rate",
    "utilisation_pct": "Utilisation",
    "runs": "Training runs",
    "failure_rate_multiplier": "Failure rate",
    "lead_time_multiplier": "Procurement lead time",
}
#: the options each input touches, by what the options are (models/options.py); the price an
#: option pays touches that option; every other input touches every option
_OWNED_INPUTS = (
    "server_usd_per_gpu",
    "electricity_usd_per_kwh",
    "pue",
    "colocation_usd_per_kw_month",
    "support_pct_of_capex_per_year",
    "residual_value_pct",
    "lead_time_multiplier",
)
ONLY_FOR: dict[str, frozenset[str]] = {key: ids_where(owned=True) for key in _OWNED_INPUTS}
ONLY_FOR["ops_salary_usd_per_year"] = frozenset(s.id for s in OPTIONS if s.staffed)
ONLY_FOR["managed_premium_pct"] = frozenset(
    s.id for s in OPTIONS if s.billing is Billing.MANAGED_RENT
)
for _option in OPTIONS:
    if _option.price_key:
        ONLY_FOR[_option.price_key] = ONLY_FOR.get(_option.price_key, frozenset()) | {_option.id}
#: physical bounds of inputs whose values cannot go anywhere (flip points stay inside them)
BOUNDS = {"residual_value_pct": (0.0, 100.0), "utilisation_pct": (0.0, 100.0), "pue": (1.0, 3.0)}
SWING = 0.25
FLIP_GRID = np.geomspace(0.2, 5.0, 65)


def relevant_inputs(inp: CostInputs, options: list[str]) -> list[str]:
    keys = []
    for key in KEY_INPUTS:
        if key in ONLY_FOR and not ONLY_FOR[key] & set(options):
            continue
        if key == "runs" and inp.scenario.usage.mode != "runs":
            continue
        if key == "utilisation_pct" and inp.scenario.usage.mode != "utilisation":
            continue
        keys.append(key)
    return keys


def _rows(inp: CostInputs, multipliers: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    P = base_params(inp, n)
    for key, mult in multipliers.items():
        P[key] = P[key] * mult.reshape(n, 1)
    P["utilisation_pct"] = np.minimum(P["utilisation_pct"], 100.0)
    return P


def recommend(inp: CostInputs, results: list[OptionResult]) -> Recommendation:
    ok = [r for r in results if r.available and r.completes_workload]
    if not ok:
        return Recommendation(option=None, why="no option completes the workload within the term")
    best = min(ok, key=lambda r: r.npv_usd)
    fastest = min(
        ok, key=lambda r: r.first_result_day if r.first_result_day is not None else np.inf
    )
    others = sorted((r for r in ok if r is not best), key=lambda r: r.npv_usd)
    why = f"{best.label} has the lowest cost over {inp.months} months (NPV ${best.npv_usd / 1e6:,.1f}M"
    if others:
        nxt = others[0]
        if nxt.npv_usd > 0:
            why += f", {1 - best.npv_usd / nxt.npv_usd:.0%} below {nxt.label}"
    why += f"); it is ready on day {best.ready_day:.0f}"
    if fastest is not best and fastest.first_result_day is not None:
        why += (
            f". {fastest.label} gives the first result soonest (day {fastest.first_result_day:.0f}"
            f" vs {best.first_result_day or float('nan'):.0f})"
        )
    return Recommendation(
        option=best.option, label=best.label, fastest_option=fastest.option, why=why
    )


def _two_cheapest(inp: CostInputs, options: list[str]) -> tuple[str, str] | None:
    npv = npv_table(inp, base_params(inp), options)[0]
    order = [options[i] for i in np.argsort(npv) if np.isfinite(npv[i])]
    return (order[0], order[1]) if len(order) >= 2 else None


def tornado(inp: CostInputs, options: list[str]) -> Tornado | None:
    """Each key input at −25 % and +25 %: the NPV gap between the two cheapest options."""
    pair = _two_cheapest(inp, options)
    if pair is None:
        return None
    a, b = pair
    keys = relevant_inputs(inp, [a, b])
    n = 1 + 2 * len(keys)
    mult = {k: np.ones(n) for k in keys}
    for i, k in enumerate(keys):
        mult[k][1 + 2 * i] = 1 - SWING
        mult[k][2 + 2 * i] = 1 + SWING
    npv = npv_table(inp, _rows(inp, mult, n), [a, b])
    gap = npv[:, 1] - npv[:, 0]
    bars = []
    for i, k in enumerate(keys):
        lo, hi = gap[1 + 2 * i], gap[2 + 2 * i]
        bars.append(
            TornadoBar(
                key=k,
                label=KEY_INPUTS[k],
                base_value=inp.value(k),
                unit=inp.figures[k].unit,
                gap_low_usd=_finite(lo),
                gap_high_usd=_finite(hi),
            )
        )
    bars.sort(key=lambda b: -abs((b.gap_high_usd or 0) - (b.gap_low_usd or 0)))
    return Tornado(cheapest=a, runner_up=b, swing=SWING, base_gap_usd=float(gap[0]), bars=bars)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def monte_carlo(
    inp: CostInputs, options: list[str], draws: int = 2000, seed: int = 0
) -> Uncertainty:
    """P10/P50/P90 NPV per option and the probability each is cheapest, over `draws` draws."""
    rng = np.random.default_rng(seed)
    keys = relevant_inputs(inp, options)
    mult = {}
    for k in keys:
        if k == "failure_rate_multiplier":
            mult[k] = rng.lognormal(0.0, 0.5, draws)
        elif k == "lead_time_multiplier":
            mult[k] = rng.uniform(0.75, 1.5, draws)
        elif k in ("utilisation_pct", "runs"):
            mult[k] = np.clip(rng.normal(1.0, 0.15, draws), 0.1, None)
        elif k == "discount_rate_pct_per_year":
            continue
        else:
            mult[k] = rng.lognormal(0.0, 0.15, draws)
    npv = npv_table(inp, _rows(inp, mult, draws), options)
    finite = np.isfinite(npv)
    cheapest = np.where(finite.any(axis=1), np.argmin(npv, axis=1), -1)
    per_option = {}
    for j, o in enumerate(options):
        col = npv[finite[:, j], j]
        per_option[o] = OptionUncertainty(
            p10_usd=_q(col, 10),
            p50_usd=_q(col, 50),
            p90_usd=_q(col, 90),
            probability_cheapest=float(np.mean(cheapest == j)),
            probability_completes=float(finite[:, j].mean()),
        )
    return Uncertainty(draws=draws, seed=seed, varied=keys, options=per_option)


def _q(col: np.ndarray, q: float) -> float | None:
    return float(np.percentile(col, q)) if col.size else None


def flip_points(inp: CostInputs, options: list[str]) -> list[FlipPoint]:
    """For each key input, the value (within 0.2× to 5× of today's) at which the cheapest option
    changes, searching down and up from today's value; linear interpolation between grid points."""
    keys = relevant_inputs(inp, options)
    g = len(FLIP_GRID)
    n = len(keys) * g
    mult = {k: np.ones(n) for k in keys}
    for i, k in enumerate(keys):
        mult[k][i * g : (i + 1) * g] = FLIP_GRID
    npv = npv_table(inp, _rows(inp, mult, n), options)
    base = npv_table(inp, base_params(inp), options)[0]
    if not np.isfinite(base).any():
        return []
    today = int(np.argmin(base))
    out = []
    for i, k in enumerate(keys):
        block = npv[i * g : (i + 1) * g]
        winner = np.where(np.isfinite(block).any(axis=1), np.argmin(block, axis=1), -1)
        centre = int(np.searchsorted(FLIP_GRID, 1.0))
        for direction, idx in (("below", range(centre, 0, -1)), ("above", range(centre, g - 1))):
            for j in idx:
                nxt = j - 1 if direction == "below" else j + 1
                lo, hi = BOUNDS.get(k, (0.0, np.inf))
                if not lo <= inp.value(k) * FLIP_GRID[nxt] <= hi:
                    break
                if winner[j] == today and winner[nxt] != today and winner[nxt] >= 0:
                    other = int(winner[nxt])
                    x = _crossing(FLIP_GRID[j], FLIP_GRID[nxt], block[j], block[nxt], today, other)
                    out.append(
                        FlipPoint(
                            key=k,
                            label=KEY_INPUTS[k],
                            unit=inp.figures[k].unit,
                            base_value=inp.value(k),
                            flip_value=inp.value(k) * x,
                            direction=direction,
                            cheapest_now=options[today],
                            cheapest_after=options[other],
                            text=(
                                f"{label(options[other])} becomes cheapest when "
                                f"{KEY_INPUTS[k].lower()} is "
                                f"{direction} {_fmt(inp.value(k) * x, inp.figures[k].unit)}"
                            ),
                        )
                    )
                    break
    return out


def _crossing(x0, x1, row0, row1, a, b) -> float:
    """Where NPV_b − NPV_a crosses zero between two grid points (linear in the multiplier)."""
    d0, d1 = row0[b] - row0[a], row1[b] - row1[a]
    if not (np.isfinite(d0) and np.isfinite(d1)) or d0 == d1:
        return float(x1)
    return float(x0 + (x1 - x0) * d0 / (d0 - d1))


def _fmt(value: float, unit: str) -> str:
    if unit.startswith("USD"):
        return f"${value:,.2f} {unit.removeprefix('USD').lstrip('/') and 'per ' + unit.split('/', 1)[1]}".strip()
    return f"{value:,.3g} {unit}"
