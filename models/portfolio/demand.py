"""A portfolio's demand over the term: each workload sized by the core, then GPU-hours needed and
peak GPUs per month, by team and by kind, and the gang runs that need their whole GPU count at once.

Sizing (`SIZERS`, one function per kind of models/portfolio/workloads.py `WORKLOAD_KINDS`):
- pretrain: models/training/plan.py plan_training on the portfolio's GPU, with the scenario's execution
  plan and reliability inputs (`TrainingSettings`); a run holds `gpus` GPUs for its wall-clock
  `train_days` (goodput included);
- finetune: models/finetune/plan.py plan_finetune; a job holds `gpus` GPUs for `train_hours`;
- serve: models/serving/plan.py plan_serving at each month's traffic: GPUs = replicas × GPUs per
  replica, held every hour. The search is run where the traffic starts and ends and, while the two
  layouts differ, in between (bisection); months between two points with the same layout take
  the GPUs plan_serving gives that layout for the month's arrivals (serving.layout_gpus_by_rate: replicas
  at the utilisation the TTFT objective's percentile allows, or a split layout's two pools);
- steady: `gpus` held, `utilisation_pct` of their hours busy.

Demand per month is unconstrained: each run as if it started when released. GPU-hours of a month =
Σ gang GPUs × hours of the run inside the month + Σ flat GPUs × busy share × hours of the month;
peak GPUs = the most GPUs at once in the month (on a grid of SLOTS_PER_MONTH slots a month). Work
is demanded when it is released inside the term: a run released in the term counts whole (the part
after the term end is `beyond_term_gpu_hours`), a flat workload counts its months inside the term.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import ConfigDict, ValidationError

from models.errors import InputError
from models.finetune.plan import FinetuneInputs, plan_finetune
from models.finetune.savings import SAVINGS
from models.numbers import plural
from models.portfolio.workloads import (
    DEMAND_FIELD,
    GANG_RATE_FIELD,
    MAX_DEMAND_TERM_MULTIPLE,
    MAX_GPUS,
    Finetune,
    Pretrain,
    Serve,
    Steady,
    WorkloadBase,
    check_gpu,
    release_months,
)
from models.record import Record
from models.scenario import Cluster, Execution, ReliabilityInputs, Scenario, Workload
from models.serving.plan import (
    MIN_RPS,
    RPS_FLOOR,
    ServeInputs,
    ServePlan,
    layout_gpus_by_rate,
    plan_serving,
)
from models.training.plan import plan_training
from models.units import DAYS_PER_MONTH, HOURS_PER_MONTH

#: the simulation grid: slots a month (each DAYS_PER_MONTH / 30 ≈ 1.01 days)
SLOTS_PER_MONTH = 30
SLOT_DAYS = DAYS_PER_MONTH / SLOTS_PER_MONTH
SLOT_HOURS = HOURS_PER_MONTH / SLOTS_PER_MONTH


class Sizing(Record):
    """One workload as the core sized it. Gang kinds: GPUs per run and days per run; flat kinds:
    GPUs held in each month of the workload's duration and the busy share of their hours."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    gang: bool
    gpus_per_run: int = 0
    run_days: float = 0.0
    gpus_by_month: list[float] = []
    busy_fraction: float = 1.0
    #: how it was sized, in a buyer's words (e.g. "sized as one training run: 64 × H100-SXM for
    #: 15.9 days"; no function names: issue 32)
    basis: str = ""


