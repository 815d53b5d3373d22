"""Time has a value (issue 30): when the buyer says what a day of earlier results is worth
(`usage.value_usd_per_day_earlier` per training run, or a portfolio workload's
`value_usd_per_day_earlier`), a later option pays for its delay in the ranking.

What is counted, for each option that completes the work (`OptionResult.completes_workload`):

- One run (scenario version 1, usage.mode "runs"): the day of its first result,
  result_day = start + min(runs, 1) × train_days, where start is the day the work starts (the
  bridge's ready day when bridged, pricing/bridge.py, else the option's own ready day); this is
  `OptionResult.first_result_day` whenever a whole run is asked for. Its delay is
  delay = result_day − min(result_day over the completing options), and

      value of time = v × runs × delay

  with v the value per day per run and runs the scenario's `usage.runs`: the runs follow one
  another on the same capacity, so each comes `delay` days later (a managed option's shorter
  run is not credited past the first). Steady use (usage.mode "utilisation") is bridged to the
  same hours (pricing/bridge.py), so it has no delay to value: no adjustment.
- A portfolio (scenario version 2): for each workload w with a value v_w, its mean delay
  d_w = `WorkloadDelay.delay_days_mean` (a run's start less its release, go-live included; flat
  work GPU-hour-weighted; work still waiting at the term end counts its wait until then), and

      value of time = Σ_w v_w × (d_w − min(d_w over the completing options))

The ranking (pricing/decision.py `recommend`, the Monte Carlo, the tornado and the flip points
through pricing/valuation.py `npv_columns`) reads NPV + value of time. The adjustment is not a
cash flow (nobody is paid it): it is in no cash flow, total, NPV, chargeback or CSV line. It
applies the same way to every option; the earliest option's is 0. The Monte Carlo holds the
delays at their base values (only the cash flows are drawn). Without a value per day nothing
is counted and every figure is as before.
"""

from __future__ import annotations

from pricing.results import OptionResult, TimeTrade, TimeValue, WorkloadTimeValue


def ranked_npv(r: OptionResult) -> float:
    """The NPV the ranking reads: NPV + value of time (the NPV itself without one)."""
    return r.npv_usd if r.value_of_time is None else r.value_of_time.ranked_npv_usd


def _result_day(r: OptionResult, runs: float) -> float:
    start = r.work_start_day if r.work_start_day is not None else r.ready_day
    return start + min(runs, 1.0) * r.train_days


def _run_values(scenario, completing: list[OptionResult]) -> dict[str, TimeValue]:
    usage = scenario.usage
    v = usage.value_usd_per_day_earlier
    if v is None or usage.mode != "runs" or not completing:
        return {}
    days = {r.option: _result_day(r, usage.runs) for r in completing}
    earliest = min(completing, key=lambda r: days[r.option])
    out = {}
    for r in completing:
        delay = days[r.option] - days[earliest.option]
        value = v * usage.runs * delay
        out[r.option] = TimeValue(
            value_usd=value,
            delay_days=delay,
            ranked_npv_usd=r.npv_usd + value,
            runs=usage.runs,
            earliest_label=earliest.label,
        )
    return out


def _portfolio_values(scenario, completing: list[OptionResult]) -> dict[str, TimeValue]:
    valued = {
        w.name: w.value_usd_per_day_earlier
        for w in scenario.workloads or []
        if w.value_usd_per_day_earlier is not None
    }
    if not valued or not completing:
        return {}
    mean = {
        (r.option, d.name): d.delay_days_mean
        for r in completing
        for d in r.workload_delays
        if d.name in valued and d.delay_days_mean is not None
    }
    least: dict[str, float] = {}
    for (_, name), d in mean.items():
        least[name] = min(d, least.get(name, d))
    out = {}
    for r in completing:
        rows = [
            WorkloadTimeValue(
                name=name,
                value_usd_per_day_earlier=v,
                delay_days=mean[r.option, name] - least[name],
                value_usd=v * (mean[r.option, name] - least[name]),
            )
            for name, v in valued.items()
            if (r.option, name) in mean
        ]
        value = sum(w.value_usd for w in rows)
        weight = sum(w.value_usd_per_day_earlier for w in rows)
        out[r.option] = TimeValue(
            value_usd=value,
            delay_days=value / weight if weight > 0 else 0.0,
            ranked_npv_usd=r.npv_usd + value,
            workloads=rows,
        )
    return out


def attach(scenario, results: dict[str, OptionResult]) -> dict[str, OptionResult]:
    """`results` with each completing option's `value_of_time` set (the module docstring); the
    same dict when the scenario values no time."""
    completing = [r for r in results.values() if r.available and r.completes_workload]
    values = (_portfolio_values if scenario.is_portfolio else _run_values)(scenario, completing)
    if not values:
        return results
    return {
        o: r.model_copy(update={"value_of_time": values[o]}) if o in values else r
        for o, r in results.items()
    }


def adjustments(results: dict[str, OptionResult]) -> dict[str, float]:
    """option -> its value of time, USD, for pricing/valuation.py `npv_columns` (empty: none)."""
    return {o: r.value_of_time.value_usd for o, r in results.items() if r.value_of_time}


def facts(best: OptionResult, pool: list[OptionResult], runner_up: OptionResult | None) -> dict:
    """The Recommendation's value-of-time facts (empty without one): the recommended option's
    value of time and ranked NPV, and the trade against the option cheapest in cash when that is
    not `best` (its extra cost buys earlier results), else against the runner-up in the ranking
    (`runner_up`)."""
    if best.value_of_time is None:
        return {}
    cash = min(pool, key=lambda r: r.npv_usd)
    other = cash if cash is not best and cash.npv_usd < best.npv_usd else runner_up
    out = dict(value_of_time_usd=best.value_of_time.value_usd, ranked_npv_usd=ranked_npv(best))
    if other is None or other.value_of_time is None:
        return out
    out["time_trade"] = TimeTrade(
        option=other.option,
        label=other.label,
        npv_usd=other.npv_usd,
        value_usd=other.value_of_time.value_usd,
        best_value_usd=best.value_of_time.value_usd,
        days_later=other.value_of_time.delay_days - best.value_of_time.delay_days,
    )
    return out
