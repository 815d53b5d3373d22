"""The context a capacity plan is priced in: one scenario's demand, its inputs by size, ready
days, capacity shares and cached simulations, shared by every decision the planner makes
(sizing.py, contracts.py, hybrid.py, refresh.py; planner.py puts them together)."""

from __future__ import annotations

import functools
import math

import numpy as np

from models.hardware import get_gpu
from models.infrastructure import size_fat_tree
from models.numbers import on_day
from models.options import Billing, spec
from models.portfolio.capacity import (
    CapacityResult,
    Prepared,
    prepare,
    simulate,
    slot_capacity,
    unmet_gpu_hours,
)
from models.portfolio.demand import Demand, TrainingSettings, derive_demand
from models.scenario import Scenario
from models.units import DAYS_PER_MONTH
from pricing import timeline as tl
from pricing.cashflows import window
from pricing.catalogue.loader import Catalogue
from pricing.inputs import CostInputs, build_inputs
from pricing.planning import representative
from pricing.planning.records import CONTRACTS, TOLERANCE, Tranche
from pricing.planning.representative import plan_representative, representative_run
from pricing.planning.resale import age_at_term_end, aged, with_resale_age
from pricing.site_power import site_limits


@functools.lru_cache(maxsize=4)  # a 200-service demand's arrays are ~10 MB
def _demand(workloads: tuple, gpu: str, months: int, training_key: str) -> tuple[Demand, Prepared]:
    """The workloads' demand on `gpu` over the term and its arrays (`prepare`), shared by every
    simulation; cached, as each workload's sizing is (models/portfolio/demand.py): the demand
    depends on the workloads alone, so pricing one portfolio with other figures derives it once
    (the Prepared's cache of queue orders is then shared too, as it is safe to)."""
    training = TrainingSettings.model_validate_json(training_key)
    demand = derive_demand(workloads, gpu, months, training=training)
    return demand, prepare(demand)


def clear_caches() -> None:
    """Forgets the demands and representative plans derived so far (a bench's first call)."""
    _demand.cache_clear()
    representative.plan_cache_clear()


