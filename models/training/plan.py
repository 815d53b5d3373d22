"""scenario -> training plan: the one entry point the CLI, the portal, the PDF and the tests call.

It sizes the cluster (fixed count, deadline, or the efficient size), picks the fastest fitting
layout, turns step time into ideal days, stretches them by goodput into the steady-state run's
days and by the whole-run factor into the whole-run expectation (models/training/whole_run.py),
and sizes what the cluster needs around the GPUs (checkpoint storage, dataset read rate, fabric).
"""

from __future__ import annotations

import functools
import math
import time
from typing import Literal

from pydantic import ConfigDict

from models.errors import InputError
from models.hardware import GpuSpec, get_gpu
from models.infrastructure import FabricPlan, dataset_read_gbyte_per_s, size_fat_tree
from models.record import Record
from models.scenario import MAX_GPUS, Scenario
from models.training.job import Job
from models.training.reliability import ReliabilityPlan, plan_reliability
from models.training.search import LayoutChoice, NoFittingLayout, best_layout
from models.training.sizing import (
    SCALING_WARN_GAIN,
    DeadlineError,
    dominant_loss,
    doubling_gain,
    efficient_beside_chosen,
    efficient_size,
    gpu_ladder,
    meet_deadline,
    min_gpus_lower_bound,
    scaling_efficiencies,
    smallest_fitting,
)
from models.training.whole_run import RunFeatures, days_range, needs_steady_state, whole_run_factor
from models.training.whole_run import size_class as size_class  # the band's class, by active params
from models.units import BYTES_PER_TB, BYTES_PER_TOKEN, SECONDS_PER_DAY


class CurvePoint(Record):
    gpus: int
    step_time_s: float
    mfu: float
    ideal_days: float
    train_days: float
    gpu_hours: float
    scaling_efficiency: float  # fewest GPU-hours on the curve / this point's (at most 1)


class EfficientSize(Record):
    """The efficient size beside the chosen count (models/training/sizing.py efficient_beside_chosen): the
    largest count on the time-vs-GPUs curve, up to the chosen one, whose scaling efficiency is at
    least sizing.EFFICIENT_SCALING, and what the GPUs beyond it buy."""

    gpus: int
    train_days: float
    scaling_efficiency: float
    #: the chosen count's scaling efficiency, on the same curve
    chosen_scaling_efficiency: float
    #: days of one run saved per extra 1,000 GPUs going from this size to the chosen count; None
    #: when the chosen count is the efficient size
    marginal_days_per_1000_gpus: float | None
    #: the count below the chosen one on the curve, its days, and the days saved per extra 1,000
    #: GPUs on that last step to the chosen count (None when the chosen count is the first)
    previous_gpus: int | None = None
    previous_train_days: float | None = None
    previous_marginal_days_per_1000_gpus: float | None = None


class ScalingNote(Record):
    """What the chosen GPU count buys over half of it at the same global batch (one more layout
    search at G/2; models/training/sizing.py doubling_gain, SCALING_WARN_GAIN, dominant_loss)."""

    gpus: int
    half_gpus: int
    tokens_per_s: float
    half_tokens_per_s: float
    #: tokens/s(G) / tokens/s(G/2) − 1; negative where the larger count is slower (at a fixed
    #: global batch, a small model on many GPUs: its fixed per-step costs outweigh the halved compute)
    gain: float
    #: the gain is below `warn_below` (sizing.SCALING_WARN_GAIN): the doubling buys little
    warns: bool
    warn_below: float
    #: the largest lost-time part of the chosen layout's step (a step_breakdown_s key, e.g.
    #: "pipeline_bubble") and its share of the step, and that part's share at half the count
    dominant_loss: str
    dominant_loss_share: float
    half_dominant_loss_share: float


class ModelSummary(Record):
    """The model's shape as the plan used it."""

    name: str
    params: int | float  # a preset's exact count, or a custom model's as given
    active_params: int | float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn_hidden: int
    experts: int
    experts_per_token: int
    vocab: int


class Layout(Record):
    """The chosen parallel layout (Layouts.row): degrees, ZeRO stage, recompute mode, batch."""

    tp: int
    pp: int
    dp: int
    ep: int
    zero: int
    recompute: str
    micro_batch: int
    interleave: int
    sequence_parallel: bool
    microbatches: int
    global_batch_seqs: int
    #: context-parallel degree (1: none); tp·cp·pp·dp = GPUs
    cp: int = 1


