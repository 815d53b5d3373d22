"""scenario -> comparison: what each option costs over the term, when it is ready, when the first
run finishes, and which is cheapest. The CLI, the portal, the PDF and the tests call `compare`.

Totals are nominal and NPV (monthly flows discounted at (1 + r)^-(m+1)/12, end of month m);
cost per delivered GPU-hour = total / GPU-hours of work done; cost per run = total / runs done.
Breakeven of A against B: the first month from which A's cumulative cost stays at or below B's.

A deadline (cluster.deadline_days) counts in days from the decision (day 0) to the end of the first
run, provisioning included: an option meets it when its first result day (ready day + its own
wall-clock days of one run) is on or before it. `size_for_deadline` states how the GPU count is
chosen; pricing/decision.py `recommend` recommends only options that meet it when any does.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from models.errors import InputError
from models.numbers import on_day, pct
from models.options import OPTIONS, Billing, Staffing, spec
from models.portfolio.capacity import CapacityResult
from models.scenario import Scenario
from models.units import SECONDS_PER_DAY
from pricing import cashflows as cf
from pricing import decision as ds
from pricing import site_power, time_value
from pricing import timeline as tl
from pricing.bridge import bridge_rate
from pricing.catalogue.freshness import with_freshness
from pricing.catalogue.loader import Catalogue, load_catalogue
from pricing.deadline import size_for_deadline
from pricing.delivery import delivery_of
from pricing.idle_capacity import idle_gang_notes
from pricing.inputs import DAYS_PER_MONTH, HOURS_PER_MONTH, CostInputs
from pricing.planning.planner import plan_portfolio
from pricing.planning.records import OptionPlan, Portfolio
from pricing.price_checks import price_inversions
from pricing.ranges import range_of, range_source
from pricing.results import (  # noqa: F401  (Comparison, OptionResult: the engine's result types)
    Assumption,
    Comparison,
    HardwareRefresh,
    Operations,
    OptionResult,
    Phase,
    PortfolioDemand,
    SitePower,
    TrainingSummary,
    WorkloadDelay,
)
from pricing.service_level import meets
from pricing.valuation import (  # noqa: F401  (base_params, evaluate, totals: the engine's API)
    after_tax_totals,
    base_params,
    breakeven_month,
    completes,
    discount_factors,
    evaluate,
    npv_columns,
    npv_table,
    totals,
)

#: option id -> label shown everywhere (models/options.py)
LABELS = {s.id: s.label for s in OPTIONS}

#: Below one delivered GPU-hour a cost per GPU-hour means nothing (utilisation 1e-300 % would give
#: $1e302 per GPU-hour), so none is given.
MIN_GPU_HOURS = 1.0
#: a month at least this busy is work an option's size is held for (trailing_hold)
TRAILING_BUSY_SHARE = 0.05
#: a held tail this long or longer, at under TRAILING_IDLE_BUSY_SHARE busy, is said
TRAILING_MONTHS = 3
TRAILING_IDLE_BUSY_SHARE = 0.01
#: the options that pay for their size while it is held and could give it back sooner
RELEASABLE = (Billing.RENT, Billing.MANAGED_RENT, Billing.COMMITTED)


def _check_finite(inp: CostInputs, option: str, flows: cf.Flows) -> None:
    """Fails loudly, naming the input, rather than let NaN or infinity reach a total or a ranking."""
    for category, values in flows.items():
        if np.all(np.isfinite(values)):
            continue
        bad = [k for k, f in inp.figures.items() if f.overridden and not np.isfinite(f.value)]
        field = f"overrides.{bad[0]}" if bad else "scenario"
        raise InputError(
            field,
            f"the {category} cost of {LABELS[option]} is not a finite number for this scenario; "
            "check the inputs it depends on",
        )


def _money_and_timeline(
    inp: CostInputs,
    option: str,
    flows: cf.Flows,
    ctx: cf.Context,
    P,
    delivered_gpu_hours: float,
    site: tl.Site,
    order_day: float = 0.0,
) -> dict:
    """The OptionResult fields a single run and a portfolio compute alike: the option's totals and
    NPV (before and after tax), its monthly cash flows by category, the residual value, the cost per
    delivered GPU-hour and the provisioning phases of its `site`, from `order_day` (provisioning
    started its timeline ahead of later work)."""
    months = inp.months
    nominal, npv = totals(flows, P, months)
    nominal_after_tax, npv_after_tax = after_tax_totals(inp, flows, ctx, P, spec(option))
    monthly = sum(flows.values())[0]
    total = float(nominal[0])
    return {
        "option": option,
        "label": LABELS[option],
        "available": option not in inp.unavailable,
        "total_usd": total,
        "npv_usd": float(npv[0]),
        "total_after_tax_usd": float(nominal_after_tax[0]),
        "npv_after_tax_usd": float(npv_after_tax[0]),
        "monthly_usd": monthly.tolist(),
        "cumulative_usd": np.cumsum(monthly).tolist(),
        "breakdown_usd": {k: float(v[0].sum()) for k, v in flows.items()},
        "monthly_by_category_usd": {
            k: np.broadcast_to(np.asarray(v, dtype=float), (1, months))[0].tolist()
            for k, v in flows.items()
        },
        "residual_value_usd": float(-flows.get("residual value", np.zeros((1, months)))[0].sum()),
        "delivered_gpu_hours": delivered_gpu_hours,
        "usd_per_gpu_hour": total / delivered_gpu_hours
        if delivered_gpu_hours >= MIN_GPU_HOURS
        else None,
        "timeline": [
            Phase(
                phase=p.name,
                start_day=p.start_day + order_day,
                end_day=p.end_day + order_day,
                note=p.note,
            )
            for p in tl.provisioning_timeline(option, site).phases
        ],
        "power": SitePower(**site_power.power_of(option, site, P, _upgrade_days(option, site))),
    }


def _upgrade_days(option: str, site: tl.Site) -> float | None:
    """The facility phase's length when it carries an upgrade (pricing/site_power.py)."""
    if not spec(option).builds or not site_power.need(site).upgrade:
        return None
    return next(
        p.end_day - p.start_day
        for p in tl.provisioning_timeline(option, site).phases
        if p.name == "facility"
    )