class PlanContext:
    """What every decision on one scenario's plans reads: its demand, the representative run,
    inputs by size, ready days, capacity shares, and simulations cached by capacity."""

    def __init__(self, scenario: Scenario, catalogue: Catalogue):
        self.scenario, self.cat = scenario, catalogue
        self.months = scenario.term.months
        self.gpu = get_gpu(scenario.cluster.gpu)
        training = TrainingSettings.of(scenario)
        self.demand, self.prepared = _demand(
            tuple(scenario.workloads), self.gpu.gpu_id, self.months, training.key()
        )
        self.representative = representative_run(scenario, self.demand)
        self.rep = plan_representative(self.representative, self.gpu.gpu_id, training)
        self._inputs: dict[int, CostInputs] = {}
        self._sims: dict[tuple, CapacityResult] = {}
        #: the capacity each cached summary was simulated on, by the summary's id (`complete`)
        self._capacity_of: dict[int, np.ndarray] = {}
        #: the BridgeQueue (or None) each summary was simulated with, by its id
        self._bridge_of: dict[int, object] = {}
        #: the whole simulation of each summary completed, by the summary's id (`complete`)
        self._whole: dict[int, CapacityResult] = {}
        self._unmet: dict[tuple, float] = {}
        self._ready: dict[tuple[str, int], float] = {}
        self._slots: dict[tuple[float, float | None], np.ndarray] = {}
        self._generations: dict[tuple[str, int], tuple] = {}
        self._tranches: dict[str, tuple[Tranche, ...]] = {}
        #: the size the last fixed-size search found: the next one starts there (`bracket`)
        self._size_hint = 0
        d = self.demand
        self.tol = TOLERANCE * max(d.demanded_gpu_hours, 1.0)
        self.baseline = d.beyond_term_gpu_hours  # unconstrained work past the term
        self.node = self.gpu.gpus_per_node
        worked = np.flatnonzero(np.asarray(d.gpu_hours) > 0)
        #: the start of the first month with work: a contract starts there at the earliest
        self.first_work_day = float(worked[0] * DAYS_PER_MONTH) if len(worked) else 0.0

    def inputs(self, gpus: int) -> CostInputs:
        """The engine's inputs for `gpus`: the representative plan on this size and its fabric."""
        if gpus not in self._inputs:
            fabric = size_fat_tree(
                gpus,
                min(self.gpu.gpus_per_node, gpus),
                nic_gbit_per_s=self.gpu.scaleout_bandwidth_gbit_per_s,
            )
            plan = self.rep.model_copy(
                update={"gpus": gpus, "fabric": fabric, "sizing": "capacity plan"}
            )
            self._inputs[gpus] = build_inputs(self.scenario, self.cat, plan)
        return self._inputs[gpus]

    def ready(self, option: str, gpus: int) -> float:
        """The day `gpus` GPUs of `option` serve from: its provisioning timeline's ready day, and
        for a contract (rented, managed, committed cloud) no earlier than the first month with
        work: it is signed its provisioning time ahead of the work, not paid while nothing runs."""
        if (option, gpus) in self._ready:
            return self._ready[option, gpus]
        day = float(tl.ready_day(option, self._site(gpus)))
        if self.waits_for_work(option):
            day = max(day, self.first_work_day)
        self._ready[option, gpus] = day
        return day

    def _bought_for_work(self, option: str, gpus: int, ready: float) -> CostInputs:
        """The inputs of `gpus` GPUs, with the resale at their own age where they are ordered
        for later work (`order_day` > 0)."""
        inp, order = self.inputs(gpus), self.order_day(option, gpus)
        if order <= 0:
            return inp
        why = f"ordered for the work, on {on_day(order)}"
        return with_resale_age(inp, age_at_term_end(inp, ready, self.cat), self.cat, why)

    def waits_for_work(self, option: str) -> bool:
        """Whether the option is provisioned for the first month with work rather than from day
        0: a contract, and owned hardware bought as one cluster, a hybrid's base included (no
        expansion phases or refreshes, which are ordered by month and age)."""
        opt = spec(option)
        if opt.billing in CONTRACTS:
            return True
        o = self.scenario.options
        owned = opt.billing is Billing.OWNED or bool(opt.composed_of)
        return owned and not o.build_expansions and o.build_refresh_after_months is None

    def order_day(self, option: str, gpus: int) -> float:
        """The day the option's provisioning starts: 0, or its timeline ahead of a ready day set
        by later work (`ready`)."""
        return self.ready(option, gpus) - float(tl.ready_day(option, self._site(gpus)))

    def _site(self, gpus: int) -> tl.Site:
        """The timeline's site for `gpus` of this GPU, as CostInputs.site gives it for a priced
        plan (the size search probes counts it has not priced, so it builds them here)."""
        nodes = math.ceil(gpus / self.gpu.gpus_per_node)
        return tl.Site(
            self.gpu.gpu_id,
            gpus,
            nodes,
            nodes * self.gpu.node_power_kw,
            self.cat,
            own_facility=self.scenario.options.facility == "owned",
            **site_limits(self.scenario.constraints),
        )

    def tranches(self, option: str) -> tuple[Tranche, ...]:
        """The option's expansion phases: owned, not composite (module docstring). Cached."""
        if option not in self._tranches:
            self._tranches[option] = self._make_tranches(option)
        return self._tranches[option]

    def _make_tranches(self, option: str) -> tuple[Tranche, ...]:
        opt = spec(option)
        if opt.billing is not Billing.OWNED or opt.composed_of:
            return ()
        out = []
        for phase in self.scenario.options.build_expansions:
            order = phase.month * DAYS_PER_MONTH
            ready = order + self.ready(option, phase.gpus)
            out.append(
                Tranche(
                    gpus=phase.gpus,
                    month=phase.month,
                    order_day=order,
                    ready_day=ready,
                    inputs=aged(self.inputs(phase.gpus), ready, self.cat),
                    capacity_gpus=phase.gpus * self.share(ready),
                    capacity_slots=phase.gpus * self.slots(ready),
                )
            )
        return tuple(out)

    def extra(self, option: str) -> np.ndarray:
        """Capacity the option's expansion phases add each slot (0 without any)."""
        return sum((t.capacity_slots for t in self.tranches(option)), self.slots(np.inf))

    def slots(self, ready: float, end: float | None = None) -> np.ndarray:
        """(2, slots): the share of each slot from the ready day to `end` (default: the term end;
        `share`, slot by slot), and whether the slot is wholly inside (where a gang run may
        run). Cached by days (read only)."""
        if (ready, end) not in self._slots:
            pair = np.stack(
                [
                    slot_capacity(1.0, ready, self.months, end),
                    slot_capacity(1.0, ready, self.months, end, whole=True),
                ]
            )
            pair.flags.writeable = False
            self._slots[ready, end] = pair
        return self._slots[ready, end]

    def share(self, ready: float, end: float | None = None) -> np.ndarray:
        """Share of each month from the ready day to `end` (default: the term end)."""
        term = self.months * DAYS_PER_MONTH if end is None else end
        return window(self.months, np.array([[ready]]), np.array([[term]]))[0]

    def simulate(self, capacity: np.ndarray) -> CapacityResult:
        """A summary of the simulation on `capacity` (GPUs a slot and GPUs held for the whole
        slot, `slots`): every figure but the per-workload outcomes, which only the chosen plan
        needs (`complete`). Cached by capacity, the bridge's included (bridging.py)."""
        capacity, bridge = self.with_bridge(capacity)
        key = np.round(capacity, 9).tobytes() + (b"" if bridge is None else bridge.key)
        if key not in self._sims:
            self._sims[key] = simulate(
                self.demand,
                capacity[0],
                self.prepared,
                capacity[1],
                outcomes=False,
                bridge=bridge,
            )
            self._capacity_of[id(self._sims[key])] = capacity
            self._bridge_of[id(self._sims[key])] = bridge
        return self._sims[key]

    def complete(self, r: CapacityResult) -> CapacityResult:
        """The whole simulation of a summary `simulate` returned: its workloads' outcomes too
        (the same capacity, so the same figures; the queue's starts are cached, `prepared`)."""
        if r.workloads or not self.demand.workloads:
            return r
        if id(r) not in self._whole:  # options planned on the same capacity share it
            capacity, bridge = self._capacity_of[id(r)], self._bridge_of[id(r)]
            self._whole[id(r)] = simulate(
                self.demand, capacity[0], self.prepared, capacity[1], bridge=bridge
            )
        return self._whole[id(r)]

    def unmet(self, r: CapacityResult) -> float:
        return r.queued_gpu_hours + r.beyond_term_gpu_hours

    def probe(self, option: str, gpus: int) -> float:
        """`unmet` of the option at `gpus` (models/portfolio/capacity.py unmet_gpu_hours: the same number
        as the whole simulation's, without building its result): the size search's step."""
        return self.probe_capacity(self.base_capacity(option, gpus)[1] + self.extra(option))

    def probe_capacity(self, cap: np.ndarray) -> float:
        """`unmet` of a capacity given slot by slot (as `probe`), the bridge's added."""
        cap, bridge = self.with_bridge(cap)
        key = np.round(cap, 9).tobytes() + (b"" if bridge is None else bridge.key)
        if key in self._sims:
            return self.unmet(self._sims[key])
        if key not in self._unmet:
            self._unmet[key] = unmet_gpu_hours(self.demand, cap[0], self.prepared, cap[1], bridge)
        return self._unmet[key]
