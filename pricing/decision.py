"""Decision support: the recommendation and how sure it is, a tornado of the gap between the two
cheapest options, a Monte Carlo of the NPVs, and flip points. Each is one vectorized call of the
engine over many parameter sets (rows), not a loop over scenarios.

Monte Carlo draws (planner assumptions, stated so they can be challenged; `draw_multipliers`):

- Spreads. Prices and rates lognormal with σ = 0.15 (2026 list prices moved 20–50 % within months,
  docs/reference/tco.md section 4); the failure rate lognormal with σ = 0.5 (OPT-era clusters ran
  ~4× Llama 3's rate, docs/reference/training.md 2.2); the run count lognormal with σ = 0.15; lead
  times from 0.75× to 1.5×, half the draws uniform below the catalogue's and half above (slips run
  longer than gains), widened to the whole low-high range of the GPU's lead time where the
  order-size ramp's unsourced thresholds leave it wider (pricing/ranges.py range_of). The
  discount rate is the planner's choice, not drawn. The median of every draw is its base value:
  nothing is clipped on one side, which would move the centre.
- Ranged inputs (`RANGES`: figures without a current public source, or with only an old one;
  and the resale value, over residual_values.csv's sourced low-high curves at the hardware's age):
  half the draws uniform from the range's low end to the base value and half from it to the high
  end, so the median is the base value and every draw stays in the range; the tornado swings
  them to the range's ends.
- Bounded inputs (`BOUNDS`: utilisation, PUE; the resale value is ranged instead) are drawn on
  the logit of where the value sits in its range: x = lo + (hi − lo)·expit(logit(p) + s·z) with p = (x₀ − lo)/(hi − lo).
  The spread is symmetric in logit space, so the median is x₀ and no draw leaves the range; s gives
  the lognormal's spread near x₀ (s·(hi − lo)·p·(1 − p) = σ·x₀), at most 0.5 so that a value near
  a bound is not spread over much of its range and its skew moves the NPVs' centre little
  (utilisation 90 % draws P10–P90 83–94 %). A value at a bound (utilisation 100 %) has no room on
  one side and stays where it is.
- Correlations. Prices one market sets move together: an input of a group is drawn from
  z = sqrt(ρ)·z_group + sqrt(1 − ρ)·z_own (z_group shared by the group, z_own the input's own,
  both standard normal), so each keeps its spread and any two inputs of a group correlate at ρ
  (in log; each correlates with the common factor at sqrt(ρ)). No public source gives a
  correlation; these are the planner's reading of the moves docs/reference/tco.md records.
  - Rental and cloud prices (every option's $/GPU-hour price figure, `MARKET_PRICES`): ρ = 0.8.
    In 2024–26 H100 rental and cloud list prices fell and rose together: the ~30 % on-demand cut
    of Oct 2024 and AWS's ~44 % cut of June 2025, then 1-year contracts up ~40 % from their Oct
    2025 low by Mar 2026 with on-demand "sold out across all GPU types", and Nebius H100 from
    $2.95 to $3.85–4.50 in 2026 (tco.md 2.3, 2.5, 4). Not 1: a provider also moves alone (a
    Vast.ai median swung 2.5× within a week, section 4).
  - Owned hardware (the server with the InfiniBand switches, optics and storage it is bought with,
    `HARDWARE_PRICES`): ρ = 0.5. GPUs are 60–70 % of an HGX server's price and the fabric is
    bought from the same vendors in the same quote (tco.md 2.7), but quotes for one item conflict
    widely (an NDR switch at $21k vs $36–50k, section 4), so the tie is weaker than the market's.
  Every other input is drawn on its own.
"""

from __future__ import annotations

import math

import numpy as np

