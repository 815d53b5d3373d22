"""scenario -> comparison: what each option costs over the term, when it is ready, when the first
run finishes, and which is cheapest. The CLI, the portal, the PDF and the tests call `compare`.

Totals are nominal and NPV (monthly flows discounted at (1 + r)^-(m+1)/12, end of month m);
cost per delivered GPU-hour = total / GPU-hours of work done; cost per run = total / runs done.
Breakeven of A against B: the first month from which A's cumulative cost stays at or below B's.
"""

from __future__ import annotations

import numpy as np

from models.errors import InputError
from models.options import OPTIONS
from models.scenario import Scenario
from pricing import cashflows as cf
from pricing import decision as ds
from pricing import timeline as tl
from pricing.catalogue import Catalogue, load_catalogue
from pricing.freshness import with_freshness
from pricing.inputs import HOURS_PER_MONTH, CostInputs, build_inputs
from pricing.results import (  # noqa: F401  (Comparison, OptionResult: the engine's result types)
    Assumption,
    Comparison,
    Operations,
    OptionResult,
    Phase,
    TrainingSummary,
)
from pricing.valuation import (  # noqa: F401  (base_params, evaluate, totals: the engine's API)
    after_tax_totals,
    base_params,
    breakeven_month,
    completes,
    discount_factors,
    evaluate,
    npv_table,
    totals,
)

#: option id -> label shown everywhere (models/options.py)
LABELS = {s.id: s.label for s in OPTIONS}

#: Below one delivered GPU-hour a cost per GPU-hour means nothing (utilisation 1e-300 % would give
#: $1e302 per GPU-hour), so none is given.
MIN_GPU_HOURS = 1.0


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


def _option_result(
    inp: CostInputs, option: str, flows: cf.Flows, ctx: cf.Context, P
) -> OptionResult:
    months = inp.months
    nominal, npv = totals(flows, P, months)
    nominal_after_tax, npv_after_tax = after_tax_totals(inp, flows, ctx, P)
    monthly = sum(flows.values())[0]
    busy_hours = float(ctx.busy.sum() * HOURS_PER_MONTH * inp.gpus)
    runs = float(ctx.runs_done[0, 0])
    done = bool(completes(inp, ctx, P)[0, 0])
    train_days = float(ctx.train_days[0, 0])
    ready = float(ctx.ready_day[0, 0])
    timeline = tl.provisioning_timeline(option, **inp.site)
    note = inp.unavailable.get(option, "")
    if not done and not note:
        note = (
            f"only {runs:.2f} of {inp.scenario.usage.runs:g} runs fit in the term"
            if inp.scenario.usage.mode == "runs"
            else "not ready within the term"
        )
    return OptionResult(
        option=option,
        label=LABELS[option],
        available=option not in inp.unavailable,
        note=note,
        total_usd=float(nominal[0]),
        npv_usd=float(npv[0]),
        total_after_tax_usd=float(nominal_after_tax[0]),
        npv_after_tax_usd=float(npv_after_tax[0]),
        monthly_usd=monthly.tolist(),
        cumulative_usd=np.cumsum(monthly).tolist(),
        breakdown_usd={k: float(v[0].sum()) for k, v in flows.items()},
        monthly_by_category_usd={
            k: np.broadcast_to(np.asarray(v, dtype=float), (1, months))[0].tolist()
            for k, v in flows.items()
        },
        residual_value_usd=float(-flows.get("residual value", np.zeros((1, months)))[0].sum()),
        delivered_gpu_hours=busy_hours,
        usd_per_gpu_hour=float(nominal[0]) / busy_hours if busy_hours >= MIN_GPU_HOURS else None,
        runs_completed=runs,
        usd_per_training_run=float(nominal[0]) / runs if runs >= 1e-9 else None,
        completes_workload=done,
        train_days=train_days,
        timeline=[
            Phase(phase=p.name, start_day=p.start_day, end_day=p.end_day, note=p.note)
            for p in timeline.phases
        ],
        ready_day=ready,
        first_result_day=ready + train_days if runs >= 1 - 1e-9 else None,
        breakeven_month={},
    )


def compare(
    scenario: Scenario,
    catalogue: Catalogue | None = None,
    *,
    decision: bool = True,
    draws: int = 2000,
    seed: int = 20261129,
) -> Comparison:
    inp = build_inputs(scenario, catalogue if catalogue is not None else load_catalogue())
    options = [o for o in scenario.options.compare if o not in inp.unavailable]
    P = base_params(inp)
    results = evaluate(inp, P, options)
    for o in options:
        _check_finite(inp, o, results[o][0])
    rows = {o: _option_result(inp, o, *results[o], P) for o in options}
    for o in scenario.options.compare:
        if o in inp.unavailable:
            rows[o] = _unavailable(inp, o)
    for a in options:
        for b in options:
            if a != b:
                rows[a].breakeven_month[b] = breakeven_month(
                    np.array(rows[a].cumulative_usd), np.array(rows[b].cumulative_usd)
                )
    ordered = [rows[o] for o in scenario.options.compare]
    if decision and len(options) >= 2:
        sensitivity = ds.tornado(inp, options)
        uncertainty = ds.monte_carlo(inp, options, draws=draws, seed=seed)
        flips = ds.flip_points(inp, options)
    else:
        sensitivity, uncertainty, flips = None, None, []
    # the Monte Carlo says how sure the recommendation is (None: it does not say)
    recommendation = ds.recommend(inp, ordered, uncertainty)
    comparison = Comparison(
        scenario=scenario,
        training=_training_summary(inp, P),
        options=ordered,
        recommendation=recommendation,
        sensitivity=sensitivity,
        uncertainty=uncertainty,
        flip_points=flips,
        assumptions=[
            Assumption(
                key=f.key,
                value=f.value if np.isfinite(f.value) else None,
                unit=f.unit,
                source=f.source,
                as_of=f.as_of,
                overridden=f.overridden,
                note=f.note,
            )
            for f in inp.figures.values()
        ],
        catalogue_as_of=inp.catalogue.newest_as_of(),
        operations=_operations(inp, P),
    )
    return with_freshness(comparison, inp.catalogue)  # the prices it leans on that are old


def _operations(inp: CostInputs, P: dict[str, np.ndarray]) -> Operations:
    rate = inp.plan.reliability.failures_per_gpu_day * inp.value("failure_rate_multiplier")
    return Operations(
        staff_fte=float(cf.staff_fte(inp, P)[0, 0]),
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


def _training_summary(inp: CostInputs, P: dict[str, np.ndarray]) -> TrainingSummary:
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
        checkpoint=p.checkpoint,
        fabric=p.fabric,
        storage=p.storage,
        chosen_gpus=p.gpus,
        curve=list(p.curve or []),
    )
