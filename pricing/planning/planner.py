"""The planner: each compared option's capacity plan, by the decisions of the package docstring
(sizing.py, contracts.py, hybrid.py, refresh.py) in the context they share (context.py)."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from models.constraints import excluded
from models.numbers import on_day
from models.options import Billing, spec
from models.portfolio.workloads import Finetune, Pretrain
from models.scenario import Scenario
from models.units import HOURS_PER_MONTH
from pricing.cashflows import option_flows
from pricing.catalogue.loader import Catalogue
from pricing.inputs import CostInputs, base_params
from pricing.planning.bridging import Bridging
from pricing.planning.context import PlanContext
from pricing.planning.contracts import STEP_MIN_SAVING, Contracts
from pricing.planning.hybrid import Hybrid
from pricing.planning.option_context import context
from pricing.planning.records import CONTRACTS, OptionPlan, Portfolio
from pricing.planning.refresh import Refreshes
from pricing.planning.representative import weights_gb
from pricing.planning.resale import aged_years
from pricing.planning.service import ServiceSearch
from pricing.planning.sizing import LARGER_SIZE_FACTORS, SizeSearch


class Planner(SizeSearch, ServiceSearch, Contracts, Hybrid, Refreshes, Bridging, PlanContext):
    """Builds the plans of one scenario: each decision in its own class, the shared context
    (inputs by size, simulations by capacity) in PlanContext."""

    def plan(self, option: str) -> OptionPlan:
        """The option's plan (`_plan_option`), its simulations with the bridge's capacity added
        where it is bridged (bridging.py)."""
        self.bridged_option = option if self.may_bridge(option) else None
        try:
            return self._plan_option(option)
        finally:
            self.bridged_option = None

    def _plan_option(self, option: str) -> OptionPlan:
        """The option's plan: its size by its rule (fixed, per use or hybrid), then, for a rented,
        managed or committed option whose size the search chose, the cheapest whole plan
        (`total_usd`) of that size and the `larger_sizes` that serve as much, each with a second
        contract (a step down, else a step up) where that costs less than one (`contracts`): two
        contracts side by side each pay storage and a platform team minimum, which
        `contract_usd`'s test leaves out."""
        per_use = spec(option).billing is Billing.PER_USE
        split = None
        if spec(option).composed_of:
            size, rule, ready, cap, r, split = self.cheapest_hybrid(option)
        else:
            size, rule, ready, cap, r = (self.per_use if per_use else self.fixed)(option)
            if not per_use and self.scenario.cluster.gpus is None:  # the service level's size
                size, rule, ready, cap, r = self.service_size(option, size, rule, (ready, cap, r))
        if split or spec(option).billing not in CONTRACTS or self.scenario.cluster.gpus is not None:
            return self._completed(self._plan(option, size, rule, ready, cap, r, split))
        best, cost = self.contracts(option, size, rule, ready, cap, r)
        if not best.completes or not self.backlogged(r, ready):
            return self._completed(best)
        for bigger in self.larger_sizes(size):  # finishing sooner can end a commitment sooner
            ready2, cap2, r2 = self.fixed_at(option, bigger)
            if self.unmet(r2) > self.unmet(r) + self.tol:
                continue
            why = (
                f"{bigger:,} GPUs, of the sizes tried from the smallest that leaves no more work "
                f"queued or past the term than the unconstrained demand ({size:,}) up to "
                f"{LARGER_SIZE_FACTORS[-1]:g}× it, the one whose whole plan costs least (more GPUs "
                "finish the work sooner, and a contract ends sooner)"
            )
            plan, total = self.contracts(option, bigger, why, ready2, cap2, r2)
            if total < cost * (1 - STEP_MIN_SAVING):
                best, cost = plan, total
        return self._completed(best)

    def _completed(self, plan: OptionPlan) -> OptionPlan:
        """The chosen plan with its whole simulation (the candidates were priced on summaries)
        and its service level."""
        whole = self.complete(plan.result)
        return dataclasses.replace(plan, result=whole, service=self.service_of(whole))

    @functools.cached_property
    def longest_run_days(self) -> float:
        """The longest gang run's days (0 without any): each plan's `longest_run_days`."""
        return max(self.demand.runs.run_days, default=0.0)

    @functools.cached_property
    def trained_weights(self) -> list[tuple[str, float]]:
        """(name, bf16 weights GB) of each training workload, in the scenario's order: the
        weights each finished run exports (`_plan`'s weighted runs)."""
        return [
            (w.name, weights_gb(w.model))
            for w in self.scenario.workloads
            if isinstance(w, Pretrain | Finetune)
        ]

    def total_usd(self, plan: OptionPlan) -> float:
        """The plan's nominal cost over the term at the catalogue's base figures, every line, by
        the cash-flow functions the engine prices it with (cashflows.option_flows)."""
        inp = plan.inputs.with_portfolio(
            Portfolio(self.demand, self.rep, self.representative, {plan.option: plan}), {}
        )
        P = base_params(inp)
        flows = option_flows(plan.option, inp, P, context(inp, P, plan.option))
        return float(sum(np.sum(v) for v in flows.values()))

    def _plan(self, option, size, rule, ready, cap, r, split, step=None) -> OptionPlan:
        """The OptionPlan of a size, rule and simulation: its inputs, note, expansion phases and
        refreshes."""
        names = (w.name for w in self.demand.workloads)
        finished = dict(zip(names, r.runs_finished_by_workload, strict=True))
        inp = self.inputs(size)
        if spec(option).billing is Billing.OWNED:  # its resale at its own age if bought later
            inp = self._bought_for_work(option, size, ready)
        note = inp.unavailable.get(option, "")
        if split is not None:
            burst = split.burst_inputs
            note = (
                f"the cloud burst of {split.burst_gpus:,} GPUs: "
                f"{burst.unavailable[split.burst_option]}"
                if burst is not None and split.burst_option in burst.unavailable
                else ""
            )
        weighted = sum(finished[name] * gb / inp.weights_gb for name, gb in self.trained_weights)
        tranches = self.tranches(option)
        if tranches:
            added = ", ".join(f"{t.gpus:,} GPUs ordered in month {t.month}" for t in tranches)
            rule = f"{rule}; expansion phases: {added} (each ready on its own build timeline)"
        refreshes = self.refreshes(option, size)
        retire = self.generations(option, size)[0][2]
        if refreshes:
            age = self.scenario.options.build_refresh_after_months
            inp = aged_years(inp, age / 12, self.cat, ready)
            days = ", ".join(on_day(r.ready_day) for r in refreshes)
            rule = (
                f"{rule}; hardware refreshed at {age} months of age: new {size:,} GPUs ready on "
                f"{days}, each ordered its lead time ahead, the old sold when it reaches the age"
            )
        # per use: what it holds is its GPUs in use in whole instances (SizeSearch.per_use)
        billed = cap * HOURS_PER_MONTH if spec(option).billing is Billing.PER_USE else None
        return OptionPlan(
            option=option,
            inputs=inp,
            size_gpus=size,
            rule=rule,
            ready_day=ready,
            capacity_gpus=cap,
            result=r,
            completes=self.unmet(r) <= self.baseline + self.tol,
            runs_finished=sum(finished.values()),
            weighted_runs=weighted,
            longest_run_days=self.longest_run_days,
            split=split,
            unavailable=note,
            tranches=tranches,
            refreshes=refreshes,
            retire_day=retire,
            second=step,
            order_day=self.order_day(option, size),
            billed_gpu_hours=billed,
            bridge=self.bridge_plan(option, ready, r),
        )