from models.numbers import in_unit, mid_sentence
from models.options import OPTIONS, Billing, Staffing, ids_where, label, spec
from pricing import bridge, time_value
from pricing.delivery import bridges, delivery_of
from pricing.inputs import HOURS_PER_MONTH, CostInputs
from pricing.ranges import multiplier_range, range_of, swung_values
from pricing.results import (
    DeadlineMiss,
    DemandShape,
    FlipPoint,
    OptionNpv,
    OptionResult,
    OptionUncertainty,
    Recommendation,
    Tornado,
    TornadoBar,
    Uncertainty,
    WorkloadWait,
)
from pricing.service_level import service_facts
from pricing.time_value import ranked_npv
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
    "host_value_decline_pct_per_year": "Server host resale decline",
    "fabric_value_decline_pct_per_year": "Fabric resale decline",
    "rented_ops_fte_per_1000_gpus": "Rented platform team",
    "managed_owned_fee_pct_of_capex_per_year": "Managed-on-owned fee",
    "spot_interruption_overhead_pct": "Spot interruption overhead",
    "resale_bulk_haircut_pct": "Whole-cluster resale haircut",
    "commitment_resale_haircut_pct": "Past-term resale haircut",
}
#: inputs only the Monte Carlo varies (owned hardware bought with the servers): key -> label
MONTE_CARLO_INPUTS = {
    "ib_switch_64port_ndr_usd_per_switch": "InfiniBand switch price",
    "optic_400g_usd_per_transceiver": "400G optic price",
    "storage_buy_usd_per_tb": "Storage purchase price",
}
#: inputs the Monte Carlo never draws (a choice of the planner's, not an uncertainty)
NOT_DRAWN = frozenset({"discount_rate_pct_per_year"})
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
    "host_value_decline_pct_per_year",
    "fabric_value_decline_pct_per_year",
    *MONTE_CARLO_INPUTS,
)
ONLY_FOR: dict[str, frozenset[str]] = {key: ids_where(owned=True) for key in _OWNED_INPUTS}
ONLY_FOR["ops_salary_usd_per_year"] = frozenset(s.id for s in OPTIONS if s.staffed)
ONLY_FOR["rented_ops_fte_per_1000_gpus"] = ids_where(staffing=Staffing.RENTED)
ONLY_FOR["managed_premium_pct"] = frozenset(
    s.id for s in OPTIONS if s.billing is Billing.MANAGED_RENT
)
ONLY_FOR["managed_owned_fee_pct_of_capex_per_year"] = ids_where(owned=True) - frozenset(
    s.id for s in OPTIONS if s.staffed
)
ONLY_FOR["spot_interruption_overhead_pct"] = frozenset(s.id for s in OPTIONS if s.interruptible)
ONLY_FOR["resale_bulk_haircut_pct"] = ids_where(owned=True)
ONLY_FOR["commitment_resale_haircut_pct"] = frozenset(
    s.id for s in OPTIONS if s.billing in (Billing.RENT, Billing.MANAGED_RENT, Billing.COMMITTED)
)
ONLY_FOR["rent_support_pct"] = frozenset(s.id for s in OPTIONS if s.billing is Billing.RENT)
ONLY_FOR["cloud_support_pct"] = frozenset(
    s.id for s in OPTIONS if s.billing in (Billing.PER_USE, Billing.COMMITTED)
)
for _option in OPTIONS:
    if _option.price_key:
        ONLY_FOR[_option.price_key] = ONLY_FOR.get(_option.price_key, frozenset()) | {_option.id}
for _option in OPTIONS:  # a composite option feels every input one of its parts feels
    for _key, _ids in ONLY_FOR.items():
        if _ids & set(_option.composed_of):
            ONLY_FOR[_key] = _ids | {_option.id}
#: physical bounds of inputs whose values cannot go anywhere (flip points stay inside them)
BOUNDS = {
    "residual_value_pct": (0.0, 100.0),
    "utilisation_pct": (0.0, 100.0),
    "pue": (1.0, 3.0),
    "host_value_decline_pct_per_year": (0.0, 100.0),
    "fabric_value_decline_pct_per_year": (0.0, 100.0),
}
SWING = 0.25
FLIP_GRID = np.geomspace(0.2, 5.0, 65)

