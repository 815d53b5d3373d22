"""A capacity plan per option for a portfolio (scenario version 2): the demand is derived once
(models/demand.py), each option gets one capacity vector, and models/capacity.py `simulate` serves
the demand on it once (not per Monte Carlo draw). The option's cash-flow function then prices it
through a CostInputs whose GPU count is the plan's size and a Context from the simulation.

Plans (months are the term's; capacity is 0 before the option's ready day, pricing/timeline.py,
and a share of the ready month; the simulation gets it slot by slot, models/capacity.py
`slot_capacity`, so no work is served and no run starts before the ready day):

- Fixed size (owned, rented, managed, committed cloud): `cluster.gpus` when given, else the
  smallest size in whole nodes, found by bisection, whose work left queued or running past the
  term is no more than the unconstrained demand's (`Demand.beyond_term_gpu_hours`); where no size
  achieves that (the option is ready too late), no more than the largest size searched achieves,
  and the option does not complete. Owned hardware is held to the term end, a rented or managed
  cluster for its commitment (pricing/cashflows.py `rental_end` from the end of the last served
  work), a committed cloud block for whole blocks. A contract (rented, managed, committed cloud)
  starts no earlier than the first month with work (`_Planner.ready`: signed its provisioning
  time ahead of it, its timeline shown from then), and so is owned hardware bought as one cluster
  (`waits_for_work`: ordered its build timeline ahead, its resale priced at its own age), a
  hybrid's base too; with expansion phases or refreshes, which are timed by month and age, it is
  ordered on day 0. Where work
  waits for a contract's capacity after its ready month (`backlogged`), the sizes a node or two
  above it and LARGER_SIZE_FACTORS × it that serve as much are priced whole too, and the cheapest
  whole plan is kept: more GPUs finish the work sooner, and a commitment can end sooner.
- Step down (rented, managed, committed cloud, sized here rather than by `cluster.gpus`; not a
  whole-term rental): the first contract may end at the end of any commitment block from its
  minimum term on (day T), and a second contract of S GPUs, the demand's largest peak from T's
  month on in whole nodes, serves the rest, with its own inputs (price tier, setup fee, minimum
  term, platform team: `SecondContract`, replaces=True). Taken where S is at most STEP_MAX_SHARE
  of the size, for STEP_MIN_MONTHS or more, the two contracts cost less than one at the
  catalogue's base figures (`contract_usd`), and the simulation on the stepped capacity leaves no
  more work undone than one contract; the largest saving of STEP_TRIES candidates that passes
  wins, and is kept only where the whole plan, every cost line priced as the engine prices it,
  costs less than one contract (`_Planner.total_usd`: two contracts side by side each pay
  storage and a platform team minimum, which `contract_usd` leaves out).
- Step up (the same options, where no step down is taken): a growing demand starts on a first
  contract of F GPUs, the demand's largest peak before month T in whole nodes (at most
  STEP_MAX_SHARE of the size, ready on its own timeline before T), and adds a second contract of
  size − F GPUs from the start of month T (ordered its provisioning time ahead; replaces=False),
  each held and priced as its own contract; chosen as the step down is.
- Per use (cloud on-demand, spot): elastic up to the demand's peak GPUs (its largest month, which
  sets the price tier) from the ready day, holding and billed on the GPU-hours served (spot: its training runs' GPU-hours plus the interruption overhead, as a version 1 run).
- Hybrid (a composite option, OptionSpec.composed_of = (base option, burst option)): an owned
  base of B GPUs (`cluster.gpus` when given, else of the months' peak GPUs at the
  HYBRID_BASE_PERCENTILES, each rounded up to whole nodes, at least one node, the one whose whole
  plan costs least at the catalogue's base figures, `cheapest_hybrid`), ready on the build timeline
  for B; and a per-use cloud burst elastic up to S = the largest month's peak GPUs less the base
  available that month (before the base is ready, the whole peak), from the cloud's ready day,
  priced at the on-demand / capacity-block figure of S GPUs. One simulation on base + burst; in
  each slot (≈ a day) the base serves first, min(GPUs in use, base), and the burst the rest
  (models/capacity.py `served_within`; a gang run may span both: a simplification). Its flows are the base option's on the base's GPUs and
  served hours plus the burst option's on the burst's (pricing/cashflows.py `composed`): the
  owned team for the base, the rented platform team only in months the burst serves work.
  A version 1 scenario has no demand over time: hybrid is unavailable there (inputs.py).
- Expansion phases (owned options, build and managed on owned hardware; version 2 only):
  `options.build_expansions`, each g GPUs ordered at the start of month M, is ready on day
  M × DAYS_PER_MONTH + the option's ready day for an order of g GPUs (pricing/timeline.py on g
  GPUs and their nodes: the whole build timeline, facility included, for each phase), and adds g
  GPUs from then to the term end. A fixed size is searched with the phases' capacity added.
  Each phase is priced as its own owned cluster of g GPUs (its own inputs, Context shifted to its
  order day: deposit with its order, hardware on its acceptance with the scenario's financing,
  power, space, support, insurance, property tax from its own milestones, resale at its own age
  at term end), except that it buys no file system (the base's serves it) and only the
  management servers the larger cluster adds; one operations team is sized on the GPUs
  installed (pricing/cashflows.py `owned`). A hybrid's base has no phases.

- Hardware refresh (owned options, not a hybrid's base; version 2 only):
  `options.build_refresh_after_months` = A. The cluster's hardware (not its expansion phases) is
  sold each time it is A months old, at the resale curve at that age (residual_values.csv, as
  pricing/inputs.py prices the base at term end; `_aged_years`), its loan repaid or lease ended
  then; a new cluster of the same size is ordered its lead time L ahead
  (pricing/timeline.py `refresh_lead_days`: the build timeline without the facility) and
  accepted that day, or L after the old one's acceptance when L > A (a gap without capacity).
  Each refresh is priced as its own owned cluster (its catalogue capex, deposit with its order,
  resale at its own age when it is itself refreshed or at term end) that buys no file system
  and no management servers and pays no space (the old one's serve it). The team stays.

Context per option (pricing/cashflows.py): busy = served GPU-hours / (size × hours of the month);
held as above; runs_done = finished gang runs, each counted by its model's weights over the
representative model's (so the egress line ships each run's own weights); completes = nothing is
queued or beyond the term that the unconstrained demand would have finished.

The training plan the costs read for storage, checkpoints and the summary is the representative
run's (`representative_run`), planned on the GPU count the demand gave one of its runs
(`plan_representative`); the option's size and fabric then set the infrastructure around it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from models.capacity import (
    CapacityResult,
    prepare,
    served_within,
    simulate,
    slot_capacity,
    unmet_gpu_hours,
)
from models.demand import SLOTS_PER_MONTH, Demand, TrainingSettings, derive_demand
from models.errors import InputError
from models.hardware import get_gpu
from models.infrastructure import size_fat_tree
from models.numbers import on_day
from models.options import Billing, spec
from models.portfolio import Finetune, Pretrain, Serve
from models.scenario import MAX_GPUS, Cluster, Scenario, Workload
from models.shapes import get_preset
from models.training import TrainingPlan, plan_training
from models.units import (
    BYTES_PER_GB,
    BYTES_PER_PARAM,
    DAYS_PER_MONTH,
    DAYS_PER_YEAR,
    HOURS_PER_MONTH,
)
from pricing import timeline as tl
from pricing.cashflows import RENTAL_BLOCK_DAYS, Context, option_flows, rental_end, window
from pricing.catalogue import Catalogue
from pricing.inputs import CostInputs, base_params, build_inputs

#: work left undone that still counts as none: this share of the demanded GPU-hours
TOLERANCE = 1e-4
#: GPU-hours served in a month below which it is the simulation's float residue, not work: a
#: month with more keeps a rental held (a small job after a large one is still work it serves)
SERVED_RESIDUE_GPU_HOURS = 1e-6
#: doublings of the size above the peak while they still serve more (fixed-size search)
MAX_DOUBLINGS = 4
#: the dataset tokens of a representative workload that is not a training one (serve, steady)
SERVE_DATASET_TOKENS = 1e9
#: the model a steady-only portfolio's storage and fabric are sized for
STEADY_MODEL = "llama3-8b"
#: a rented, managed or committed option steps down to, or starts at, at most this share of its
#: size ...
STEP_MAX_SHARE = 0.5
#: ... for a second contract of at least this many months inside the term
STEP_MIN_MONTHS = 3
#: the days tried for a second contract, the largest saving first (each one simulation probe)
STEP_TRIES = 3
#: the ways of billing that are a contract for a term, signed for when the work needs it
CONTRACTS = (Billing.RENT, Billing.MANAGED_RENT, Billing.COMMITTED)
#: a contract's search prices whole, besides its smallest size and a node or two more, these
#: multiples of it: more GPUs finish the work sooner, and a commitment can end a block sooner
LARGER_SIZE_FACTORS = (1.25, 1.5, 2.0)
#: a hybrid's candidate base sizes: the months' peak GPUs at these percentiles (the whole plan of
#: each is priced and the cheapest kept: the median month alone could own twice what pays)
HYBRID_BASE_PERCENTILES = (25, 50, 75, 90)
#: a second contract is kept where the whole plan costs less than one contract by more than this
#: share of it: equal costs in floating point (a saving of $2e-10) are no reason for two contracts
STEP_MIN_SAVING = 1e-6


@dataclass(frozen=True)
class Split:
    """A composite option's capacity (module docstring, hybrid): its base and burst parts."""

    base_option: str
    burst_option: str
    base_gpus: int
    burst_gpus: int  # S: 0 when the base covers every month's peak
    base_inputs: CostInputs
    burst_inputs: CostInputs | None
    base_ready_day: float
    burst_ready_day: float
    base_capacity_gpus: np.ndarray  # (M,) B × the share of each month from its ready day
    base_served_gpu_hours: np.ndarray  # (M,)
    burst_served_gpu_hours: np.ndarray  # (M,)


