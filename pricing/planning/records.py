"""The capacity plans' records (the package docstring says what each part is) and the figures
every part of the planner reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.options import Billing
from models.portfolio.capacity import CapacityResult
from models.portfolio.demand import Demand
from models.portfolio.service import ServiceLevel
from models.scenario import Workload
from models.training.plan import TrainingPlan
from pricing.inputs import CostInputs

#: work left undone that still counts as none: this share of the demanded GPU-hours
TOLERANCE = 1e-4
#: GPU-hours served in a month below which it is the simulation's float residue, not work: a
#: month with more keeps a rental held (a small job after a large one is still work it serves)
SERVED_RESIDUE_GPU_HOURS = 1e-6
#: the ways of billing that are a contract for a term, signed for when the work needs it
CONTRACTS = (Billing.RENT, Billing.MANAGED_RENT, Billing.COMMITTED)


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
    #: (M,) what the burst bills: its GPUs in use in whole cloud instances (None: as served)
    burst_billed_gpu_hours: np.ndarray | None = None


@dataclass(frozen=True)
class Tranche:
    """One expansion phase of an owned option (module docstring): its own inputs on its GPUs."""

    gpus: int
    month: int
    order_day: float
    ready_day: float
    inputs: CostInputs  # its size's, resale at its own age at term end
    capacity_gpus: np.ndarray  # (M,) gpus × the share of each month from its ready day
    capacity_slots: np.ndarray  # (2, M × SLOTS_PER_MONTH) the same slot by slot (Planner.slots)


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
class BridgePlan:
    """What an option's bridge holds and serves before (and, for straddling runs, after) its
    go-live: priced as its `bridge` line (bridging.py, option_context.py)."""

    option: str  # the option whose capacity bridges
    start_day: float  # the bridge's first day (its ready day)
    go_live_day: float  # the bridged option's own ready day
    inputs: CostInputs  # the bridge's figures at its peak GPUs (price tier, nodes, storage)
    held_gpu_hours: np.ndarray  # (M,) GPU-hours hired, whole slots
    served_gpu_hours: np.ndarray  # (M,) GPU-hours of work it serves
    #: runs and jobs released before the go-live it took, and those left waiting for the go-live
    #: within their maximum wait (bridging.py)
    runs: int = 0
    runs_waiting: int = 0


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
    #: (M,) a per-use option's billed GPU-hours: its GPUs in use in whole cloud instances
    #: (models/portfolio/in_use.py instance_gpu_hours); None: billed as served
    billed_gpu_hours: np.ndarray | None = None
    #: the day its provisioning (a hybrid's: its base's) starts: 0, or later for work that starts
    #: later (`Planner.ready`); its timeline is shown from then
    order_day: float = 0.0
    #: whether its waits meet every workload's max_wait_days, and who waits longer (set on the
    #: chosen plan, Planner._completed; None on a candidate)
    service: ServiceLevel | None = None
    #: the capacity hired by the hour that serves the work released before its go-live
    #: (bridging.py BridgePlan); None: not bridged
    bridge: BridgePlan | None = None


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