#: Monte Carlo spreads (module docstring): lognormal σ of prices and rates, of the failure rate;
#: the most a bounded input spreads in logit space; the lead-time range
SIGMA = 0.15
SIGMA_FAILURE = 0.5
SIGMA_LOGIT_MAX = 0.5
#: correlated groups (module docstring): the price every rental and cloud option pays, one market;
#: the owned hardware bought together
MARKET_PRICES = frozenset(s.price_key for s in OPTIONS if s.price_key)
HARDWARE_PRICES = frozenset({"server_usd_per_gpu", *MONTE_CARLO_INPUTS})
RHO_MARKET = 0.8
RHO_HARDWARE = 0.5
GROUPS: dict[str, tuple[float, frozenset[str]]] = {
    "market": (RHO_MARKET, MARKET_PRICES),
    "hardware": (RHO_HARDWARE, HARDWARE_PRICES),
}
#: every input the Monte Carlo can draw, in a fixed order: an input's draws do not depend on which
#: others are drawn with it
_DRAWABLE = (*KEY_INPUTS, *MONTE_CARLO_INPUTS)
#: a close call (`recommend`): the recommended option is cheapest in fewer draws than this
CLOSE_CALL_PROBABILITY = 0.7


def touches(key: str, option: str, bridged: dict[str, str] | None = None) -> bool:
    """Whether `key` enters `option`'s cash flows (ONLY_FOR; every other input touches all), or
    its bridge's (`bridged`: pricing/delivery.py bridges, option -> the option that bridges it)."""
    if key not in ONLY_FOR or option in ONLY_FOR[key]:
        return True
    by = (bridged or {}).get(option)
    return by is not None and option != by and touches(key, by)


def relevant_inputs(
    inp: CostInputs, options: list[str], keys: dict[str, str] | tuple[str, ...] = tuple(KEY_INPUTS)
) -> list[str]:
    """The inputs among `keys` (default: the key inputs) that touch one of `options`."""
    fixed = delivery_of(inp).fixed_inputs(inp)
    bridged = bridges(inp)
    out = []
    for key in keys:
        if not any(touches(key, o, bridged) for o in options):
            continue
        if key in fixed:  # not varied for this kind of scenario (pricing/delivery.py)
            continue
        if key == "commitment_resale_haircut_pct" and inp.scenario.term.past_term != "resold":
            continue  # months past the term paid and idle: no resale to haircut
        out.append(key)
    return out