def _option_result(
    inp: CostInputs, option: str, flows: cf.Flows, ctx: cf.Context, P
) -> OptionResult:
    """The option's result, built for the kind of scenario it prices (pricing/delivery.py)."""
    return _RESULT_OF[delivery_of(inp).kind](inp, option, flows, ctx, P)


def _run_result(inp: CostInputs, option: str, flows: cf.Flows, ctx: cf.Context, P) -> OptionResult:
    """A single run's option: its runs done in the term, the first result, the deadline; an option
    bridged to its go-live (pricing/bridge.py) counts the work on the bridge, which starts it."""
    bridge = ctx.bridge[3] if ctx.bridge else None
    busy = ctx.busy.sum() + (bridge.busy.sum() if bridge is not None else 0.0)
    busy_hours = float(busy * HOURS_PER_MONTH * inp.gpus)
    common = _money_and_timeline(inp, option, flows, ctx, P, busy_hours, inp.site)
    total = common["total_usd"]
    runs = float(ctx.runs_done[0, 0])
    done = bool(completes(inp, ctx, P)[0, 0])
    train_days = float(ctx.train_days[0, 0])
    ready = float(ctx.ready_day[0, 0])
    start = ready if bridge is None else float(bridge.ready_day[0, 0])
    first = start + train_days if runs >= 1 - 1e-9 else None
    if bridge is not None:
        _bridged(
            common,
            ctx.bridge[0],
            start,
            ready,
            bridge_rate(ctx.bridge[0], ctx.bridge[2], inp.scenario.options.bridge_price),
        )
    deadline = inp.scenario.cluster.deadline_days
    note = inp.unavailable.get(option, "")
    if not done and not note:
        note = (
            f"only {runs:.2f} of {inp.scenario.usage.runs:g} runs fit in the term"
            if inp.scenario.usage.mode == "runs"
            else "not ready within the term"
        )
    return OptionResult(
        **common,
        note=note,
        runs_completed=runs,
        usd_per_training_run=total / runs if runs >= 1e-9 else None,
        completes_workload=done,
        train_days=train_days,
        ready_day=ready,
        first_result_day=first,
        meets_deadline=None
        if deadline is None
        else first is not None and first <= deadline * (1 + 1e-9),
        days_past_deadline=(
            None if deadline is None or first is None else max(first - deadline, 0.0)
        ),
        breakeven_month={},
    )