@dataclass(frozen=True)
class Tranche:
    """One expansion phase of an owned option (module docstring): its own inputs on its GPUs."""

    gpus: int
    month: int
    order_day: float
    ready_day: float
    inputs: CostInputs  # its size's, resale at its own age at term end
    capacity_gpus: np.ndarray  # (M,) gpus × the share of each month from its ready day
    capacity_slots: np.ndarray  # (2, M × SLOTS_PER_MONTH) the same slot by slot (_Planner.slots)


@dataclass(frozen=True)
class SecondContract:
    """A rented, managed or committed option's second contract (module docstring, step down and
    step up): `gpus` from `day`, with its own inputs (price tier). A step down `replaces` the
    first contract, which ends that day; a step up is added beside it."""

    gpus: int
    day: float
    inputs: CostInputs
    capacity_gpus: np.ndarray  # (M,) gpus × the share of each month from `day`
    replaces: bool

    def gpus_after(self, first_gpus: int) -> int:
        """GPUs held from `day` on."""
        return self.gpus if self.replaces else first_gpus + self.gpus


@dataclass(frozen=True)
class Refresh:
    """One hardware refresh of an owned option's cluster (module docstring): a new cluster of the
    same size, its own inputs (resale at its age when it is itself replaced, or at term end)."""

    generation: int  # 1: the first refresh
    order_day: float
    ready_day: float
    #: day this generation is replaced and sold (None: held to the term end)
    retire_day: float | None
    inputs: CostInputs
    capacity_gpus: np.ndarray  # (M,) GPUs × the share of each month it serves
    capacity_slots: np.ndarray  # (2, M × SLOTS_PER_MONTH) the same slot by slot


@dataclass(frozen=True)
class OptionPlan:
    """One option's capacity plan and what it serves."""

    option: str
    inputs: CostInputs  # the option's own inputs: gpus = size_gpus
    size_gpus: int
    rule: str  # how the size was chosen, in words
    ready_day: float
    capacity_gpus: np.ndarray  # (M,) GPUs held each month (a share of the ready month)
    result: CapacityResult
    completes: bool
    runs_finished: int
    #: finished runs × their model's weights / the representative model's (the egress line)
    weighted_runs: float
    longest_run_days: float
    #: a composite option's parts (None for any other)
    split: Split | None = None
    #: why the option cannot be offered on this plan ("" when it can)
    unavailable: str = ""
    #: an owned option's expansion phases (options.build_expansions), in the scenario's order
    tranches: tuple[Tranche, ...] = ()
    #: an owned option's hardware refreshes (options.build_refresh_after_months), in order
    refreshes: tuple[Refresh, ...] = ()
    #: the day the first hardware is replaced and sold (None: held to the term end)
    retire_day: float | None = None
    #: a rented, managed or committed option's second contract (None: one contract)
    second: SecondContract | None = None
    #: the day its provisioning (a hybrid's: its base's) starts: 0, or later for work that starts
    #: later (`_Planner.ready`); its timeline is shown from then
    order_day: float = 0.0


@dataclass(frozen=True)
class Portfolio:
    demand: Demand
    #: the representative run planned on its own GPU count (before any option's size is set)
    representative: TrainingPlan
    #: which workload it stands for
    representative_of: Representative
    plans: dict[str, OptionPlan]