def _rows(inp: CostInputs, multipliers: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    P = base_params(inp, n)
    for key, mult in multipliers.items():
        P[key] = P[key] * mult.reshape(n, 1)
    P["utilisation_pct"] = np.minimum(P["utilisation_pct"], 100.0)
    return P


def recommend(
    inp: CostInputs, results: list[OptionResult], uncertainty: Uncertainty | None = None
) -> Recommendation:
    """The cheapest option by base NPV among those that complete the workload, how sure that is
    when `uncertainty` (the Monte Carlo over the same options) is given, and the facts the answer
    rests on (app/recommendation_text.py writes them in words).

    The contender is the other completing option that is cheapest in the most draws (ties: the
    lower base NPV). It is a close call when either
      - the recommended option is cheapest in fewer than 70 % of the draws
        (`CLOSE_CALL_PROBABILITY`), or
      - its base NPV gap to the contender is smaller than half the P10–P90 width of that gap over
        the draws: NPV(contender) − NPV(recommended) < (gap P90 − gap P10) / 2.
    The gap's own spread is used, not each option's P10–P90: inputs that both options feel (the
    run count, the failure rate, the shared market factor) move both NPVs together without
    changing which one is cheaper. With no other option that completes the workload there is no
    close call (the chance is still given). Without a Monte Carlo the answer says nothing of how
    sure it is (probability None, no close call).

    With a deadline (cluster.deadline_days, provisioning included: OptionResult.meets_deadline)
    only options that meet it are recommended when any does (the engine runs the Monte Carlo over
    those), and the answer names each cheaper option that misses it and by how many days. When
    none meets it, the cheapest is recommended as above and the answer says first that no option
    delivers by the deadline and which comes closest: a deadline the user cannot have is a
    reason to move it, not to pay the most for the least-late option."""
    ok = [r for r in results if r.available and r.completes_workload]
    if not ok:
        if not any(r.available for r in results):  # say why, not that none finishes in time
            notes = [f"{r.label}: {r.note}" for r in results if r.note]
            return Recommendation(option=None, none_reason="unavailable", unavailable_notes=notes)
        return Recommendation(option=None, none_reason="incomplete")
    served, service = service_facts(ok)  # the service level first (pricing/service_level.py)
    on_time = [r for r in served if r.meets_deadline]
    late = [r for r in served if r.meets_deadline is False]
    pool = on_time or served
    unit = bridge.per_delivered_unit(inp, pool)
    if unit is not None:  # bridging off, different work: ranked per unit, no Monte Carlo on it
        return _per_unit_answer(inp, pool, ok, on_time, late, unit).model_copy(update=service)
    best = min(pool, key=ranked_npv)  # NPV, plus the value of time when the buyer gives one
    fastest = _fastest(ok)
    others = sorted((r for r in pool if r is not best), key=ranked_npv)
    q = uncertainty.options.get(best.option) if uncertainty is not None else None
    runner_up = others[0] if others else None  # by base NPV (+ value of time)
    contender = runner_up
    if q is not None and others:
        contender = max(others, key=lambda r: _probability(uncertainty, r.option))
    facts = _answer_facts(inp, best, fastest, runner_up)
    facts |= (
        _deadline_facts(best, on_time, late) | service | time_value.facts(best, pool, runner_up)
    )
    shape = demand_shape(inp, best, ok)
    if shape is not None:
        facts["demand_shape"], facts["peak_to_mean_demand"], facts["idle_share"] = shape
    facts["longer_waits"], facts["longer_waits_more"] = longer_waits(best, ok)
    if q is None:
        return Recommendation(**facts)
    p = q.probability_cheapest
    spread = _gap_spread(uncertainty, best.option, contender)
    within = spread is not None and ranked_npv(contender) - ranked_npv(best) < spread
    facts |= dict(
        probability_cheapest=p,
        draws=uncertainty.draws,
        contender=_npv_of(contender),
        contender_probability_cheapest=(
            _probability(uncertainty, contender.option) if contender is not None else None
        ),
        gap_spread_usd=spread,
        gap_within_spread=within,
    )
    if contender is None or not (p < CLOSE_CALL_PROBABILITY or within):
        return Recommendation(**facts)
    return Recommendation(**facts, close_call=True, contenders=[best.option, contender.option])


def _per_unit_answer(inp, pool, ok, on_time, late, unit: str) -> Recommendation:
    """`recommend` ranked by NPV per delivered unit (`per_delivered_unit`): the cheapest per
    unit, the runner-up per unit; the Monte Carlo draws rank NPVs, so how sure is not said."""
    field = bridge.PER_UNIT[inp.scenario.usage.mode][1]

    def per(r: OptionResult) -> float:
        return ranked_npv(r) / getattr(r, field)

    ranked = sorted(pool, key=per)
    best, runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else None)
    fastest = _fastest(ok)
    facts = _answer_facts(inp, best, fastest, runner_up)
    facts |= _deadline_facts(best, on_time, late) | time_value.facts(best, pool, runner_up)
    facts |= dict(
        ranked_per=unit,
        npv_per_unit_usd=per(best),
        runner_up_npv_per_unit_usd=per(runner_up) if runner_up is not None else None,
    )
    return Recommendation(**facts)


def _fastest(ok: list[OptionResult]) -> OptionResult:
    """The option whose first run ends soonest (one that finishes none, last)."""
    return min(ok, key=lambda r: r.first_result_day if r.first_result_day is not None else np.inf)