def _bridged(common: dict, by, start: float, go_live: float, rate: tuple, runs=None) -> None:
    """An option's result fields of its bridge (pricing/bridge.py, pricing/planning/bridging.py):
    a "bridged on …" phase of its Gantt, from the work's start on the bridge (`by`, its spec)
    to the go-live (none where it only clears a portfolio's start-up backlog on its go-live
    day), who bridges it from when, at what rate (`rate`: pricing/bridge.py `bridge_rate`) and,
    in a portfolio, how many runs it took and how many wait for the go-live (`runs`)."""
    if start < go_live:
        common["timeline"].append(
            Phase(
                phase=f"bridged on {by.label}",
                start_day=start,
                end_day=go_live,
                note=f"the work runs on {by.label} capacity, hired by the hour, until go-live",
            )
        )
    common["bridged_by"], common["work_start_day"] = by.id, start
    common["bridge_usd_per_gpu_hour"], common["bridge_price"] = rate
    if runs is not None:
        common["bridge_runs"], common["bridge_runs_waiting"] = runs


def trailing_hold(
    option: str,
    size: int,
    capacity: np.ndarray,
    served: np.ndarray,
    step: tuple[int, float] | None = None,
) -> str:
    """'; holds 1,024 GPUs in months 14–36 for 67 GPU-hours of work (under 0.1 % busy): ...' when a
    rented, managed or committed option keeps GPUs held, and paid for, for TRAILING_MONTHS or
    more after its last month of real work (TRAILING_BUSY_SHARE of its size busy) to serve a
    trickle (under TRAILING_IDLE_BUSY_SHARE of what it holds busy); '' otherwise. `step` (GPUs,
    day): the GPUs held from a second contract's day (pricing/planning/ step down or up):
    the text then says "1,024 GPUs in months 14–25, then 8 to month 36". The plan holds its contracts for as long as
    any work runs on them; this says what that costs."""
    if spec(option).billing not in RELEASABLE or size <= 0:
        return ""
    full = size * HOURS_PER_MONTH
    worked = np.flatnonzero(served >= TRAILING_BUSY_SHARE * full)
    if not len(worked):
        return ""
    tail = np.flatnonzero(capacity[worked[-1] + 1 :] > 0) + worked[-1] + 1
    if len(tail) < TRAILING_MONTHS:
        return ""
    work, held = float(served[tail].sum()), float(capacity[tail].sum() * HOURS_PER_MONTH)
    if not 0 < work < TRAILING_IDLE_BUSY_SHARE * held:
        return ""
    busy = pct(work / held, 1) if work / held >= 0.001 else "under 0.1 %"
    first, last = tail[0] + 1, tail[-1] + 1
    gpus = f"{size:,} GPUs in months {first}–{last}"
    if step is not None:
        small, day = step
        month = int(day // DAYS_PER_MONTH) + 1
        if month <= first:
            gpus = f"{small:,} GPUs in months {first}–{last}"
        elif month < last:
            gpus = f"{size:,} GPUs in months {first}–{month}, then {small:,} to month {last}"
    return (
        f"; holds {gpus} for {work:,.0f} GPU-hours of work ({busy} busy): a smaller rental, a "
        "shorter commitment, a hybrid or cloud for that work may cost less"
    )


def _paid_capacity(option: str, plan: OptionPlan, ctx: cf.Context) -> np.ndarray:
    """The GPUs an option pays for, month by month: the simulated capacity, cut where a rental is
    given back; each contract's GPUs while it is held when the plan resizes; the simulated
    capacity itself for per-use billing, base + burst, or owned hardware added or replaced."""
    # what is paid for: the simulated capacity, cut where a rental is given back
    capacity = np.minimum(plan.capacity_gpus, plan.size_gpus * ctx.held[0])
    if plan.second is not None:  # each contract's GPUs while it is held
        capacity = sum(part_inp.gpus * part_ctx.held[0] for _, part_inp, _, part_ctx in ctx.parts)
    elif (
        spec(option).holds == "busy" or plan.split is not None or plan.tranches or plan.refreshes
    ):  # per use, or base + burst used, or owned hardware added or replaced
        capacity = plan.capacity_gpus
    return capacity


def _portfolio_note(inp: CostInputs, option: str, plan: OptionPlan) -> str:
    """The option's note: why it is unavailable, else, when it does not finish the work, how many
    GPU-hours the demand would finish in the term are queued or run past it."""
    r = plan.result
    late = r.queued_gpu_hours + r.beyond_term_gpu_hours - inp.portfolio.demand.beyond_term_gpu_hours
    note = inp.unavailable.get(option, "")
    if not bool(plan.completes) and not note:
        note = (
            f"{late:,.0f} GPU-hours the demand would finish in the term are queued or run past "
            f"it on {plan.size_gpus:,} GPUs ready on {on_day(plan.ready_day)}"
        )
    return note


def _chargeback(total: float, r: CapacityResult) -> dict[str, float]:
    """The term's cost split by team in proportion to the GPU-hours served to each (none below
    MIN_GPU_HOURS served in all)."""
    by_team: dict[str, float] = {}
    for w in r.workloads:
        by_team[w.team] = by_team.get(w.team, 0.0) + w.served_gpu_hours
    return (
        {t: total * h / r.served_gpu_hours for t, h in sorted(by_team.items())}
        if r.served_gpu_hours >= MIN_GPU_HOURS
        else {}
    )


#: each capacity result's (first finish, workload delays), by the result's id with the result
#: itself (a demand keeps its simulations: pricing the portfolio again reads the same objects)
_READ_OF_RESULT: dict[int, tuple[CapacityResult, float | None, list[WorkloadDelay]]] = {}
_READ_KEPT = 64


def _read_result(r: CapacityResult) -> tuple[float | None, list[WorkloadDelay]]:
    """(`_first_finish`, a copy of `_workload_delays`'s list) of a capacity result: each read
    once per result, which options planned on the same capacity share and which the demand keeps
    between comparisons (models/portfolio/capacity.py `Prepared`)."""
    hit = _READ_OF_RESULT.get(id(r))
    if hit is None or hit[0] is not r:
        if len(_READ_OF_RESULT) >= _READ_KEPT:
            _READ_OF_RESULT.clear()
        hit = _READ_OF_RESULT[id(r)] = (r, _first_finish(r), _workload_delays(r))
    return hit[1], list(hit[2])


def _first_finish(r: CapacityResult) -> float | None:
    """The day the first run of any workload finishes, or None when none does."""
    finish = [
        f for w in r.workloads for f, st in zip(w.runs_table.finish_day, w.runs_table.status, strict=True)
        if st == "finished" and f is not None
    ]  # fmt: skip
    return min(finish) if finish else None


def _workload_delays(r: CapacityResult) -> list[WorkloadDelay]:
    """Each workload's demand, service, queueing and delays under the option's capacity plan."""
    return [
        WorkloadDelay(
            name=w.name,
            team=w.team,
            kind=w.kind,
            demanded_gpu_hours=w.demanded_gpu_hours,
            served_gpu_hours=w.served_gpu_hours,
            queued_gpu_hours=w.queued_gpu_hours,
            beyond_term_gpu_hours=w.beyond_term_gpu_hours,
            delay_days_max=w.delay_days_max,
            delay_days_mean=w.delay_days_mean,
            runs=w.runs,
            runs_finished=w.runs_finished,
            never_served=w.never_served,
        )
        for w in r.workloads
    ]


def _hardware_refreshes(plan: OptionPlan) -> list[HardwareRefresh]:
    """Each owned-hardware refresh of the plan: its generation, order and ready days, and the day
    the hardware it replaces is sold."""
    return [
        HardwareRefresh(
            generation=f.generation,
            gpus=plan.size_gpus,
            order_day=f.order_day,
            ready_day=f.ready_day,
            replaced_sold_day=sold,
        )
        for f, sold in zip(
            plan.refreshes,
            [plan.retire_day, *(g.retire_day for g in plan.refreshes)],
            strict=False,
        )
    ]


def _portfolio_result(
    inp: CostInputs, option: str, flows: cf.Flows, ctx: cf.Context, P
) -> OptionResult:
    """An option's result for a portfolio: its costs as for one workload, with its capacity plan,
    what it serves and delays, and the chargeback by team (the rule on OptionResult)."""
    plan: OptionPlan = inp.portfolio.plans[option]
    own, r = plan.inputs, plan.result
    common = _money_and_timeline(
        inp, option, flows, ctx, P, r.served_gpu_hours, own.site, plan.order_day
    )
    total = common["total_usd"]
    served = np.array(r.served_gpu_hours_by_month)
    capacity = _paid_capacity(option, plan, ctx)
    own = served  # what the option's own GPUs serve: all but its bridge's (planning/bridging.py)
    if plan.bridge is not None:
        own = np.maximum(served - plan.bridge.served_gpu_hours, 0.0)
        b = plan.bridge
        by = spec(b.option)
        rate = bridge_rate(by, base_params(b.inputs), inp.scenario.options.bridge_price)
        _bridged(common, by, b.start_day, plan.ready_day, rate, (b.runs, b.runs_waiting))
    idle = np.maximum(capacity * HOURS_PER_MONTH - own, 0.0)
    first_finish, delays = _read_result(r)
    return OptionResult(
        **common,
        note=_portfolio_note(inp, option, plan),
        runs_completed=float(plan.runs_finished),
        usd_per_training_run=None,  # runs of different sizes: the chargeback splits the cost
        completes_workload=bool(plan.completes),
        train_days=plan.longest_run_days,
        ready_day=plan.ready_day,
        first_result_day=first_finish,
        breakeven_month={},
        capacity_size_gpus=plan.size_gpus,
        service_level=plan.service,
        resized_gpus=plan.second.gpus_after(plan.size_gpus) if plan.second else None,
        resized_day=plan.second.day if plan.second else None,
        capacity_rule=plan.rule
        + trailing_hold(
            option,
            plan.size_gpus,
            capacity,
            own,
            None
            if plan.second is None
            else (plan.second.gpus_after(plan.size_gpus), plan.second.day),
        ),
        capacity_gpus=capacity.tolist(),
        demand_gpu_hours=list(r.demand_gpu_hours),
        served_gpu_hours_by_month=served.tolist(),
        idle_gpu_hours_by_month=idle.tolist(),
        demanded_gpu_hours=r.demanded_gpu_hours,
        served_gpu_hours=r.served_gpu_hours,
        queued_gpu_hours=r.queued_gpu_hours,
        beyond_term_gpu_hours=r.beyond_term_gpu_hours,
        idle_gpu_hours=float(idle.sum()),
        workload_delays=delays,
        chargeback_usd=_chargeback(total, r),
        usd_per_million_output_tokens=_token_costs(inp, total, r),
        hardware_refreshes=_hardware_refreshes(plan),
    )


def _token_costs(inp: CostInputs, total: float, r: CapacityResult) -> dict[str, float]:
    """Each serving workload's cost per million output tokens under the option
    (OptionResult.usd_per_million_output_tokens): total × its served GPU-hours ÷ all served, over
    Σ months requests/s × seconds × output tokens × its served ÷ demanded GPU-hours, in millions."""
    if r.served_gpu_hours < MIN_GPU_HOURS:
        return {}
    month_s = DAYS_PER_MONTH * SECONDS_PER_DAY
    out = {}
    for w, outcome in zip(inp.scenario.workloads, r.workloads, strict=True):
        if w.kind != "serve" or outcome.served_gpu_hours <= 0 or outcome.demanded_gpu_hours <= 0:
            continue
        share_usd = total * outcome.served_gpu_hours / r.served_gpu_hours
        tokens = sum(w.rps_by_month()) * month_s * w.output_tokens
        served = tokens * outcome.served_gpu_hours / outcome.demanded_gpu_hours
        out[w.name] = share_usd / (served / 1e6)
    return out


#: the result builder of each kind of scenario (pricing/delivery.py `kind`)
_RESULT_OF = {"run": _run_result, "portfolio": _portfolio_result}


def _plan_run(scenario: Scenario, cat: Catalogue) -> tuple[CostInputs, None, str | None]:
    """(inputs, no portfolio, the option a deadline's size left room for): one run, sized."""
    inp, sized_for = size_for_deadline(scenario, cat)
    return inp, None, sized_for


def _plan_portfolio(scenario: Scenario, cat: Catalogue) -> tuple[CostInputs, Portfolio, None]:
    """(inputs, the portfolio with a capacity plan per option (pricing/planning/), None)."""
    inp, portfolio = plan_portfolio(scenario, cat)
    return inp, portfolio, None


#: how each kind of scenario (models/scenario.py `Scenario.kind`) is planned before it is priced
_PLAN_OF = {"run": _plan_run, "portfolio": _plan_portfolio}


def _portfolio_demand(portfolio: Portfolio) -> PortfolioDemand:
    d = portfolio.demand
    return PortfolioDemand(
        months=d.months,
        gpu_hours=d.gpu_hours,
        peak_gpus=d.peak_gpus,
        gpu_hours_by_team=d.gpu_hours_by_team,
        gpu_hours_by_kind=d.gpu_hours_by_kind,
        peak_gpus_by_team=d.peak_gpus_by_team,
        peak_gpus_by_kind=d.peak_gpus_by_kind,
        demanded_gpu_hours=d.demanded_gpu_hours,
        beyond_term_gpu_hours=d.beyond_term_gpu_hours,
        representative_model=portfolio.representative.model.name,
        representative_workload=portfolio.representative_of.name,
        representative_kind=portfolio.representative_of.kind,
        representative_gpus=portfolio.representative.gpus,
    )


def compare(
    scenario: Scenario,
    catalogue: Catalogue | None = None,
    *,
    decision: bool = True,
    draws: int = 2000,
    seed: int = 20261129,
    idle_check: bool = True,
) -> Comparison:
    cat = catalogue if catalogue is not None else load_catalogue()
    inp, portfolio, sized_for = _PLAN_OF[scenario.kind](scenario, cat)
    options = [o for o in scenario.options.compare if o not in inp.unavailable]
    P = base_params(inp)
    results = evaluate(inp, P, options)
    for o in options:
        _check_finite(inp, o, results[o][0])
    rows = {o: _option_result(inp, o, *results[o], P) for o in options}
    for o in scenario.options.compare:
        if o in inp.unavailable:
            rows[o] = _unavailable(inp, o)
    factors = discount_factors(P, inp.months)[0]
    discounted = {o: np.cumsum(np.array(rows[o].monthly_usd) * factors) for o in options}
    for a in options:
        for b in options:
            if a != b:
                rows[a].breakeven_month[b] = breakeven_month(
                    np.array(rows[a].cumulative_usd), np.array(rows[b].cumulative_usd)
                )
                rows[a].breakeven_month_npv[b] = breakeven_month(discounted[a], discounted[b])
    rows = time_value.attach(scenario, rows)  # what later results are worth, when valued
    if time_value.adjustments(rows):  # the ranking reads NPV + value of time
        inp = dataclasses.replace(inp, time_value_usd=time_value.adjustments(rows))
    ordered = [rows[o] for o in scenario.options.compare]
    # with a deadline the decision support compares the options that meet it (if any does):
    # they are the ones `recommend` chooses from
    served = [o for o in options if meets(rows[o])] or options  # the service level first
    on_time = [o for o in served if rows[o].meets_deadline]
    ranked = on_time or served
    supported = decision and len(ranked) >= 2
    if supported:
        base = npv_columns(inp, results, P, ranked)[0]  # the base case, evaluated above
        uncertainty = ds.monte_carlo(inp, ranked, draws=draws, seed=seed)
        flips = ds.flip_points(inp, ranked, base)
    else:
        uncertainty, flips = None, []
    # the Monte Carlo says how sure the recommendation is (None: it does not say)
    recommendation = ds.recommend(inp, ordered, uncertainty)
    # the tornado explains the gap the recommendation speaks of: the pair of its close call (the
    # contender is the option cheapest in the most draws), else the two cheapest by NPV
    pair = tuple(recommendation.contenders) if recommendation.close_call else None
    sensitivity = ds.tornado(inp, ranked, base, pair) if supported else None
    comparison = Comparison(
        scenario=scenario,
        training=_training_summary(inp, P, sized_for),
        options=ordered,
        recommendation=recommendation,
        sensitivity=sensitivity,
        uncertainty=uncertainty,
        flip_points=flips,
        assumptions=[_assumption(inp, f) for f in inp.figures.values()],
        catalogue_as_of=inp.catalogue.newest_as_of(),
        operations=_operations(inp, P),
        portfolio=_portfolio_demand(portfolio) if portfolio is not None else None,
        price_inversions=price_inversions(inp, options),
    )
    if idle_check:  # a rare run at the efficient size holding an option mostly idle, the remedy
        comparison.idle_gang = idle_gang_notes(scenario, ordered, _rerun_base(cat))
    return with_freshness(comparison, inp.catalogue)  # the prices it leans on that are old


def _rerun_base(cat: Catalogue):
    """compare() on another scenario with the same catalogue: the base case only (no decision
    support, no idle check of its own), as pricing/idle_capacity.py quotes it."""
    return lambda s: compare(s, cat, decision=False, idle_check=False)


def _assumption(inp: CostInputs, f) -> Assumption:
    """One figure the engine used, with the range the tornado and the Monte Carlo carry it over
    (pricing/ranges.py range_of) where it has one."""
    span = range_of(inp, f.key)
    return Assumption(
        key=f.key,
        value=f.value if np.isfinite(f.value) else None,
        unit=f.unit,
        source=f.source,
        as_of=f.as_of,
        overridden=f.overridden,
        note=f.note,
        range_low=span[0] if span else None,
        range_high=span[1] if span else None,
        range_source=range_source(f.key) if span else "",
    )


def _operations(inp: CostInputs, P: dict[str, np.ndarray]) -> Operations:
    rate = inp.plan.reliability.failures_per_gpu_day * inp.value("failure_rate_multiplier")
    return Operations(
        staff_fte=float(cf.staff_fte(inp, P, Staffing.OWNED)[0, 0]),
        rented_staff_fte=float(cf.staff_fte(inp, P, Staffing.RENTED)[0, 0]),
        spare_nodes=float(cf.spare_nodes(inp, P)[0, 0]),
        failures_per_gpu_day=rate,
        interruptions_per_week=rate * inp.gpus * 7,
        hardware_capex_usd={k: float(v[0, 0]) for k, v in cf.hardware_capex(inp, P).items()},
        mgmt_servers=float(cf.mgmt_servers(inp, P)[0, 0]),
        racks=inp.racks,
        cooling=inp.cooling,
    )


def _unavailable(inp: CostInputs, option: str) -> OptionResult:
    return OptionResult.unavailable(option, LABELS[option], inp.unavailable[option], inp.months)


def _training_summary(
    inp: CostInputs, P: dict[str, np.ndarray], sized_for: str | None = None
) -> TrainingSummary:
    p = inp.plan
    system_tb, sized_by = cf.storage_system(inp, P)
    return TrainingSummary(
        model=p.model.name,
        gpu=p.gpu,
        gpus=p.gpus,
        nodes=inp.nodes,
        layout=p.layout,
        step_time_s=p.step_time_s,
        mfu=p.mfu,
        ideal_days=p.ideal_days,
        goodput=p.goodput,
        train_days=p.train_days,
        train_days_low=p.train_days_low,
        train_days_high=p.train_days_high,
        gpu_hours_per_run=p.gpu_hours,
        steady_days=p.steady_days,
        steady_gpu_hours_per_run=p.steady_gpu_hours,
        whole_run_factor=p.whole_run_factor,
        it_power_kw=inp.it_power_kw,
        storage_tb=inp.storage_tb,
        storage_system_tb=float(system_tb[0, 0]),
        storage_sized_by=sized_by[0],
        fabric_switches=inp.switches,
        transceivers=inp.transceivers,
        memory_gib_per_gpu=p.memory_gib_per_gpu,
        memory_capacity_gib=p.memory_capacity_gib,
        tokens_per_s=p.tokens_per_s,
        sizing=p.sizing,
        min_gpus=p.min_gpus,
        train_days_budget=p.train_days_budget if sized_for is not None else None,
        deadline_sized_for=sized_for,
        checkpoint=p.checkpoint,
        fabric=p.fabric,
        storage=p.storage,
        chosen_gpus=p.gpus,
        curve=list(p.curve or []),
        efficient=p.efficient,
        scaling=p.scaling,
    )