class TrainingSettings(Record):
    """What a scenario says about how its training runs (Scenario.execution, .reliability), which
    every pre-training run of a portfolio is planned with: one software stack and one failure
    model for the whole cluster. Defaults: the Scenario's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    execution: Execution = Execution()
    reliability: ReliabilityInputs = ReliabilityInputs()

    @classmethod
    def of(cls, scenario: Scenario) -> TrainingSettings:
        return cls(execution=scenario.execution, reliability=scenario.reliability)

    def scenario(self, workload: Workload, cluster: Cluster) -> Scenario:
        """The one-run scenario plan_training is given for `workload` on `cluster` under these
        settings."""
        return Scenario(
            workload=workload,
            cluster=cluster,
            execution=self.execution,
            reliability=self.reliability,
        )

    def key(self) -> str:
        """The settings as one string (the sizing cache's key: the nested models are not hashable)."""
        return self.model_dump_json()


DEFAULT_TRAINING = TrainingSettings()


def _size_pretrain(w: Pretrain, gpu: str, training: TrainingSettings = DEFAULT_TRAINING) -> Sizing:
    workload = Workload(model=w.model, tokens=w.tokens, seq_len=w.seq_len, precision=w.precision)
    plan = plan_training(training.scenario(workload, Cluster(gpu=gpu, gpus=w.gpus)))
    return Sizing(
        kind=w.kind,
        gang=True,
        gpus_per_run=plan.gpus,
        run_days=plan.train_days,
        basis=f"sized as one training run: {plan.gpus:,} × {gpu} for {plan.train_days:.1f} days",
    )


def _size_finetune(w: Finetune, gpu: str, training: TrainingSettings = DEFAULT_TRAINING) -> Sizing:
    inp = FinetuneInputs(
        model=w.model,
        method=w.method,
        gpu=gpu,
        gpus=w.gpus,
        lora_rank=w.lora_rank,
        tokens=w.tokens,
        epochs=w.epochs,
        seq_len=w.seq_len,
        global_batch_seqs=w.global_batch_seqs,
        precision=w.precision,
        framework=w.framework,
        fp8_params=w.fp8_params,
        bf16_grads=w.bf16_grads,
        **{k: getattr(w, k) for k in SAVINGS},
    )
    plan = plan_finetune(inp)
    return Sizing(
        kind=w.kind,
        gang=True,
        gpus_per_run=plan.gpus,
        run_days=plan.train_hours / 24,
        basis=f"sized as one fine-tune: {plan.gpus:,} × {gpu} for {plan.train_hours:.1f} hours",
    )


def _size_serve(w: Serve, gpu: str, training: TrainingSettings = DEFAULT_TRAINING) -> Sizing:
    rps = w.rps_by_month()
    if max(rps) > 1e6:
        raise InputError(
            "growth_pct_per_month",
            f"traffic would reach {max(rps):,.0f} requests/s, over the 1,000,000 the serving "
            "model sizes; lower the growth or the duration",
        )
    if min(rps) < MIN_RPS:
        month = next(k for k, r in enumerate(rps) if r < MIN_RPS)
        raise InputError(
            "growth_pct_per_month",
            f"traffic would fall to {rps[month]:.3g} requests/s in month "
            f"{w.start_month + month}, under {RPS_FLOOR}; raise the growth or shorten the "
            "duration",
        )

    engine = w.engine_on(gpu)

    def inputs(r: float) -> ServeInputs:
        return ServeInputs(
            model=w.model,
            gpu=gpu,
            precision=w.precision,
            input_tokens=w.input_tokens,
            output_tokens=w.output_tokens,
            rps=r,
            ttft_ms=w.ttft_ms,
            tpot_ms=w.tpot_ms,
            slo_percentile=w.slo_percentile,
            prefill_decode=w.prefill_decode,
            engine=engine,
            engine_version=w.engine_version,
        )

    def layout(p: ServePlan) -> tuple:
        return (p.tp, p.ep, p.batch, p.prefill_decode)

    def gpus_with(p: ServePlan, lo: int, hi: int) -> list[int]:
        """Months lo..hi-1's GPUs on layout p, each sized for its arrivals; a month's own plan
        where p's layout cannot meet the TTFT objective at that rate."""
        sized = layout_gpus_by_rate(inputs(rps[lo]), p, rps[lo:hi])
        return [
            n if n is not None else plan(k).gpus for k, n in zip(range(lo, hi), sized, strict=True)
        ]

    plans: dict[int, ServePlan] = {}

    def plan(k: int) -> ServePlan:
        if k not in plans:
            plans[k] = plan_serving(inputs(rps[k]))
        return plans[k]

    gpus = [0] * len(rps)

    def fill(lo: int, hi: int) -> None:
        gpus[lo], gpus[hi] = plan(lo).gpus, plan(hi).gpus
        if hi - lo <= 1:
            return
        if layout(plan(lo)) == layout(plan(hi)):
            gpus[lo + 1 : hi] = gpus_with(plan(lo), lo + 1, hi)
            return
        mid = (lo + hi) // 2
        fill(lo, mid)
        fill(mid, hi)

    fill(0, len(rps) - 1)
    first = plan(0)
    return Sizing(
        kind=w.kind,
        gang=False,
        gpus_by_month=[float(g) for g in gpus],
        basis=f"sized as a service: TP{first.tp} replicas"
        + (" in prefill and decode pools" if first.prefill_decode == "split" else "")
        + f", {gpus[0]:,} → {gpus[-1]:,} GPUs over the term "
        f"(sized at {plural(len(plans), 'traffic level')})",
    )


def _size_steady(w: Steady, gpu: str, training: TrainingSettings = DEFAULT_TRAINING) -> Sizing:
    return Sizing(
        kind=w.kind,
        gang=False,
        gpus_by_month=[float(w.gpus)] * w.duration_months,
        busy_fraction=w.utilisation_pct / 100,
        basis=f"{w.gpus:,} GPUs at {w.utilisation_pct:g} %",
    )


#: One sizing function per workload kind (models/portfolio/workloads.py WORKLOAD_KINDS); each takes the
#: workload, the GPU and the scenario's TrainingSettings (which only pre-training uses).
SIZERS: dict[str, Callable[[WorkloadBase, str, TrainingSettings], Sizing]] = {
    "pretrain": _size_pretrain,
    "finetune": _size_finetune,
    "serve": _size_serve,
    "steady": _size_steady,
}


@functools.lru_cache(maxsize=512)
def _size_cached(w: WorkloadBase, gpu: str, training_key: str) -> Sizing:
    return SIZERS[w.kind](w, gpu, TrainingSettings.model_validate_json(training_key))


def size_workload(
    w: WorkloadBase,
    gpu: str,
    *,
    field: str = "workloads[0]",
    training: TrainingSettings = DEFAULT_TRAINING,
) -> Sizing:
    """The core's sizing of one workload on `gpu` with the scenario's `training` settings (cached:
    records are frozen). A problem the core finds raises InputError with the field under `field`,
    e.g. `workloads[3].gpus`."""
    check_gpu(gpu)
    try:
        return _size_cached(w, gpu, training.key())
    except InputError as exc:
        raise InputError(f"{field}.{exc.field}", f"{field} ({w.name}): {exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InputError(f"{field}.{where}", f"{field} ({w.name}): {where}: {err['msg']}") from None


class GangRuns(Record):
    """The gang runs of the term, one column each (a run or job needs `gpus` GPUs at once for
    `run_days`), in workload order then release order."""

    workload: list[int] = []  # index into Demand.workloads
    release_month: list[float] = []
    release_slot: list[int] = []
    gpus: list[int] = []
    run_days: list[float] = []

    def __len__(self) -> int:
        return len(self.workload)


class WorkloadDemand(Record):
    """One workload's demand over the term."""

    name: str
    team: str
    kind: str
    gang: bool
    basis: str
    demanded_gpu_hours: float
    runs: int  # gang runs released in the term (0 for flat kinds)
    gpus_per_run: int | None
    run_days: float | None
    #: flat kinds: GPUs held and GPUs' worth of work in each month of the term (0 outside it)
    held_gpus_by_month: list[float]
    busy_gpus_by_month: list[float]


class Demand(Record):
    """Monthly demand over a term, unconstrained (every run as if it started when released)."""

    months: int
    gpu: str
    gpu_hours: list[float]
    peak_gpus: list[float]
    gpu_hours_by_team: dict[str, list[float]]
    peak_gpus_by_team: dict[str, list[float]]
    gpu_hours_by_kind: dict[str, list[float]]
    peak_gpus_by_kind: dict[str, list[float]]
    #: all work released in the term: whole runs, flat months inside the term
    demanded_gpu_hours: float
    #: of which, runs that even started on release would finish after the term end
    beyond_term_gpu_hours: float
    workloads: list[WorkloadDemand]
    runs: GangRuns


def check_term(months: int) -> int:
    if not (isinstance(months, int) and 1 <= months <= 120):
        raise InputError("term.months", f"term must be 1 to 120 whole months, got {months!r}")
    return months


def check_gpu_months(
    workloads: Sequence[WorkloadBase], demanded: Sequence[float], months: int, field: str
) -> None:
    """A portfolio asks for at most MAX_DEMAND_TERM_MULTIPLE × what MAX_GPUS GPUs deliver over the
    term (GPU-hours / HOURS_PER_MONTH = GPU-months), checked before any capacity is priced. Too
    much raises InputError naming the field of the workload that asks for the most."""
    total = float(sum(demanded))
    cap = MAX_DEMAND_TERM_MULTIPLE * MAX_GPUS * months
    if total / HOURS_PER_MONTH <= cap:
        return
    i = max(range(len(demanded)), key=lambda j: demanded[j])
    name = DEMAND_FIELD[workloads[i].kind]
    raise InputError(
        f"{field}[{i}].{name}",
        f"{field}[{i}].{name}: the portfolio asks for {total / HOURS_PER_MONTH:,.0f} GPU-months"
        f" over its {months}-month term; allowed: at most {cap:,} ({MAX_DEMAND_TERM_MULTIPLE}×"
        f" what {MAX_GPUS:,} GPUs, the largest cluster the planner sizes, deliver in it)."
        f" {workloads[i].name} asks for the most ({demanded[i] / HOURS_PER_MONTH:,.0f}):"
        f" lower its {name}, its size or its duration",
    )


def derive_demand(
    workloads: Sequence[WorkloadBase],
    gpu: str,
    months: int,
    *,
    field: str = "workloads",
    training: TrainingSettings = DEFAULT_TRAINING,
) -> Demand:
    """Sizes each workload on `gpu` with the scenario's `training` settings (size_workload) and
    derives the term's demand."""
    sizings = [
        size_workload(w, gpu, field=f"{field}[{i}]", training=training)
        for i, w in enumerate(workloads)
    ]
    return demand_of(workloads, sizings, months, gpu=gpu, field=field)


def _check_starts(
    workloads: Sequence[WorkloadBase], sizings: Sequence[Sizing], months: int, field: str
) -> None:
    """One sizing per workload, and every workload starting inside the term (month 0 to months − 1)."""
    if len(workloads) != len(sizings):
        raise InputError(field, "one sizing per workload")
    for i, w in enumerate(workloads):
        if w.start_month >= months:
            raise InputError(
                f"{field}[{i}].start_month",
                f"{field}[{i}].start_month: {w.name} starts in month {w.start_month}, after the "
                f"{months}-month term (allowed: 0 to {months - 1})",
            )


def _add_gang(
    i: int,
    w: WorkloadBase,
    s: Sizing,
    g: list[int],
    months: int,
    field: str,
    hours: np.ndarray,
    gang_diff: np.ndarray,
    cols: dict[str, list],
) -> tuple[float, float, int]:
    """Adds workload i's gang runs released in the term to the rows `g`: to `hours` each run's
    gpus_per_run · 24 · days inside each month (a run starts on its release slot), to `gang_diff`
    +gpus_per_run at that slot and −gpus_per_run ceil(run_days / SLOT_DAYS) slots later, and the
    runs to `cols`. Returns (demanded GPU-hours = runs · gpus_per_run · run_days · 24, the GPU-hours
    after the term end, runs)."""
    slots = months * SLOTS_PER_MONTH
    edges = np.arange(months + 1) * DAYS_PER_MONTH
    try:
        released = release_months(w)
    except InputError as exc:
        raise InputError(f"{field}[{i}].{exc.field}", f"{field}[{i}].{exc}") from None
    rel = np.array([m for m in released if m < months])
    slot0 = np.minimum(np.round(rel * SLOTS_PER_MONTH).astype(int), slots - 1)
    start_day = slot0 * SLOT_DAYS
    end_day = start_day + s.run_days
    inside = np.clip(
        np.minimum(end_day[:, None], edges[None, 1:])
        - np.maximum(start_day[:, None], edges[None, :-1]),
        0,
        None,
    )
    w_hours = inside.sum(axis=0) * s.gpus_per_run * 24
    total = len(rel) * s.gpus_per_run * s.run_days * 24
    hours[g] += w_hours
    beyond = s.gpus_per_run * 24 * np.clip(end_day - edges[-1], 0, None).sum()
    n_slots = max(1, math.ceil(s.run_days / SLOT_DAYS - 1e-9))
    for key in g:
        np.add.at(gang_diff[key], slot0, s.gpus_per_run)
        np.add.at(gang_diff[key], np.minimum(slot0 + n_slots, slots), -s.gpus_per_run)
    cols["workload"] += [i] * len(rel)
    cols["release_month"] += rel.tolist()
    cols["release_slot"] += slot0.tolist()
    cols["gpus"] += [s.gpus_per_run] * len(rel)
    cols["run_days"] += [s.run_days] * len(rel)
    return total, beyond, len(rel)


def _add_flat(
    i: int,
    w: WorkloadBase,
    s: Sizing,
    g: list[int],
    months: int,
    field: str,
    hours: np.ndarray,
    flat_held: np.ndarray,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Adds a flat workload's months inside the term to the rows `g`: GPUs held (its sizing's
    gpus_by_month from its start month) to `flat_held`, held × busy_fraction × HOURS_PER_MONTH to
    `hours`. Returns (demanded GPU-hours, GPUs held and busy GPUs in each month of the term)."""
    held = np.zeros(months)
    lo, hi = w.start_month, min(w.end_month, months)
    if len(s.gpus_by_month) < hi - lo:
        raise InputError(f"{field}[{i}]", f"{w.name}: its sizing gives fewer months than it runs")
    held[lo:hi] = s.gpus_by_month[: hi - lo]
    busy = held * s.busy_fraction
    total = float(busy.sum() * HOURS_PER_MONTH)
    hours[g] += busy * HOURS_PER_MONTH
    flat_held[g] += held
    return total, held, busy


def demand_of(
    workloads: Sequence[WorkloadBase],
    sizings: Sequence[Sizing],
    months: int,
    *,
    gpu: str = "",
    field: str = "workloads",
) -> Demand:
    """The term's monthly demand from workloads and their sizings (no call into the core): GPU-hours
    and peak GPUs per month, overall, by team and by kind (gang runs: _add_gang, flat workloads:
    _add_flat; peak = the most gang GPUs at once on the slot grid + the flat GPUs held)."""
    check_term(months)
    _check_starts(workloads, sizings, months, field)
    slots = months * SLOTS_PER_MONTH
    teams = sorted({w.team for w in workloads})
    kinds = sorted({w.kind for w in workloads})
    n_groups = 1 + len(teams) + len(kinds)  # row 0: all; then teams; then kinds

    def groups(w: WorkloadBase) -> list[int]:
        return [0, 1 + teams.index(w.team), 1 + len(teams) + kinds.index(w.kind)]

    hours = np.zeros((n_groups, months))
    flat_held = np.zeros((n_groups, months))
    gang_diff = np.zeros((n_groups, slots + 1))
    cols: dict[str, list] = {k: [] for k in GangRuns.model_fields}
    out: list[WorkloadDemand] = []
    beyond = 0.0
    demanded = 0.0
    for i, (w, s) in enumerate(zip(workloads, sizings, strict=True)):
        g = groups(w)
        held = np.zeros(months)
        busy = np.zeros(months)
        runs = 0
        if s.gang:
            total, after, runs = _add_gang(i, w, s, g, months, field, hours, gang_diff, cols)
            beyond += after
        else:
            total, held, busy = _add_flat(i, w, s, g, months, field, hours, flat_held)
        demanded += total
        out.append(
            WorkloadDemand(
                name=w.name,
                team=w.team,
                kind=w.kind,
                gang=s.gang,
                basis=s.basis,
                demanded_gpu_hours=float(total),
                runs=runs,
                gpus_per_run=s.gpus_per_run if s.gang else None,
                run_days=s.run_days if s.gang else None,
                held_gpus_by_month=held.tolist(),
                busy_gpus_by_month=busy.tolist(),
            )
        )
    check_gpu_months(workloads, [w.demanded_gpu_hours for w in out], months, field)
    gang_peak = np.cumsum(gang_diff, axis=1)[:, :slots].reshape(n_groups, months, -1).max(axis=2)
    peak = gang_peak + flat_held

    def named(rows: np.ndarray, names: list[str], offset: int) -> dict[str, list[float]]:
        return {n: rows[offset + j].tolist() for j, n in enumerate(names)}

    return Demand(
        months=months,
        gpu=gpu,
        gpu_hours=hours[0].tolist(),
        peak_gpus=peak[0].tolist(),
        gpu_hours_by_team=named(hours, teams, 1),
        peak_gpus_by_team=named(peak, teams, 1),
        gpu_hours_by_kind=named(hours, kinds, 1 + len(teams)),
        peak_gpus_by_kind=named(peak, kinds, 1 + len(teams)),
        demanded_gpu_hours=float(demanded),
        beyond_term_gpu_hours=float(beyond),
        workloads=out,
        runs=GangRuns.model_construct(**cols),
    )


__all__ = [
    "GANG_RATE_FIELD",
    "SIZERS",
    "SLOTS_PER_MONTH",
    "SLOT_DAYS",
    "SLOT_HOURS",
    "Demand",
    "GangRuns",
    "Sizing",
    "TrainingSettings",
    "WorkloadDemand",
    "check_gpu_months",
    "demand_of",
    "derive_demand",
    "size_workload",
]