def _answer_facts(
    inp: CostInputs, best: OptionResult, fastest: OptionResult, runner_up: OptionResult | None
) -> dict:
    """The facts every answer states: the recommended option, its NPV, readiness and first
    result, the fastest option to a first result, the runner-up by base NPV and the deadline."""
    return dict(
        option=best.option,
        label=best.label,
        fastest_option=fastest.option,
        meets_deadline=best.meets_deadline,
        npv_usd=best.npv_usd,
        months=inp.months,
        ready_day=best.ready_day,
        first_result_day=best.first_result_day,
        fastest_label=fastest.label,
        fastest_first_result_day=fastest.first_result_day,
        runner_up=_npv_of(runner_up),
        deadline_days=inp.scenario.cluster.deadline_days,
    )


def _deadline_facts(
    best: OptionResult, on_time: list[OptionResult], late: list[OptionResult]
) -> dict:
    """What the deadline adds: when `best` was chosen among the options `on_time`, each cheaper
    option that is `late` and by how much; when no option meets it, the one that comes closest."""
    facts: dict = {}
    if late and on_time:
        facts["chosen_on_time"] = True
        cheaper = [r for r in sorted(late, key=lambda r: r.npv_usd) if r.npv_usd < best.npv_usd]
        facts["cheaper_but_late"] = [_miss(r) for r in cheaper]
    elif late:  # no option meets the deadline
        facts["closest_late"] = _miss(min(late, key=lambda r: r.first_result_day or np.inf))
    return facts


def _npv_of(r: OptionResult | None) -> OptionNpv | None:
    return None if r is None else OptionNpv(option=r.option, label=r.label, npv_usd=r.npv_usd)


def _miss(r: OptionResult) -> DeadlineMiss:
    return DeadlineMiss(
        option=r.option,
        label=r.label,
        npv_usd=r.npv_usd,
        first_result_day=r.first_result_day,
        days_past_deadline=r.days_past_deadline,
    )


#: a workload that waits this many days longer on the recommended option than on the compared
#: option where it waits least is named in the answer: a month is what a team notices, and the
#: capacity plans size for work done by the term's end, not for how soon (pricing/planning/)
WAIT_NOTE_DAYS = 30.0
#: the most workloads the answer names
WAIT_NOTE_NAMES = 3


def longer_waits(
    best: OptionResult, completing: list[OptionResult]
) -> tuple[list[WorkloadWait], int]:
    """Each workload of a portfolio whose longest wait on `best` is WAIT_NOTE_DAYS more than on
    the completing option where it waits least, the longest first (at most WAIT_NOTE_NAMES), and
    how many more there are; none for a version 1 scenario."""
    least: dict[str, tuple[float, str]] = {}
    for o in completing:
        for d in o.workload_delays if o is not best else ():
            if d.delay_days_max is not None and d.delay_days_max < least.get(d.name, (np.inf,))[0]:
                least[d.name] = (d.delay_days_max, o.label)
    longer = [
        (d.delay_days_max - least[d.name][0], d)
        for d in best.workload_delays
        if d.delay_days_max is not None
        and d.name in least
        and d.delay_days_max - least[d.name][0] > WAIT_NOTE_DAYS
    ]
    longer.sort(key=lambda t: -t[0])
    named = [
        WorkloadWait(
            name=d.name,
            delay_days_max=d.delay_days_max,
            least_delay_days_max=least[d.name][0],
            least_label=least[d.name][1],
        )
        for _, d in longer[:WAIT_NOTE_NAMES]
    ]
    return named, len(longer) - len(named)