def plan_portfolio(scenario: Scenario, catalogue: Catalogue) -> tuple[CostInputs, Portfolio]:
    """The base inputs (the representative plan on the largest option's size, for the summary
    and the decision support's figures) with every compared option's plan attached."""
    planner = Planner(scenario, catalogue)
    ruled_out = excluded(scenario.constraints)  # not planned at all
    plans = {o: planner.plan(o) for o in scenario.options.compare if o not in ruled_out}
    size = max(p.size_gpus for p in plans.values())
    base = _priced_where_offered(planner.inputs(size), plans)
    unavailable = {o: p.unavailable for o, p in plans.items() if p.unavailable}
    unavailable |= {o: why for o, why in ruled_out.items() if o in scenario.options.compare}
    portfolio = Portfolio(
        demand=planner.demand,
        representative=planner.rep,
        representative_of=planner.representative,
        plans=plans,
    )
    return base.with_portfolio(portfolio, unavailable), portfolio


def _priced_where_offered(base: CostInputs, plans: dict[str, OptionPlan]) -> CostInputs:
    """The base inputs with each figure they lack (NaN: not offered at the base size, as the
    on-demand price past its largest block) taken from the first compared option whose own size
    has it, so the tornado, the draws and the Assumptions page show and move the price that option
    pays (option_params scales each option's figure by the base's)."""
    fill = {}
    for key, f in base.figures.items():
        if math.isfinite(f.value):
            continue
        for p in plans.values():
            own = p.inputs.figures.get(key) if not p.unavailable else None
            if own is not None and math.isfinite(own.value):
                fill[key] = own
                break
    return dataclasses.replace(base, figures={**base.figures, **fill}) if fill else base