class Checkpoint(Record):
    size_gib: float
    interval_min: float
    write_s: float
    write_bandwidth_gbyte_per_s: float


class StorageNeeds(Record):
    """What the file system must hold and sustain for this run."""

    checkpoint_write_gbyte_per_s_needed: float
    dataset_read_mbyte_per_s: float
    dataset_tb: float


class SearchStats(Record):
    layouts_evaluated: int
    layouts_fitting: int
    seconds: float


class TrainingPlan(Record):
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelSummary
    gpu: str
    gpus: int
    sizing: str  # "fixed", "deadline", "efficient size" or "smallest that fits"
    min_gpus: int | None
    layout: Layout
    #: the execution plan it was sized for (Scenario.execution)
    execution: dict = {}
    memory_gib_per_gpu: dict[str, float]
    memory_capacity_gib: float
    step_time_s: float
    step_breakdown_s: dict[str, float]
    #: share of the step that does not shrink with the per-GPU work: the fixed per-step costs plus
    #: the small-GEMM slowdown (models/training/small_gemm.py; docs/reference/training.md 7)
    small_model_share: float = 0.0
    global_batch_tokens: int
    steps: int
    mfu: float
    model_tflops_per_gpu: float
    tokens_per_s: float
    ideal_days: float
    goodput: float
    #: the whole-run expectation a buyer pays for (steady_days × whole_run_factor): what sizing,
    #: deadlines, timelines and costs use (models/training/whole_run.py)
    train_days: float
    gpu_hours: float
    #: the steady-state run: the chosen layout's step time × steps, stretched by the modelled goodput
    steady_days: float
    steady_gpu_hours: float
    #: whole-run over steady-state time, F(N_active, G) fitted on published whole runs
    whole_run_factor: float
    #: the band's size class, by the model's active parameters
    size_class: str
    checkpoint: Checkpoint
    reliability: ReliabilityPlan
    storage: StorageNeeds
    fabric: FabricPlan
    search: SearchStats
    curve: list[CurvePoint] | None = None
    #: the efficient size beside the chosen count (filled with a curve, and always for a deadline:
    #: the fewest GPUs that meet it can sit far past the point where more GPUs buy little)
    efficient: EfficientSize | None = None
    #: likely wall-clock days: the whole-run expectation's leave-one-out errors on published whole
    #: runs of the model's active-size class (models/training/whole_run.py days_range)
    train_days_low: float | None = None
    train_days_high: float | None = None
    #: the chosen count against half of it (None where half is not a count with a fitting layout)
    scaling: ScalingNote | None = None
    #: deadline sizing: the wall-clock training days the GPU count was sized to fit (the deadline,
    #: or what the caller left of it, e.g. the engine after provisioning); None otherwise
    train_days_budget: float | None = None


def _efficient(points: list[CurvePoint] | None, chosen: int) -> EfficientSize | None:
    """The efficient size beside the chosen count on a curve (None without one)."""
    if not points:
        return None
    found = efficient_beside_chosen(
        [(p.gpus, p.train_days) for p in points], [p.scaling_efficiency for p in points], chosen
    )
    return None if found is None else EfficientSize(**found)


def _scaling(planner: Planner, choice: LayoutChoice) -> ScalingNote | None:
    """The chosen count against half of it (None where the count is odd or no layout fits half)."""
    half = choice.gpus // 2
    if choice.gpus % 2 or half < 1:
        return None
    try:
        other = planner.choose(half)
    except NoFittingLayout:
        return None
    gain = doubling_gain(choice.tokens_per_s, other.tokens_per_s)
    part, share = dominant_loss(choice.step_s)
    return ScalingNote(
        gpus=choice.gpus,
        half_gpus=half,
        tokens_per_s=choice.tokens_per_s,
        half_tokens_per_s=other.tokens_per_s,
        gain=gain,
        warns=gain < SCALING_WARN_GAIN,
        warn_below=SCALING_WARN_GAIN,
        dominant_loss=part,
        dominant_loss_share=share,
        half_dominant_loss_share=other.step_s[part] / other.step_s["total"],
    )