def demand_shape(
    inp: CostInputs, best: OptionResult, completing: list[OptionResult]
) -> tuple[DemandShape, float, float] | None:
    """For a portfolio (scenario version 2): (the shape, peak / mean, idle share of the best).
    peak / mean = the busiest month's GPUs at work (its demanded GPU-hours / hours of a month,
    models/portfolio/demand.py gpu_hours) over the mean of the months with demand (a median would
    read a lab's near-idle months between two runs as its base); idle share = idle / (served +
    idle) GPU-hours of what the option holds (OptionResult). The shape names the most idle other
    completing option too. None for a version 1 scenario."""
    if inp.portfolio is None or best.idle_gpu_hours is None:
        return None
    gpus = np.asarray(inp.portfolio.demand.gpu_hours, dtype=float) / HOURS_PER_MONTH
    busy = gpus[gpus > 0]
    if not len(busy):
        return None
    ratio = float(busy.max() / np.mean(busy))

    def idle(r: OptionResult) -> float:
        held = (r.served_gpu_hours or 0.0) + (r.idle_gpu_hours or 0.0)
        return (r.idle_gpu_hours or 0.0) / held if held > 0 else 0.0

    shape = DemandShape(
        peak_gpus=float(busy.max()),
        mean_gpus=float(np.mean(busy)),
        billing=spec(best.option).billing.value,
    )
    others = [r for r in completing if r is not best and r.idle_gpu_hours is not None]
    if others:
        worst = max(others, key=idle)
        shape = shape.model_copy(
            update={"most_idle_label": worst.label, "most_idle_share": idle(worst)}
        )
    return shape, ratio, idle(best)


def _probability(uncertainty: Uncertainty, option: str) -> float:
    q = uncertainty.options.get(option)
    return q.probability_cheapest if q is not None else 0.0


def _gap_spread(
    uncertainty: Uncertainty, cheapest: str, contender: OptionResult | None
) -> float | None:
    """Half the P10–P90 width of the contender's NPV gap to `cheapest` over the draws; None when
    the Monte Carlo measured gaps from another option or no draw had both."""
    if contender is None or uncertainty.cheapest != cheapest:
        return None
    q = uncertainty.options.get(contender.option)
    if q is None or q.gap_p10_usd is None or q.gap_p90_usd is None:
        return None
    return (q.gap_p90_usd - q.gap_p10_usd) / 2


def _base_npv(inp: CostInputs, options: list[str], base: np.ndarray | None) -> np.ndarray:
    """The base case's NPV of each option: `base` when the caller has it (the engine), else
    evaluated."""
    return npv_table(inp, base_params(inp), options)[0] if base is None else base


def _two_cheapest(
    inp: CostInputs, options: list[str], base: np.ndarray | None = None
) -> tuple[str, str] | None:
    npv = _base_npv(inp, options, base)
    order = [options[i] for i in np.argsort(npv) if np.isfinite(npv[i])]
    return (order[0], order[1]) if len(order) >= 2 else None


def tornado(
    inp: CostInputs,
    options: list[str],
    base: np.ndarray | None = None,
    pair: tuple[str, str] | None = None,
) -> Tornado | None:
    """Each key input at −25 % and +25 %, or at its range's ends where it has one
    (`swing_multipliers`): the NPV gap between `pair` (the recommended option and
    its contender in a close call, `recommend`), else the two cheapest options. `base`: the
    options' base NPVs when the caller has them (`npv_table` on the base figures)."""
    pair = pair or _two_cheapest(inp, options, base)
    if pair is None:
        return None
    a, b = pair
    # a figure with no value (a price not offered at any compared size) has nothing to swing
    keys = [k for k in relevant_inputs(inp, [a, b]) if np.isfinite(inp.value(k))]
    n = 1 + 2 * len(keys)
    mult = {k: np.ones(n) for k in keys}
    ends = {k: swing_multipliers(inp, k) for k in keys}
    for i, k in enumerate(keys):
        mult[k][1 + 2 * i], mult[k][2 + 2 * i] = ends[k]
    npv = npv_table(inp, _rows(inp, mult, n), [a, b])
    with np.errstate(invalid="ignore"):  # neither completes at a swing: inf - inf, shown as None
        gap = npv[:, 1] - npv[:, 0]
    bars = []
    for i, k in enumerate(keys):
        lo, hi = gap[1 + 2 * i], gap[2 + 2 * i]
        bars.append(
            TornadoBar(
                key=k,
                label=KEY_INPUTS[k],
                base_value=inp.value(k),
                **swung_values(inp, k, ends[k]),
                unit=inp.unit(k),
                gap_low_usd=_finite(lo),
                gap_high_usd=_finite(hi),
            )
        )
    bars.sort(key=lambda b: -abs((b.gap_high_usd or 0) - (b.gap_low_usd or 0)))
    return Tornado(cheapest=a, runner_up=b, swing=SWING, base_gap_usd=float(gap[0]), bars=bars)


