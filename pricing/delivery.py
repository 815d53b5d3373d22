"""How the compared options deliver a scenario's work: one interface for both kinds of scenario.
The valuation, the decision support, the price checks and the result builder ask
`delivery_of(inp)` and do not branch on which kind it is.

- `SingleRun` (scenario version 1): one training run, repeated `usage.runs` times or used
  steadily at `usage.utilisation_pct`. Every option prices the scenario's own inputs; its Context
  comes from its provisioning timeline's ready day and the run's wall-clock length
  (`ready_and_train_days`), per parameter set, so the draws move both.
- `PortfolioPlans` (version 2): each option has its own capacity plan (pricing/planning/), with its
  own inputs (its size), figures (its size's price tier, its hardware's resale age) and Context
  (its simulation, made once on the base figures)."""

from __future__ import annotations

import dataclasses

import numpy as np

from models.options import spec
from pricing import bridge
from pricing import cashflows as cf
from pricing import timeline as tl
from pricing.inputs import CostInputs, base_params
from pricing.planning import option_context


def ready_and_train_days(
    inp: CostInputs, P: dict[str, np.ndarray], option: str
) -> tuple[np.ndarray, np.ndarray]:
    """(ready day, wall-clock days of one run) of `option` per parameter set, shape (n, 1): the
    provisioning timeline's ready day (pricing/timeline.py), and the ideal days stretched by the
    option's goodput (a managed service restarts faster), by the plan's whole-run factor
    (TrainingPlan.whole_run_factor) and, when interruptible, the spot interruption overhead."""
    ready = tl.ready_day(option, inp.site, lead_time_multiplier=P["lead_time_multiplier"])
    ready = np.broadcast_to(np.asarray(ready, dtype=float), P["lead_time_multiplier"].shape)
    opt = spec(option)
    ratio = inp.value("managed_restart_ratio") if opt.managed else 1.0
    # × the whole-run factor (models/training/whole_run.py): costs use the whole-run expectation
    days = inp.plan.ideal_days / inp.goodput(P["failure_rate_multiplier"], ratio)
    days = days * inp.plan.whole_run_factor
    if opt.interruptible:
        days = days * (1 + P["spot_interruption_overhead_pct"] / 100)
    return ready, days


class SingleRun:
    """A version 1 scenario: one training run, repeated or used steadily."""

    kind = "run"

    def option_inputs(self, inp: CostInputs, option: str) -> CostInputs:
        return inp

    def option_params(self, inp: CostInputs, P: dict[str, np.ndarray], option: str) -> dict:
        return P

    def context(self, inp: CostInputs, P: dict[str, np.ndarray], option: str) -> cf.Context:
        """The option's Context; an option ready after the bridge (pricing/bridge.py) starts its
        work on the bridge's capacity, which its Context carries as `bridge`. Which options are
        bridged, and by which, is the base case's (`bridges`, worked out once per inputs); each
        parameter set starts the work on its own ready day of the bridge."""
        ready, days = ready_and_train_days(inp, P, option)
        by = bridges(inp).get(option)
        if by is None:
            return cf.make_context(inp, P, ready, days, hold=spec(option).holds)
        start = np.minimum(ready_and_train_days(inp, P, by)[0], ready)
        ctx = cf.make_context(inp, P, ready, days, hold=spec(option).holds, start_day=start)
        steady = inp.scenario.usage.mode != "runs"
        util = np.clip(P["utilisation_pct"] / 100.0, 0.0, 1.0) if steady else None
        return dataclasses.replace(
            ctx, bridge=bridge.bridge_part(inp, dict(P), by, start, ctx, util)
        )

    def fixed_inputs(self, inp: CostInputs) -> frozenset[str]:
        """Inputs the decision support does not vary: the usage number the scenario does not use
        (the utilisation of a scenario counted in runs, the runs of steady use)."""
        return frozenset({"utilisation_pct"} if inp.scenario.usage.mode == "runs" else {"runs"})


class PortfolioPlans:
    """A version 2 scenario: a capacity plan per option (pricing/planning/)."""

    kind = "portfolio"
    #: inputs the capacity plans fix at their base values (one simulation per option, not per
    #: draw), so they move no portfolio NPV and are not varied
    FIXED = frozenset(
        {"runs", "utilisation_pct", "lead_time_multiplier", "failure_rate_multiplier"}
    )

    def option_inputs(self, inp: CostInputs, option: str) -> CostInputs:
        return option_context.option_inputs(inp, option)

    def option_params(self, inp: CostInputs, P: dict[str, np.ndarray], option: str) -> dict:
        return option_context.option_params(inp, P, option)

    def context(self, inp: CostInputs, P: dict[str, np.ndarray], option: str) -> cf.Context:
        return option_context.context(inp, P, option)

    def fixed_inputs(self, inp: CostInputs) -> frozenset[str]:
        return self.FIXED


SINGLE_RUN, PORTFOLIO = SingleRun(), PortfolioPlans()
#: each kind of scenario's delivery (models/scenario.py `Scenario.kind`)
DELIVERY = {d.kind: d for d in (SINGLE_RUN, PORTFOLIO)}


def _may_bridge(inp: CostInputs, P: dict, own: cf.Context) -> bool:
    """Whether an option ready after the bridge is bridged (pricing/bridge.py): steady use always (its
    GPU-hours count from the start), runs only when it would not finish them within the term
    alone (`own`: its Context without a bridge): runs it finishes deliver the same work, later."""
    return inp.scenario.usage.mode != "runs" or own.runs_done.flat[0] < P["runs"].flat[0] - 1e-9


def bridges(inp: CostInputs) -> dict[str, str]:
    """option -> the option that bridges it to its go-live at the base case (bridge.bridged,
    `_may_bridge`; a portfolio: its plans' bridges, pricing/planning/bridging.py); empty with
    bridging off. Worked out once per inputs (the decision support asks for it several times)
    and kept on them."""
    if not inp.scenario.options.bridge:
        return {}
    if inp.scenario.is_portfolio:
        plans = inp.portfolio.plans if inp.portfolio is not None else {}
        return {o: p.bridge.option for o, p in plans.items() if p.bridge is not None}
    kept = inp.__dict__.get("_bridges")
    if kept is None:
        kept = _bridges(inp)
        object.__setattr__(inp, "_bridges", kept)  # frozen: set once, read only after
    return kept


def _bridges(inp: CostInputs) -> dict[str, str]:
    P = base_params(inp)
    compared = [o for o in inp.scenario.options.compare if o not in inp.unavailable]
    timing = {o: ready_and_train_days(inp, P, o) for o in compared}
    by = bridge.bridged(inp, {o: float(t[0][0, 0]) for o, t in timing.items()}, P)
    return {
        o: b
        for o, b in by.items()
        if _may_bridge(inp, P, cf.make_context(inp, P, *timing[o], hold=spec(o).holds))
    }


def delivery_of(inp: CostInputs) -> SingleRun | PortfolioPlans:
    """How the options deliver the kind of scenario `inp` prices."""
    return DELIVERY[inp.scenario.kind]