class Planner:
    """Plans for one scenario; remembers each GPU count's layout search."""

    def __init__(self, scenario: Scenario, whole_run: bool = True):
        """`whole_run`: days are the whole-run expectation (steady state × whole_run_factor), what
        sizing, deadlines and costs use; False: the steady state alone (what the whole-run factor
        was fitted against, models/validation/whole_run.py)."""
        self.scenario = scenario
        self.whole_run = whole_run
        self.workload = scenario.workload
        self.shape = self.workload.shape()
        self.gpu: GpuSpec = get_gpu(scenario.cluster.gpu)
        if self.workload.precision == "fp8" and self.gpu.fp8_dense_tflops is None:
            raise InputError("precision", f"{self.gpu.gpu_id} has no FP8 tensor cores; use bf16")
        self.batch_seqs = self.workload.global_batch_seqs()
        self.ladder = gpu_ladder(self.gpu.gpus_per_node, MAX_GPUS)
        self.lower_bound = min_gpus_lower_bound(self.shape.params_total, self.gpu.memory_gib)
        self.choose = functools.lru_cache(maxsize=None)(self._choose)

    def job(self, gpus: int) -> Job:
        w = self.workload
        return Job(
            self.shape,
            self.gpu,
            w.seq_len,
            self.batch_seqs,
            w.precision,
            **self.scenario.execution.job_options(),
        )

    def _choose(self, gpus: int) -> LayoutChoice:
        return best_layout(self.job(gpus), gpus)

    def steps(self, gpus: int) -> int:
        batch = self.choose(gpus).layout["global_batch_seqs"]
        return math.ceil(self.workload.tokens / (batch * self.workload.seq_len))

    def reliability(self, choice: LayoutChoice) -> ReliabilityPlan:
        r = self.scenario.reliability
        try:
            return plan_reliability(
                choice.gpus,
                self.shape.params_total,
                self.steps(choice.gpus) * choice.step_time_s,
                failures_per_gpu_day=r.failures_per_gpu_day or self.gpu.failures_per_gpu_day,
                restart_s=r.restart_minutes * 60,
                write_bandwidth_gbyte_per_s=r.storage_write_gbyte_per_s,
            )
        except (
            ValueError
        ) as exc:  # goodput ~ 0: failures arrive faster than checkpoints and restarts
            field = (
                "reliability.storage_write_gbyte_per_s"
                if r.storage_write_gbyte_per_s
                else "reliability"
            )
            raise InputError(
                field, f"training could never finish on {choice.gpus:,} GPUs: {exc}"
            ) from None

    def steady_days(self, gpus: int) -> tuple[float, LayoutChoice]:
        """Steady-state wall-clock days: step time × steps stretched by the modelled goodput."""
        choice = self.choose(gpus)
        return self.reliability(choice).wall_clock_s / SECONDS_PER_DAY, choice

    def factor(self, gpus: int) -> float:
        """Whole-run over steady-state time at this count (1 with whole_run off): F of what the plan
        knows there (RunFeatures: active parameters, the count, the software stack, and, where the
        committed form uses them, the steady state's MFU and days at this count)."""
        if not self.whole_run:
            return 1.0
        stack = self.scenario.execution.software_stack
        run = RunFeatures(self.shape.params_active, gpus, stack=stack, gpu=self.gpu.gpu_id)
        if needs_steady_state():
            days, choice = self.steady_days(gpus)
            run = run._replace(mfu=choice.mfu, steady_days=days)
        return whole_run_factor(run)

    def wall_days(self, gpus: int) -> tuple[float, LayoutChoice]:
        """The days sizing and costs use: the whole-run expectation (steady days × factor)."""
        days, choice = self.steady_days(gpus)
        return days * self.factor(gpus), choice

    def smallest(self) -> LayoutChoice:
        try:
            return smallest_fitting(self.choose, self.ladder, self.lower_bound)
        except NoFittingLayout:
            raise InputError(
                "gpus", f"{self.shape.name} does not fit on up to {MAX_GPUS:,} {self.gpu.gpu_id}"
            ) from None

    def efficient(self) -> LayoutChoice:
        """The planner's size for a buyer who gives neither a GPU count nor a deadline: the efficient
        size (sizing.efficient_size, EFFICIENT_SCALING) on the curve of power-of-two node counts from
        the smallest that fits to MAX_GPUS, i.e. the largest count whose run costs at most 1/0.8 of
        the fewest GPU-hours on that curve. Counts with no fitting layout (the batch no longer
        splits) are skipped. The curve is the steady state's: scaling efficiency is the physics'
        (the whole-run factor's growth with the GPU count is a fitted correction, not a scaling
        law: on it alone the efficient size would be about 6× the smallest count)."""
        start = self.smallest().gpus
        node = self.gpu.gpus_per_node
        counts = sorted({start} | {node << i for i in range(20) if start < node << i <= MAX_GPUS})
        points = []
        for n in counts:
            try:
                days, _ = self.steady_days(n)
            except NoFittingLayout:
                continue
            points.append((n, days))
        effs = scaling_efficiencies([d * 24 * n for n, d in points])
        return self.choose(efficient_size(points, effs) or start)

    def fixed(self, gpus: int) -> LayoutChoice:
        try:
            return self.choose(gpus)
        except NoFittingLayout:
            pass
        smallest = self.smallest()
        if gpus < smallest.gpus:
            raise InputError("gpus", f"needs at least {smallest.gpus} {self.gpu.gpu_id}")
        near = [n for n in self.ladder if n >= gpus]
        for n in near[:8]:
            try:
                self.choose(n)
            except NoFittingLayout:
                continue
            raise InputError(
                "gpus",
                f"{gpus} GPUs cannot split a batch of {self.batch_seqs} sequences "
                f"into a layout that fits; try {n}",
            )
        raise InputError("gpus", f"no layout fits on {gpus} {self.gpu.gpu_id}")

    def curve(self, chosen: int, up_to_chosen: bool = False) -> list[CurvePoint]:
        """Training time against GPU count, from 1/16 of the chosen count (or the smallest that
        fits) to 8× the chosen count (to the chosen count with `up_to_chosen`): whole-run days and
        GPU-hours, the steady state's scaling efficiency."""
        start = max(self.smallest().gpus, chosen // 16)
        top = chosen if up_to_chosen else min(MAX_GPUS, 8 * chosen)
        # power-of-two node counts (how clusters are usually grown), plus the chosen count
        node = self.gpu.gpus_per_node
        keep = {node << i for i in range(20) if start <= node << i <= top} | {chosen}
        if len(keep) < 3:
            keep |= {n for n in self.ladder if start <= n <= top}
        points: list[CurvePoint] = []
        steady_hours: list[float] = []  # scaling efficiency: the steady state's (see efficient)
        for n in sorted(keep):
            try:
                steady, choice = self.steady_days(n)
            except NoFittingLayout:
                continue
            days = steady * self.factor(n)
            steady_hours.append(steady * 24 * n)
            ideal = self.steps(n) * choice.step_time_s / SECONDS_PER_DAY
            points.append(
                CurvePoint(
                    gpus=n,
                    step_time_s=choice.step_time_s,
                    mfu=choice.mfu,
                    ideal_days=ideal,
                    train_days=days,
                    gpu_hours=days * 24 * n,
                    scaling_efficiency=0.0,
                )
            )
        effs = scaling_efficiencies(steady_hours)
        return [
            p.model_copy(update={"scaling_efficiency": e})
            for p, e in zip(points, effs, strict=True)
        ]


def plan_training(
    scenario: Scenario,
    *,
    curve: bool = False,
    train_days_budget: float | None = None,
    unsized: Literal["efficient", "smallest"] = "efficient",
) -> TrainingPlan:
    """Sizes and plans one run. With a deadline (cluster.deadline_days) the GPU count is the fewest
    whose wall-clock training days fit `train_days_budget`: the deadline itself unless the caller
    passes less (pricing/engine.py passes the deadline less provisioning). With neither a count
    nor a deadline, `unsized`: the efficient size (`Planner.efficient`, the rule the Guide
    advises; the smallest count that fits is kept beside it as `min_gpus`), or the smallest that
    fits (a portfolio's representative fine-tune: one full-parameter run of its tokens, sizing
    storage and checkpoints)."""
    start = time.perf_counter()
    planner = Planner(scenario)
    cluster = scenario.cluster
    min_gpus = budget = None
    if cluster.gpus is not None:
        choice, sizing = planner.fixed(cluster.gpus), "fixed"
        min_gpus = planner.smallest().gpus  # what the Guide and reports compare the typed count to
    elif cluster.deadline_days is not None:
        smallest = planner.smallest()
        min_gpus = smallest.gpus
        budget = cluster.deadline_days if train_days_budget is None else train_days_budget
        try:
            _, _, choice = meet_deadline(planner.wall_days, planner.ladder, smallest.gpus, budget)
        except DeadlineError as exc:
            target = (
                f"{cluster.deadline_days:g} days"
                if budget == cluster.deadline_days
                else f"{budget:.1f} days of training (of a {cluster.deadline_days:g}-day deadline)"
            )
            raise InputError(
                "deadline_days",
                f"{target} cannot be met on {planner.gpu.gpu_id}: the fastest is "
                f"{exc.days:.1f} days on {exc.gpus:,} GPUs",
            ) from None
        sizing = "deadline"
    elif unsized == "smallest":
        choice = planner.smallest()
        min_gpus, sizing = choice.gpus, "smallest that fits"
    else:
        min_gpus = planner.smallest().gpus
        choice, sizing = planner.efficient(), "efficient size"
    plan = _assemble(planner, choice, sizing, min_gpus, curve, start)
    return plan if budget is None else plan.model_copy(update={"train_days_budget": budget})


def _model_summary(shape) -> ModelSummary:
    return ModelSummary(
        name=shape.name,
        params=shape.params_total,
        active_params=shape.params_active,
        layers=shape.layers,
        hidden=shape.hidden,
        heads=shape.heads,
        kv_heads=shape.kv_heads,
        ffn_hidden=shape.ffn_hidden,
        experts=shape.experts,
        experts_per_token=shape.experts_per_token,
        vocab=shape.vocab,
    )


def _assemble(
    planner: Planner, choice: LayoutChoice, sizing, min_gpus, curve, start
) -> TrainingPlan:
    shape, gpu, w = planner.shape, planner.gpu, planner.workload
    rel = planner.reliability(choice)
    steps = planner.steps(choice.gpus)
    ideal_days = steps * choice.step_time_s / SECONDS_PER_DAY
    steady_days = rel.wall_clock_s / SECONDS_PER_DAY
    factor = planner.factor(choice.gpus)
    train_days = steady_days * factor
    low_days, high_days = days_range(train_days, shape.params_active)
    fabric = size_fat_tree(
        choice.gpus,
        min(gpu.gpus_per_node, choice.gpus),
        nic_gbit_per_s=gpu.scaleout_bandwidth_gbit_per_s,
    )
    memory = dict(choice.memory_gib)
    points = planner.curve(choice.gpus) if curve else None
    if points is None and sizing == "deadline":
        points_for_size = planner.curve(choice.gpus, up_to_chosen=True)
    else:
        points_for_size = points
    scaling = _scaling(planner, choice)  # before search.seconds: the time counts the extra search

    return TrainingPlan(
        model=_model_summary(shape),
        gpu=gpu.gpu_id,
        gpus=choice.gpus,
        sizing=sizing,
        min_gpus=min_gpus,
        layout=Layout(**choice.layout),
        execution=planner.scenario.execution.model_dump(),
        memory_gib_per_gpu=memory,
        memory_capacity_gib=gpu.memory_gib,
        step_time_s=choice.step_time_s,
        step_breakdown_s=choice.step_s,
        small_model_share=(choice.step_s["fixed_per_step"] + choice.step_s["small_gemm"])
        / choice.step_time_s,
        global_batch_tokens=choice.layout["global_batch_seqs"] * w.seq_len,
        steps=steps,
        mfu=choice.mfu,
        model_tflops_per_gpu=choice.model_tflops_per_gpu,
        tokens_per_s=choice.tokens_per_s,
        ideal_days=ideal_days,
        goodput=rel.goodput,
        train_days=train_days,
        gpu_hours=train_days * 24 * choice.gpus,
        steady_days=steady_days,
        steady_gpu_hours=steady_days * 24 * choice.gpus,
        whole_run_factor=factor,
        size_class=size_class(shape.params_active),
        checkpoint=Checkpoint(
            size_gib=rel.checkpoint_size_gib,
            interval_min=rel.checkpoint_interval_s / 60,
            write_s=rel.checkpoint_write_s,
            write_bandwidth_gbyte_per_s=rel.write_bandwidth_gbyte_per_s,
        ),
        reliability=rel,
        storage=StorageNeeds(
            checkpoint_write_gbyte_per_s_needed=rel.required_write_bandwidth_gbyte_per_s,
            dataset_read_mbyte_per_s=dataset_read_gbyte_per_s(choice.tokens_per_s) * 1e3,
            dataset_tb=w.tokens * BYTES_PER_TOKEN / BYTES_PER_TB,
        ),
        fabric=fabric,
        search=SearchStats(
            layouts_evaluated=choice.layouts_evaluated,
            layouts_fitting=choice.layouts_fitting,
            seconds=time.perf_counter() - start,
        ),
        curve=points,
        efficient=_efficient(points_for_size, choice.gpus),
        scaling=scaling,
        train_days_low=low_days,
        train_days_high=high_days,
    )