def swing_multipliers(inp: CostInputs, key: str) -> tuple[float, float]:
    """The tornado's low and high multipliers of `key`: its range's ends over its value
    (pricing/ranges.py range_of: RANGES, the resale value's and the lead time's), else 1 ∓ SWING."""
    if range_of(inp, key) is not None and inp.value(key) > 0:
        return multiplier_range(inp, key)
    return 1 - SWING, 1 + SWING


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def draw_multipliers(
    inp: CostInputs, keys: list[str], draws: int, seed: int
) -> dict[str, np.ndarray]:
    """Multipliers of the base values of `keys`, shape (draws,) each, drawn as the module docstring
    states: their spreads, bounded inputs on the logit of their range, and the market and hardware
    groups correlated. Seeded: the same (inputs, keys, draws, seed) give the same draws, and an
    input's draws do not depend on which other keys are drawn with it."""
    unknown = [k for k in keys if k not in _DRAWABLE]
    if unknown:
        raise ValueError(f"not a Monte Carlo input: {', '.join(unknown)}")
    rng = np.random.default_rng(seed)
    own = rng.standard_normal((len(_DRAWABLE), draws))
    common = {group: rng.standard_normal(draws) for group in GROUPS}
    lead = rng.random(draws)
    out = {}
    for key in keys:
        z = own[_DRAWABLE.index(key)]
        for group, (rho, members) in GROUPS.items():
            if key in members:
                z = np.sqrt(rho) * common[group] + np.sqrt(1 - rho) * z
        if key == "failure_rate_multiplier":
            out[key] = np.exp(SIGMA_FAILURE * z)
        elif key == "lead_time_multiplier":
            lo, hi = multiplier_range(inp, key)
            out[key] = np.where(lead < 0.5, lo + (1 - lo) * 2 * lead, 1 + (hi - 1) * (2 * lead - 1))
        elif range_of(inp, key) is not None and inp.value(key) > 0:
            lo, hi = multiplier_range(inp, key)
            u = 0.5 * (1 + _erf(z / math.sqrt(2)))  # the input's own normal draw, uniform
            out[key] = np.where(u < 0.5, lo + (1 - lo) * 2 * u, 1 + (hi - 1) * (2 * u - 1))
        elif key in BOUNDS:
            out[key] = _bounded(inp.value(key), *BOUNDS[key], z)
        else:
            out[key] = np.exp(SIGMA * z)
    return out


_erf = np.vectorize(math.erf, otypes=[float])


def _bounded(x: float, lo: float, hi: float, z: np.ndarray) -> np.ndarray:
    """Multipliers of x drawn on the logit of its place in [lo, hi] (module docstring)."""
    p = (x - lo) / (hi - lo)
    if not 0 < p < 1 or x == 0:
        return np.ones_like(z)
    s = min(SIGMA * abs(x) / ((hi - lo) * p * (1 - p)), SIGMA_LOGIT_MAX)
    t = np.log(p) - np.log1p(-p) + s * z
    # (lo + (hi − lo)·expit(t)) / x, with expit in log form so that a tiny x (utilisation 1e-300 %)
    # neither overflows nor rounds to 0; the clip only absorbs rounding at a bound
    mult = lo / x + np.exp(np.log(hi - lo) - np.logaddexp(0.0, -t) - np.log(x))
    with np.errstate(over="ignore"):
        return np.clip(mult, lo / x, hi / x)