@dataclass(frozen=True)
class Representative:
    """The run the costs size storage, checkpoints and the summary for."""

    workload: Workload
    #: the portfolio workload it stands for (None: the portfolio trains nothing)
    name: str | None
    #: the GPUs the demand gave one run of it (None: the smallest count that fits)
    gpus: int | None
    #: the workload's kind ("pretrain", "finetune"; None with no name)
    kind: str | None = None


def representative_run(scenario: Scenario, demand: Demand) -> Representative:
    """The gang workload (pre-training, fine-tuning) with the most demanded GPU-hours, on the GPU
    count the demand gave one of its runs; else the largest serving model with
    SERVE_DATASET_TOKENS; else STEADY_MODEL, each on the smallest count that fits."""
    pairs = list(zip(scenario.workloads, demand.workloads, strict=True))
    gang = [(d, w) for w, d in pairs if isinstance(w, Pretrain | Finetune)]
    if gang:
        d, w = max(gang, key=lambda x: x[0].demanded_gpu_hours)
        tokens = w.tokens if isinstance(w, Pretrain) else w.tokens * w.epochs
        run = Workload(
            model=w.model,
            tokens=min(max(tokens, 1e6), 1e15),
            seq_len=w.seq_len,
            precision=w.precision,
        )
        return Representative(run, w.name, d.gpus_per_run, w.kind)
    serves = [w for w in scenario.workloads if isinstance(w, Serve)]
    if serves:
        w = max(serves, key=lambda s: get_preset(s.model).params_total)
        return Representative(Workload(model=w.model, tokens=SERVE_DATASET_TOKENS), None, None)
    return Representative(Workload(model=STEADY_MODEL, tokens=SERVE_DATASET_TOKENS), None, None)


def plan_representative(rep: Representative, gpu: str, training: TrainingSettings) -> TrainingPlan:
    """The representative run planned on its own GPU count: the plan the demand made for a
    pre-training workload, so the summary's days, layout and MFU are that run's. A fine-tune
    planned as a full-parameter run may not fit the count its method (LoRA, QLoRA) needed: it
    then takes the smallest count that fits."""
    try:
        if rep.gpus is not None:
            try:
                return plan_training(
                    training.scenario(rep.workload, Cluster(gpu=gpu, gpus=rep.gpus)), curve=False
                )
            except InputError:
                pass
        return plan_training(training.scenario(rep.workload, Cluster(gpu=gpu)), curve=False)
    except InputError as exc:
        raise InputError("workloads", f"the representative workload: {exc}") from None


def _weights_gb(model: str) -> float:
    return BYTES_PER_PARAM["bf16"] * get_preset(model).params_total / BYTES_PER_GB


class _Planner:
    """Builds the plans of one scenario; caches inputs by size and simulations by capacity."""

    def __init__(self, scenario: Scenario, catalogue: Catalogue):
        self.scenario, self.cat = scenario, catalogue
        self.months = scenario.term.months
        self.gpu = get_gpu(scenario.cluster.gpu)
        training = TrainingSettings.of(scenario)
        self.demand = derive_demand(
            scenario.workloads, self.gpu.gpu_id, self.months, training=training
        )
        self.representative = representative_run(scenario, self.demand)
        self.rep = plan_representative(self.representative, self.gpu.gpu_id, training)
        self._inputs: dict[int, CostInputs] = {}
        self._sims: dict[tuple, CapacityResult] = {}
        self._unmet: dict[tuple, float] = {}
        self._ready: dict[tuple[str, int], float] = {}
        self._slots: dict[tuple[float, float | None], np.ndarray] = {}
        self._generations: dict[tuple[str, int], tuple] = {}
        self._tranches: dict[str, tuple[Tranche, ...]] = {}
        #: the size the last fixed-size search found: the next one starts there (`bracket`)
        self._size_hint = 0
        self.prepared = prepare(self.demand)  # the demand's arrays, shared by every simulation
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
        day = float(tl.ready_day(option, **self._site(gpus)))
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
        return _with_resale_age(inp, _age_at_term_end(inp, ready, self.cat), self.cat, why)

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
        return self.ready(option, gpus) - float(tl.ready_day(option, **self._site(gpus)))

    def _site(self, gpus: int) -> dict:
        """The timeline's keywords for `gpus` of this GPU, as CostInputs.site gives them for a priced
        plan (the size search probes counts it has not priced, so it builds them here)."""
        nodes = math.ceil(gpus / self.gpu.gpus_per_node)
        return {
            "gpu_id": self.gpu.gpu_id,
            "gpus": gpus,
            "nodes": nodes,
            "it_power_kw": nodes * self.gpu.node_power_kw,
            "catalogue": self.cat,
            "own_facility": self.scenario.options.facility == "owned",
        }

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
                    inputs=_aged(self.inputs(phase.gpus), ready, self.cat),
                    capacity_gpus=phase.gpus * self.share(ready),
                    capacity_slots=phase.gpus * self.slots(ready),
                )
            )
        return tuple(out)

    def generations(self, option: str, gpus: int) -> tuple[tuple[float, float, float | None], ...]:
        """(order day, ready day, retire day) of each generation of the option's `gpus` GPUs: the
        first from day 0, then one refresh each time a generation reaches the refresh age inside
        the term (module docstring); retire day None: held to the term end."""
        ready = self.ready(option, gpus)
        months = self.scenario.options.build_refresh_after_months
        opt = spec(option)
        if months is None or opt.billing is not Billing.OWNED or opt.composed_of:
            return ((0.0, ready, None),)
        key = (option, gpus)
        if key not in self._generations:
            term, age = self.months * DAYS_PER_MONTH, months * DAYS_PER_MONTH
            lead = tl.refresh_lead_days(option, **self._site(gpus))
            gens: list[tuple[float, float, float | None]] = [(0.0, ready, None)]
            while gens[-1][1] + age < term:
                order, start, _ = gens[-1]
                retire = start + age
                new_order = max(retire - lead, start)
                gens[-1] = (order, start, retire)
                gens.append((new_order, new_order + lead, None))
            self._generations[key] = tuple(gens)
        return self._generations[key]

    def base_capacity(self, option: str, gpus: int) -> tuple[np.ndarray, np.ndarray]:
        """(GPUs a month, (2, slots) GPUs a slot) of the option's `gpus` over its generations."""
        months = self.months
        share, slots = np.zeros(months), np.zeros((2, months * SLOTS_PER_MONTH))
        for _, start, retire in self.generations(option, gpus):
            if retire is None:
                share = share + gpus * self.share(start)
                slots = slots + gpus * self.slots(start)
            else:
                share = share + gpus * self.share(start, retire)
                slots = slots + gpus * self.slots(start, retire)
        return share, slots

    def refreshes(self, option: str, gpus: int) -> tuple[Refresh, ...]:
        """The refreshes of the option's `gpus` GPUs (generations after the first), priced."""
        out = []
        months = self.scenario.options.build_refresh_after_months
        for k, (order, start, retire) in enumerate(self.generations(option, gpus)[1:], 1):
            end = self.months * DAYS_PER_MONTH if retire is None else retire
            out.append(
                Refresh(
                    generation=k,
                    order_day=order,
                    ready_day=start,
                    retire_day=retire,
                    inputs=_aged(self.inputs(gpus), start, self.cat)
                    if retire is None
                    else _aged_years(self.inputs(gpus), months / 12, self.cat, start),
                    capacity_gpus=gpus * self.share(start, end),
                    capacity_slots=gpus * self.slots(start, end),
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
        """`capacity`: GPUs a slot and GPUs held for the whole slot (`slots`)."""
        key = np.round(capacity, 9).tobytes()
        if key not in self._sims:
            self._sims[key] = simulate(self.demand, capacity[0], self.prepared, capacity[1])
        return self._sims[key]

    def unmet(self, r: CapacityResult) -> float:
        return r.queued_gpu_hours + r.beyond_term_gpu_hours

    def probe(self, option: str, gpus: int) -> float:
        """`unmet` of the option at `gpus` (models/capacity.py unmet_gpu_hours: the same number
        as the whole simulation's, without building its result): the size search's step."""
        return self.probe_capacity(self.base_capacity(option, gpus)[1] + self.extra(option))

    def fixed(self, option: str) -> tuple[int, str, float, np.ndarray, CapacityResult]:
        """(size, rule, ready day, capacity, result) of a fixed-size option."""
        given = self.scenario.cluster.gpus
        if given is not None:
            return given, f"{given:,} GPUs (cluster.gpus)", *self.fixed_at(option, given)
        node = self.node
        runs = self.demand.runs
        lo = max([*runs.gpus, 1])
        lo = math.ceil(lo / node) * node
        hi = max(lo, math.ceil(max(self.demand.peak_gpus) / node) * node)
        hi = min(hi, MAX_GPUS)
        best = self.probe(option, hi)
        for _ in range(MAX_DOUBLINGS):  # the ready day can keep work past the term at the peak
            if best <= self.baseline + self.tol or hi >= MAX_GPUS:
                break
            bigger = min(2 * hi, MAX_GPUS)
            u = self.probe(option, bigger)
            if u >= best - self.tol:
                break
            hi, best = bigger, u
        target = max(self.baseline, best) + self.tol
        hint = self._size_hint
        if lo < hint < hi:  # another option's size: its neighbourhood first
            lo, hi = self.bracket(option, target, lo, hint, hi)
        elif self.probe(option, lo) <= target:
            hi = lo
        while hi - lo > node:  # invariant: hi meets the target, lo does not
            mid = (lo + hi) // 2 // node * node
            if self.probe(option, mid) <= target:
                hi = mid
            else:
                lo = mid
        self._size_hint = hi
        if best <= self.baseline + self.tol:
            rule = (
                f"smallest size in whole {node}-GPU nodes that leaves no more work queued or past "
                "the term than the unconstrained demand"
            )
        elif max(self.demand.peak_gpus) > MAX_GPUS:
            rule = self.capped_rule("the smallest size that serves as much as")
        else:
            rule = (
                "no size serves the demand in time (it is ready too late); the smallest that "
                "serves as much as the largest searched"
            )
        return hi, rule, *self.fixed_at(option, hi)

    def bracket(self, option: str, target: float, lo: int, hint: int, hi: int) -> tuple[int, int]:
        """(lo, hi) around the smallest size meeting `target`, searched out from `hint` (the size
        the search found for another option: the options of one demand mostly differ only by
        their ready day, so it is usually a size or a node away) in steps doubling from one node:
        hi meets the target, and lo does not or is the search's lower end unprobed (the
        bisection then probes it). Where unmet work falls as the size grows, the bisection ends
        on the size it would have found from (lo, hi) alone, in a few probes instead of about
        log2((hi − lo) / node) from the whole range."""
        step = self.node
        if self.probe(option, hint) <= target:  # meets it: search down
            while hint - step > lo:
                if self.probe(option, hint - step) > target:
                    return hint - step, hint
                hint, step = hint - step, 2 * step
            if self.probe(option, lo) <= target:
                return lo, lo
            return lo, hint
        while hint + step < hi:  # falls short: search up
            if self.probe(option, hint + step) <= target:
                return hint, hint + step
            hint, step = hint + step, 2 * step
        return hint, hi

    def fixed_at(self, option: str, gpus: int) -> tuple[float, np.ndarray, CapacityResult]:
        """(ready day, capacity, result) of `gpus` GPUs of a fixed-size option."""
        share, slots = self.base_capacity(option, gpus)
        cap = share + sum((t.capacity_gpus for t in self.tranches(option)), np.zeros(self.months))
        return self.ready(option, gpus), cap, self.simulate(slots + self.extra(option))

    def capped_rule(self, sized: str) -> str:
        """Why a plan stops at MAX_GPUS where the demand's peak is larger: the work over it waits."""
        return (
            f"{sized} {MAX_GPUS:,} GPUs, the largest cluster the planner sizes; the demand "
            f"peaks at {max(self.demand.peak_gpus):,.0f} GPUs, so work over that waits (queued, "
            "or finishing after the term)"
        )

    def contract_days(self, option: str, ready: float) -> tuple[float, float] | None:
        """(length of one commitment block, the earliest day the first contract may end) of a
        rented, managed or committed option; None when it cannot end before the term (a
        whole-term rental) or the option is not one of these."""
        opt = spec(option)
        if opt.billing is Billing.COMMITTED:
            block = 12 * opt.commit_years * DAYS_PER_MONTH
            return block, ready + block
        if opt.billing not in (Billing.RENT, Billing.MANAGED_RENT):
            return None
        commitment = self.scenario.options.rent_commitment
        if commitment not in RENTAL_BLOCK_DAYS:
            return None
        block = RENTAL_BLOCK_DAYS[commitment]
        if commitment == "monthly":  # month to month: no minimum term (cashflows.rental_end)
            return block, ready + block
        minimum = self.inputs(self.node).figures["rent_min_term_months"].value * DAYS_PER_MONTH
        return block, ready + block * max(math.ceil(minimum / block - 1e-9), 1)

    def contract_usd(self, option: str, gpus: int, start: float, busy_end: float) -> float:
        """What one contract of `gpus` GPUs from day `start` for work ending on `busy_end` costs
        at the catalogue's base figures: its rate × the GPU-hours held (whole commitment blocks,
        the minimum term, past the term too: pricing/cashflows.py rental_end, committed) plus a
        rental's setup fee per node. The candidates' first test of worth (storage and the
        platform team are left out; `plan` then prices the chosen plan whole)."""
        opt, inp = spec(option), self.inputs(gpus)
        f = inp.figures
        if opt.billing is Billing.COMMITTED:
            block = 12 * opt.commit_years * DAYS_PER_MONTH
            end = start + max(math.ceil((busy_end - start) / block - 1e-9), 1) * block
            setup = 0.0
        else:
            minimum = {"rent_min_term_months": np.array([[f["rent_min_term_months"].value]])}
            end = float(rental_end(inp, minimum, np.array([[start]]), np.array([[busy_end]]))[0, 0])
            setup = math.ceil(gpus / self.node) * f["rent_setup_fee_usd_per_node"].value
        return f[opt.price_key].value * gpus * (end - start) * 24 + setup

    def work_end_day(self, r: CapacityResult) -> float | None:
        """The end of the last month `r` serves work in (None: it serves none): how long a
        contract is needed for, in `step_down` and `step_up`."""
        worked = np.flatnonzero(np.asarray(r.served_gpu_hours_by_month) > SERVED_RESIDUE_GPU_HOURS)
        return min(self.months, worked[-1] + 1) * DAYS_PER_MONTH if len(worked) else None

    def second_contract(self, gpus: int, day: float, replaces: bool) -> SecondContract:
        """A second contract of `gpus` GPUs from `day`, at its own size's inputs."""
        capacity = gpus * self.share(day)
        return SecondContract(gpus, day, self.inputs(gpus), capacity, replaces)

    def step_down(self, option: str, size: int, ready: float, r: CapacityResult):
        """(SecondContract, capacity (M,), result) of a second, smaller contract, or None (module
        docstring, step down). Each end of a commitment block from the earliest allowed is a
        candidate day T; the second contract's size is the demand's largest peak from T's month
        on, in whole nodes; the candidates that cost less than one contract (`contract_usd`) are
        tried, the largest saving first, and the first that leaves no more work queued or past
        the term than one contract wins."""
        days = self.contract_days(option, ready)
        if days is None:
            return None
        block, earliest = days
        term = self.months * DAYS_PER_MONTH
        held_to = self.work_end_day(r)
        if held_to is None:
            return None
        peaks = np.asarray(self.demand.peak_gpus, dtype=float)
        later = np.maximum.accumulate(peaks[::-1])[::-1]  # the largest peak from each month on
        candidates = []
        last_day = min(held_to, term - STEP_MIN_MONTHS * DAYS_PER_MONTH)
        one = self.contract_usd(option, size, ready, held_to)
        for k in range(max(math.floor((last_day - earliest) / block + 1e-9) + 1, 0)):
            day = earliest + k * block
            month = min(int(day // DAYS_PER_MONTH), self.months - 1)
            small = math.ceil(later[month] / self.node - 1e-9) * self.node
            if 0 < small <= STEP_MAX_SHARE * size:
                two = self.contract_usd(option, size, ready, day)
                two += self.contract_usd(option, small, day, held_to)
                if two < one:  # a dearer tier, a setup fee or a longer minimum can outweigh it
                    candidates.append((one - two, day, small))
        target = self.unmet(r) + self.tol
        for _, day, small in sorted(candidates, reverse=True)[:STEP_TRIES]:
            first = size * self.slots(ready, day)
            second = small * self.slots(day)
            if self.probe_capacity(first + second) > target:
                continue
            step = self.second_contract(small, day, replaces=True)
            cap = size * self.share(ready, day) + step.capacity_gpus
            return step, cap, self.simulate(first + second)
        return None

    def step_up(self, option: str, size: int, ready: float, r: CapacityResult):
        """(SecondContract, first size, its ready day, capacity (M,), result) of a smaller first
        contract and a second one beside it from day T, or None (module docstring, step up). Each
        month start after the first contract is ready is a candidate T; the first contract's size
        is the demand's largest peak before T's month, in whole nodes, the second the rest of
        `size`; the candidates that cost less than one contract are tried, the largest saving
        first, and the first that leaves no more work queued or past the term wins."""
        if spec(option).billing not in CONTRACTS:
            return None
        held_to = self.work_end_day(r)
        if held_to is None:
            return None
        peaks = np.asarray(self.demand.peak_gpus, dtype=float)
        before = np.maximum.accumulate(peaks)  # the largest peak up to each month
        one = self.contract_usd(option, size, ready, held_to)
        candidates = []
        for month in range(1, self.months):
            day = month * DAYS_PER_MONTH
            if day > held_to - STEP_MIN_MONTHS * DAYS_PER_MONTH:
                break
            first = math.ceil(before[month - 1] / self.node - 1e-9) * self.node
            if not 0 < first <= STEP_MAX_SHARE * size:
                continue
            first_ready = self.ready(option, first)
            if first_ready >= day:
                continue
            two = self.contract_usd(option, first, first_ready, held_to)
            two += self.contract_usd(option, size - first, day, held_to)
            if two < one:
                candidates.append((one - two, day, first, first_ready))
        target = self.unmet(r) + self.tol
        for _, day, first, first_ready in sorted(candidates, reverse=True)[:STEP_TRIES]:
            added = size - first
            slots = first * self.slots(first_ready) + added * self.slots(day)
            if self.probe_capacity(slots) > target:
                continue
            step = self.second_contract(added, day, replaces=False)
            cap = first * self.share(first_ready) + step.capacity_gpus
            return step, first, first_ready, cap, self.simulate(slots)
        return None

    def probe_capacity(self, cap: np.ndarray) -> float:
        """`unmet` of a capacity given slot by slot (as `probe`)."""
        key = np.round(cap, 9).tobytes()
        if key in self._sims:
            return self.unmet(self._sims[key])
        if key not in self._unmet:
            self._unmet[key] = unmet_gpu_hours(self.demand, cap[0], self.prepared, cap[1])
        return self._unmet[key]

    def per_use(self, option: str) -> tuple[int, str, float, np.ndarray, CapacityResult]:
        size = max(math.ceil(max(self.demand.peak_gpus) - 1e-9), 1)
        rule = (
            "per use: up to the demand's peak GPUs from the ready day, holding (and paying) "
            "only the GPU-hours served"
        )
        if size > MAX_GPUS:
            size, rule = MAX_GPUS, f"{rule}; {self.capped_rule('up to')}"
        ready = self.ready(option, size)
        r = self.simulate(size * self.slots(ready))
        held = np.array(r.served_gpu_hours_by_month) / HOURS_PER_MONTH  # what is in use
        return size, rule, ready, held, r

    def base_sizes(self) -> list[int]:
        """A hybrid's candidate base sizes: the months' peak GPUs at HYBRID_BASE_PERCENTILES, in
        whole nodes (at least one), each once."""
        node = self.node
        peaks = np.percentile(self.demand.peak_gpus, HYBRID_BASE_PERCENTILES)
        return sorted({min(max(math.ceil(p / node - 1e-9) * node, node), MAX_GPUS) for p in peaks})

    def cheapest_hybrid(self, option: str):
        """`hybrid` at the candidate base (`base_sizes`) whose whole plan costs least at the
        catalogue's base figures (`total_usd`), or at cluster.gpus when given: (plan, rule, ...)
        as `hybrid` returns them."""
        if self.scenario.cluster.gpus is not None:
            return self.hybrid(option)
        tried = []
        for base in self.base_sizes():
            size, rule, ready, cap, r, split = self.hybrid(option, base)
            plan = self._plan(option, size, rule, ready, cap, r, split)
            cost = self.total_usd(plan) if not plan.unavailable else math.inf
            tried.append((cost if math.isfinite(cost) else math.inf, base))
        best = min(tried)[1]  # every cost infinite (no burst offered): the smallest base
        return self.hybrid(option, best, tried)

    def hybrid(
        self, option: str, base: int | None = None, tried: list | None = None
    ) -> tuple[int, str, float, np.ndarray, CapacityResult, Split]:
        """(base size, rule, base ready day, capacity, result, split) of a composite option: the
        base and burst of the module docstring; `base` GPUs owned (default: cluster.gpus, else the
        median month's peak in whole nodes); `tried`: the (cost, base) pairs the rule names."""
        base_opt, burst_opt = spec(option).composed_of
        node = self.node
        given = self.scenario.cluster.gpus
        if given is not None:
            base, why = given, f"{given:,} GPUs (cluster.gpus)"
        elif base is None:
            median = float(np.median(self.demand.peak_gpus))
            base = min(max(math.ceil(median / node - 1e-9) * node, node), MAX_GPUS)
            why = (
                f"the median month's peak GPUs ({median:,.0f}) in whole {node}-GPU nodes "
                "(at least one)"
            )
        else:
            others = ", ".join(f"{b:,}" for _, b in sorted(tried or []) if b != base)
            pcts = ", ".join(f"{p:g}th" for p in HYBRID_BASE_PERCENTILES)
            why = (
                f"{base:,} GPUs, the cheapest whole plan of the bases tried (the months' peak GPUs "
                f"at their {pcts} percentiles, in whole {node}-GPU nodes"
                + (f"; dearer: {others}" if others else "")
                + ")"
            )
        base_ready = self.ready(option, base)
        base_cap = base * self.share(base_ready)
        excess = np.asarray(self.demand.peak_gpus, dtype=float) - base_cap
        burst = min(max(math.ceil(float(excess.max()) - 1e-9), 0), MAX_GPUS)
        months = self.months
        base_slots = base * self.slots(base_ready)
        if burst:
            burst_ready = self.ready(burst_opt, burst)
            burst_slots = burst * self.slots(burst_ready)
        else:
            burst_ready, burst_slots = months * DAYS_PER_MONTH, self.slots(np.inf)
        r = self.simulate(base_slots + burst_slots)
        served = np.array(r.served_gpu_hours_by_month)
        both = base_slots + burst_slots
        on_base = served_within(self.demand, both[0], base_slots[0], self.prepared, both[1])
        burst_served = served - on_base
        burst_served[burst_served <= 1e-9 * served] = 0.0  # rounding, not work
        base_served = served - burst_served
        split = Split(
            base_option=base_opt,
            burst_option=burst_opt,
            base_gpus=base,
            burst_gpus=burst,
            base_inputs=self._bought_for_work(option, base, base_ready),
            burst_inputs=self.inputs(burst) if burst else None,
            base_ready_day=base_ready,
            burst_ready_day=burst_ready,
            base_capacity_gpus=base_cap,
            base_served_gpu_hours=base_served,
            burst_served_gpu_hours=burst_served,
        )
        rule = (
            f"owned base: {why}; cloud burst up to {burst:,} GPUs (the largest month's peak less "
            "the base ready by then), paying only the GPU-hours the base cannot serve"
        )
        return base, rule, base_ready, base_cap + burst_served / HOURS_PER_MONTH, r, split

    def plan(self, option: str) -> OptionPlan:
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
        if split or spec(option).billing not in CONTRACTS or self.scenario.cluster.gpus is not None:
            return self._plan(option, size, rule, ready, cap, r, split)
        best, cost = self.contracts(option, size, rule, ready, cap, r)
        if not best.completes or not self.backlogged(r, ready):
            return best
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
        return best

    def backlogged(self, r: CapacityResult, ready: float) -> bool:
        """Whether work waits for capacity after the ready month (the GPU-hours served by some
        month's end fall short of those demanded by then by more than the tolerance): only then
        can more GPUs finish it sooner."""
        month = int(ready // DAYS_PER_MONTH) + 1
        lag = np.cumsum(r.demand_gpu_hours) - np.cumsum(r.served_gpu_hours_by_month)
        return bool(len(lag[month:]) and lag[month:].max() > self.tol)

    def larger_sizes(self, size: int) -> list[int]:
        """Sizes above `size` a contract's search also prices whole: one and two nodes more, and
        LARGER_SIZE_FACTORS × it, in whole nodes, up to MAX_GPUS."""
        node = self.node
        out = {size + node, size + 2 * node}
        out |= {math.ceil(size * f / node - 1e-9) * node for f in LARGER_SIZE_FACTORS}
        return sorted(g for g in out if size < g <= MAX_GPUS)

    def contracts(self, option, size, rule, ready, cap, r) -> tuple[OptionPlan, float]:
        """(plan, its whole cost) of `size` GPUs of a fixed-size option: one contract, or where a
        second (a step down, else a step up) makes the whole plan cost less, two."""
        one = self._plan(option, size, rule, ready, cap, r, None)
        cost = self.total_usd(one)
        if stepped := self.step_down(option, size, ready, r):
            step, cap, r = stepped
            rule = (
                f"{rule}; steps down to {step.gpus:,} GPUs on {on_day(step.day)}, at the end of a "
                "commitment block (a second contract, with its own price tier and minimum "
                "term, for the work left, which needs no more)"
            )
        elif grown := self.step_up(option, size, ready, r):
            step, size, ready, cap, r = grown
            rule = (
                f"{rule}; starts at {size:,} GPUs, the most the work needs before "
                f"{on_day(step.day)}, and adds {step.gpus:,} then (a second contract, with its own "
                "price tier and minimum term, ordered its provisioning time ahead)"
            )
        else:
            return one, cost
        two = self._plan(option, size, rule, ready, cap, r, None, step)
        total = self.total_usd(two)
        return (two, total) if total < cost * (1 - STEP_MIN_SAVING) else (one, cost)

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
        finished = {w.name: w.runs_finished for w in r.workloads}
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
        weighted = sum(
            finished[w.name] * _weights_gb(w.model) / inp.weights_gb
            for w in self.scenario.workloads
            if isinstance(w, Pretrain | Finetune)
        )
        tranches = self.tranches(option)
        if tranches:
            added = ", ".join(f"{t.gpus:,} GPUs ordered in month {t.month}" for t in tranches)
            rule = f"{rule}; expansion phases: {added} (each ready on its own build timeline)"
        refreshes = self.refreshes(option, size)
        retire = self.generations(option, size)[0][2]
        if refreshes:
            age = self.scenario.options.build_refresh_after_months
            inp = _aged_years(inp, age / 12, self.cat, ready)
            days = ", ".join(on_day(r.ready_day) for r in refreshes)
            rule = (
                f"{rule}; hardware refreshed at {age} months of age: new {size:,} GPUs ready on "
                f"{days}, each ordered its lead time ahead, the old sold when it reaches the age"
            )
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
            longest_run_days=max(self.demand.runs.run_days, default=0.0),
            split=split,
            unavailable=note,
            tranches=tranches,
            refreshes=refreshes,
            retire_day=retire,
            second=step,
            order_day=self.order_day(option, size),
        )


def _age_at_term_end(inp: CostInputs, ready_day: float, cat: Catalogue) -> float:
    """Years from `ready_day` to the term end, no more than the resale curve's last age."""
    return min(max(inp.term_days - ready_day, 0.0) / DAYS_PER_YEAR, cat.residual_last_age_years)


def _aged(inp: CostInputs, ready_day: float, cat: Catalogue) -> CostInputs:
    """`inp` with its resale at the age of hardware accepted on `ready_day` at term end
    (residual_values.csv, as pricing/inputs.py prices the base), unless the figure is overridden."""
    why = f"an expansion phase accepted on {on_day(ready_day)}"
    return _with_resale_age(inp, _age_at_term_end(inp, ready_day, cat), cat, why)


def _aged_years(inp: CostInputs, age: float, cat: Catalogue, ready_day: float) -> CostInputs:
    """`inp` with its resale at `age` years (residual_values.csv): hardware sold at a refresh
    (module docstring), accepted on `ready_day`; unless the figure is overridden."""
    return _with_resale_age(
        inp, age, cat, f"hardware accepted on {on_day(ready_day)}, sold at its refresh"
    )


def _with_resale_age(inp: CostInputs, age: float, cat: Catalogue, why: str) -> CostInputs:
    """`inp` with residual_value_pct from residual_values.csv at `age` years (`why` says whose
    age), unless the buyer overrode the figure."""
    figures = dict(inp.figures)
    old = figures["residual_value_pct"]
    if not old.overridden:
        figures["residual_value_pct"] = dataclasses.replace(
            old,
            value=cat.residual_value_pct(age),
            source=f"residual_values.csv at {age:.1f} years ({why})",
        )
    return dataclasses.replace(inp, figures=figures, resale_age_years=age)


def plan_portfolio(scenario: Scenario, catalogue: Catalogue) -> tuple[CostInputs, Portfolio]:
    """The base inputs (the representative plan on the largest option's size, for the summary
    and the decision support's figures) with every compared option's plan attached."""
    planner = _Planner(scenario, catalogue)
    plans = {o: planner.plan(o) for o in scenario.options.compare}
    size = max(p.size_gpus for p in plans.values())
    base = _priced_where_offered(planner.inputs(size), plans)
    unavailable = {o: p.unavailable for o, p in plans.items() if p.unavailable}
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


def option_inputs(inp: CostInputs, option: str) -> CostInputs:
    """The option's own inputs: its plan's for a portfolio, the scenario's otherwise."""
    return inp.portfolio.plans[option].inputs if inp.portfolio is not None else inp


def option_params(inp: CostInputs, P: dict[str, np.ndarray], option: str) -> dict:
    """P for the option's own figures: each figure the option's inputs give differently (its
    size's cloud price tier, its hardware's resale age) scaled by the option's over the base
    value, so a draw's or a tornado's multiplier applies to the option's own figure."""
    return _own_params(inp, P, option_inputs(inp, option))


def _own_params(inp: CostInputs, P: dict[str, np.ndarray], own: CostInputs) -> dict:
    if own is inp:
        return P
    out = dict(P)
    for key, f in own.figures.items():
        base = inp.figures[key].value
        if f.value == base or key not in P:
            continue
        ratio = f.value / base if base and math.isfinite(base) else None
        out[key] = P[key] * ratio if ratio is not None else np.full_like(P[key], f.value)
    return out


def context(inp: CostInputs, P: dict[str, np.ndarray], option: str) -> Context:
    """The option's Context from its simulation, one row per parameter set (the simulation is the
    base case's: draws move prices, not the capacity plan). A composite option's Context is its
    base's, with each part's own (inputs, P, Context) in `parts`."""
    plan = inp.portfolio.plans[option]
    r = plan.result
    served = np.array(r.served_gpu_hours_by_month)
    opt = spec(option)
    if plan.tranches or plan.refreshes:
        return _expanded_context(inp, P, opt, plan, served)
    if plan.second is not None:
        return _stepped_context(inp, P, opt, plan, served)
    if plan.split is None:
        ctx = _context(inp, P, opt, plan.inputs, plan, served, plan.size_gpus, plan.ready_day,
                       plan.capacity_gpus, plan.weighted_runs)  # fmt: skip
        return dataclasses.replace(ctx, order_day=plan.order_day) if plan.order_day else ctx
    sp = plan.split
    base_spec = spec(sp.base_option)
    base = _context(inp, P, base_spec, sp.base_inputs, plan, sp.base_served_gpu_hours,
                    sp.base_gpus, sp.base_ready_day, sp.base_capacity_gpus, 0.0)  # fmt: skip
    if plan.order_day:  # the base ordered for later work: its milestones from then
        base = dataclasses.replace(base, order_day=plan.order_day)
    parts = [(base_spec, sp.base_inputs, P, base)]
    if sp.burst_inputs is not None:
        burst_spec = spec(sp.burst_option)
        Pb = _own_params(plan.inputs, P, sp.burst_inputs)  # P is the option's (option_params)
        share = sp.burst_served_gpu_hours.sum() / max(served.sum(), 1.0)
        burst = _context(inp, Pb, burst_spec, sp.burst_inputs, plan, sp.burst_served_gpu_hours,
                         sp.burst_gpus, sp.burst_ready_day,
                         sp.burst_served_gpu_hours / HOURS_PER_MONTH,
                         plan.weighted_runs * share)  # fmt: skip
        parts.append((burst_spec, sp.burst_inputs, Pb, burst))
    return dataclasses.replace(base, parts=tuple(parts))


def _expanded_context(inp, P, opt, plan: OptionPlan, served: np.ndarray) -> Context:
    """An owned option with expansion phases or refreshes: the base's Context with each part's
    (spec, inputs, P, Context) in `parts`; each part busy in proportion to its share of the
    installed GPUs. The first hardware is held to its retire day, each refresh from its ready day
    to its own (or the term end), a refresh buys no file system, space or management servers."""
    total = np.asarray(plan.capacity_gpus, dtype=float)
    safe = np.where(total > 0, total, 1.0)
    later = [*plan.tranches, *plan.refreshes]
    base_cap = total - sum(t.capacity_gpus for t in later)
    base = _context(inp, P, opt, plan.inputs, plan, served * base_cap / safe, plan.size_gpus,
                    plan.ready_day, base_cap, plan.weighted_runs,
                    plan.retire_day)  # fmt: skip
    parts = [(opt, plan.inputs, P, base)]
    before = plan.size_gpus
    for t in plan.tranches:
        Pt = _own_params(plan.inputs, P, t.inputs)  # P is the option's (option_params)
        c = _context(inp, Pt, opt, t.inputs, plan, served * t.capacity_gpus / safe, t.gpus,
                     t.ready_day, t.capacity_gpus, 0.0)  # fmt: skip
        parts.append((opt, t.inputs, Pt, dataclasses.replace(c, order_day=t.order_day,
                                                             expansion_of_gpus=before)))  # fmt: skip
        before += t.gpus
    for f in plan.refreshes:
        Pf = _own_params(plan.inputs, P, f.inputs)
        c = _context(inp, Pf, opt, f.inputs, plan, served * f.capacity_gpus / safe,
                     plan.size_gpus, f.ready_day, f.capacity_gpus, 0.0, f.retire_day)  # fmt: skip
        parts.append((opt, f.inputs, Pf, dataclasses.replace(c, order_day=f.order_day,
                                                             refresh=True)))  # fmt: skip
    return dataclasses.replace(base, parts=tuple(parts))


def _stepped_context(inp, P, opt, plan: OptionPlan, served: np.ndarray) -> Context:
    """A rented, managed or committed option of two contracts: the first contract's Context (a
    step down: held from its ready day to the second's, its commitment ending then; a step up:
    held as one contract) with each contract's (spec, inputs, P, Context) in `parts`; each
    serves the work of its share of the capacity."""
    step = plan.second
    total = np.asarray(plan.capacity_gpus, dtype=float)
    safe = np.where(total > 0, total, 1.0)
    first_cap = total - step.capacity_gpus
    first_served, second_served = served * first_cap / safe, served * step.capacity_gpus / safe
    runs_share = first_served.sum() / max(served.sum(), 1.0)
    first = _context(inp, P, opt, plan.inputs, plan, first_served, plan.size_gpus,
                     plan.ready_day, first_cap, plan.weighted_runs * runs_share,
                     busy_end_day=step.day if step.replaces else None)  # fmt: skip
    Ps = _own_params(plan.inputs, P, step.inputs)  # P is the option's (option_params)
    second = _context(inp, Ps, opt, step.inputs, plan, second_served, step.gpus, step.day,
                      step.capacity_gpus, plan.weighted_runs * (1 - runs_share))  # fmt: skip
    parts = ((opt, plan.inputs, P, first), (opt, step.inputs, Ps, second))
    return dataclasses.replace(first, parts=parts)


def _context(
    inp: CostInputs,
    P: dict[str, np.ndarray],
    opt,
    own: CostInputs,
    plan: OptionPlan,
    served: np.ndarray,
    size: int,
    ready_day: float,
    capacity: np.ndarray,
    weighted_runs: float,
    retire_day: float | None = None,
    busy_end_day: float | None = None,
) -> Context:
    """The Context of `size` GPUs of option `opt` serving `served` GPU-hours a month from
    `ready_day`, holding `capacity` GPUs a month (per use: what it serves); owned hardware
    replaced by a refresh is held to `retire_day` and sold then; a contract that ends at a step
    down has its work end on `busy_end_day` (its commitment ends then)."""
    months = own.months
    n = next(iter(P.values())).shape[0]
    r = plan.result
    busy = np.broadcast_to(served / (size * HOURS_PER_MONTH), (n, months))
    if opt.interruptible:  # a training run interrupted runs that much longer, and pays for it
        gang = np.zeros(months)
        for w, d in zip(r.workloads, inp.portfolio.demand.workloads, strict=True):
            if d.gang:
                gang += w.served_gpu_hours_by_month
        extra = gang / (size * HOURS_PER_MONTH)
        busy = busy + extra[None, :] * P["spot_interruption_overhead_pct"] / 100
    ready = np.full((n, 1), ready_day)
    term = own.term_days
    worked = np.flatnonzero(served > SERVED_RESIDUE_GPU_HOURS)
    last = (worked[-1] + 1) * DAYS_PER_MONTH if len(worked) else ready_day
    if busy_end_day is not None:
        last = busy_end_day
    busy_end = np.full((n, 1), min(max(last, ready_day), term))
    if opt.holds == "term":
        held_end = np.full((n, 1), term if retire_day is None else min(retire_day, term))
    elif opt.holds == "rental":
        held_end = rental_end(own, P, ready, busy_end)
    else:  # per use or committed: to the end of its work (as version 1), in months with capacity
        held_end = busy_end
    beyond = np.maximum(held_end - term, 0.0) / DAYS_PER_MONTH
    held = window(months, ready, np.minimum(held_end, term))
    if opt.holds == "busy":
        held = held * (capacity > TOLERANCE)[None, :]
    return Context(
        months,
        ready,
        np.full((n, 1), plan.longest_run_days),
        np.full((n, 1), weighted_runs),
        busy,
        busy_end,
        held,
        beyond,
        completes=np.full((n, 1), plan.completes),
        retire_day=retire_day,
    )


__all__ = [
    "OptionPlan",
    "Portfolio",
    "context",
    "option_inputs",
    "option_params",
    "plan_portfolio",
    "representative_run",
    "plan_representative",
    "Representative",
]