def monte_carlo(
    inp: CostInputs, options: list[str], draws: int = 2000, seed: int = 0
) -> Uncertainty:
    """P10/P50/P90 NPV per option, the probability each is cheapest, and each one's NPV gap to the
    base case's cheapest, over `draws` draws (`draw_multipliers`)."""
    keys = [k for k in relevant_inputs(inp, options, _DRAWABLE) if k not in NOT_DRAWN]
    mult = draw_multipliers(inp, keys, draws, seed)
    # row 0 is the base case (every multiplier 1): the gaps are measured from its cheapest option
    mult = {k: np.concatenate(([1.0], m)) for k, m in mult.items()}
    table = npv_table(inp, _rows(inp, mult, draws + 1), options)
    base, npv = table[0], table[1:]
    finite = np.isfinite(npv)
    cheapest = np.where(finite.any(axis=1), np.argmin(npv, axis=1), -1)
    best = int(np.argmin(base)) if np.isfinite(base).any() else None
    per_option = {}
    for j, o in enumerate(options):
        col = npv[finite[:, j], j]
        gap = np.array([])
        if best is not None and j != best:
            both = finite[:, j] & finite[:, best]
            gap = npv[both, j] - npv[both, best]
        per_option[o] = OptionUncertainty(
            p10_usd=_q(col, 10),
            p50_usd=_q(col, 50),
            p90_usd=_q(col, 90),
            probability_cheapest=float(np.mean(cheapest == j)),
            probability_completes=float(finite[:, j].mean()),
            gap_p10_usd=_q(gap, 10),
            gap_p90_usd=_q(gap, 90),
        )
    return Uncertainty(
        draws=draws,
        seed=seed,
        varied=keys,
        options=per_option,
        cheapest=options[best] if best is not None else None,
    )


def _q(col: np.ndarray, q: float) -> float | None:
    return float(np.percentile(col, q)) if col.size else None


def flip_points(
    inp: CostInputs, options: list[str], base: np.ndarray | None = None
) -> list[FlipPoint]:
    """For each key input, the value (within 0.2× to 5× of today's) at which the cheapest option
    changes, searching down and up from today's value; linear interpolation between grid points.
    `base`: the options' base NPVs when the caller has them (`npv_table` on the base figures)."""
    keys = relevant_inputs(inp, options)
    g = len(FLIP_GRID)
    base = _base_npv(inp, options, base)
    if not np.isfinite(base).any():
        return []
    npv = _grid_npv(inp, options, keys, base)
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
                            unit=inp.unit(k),
                            base_value=inp.value(k),
                            flip_value=inp.value(k) * x,
                            direction=direction,
                            cheapest_now=options[today],
                            cheapest_after=options[other],
                            text=(
                                f"{label(options[other])} becomes cheapest when "
                                f"{mid_sentence(KEY_INPUTS[k])} is "
                                f"{direction} {in_unit(inp.value(k) * x, inp.unit(k))}"
                            ),
                        )
                    )
                    break
    return out


def _grid_npv(inp: CostInputs, options: list[str], keys: list[str], base: np.ndarray) -> np.ndarray:
    """NPV over FLIP_GRID for each key in turn (rows: len(keys) × grid points; columns: options).
    Each option is evaluated only on the grids of the keys that touch it (`touches`); on the
    others it keeps its base NPV `base`, since the key does not enter its cash flows."""
    g = len(FLIP_GRID)
    npv = np.repeat(np.asarray(base, dtype=float)[None, :], len(keys) * g, axis=0)
    bridged = bridges(inp)
    for j, option in enumerate(options):
        felt = [i for i, k in enumerate(keys) if touches(k, option, bridged)]
        if not felt:
            continue
        n = len(felt) * g
        mult = {keys[i]: np.ones(n) for i in felt}
        for b, i in enumerate(felt):
            mult[keys[i]][b * g : (b + 1) * g] = FLIP_GRID
        col = npv_table(inp, _rows(inp, mult, n), [option])[:, 0]
        for b, i in enumerate(felt):
            npv[i * g : (i + 1) * g, j] = col[b * g : (b + 1) * g]
    return npv


def _crossing(x0, x1, row0, row1, a, b) -> float:
    """Where NPV_b − NPV_a crosses zero between two grid points (linear in the multiplier)."""
    d0, d1 = row0[b] - row0[a], row1[b] - row1[a]
    if not (np.isfinite(d0) and np.isfinite(d1)) or d0 == d1:
        return float(x1)
    return float(x0 + (x1 - x0) * d0 / (d0 - d1))
